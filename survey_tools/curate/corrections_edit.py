"""``survey corrections --settle ID``: bring a stale correction in line with its record.

A correction names the value it corrects (``current``). When the record changes, the correction is
stale and the build stops. Settling it edits ``data/corrections.yaml`` (comments and layout kept):
the entry is removed when the record now carries the proposed value (the correction was applied),
else its ``current`` becomes the record's value (the proposal still stands against it).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.scalarstring import SingleQuotedScalarString

from survey_tools.corpus.loading import load_corpus
from survey_tools.errors import UsageError
from survey_tools.fileio import atomic_write
from survey_tools.reports.axes import get_path, plain_str
from survey_tools.reports.corrections import load_corrections


def _same(a: Any, b: Any) -> bool:
    return a == b or (a is not None and b is not None and plain_str(a) == plain_str(b))


def settle(root: Path | str, correction_id: str) -> str:
    """Settle the stale correction ``correction_id``; return what was done, in one line."""
    root = Path(root)
    corpus = load_corpus(root)
    loaded = load_corrections(corpus.taxonomy)
    if loaded is None:
        raise UsageError("this survey has no corrections file")
    rel, entries = loaded
    found = next((c for c in entries if c.id == correction_id), None)
    if found is None:
        raise UsageError(f"no correction {correction_id!r} in {rel} (ids: {', '.join(c.id for c in entries)})")
    records = {r.id: r for r in corpus}
    rec = records.get(found.record)
    if rec is None:
        raise UsageError(f"correction {correction_id} names no record ({found.record!r}); remove it from {rel}")
    now = get_path(rec.data, found.field)
    if _same(now, found.current):
        raise UsageError(f"correction {correction_id} is not stale: {rec.path} still has {found.field} = {now!r}")
    y = YAML()
    y.preserve_quotes = True
    y.width = 4096
    # `null` stays `null` (ruamel would write nothing), so untouched entries keep their bytes
    y.representer.add_representer(
        type(None), lambda r, _: r.represent_scalar("tag:yaml.org,2002:null", "null"))
    doc = y.load((root / rel).read_text(encoding="utf-8"))
    items = doc["corrections"]
    index = next(i for i, c in enumerate(items) if str(c.get("id")) == correction_id)
    if _same(now, found.proposed):
        del items[index]
        message = f"removed correction {correction_id} from {rel}: {rec.path} carries its proposed value"
    else:
        # quoted: a bare yes/no/on would read back as a boolean in YAML 1.1
        items[index]["current"] = SingleQuotedScalarString(now) if isinstance(now, str) else now
        message = f"correction {correction_id}: current is now {now!r}, the value {rec.path} has"
    buf = io.StringIO()
    y.dump(doc, buf)
    atomic_write(root / rel, buf.getvalue())
    return message
