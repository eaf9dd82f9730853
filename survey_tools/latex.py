"""TeX escapes in metadata turned into the characters they print, for every non-BibTeX output.

Records keep names and titles as their sources give them, and BibTeX-derived metadata carries
TeX accents (``Balunovi\\'{c}``, ``Tram\\`{e}r``). BibTeX wants them; a README, the browsing
page, the ASReview CSV, RIS and the CSV exports show text, so they pass display values through
:func:`plain_text`. The decoding is pylatexenc's (the library bibtexparser's own LaTeX
middleware uses), not a table of our own.

Only text with a backslash is decoded: plain titles (``50% faster``, ``A -- B``, ``~``) are
returned unchanged, since TeX would read ``%`` as a comment and ``--`` as a dash.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any

# A % that is not already escaped: TeX would drop the rest of the line as a comment.
_BARE_PERCENT = re.compile(r"(?<!\\)%")


@lru_cache(maxsize=2)
def _decoder(math_mode: str) -> Any:
    # pylatexenc is loaded the first time a text with a backslash is decoded: `survey validate`
    # (every pull request) names a TeX accent in a record's words through it, and so pays for
    # it only when a record holds one.
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(math_mode=math_mode, strict_latex_spaces=True)


def _decode(text: str, math_mode: str) -> str:
    out = _decoder(math_mode).latex_to_text(_BARE_PERCENT.sub(r"\\%", text))
    return unicodedata.normalize("NFC", out.replace("\xa0", " "))


@lru_cache(maxsize=4096)
def plain_text(text: str) -> str:
    """``Balunovi\\'{c}, Mislav`` -> ``Balunović, Mislav``; text without a backslash is unchanged."""
    if "\\" not in text:
        return text
    return _decode(text, "verbatim")


def bibtex_text(text: str) -> str:
    """A BibTeX value as the text it prints, math too: a list's title ``$\\Delta\\Sigma$
    modulators`` reads "ΔΣ modulators" (:func:`plain_text` keeps math as TeX source, since a
    record's text may hold a bare ``$``)."""
    if "\\" not in text and "$" not in text:
        return text
    return _decode(text, "text")


__all__ = ["bibtex_text", "plain_text"]
