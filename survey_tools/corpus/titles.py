"""Titles compared as people read them: case, accents, LaTeX and punctuation do not count."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_LATEX_COMMAND = re.compile(r"\\[a-zA-Z]+\s*")
_NON_WORD = re.compile(r"[^\w\s]")
# Longer titles are not compared at all (normalised to ""): similarity is quadratic in length,
# and three records with 1 MB titles took minutes. The schema reports such a title as too long;
# this keeps every matcher bounded even for input that was not validated first.
COMPARED_CHARS = 1_000


@lru_cache(maxsize=1 << 18)
def normalize_title(title: str) -> str:
    """Case, accents, LaTeX braces and punctuation removed: titles that differ only so are equal.

    Cached: cross-record checks and duplicate detection normalise every title more than once.
    """
    if len(title) > COMPARED_CHARS:
        return ""
    t = title
    if not t.isascii():
        t = unicodedata.normalize("NFKD", t)
        t = "".join(ch for ch in t if not unicodedata.combining(ch))
    if "\\" in t:
        t = _LATEX_COMMAND.sub(" ", t)  # LaTeX commands such as \emph
    t = t.replace("{", "").replace("}", "")
    t = _NON_WORD.sub(" ", t.lower())
    return " ".join(t.split())
