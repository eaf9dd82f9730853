"""What is published from a record: its values cleaned the way its warnings say.

A record can be right in substance and written in a form that readers should not get: an
``http://`` link to a host that serves https, a link carrying tracking parameters
(``utm_source``, ``fbclid``: corpus/link_rules.yaml), accents typed decomposed (a letter and a
combining mark, as macOS copies them). Such a record is not refused: `survey validate` warns
(errors.WARNING) with the line to write, and every output (README, CSV, site, BibTeX, exports)
is drawn from the cleaned values made here when the record is read, so no output can publish
the form the warning names. TeX accents stay in the record (BibTeX wants them) and are decoded
for every other output by render.model.display.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from survey_tools.corpus.checks import cleaned_link, record_texts
from survey_tools.corpus.taxonomy import Collection

_LINK_TYPES = ("url", "url_list")


def _composed(value: Any) -> Any:
    """``value`` with its texts in NFC: the very object when it already is (no copy)."""
    if isinstance(value, str):
        return value if unicodedata.is_normalized("NFC", value) else unicodedata.normalize("NFC", value)
    if isinstance(value, dict):
        items = [(_composed(k), _composed(v)) for k, v in value.items()]
        same = all(a is k and b is v for (a, b), (k, v) in zip(items, value.items(), strict=True))
        return value if same else dict(items)
    if isinstance(value, list):
        new = [_composed(v) for v in value]
        return value if all(a is b for a, b in zip(new, value, strict=True)) else new
    return value


def _link(value: Any) -> Any:
    if isinstance(value, str):
        return cleaned_link(value)
    if isinstance(value, list):
        return [cleaned_link(v) if isinstance(v, str) else v for v in value]
    return value


def published_data(coll: Collection, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with every text composed (NFC) and every link field cleaned (cleaned_link);
    ``data`` itself when nothing changes (the common case costs no copy)."""
    # Nearly every record is composed already: asked of its strings joined by a space (a
    # character that composes with none, so the joined text is NFC exactly when each string is),
    # one call instead of a walk building a copy to compare (575,000 calls at 10k records).
    out = data if unicodedata.is_normalized("NFC", " ".join(record_texts(data))) else _composed(data)
    for f in coll.fields:
        if f.type in _LINK_TYPES and f.name in out:
            link = _link(out[f.name])
            if link != out[f.name]:
                out = {**out, f.name: link}
    return out
