"""BibTeX lists as reference managers write them (JabRef, Zotero's Better BibTeX, Mendeley): one
row per entry, TeX decoded (pylatexenc), names split, DOIs given as resolver URLs reduced to the
DOI; private reference-manager fields (owner, file, groups, ...) left out unless asked for.
:func:`bib_entries` is the one BibTeX parser, under ``survey init`` and ``survey import csv --bib``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from survey_tools.adopt.entries import entries_table
from survey_tools.adopt.table import MAX_CELL_CHARS, Table, read_limits, read_text, too_many
from survey_tools.corpus.identifiers import normalize_arxiv, normalize_doi
from survey_tools.errors import InvalidInput, Problem
from survey_tools.latex import bibtex_text

_BRACES = re.compile(r"[{}]")
_YEAR_SPAN = re.compile(r"^\s*(\d{4})\s*(?:-{1,2}|–|/)\s*(\d{2}|\d{4})\s*$")


_DOI_IN = re.compile(r"10\.\d{4,9}/[^\s\"<>{}\\]+")


_TEX_SPECIAL = re.compile(r"\\([_&%#$~])")


# Values that are addresses, not text: never decoded as TeX.
_VERBATIM = frozenset(["url", "doi", "eprint", "isbn", "issn", "key"])


def split_names(value: str) -> list[str]:
    """An author or editor list as written, split on "and" outside braces (as BibTeX does):
    each name's text as it is (spacing, TeX, braces, "others")."""
    names: list[str] = []
    depth = 0
    buf: list[str] = []
    for w in re.split(r"(\s+)", value):
        depth += w.count("{") - w.count("}")
        if depth == 0 and w.lower() == "and":
            names.append("".join(buf))
            buf = []
            continue
        buf.append(w)
    names.append("".join(buf))
    return names


def _bib_names(value: str) -> list[str]:
    """An author or editor list: each name's TeX decoded (``Jan{\\'\\i}{\\v{c}}ek`` -> Janíček),
    its protecting braces dropped, "others" left out."""
    out = [" ".join(_BRACES.sub("", bibtex_text(n)).split()) for n in split_names(value)]
    return [n for n in out if n and n.lower() != "others"]


def _bib_text(name: str, value: str) -> str:
    if name in _VERBATIM:  # an address: only TeX's escapes of its characters undone (10.1007/x\_49)
        return " ".join(_TEX_SPECIAL.sub(r"\1", _BRACES.sub("", value)).split())
    return " ".join(_BRACES.sub("", bibtex_text(value)).split())


def _bib_links(cells: dict[str, Any]) -> list[str]:
    """Where the entry can be read: its url, its DOI at doi.org, its arXiv (or JSTOR) eprint."""
    links = []
    url = str(cells.get("url", ""))
    if url.startswith(("http://", "https://")):
        links.append(url.split()[0])
    found = _DOI_IN.search(str(cells.get("doi", "")))
    doi = normalize_doi(found.group(0)) if found else None
    if doi:
        links.append(f"https://doi.org/{doi}")
    eprint = str(cells.get("eprint", ""))
    kind = str(cells.get("archiveprefix") or cells.get("eprinttype") or "").lower()
    arxiv = normalize_arxiv(eprint) if eprint and kind in ("arxiv", "") else None
    if arxiv:
        links.append(f"https://arxiv.org/abs/{arxiv}")
    elif eprint and kind == "jstor":
        links.append(f"https://www.jstor.org/stable/{eprint}")
    return list(dict.fromkeys(links))


@dataclass(frozen=True)
class BibEntry:
    """One BibTeX entry as written: its field names lower-cased, their values raw (TeX and
    braces kept)."""

    line: int
    key: str
    entry_type: str
    fields: Mapping[str, str]


def _bib_blocks(lib: Any, strict: bool) -> list[tuple[Any, str]]:
    """The entries with their keys; unless ``strict``, an entry whose key an earlier one has
    is read too, under the key with -2 (-3...) after it: the look-alike rule then merges it or
    keeps it (survey init)."""
    out = [(e, str(e.key)) for e in lib.entries]
    if strict:
        return out
    taken = {k for _, k in out}
    for b in lib.blocks:
        entry = getattr(b, "ignore_error_block", None) if type(b).__name__ == "DuplicateBlockKeyBlock" else None
        if entry is None or not hasattr(entry, "fields"):
            continue
        n = 2
        while f"{entry.key}-{n}" in taken:
            n += 1
        taken.add(f"{entry.key}-{n}")
        out.append((entry, f"{entry.key}-{n}"))
    return sorted(out, key=lambda pair: pair[0].start_line or 0)


def parse_bibtex(text: str) -> Any:
    """A BibTeX file's text as bibtexparser's library: the one place the toolkit parses BibTeX."""
    # bibtexparser (its grammar, ~40 ms) is loaded only when a BibTeX file is read
    import bibtexparser

    return bibtexparser.parse_string(text)


def _parts(value: str) -> list[str] | None:
    """A value's parts joined by ``#`` outside braces and quotes (``aarts # and # {Korst}``);
    None when it has no such join."""
    parts: list[str] = []
    buf: list[str] = []
    depth, quoted = 0, False
    for ch in value:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == '"' and depth == 0:
            quoted = not quoted
        if ch == "#" and depth == 0 and not quoted:
            parts.append("".join(buf).strip())
            buf = []
            continue
        buf.append(ch)
    parts.append("".join(buf).strip())
    return parts if len(parts) > 1 else None


def resolve_macros(value: str, strings: Mapping[str, str]) -> str:
    """A value that joins pieces with ``#`` (``Aarts # and # Korst_JHM``), each piece a braced or
    quoted text, a number, or an ``@string`` macro (case does not count), as the one text BibTeX
    makes of it; an unknown macro stays its name. bibtexparser resolves a lone macro itself."""
    parts = _parts(value)
    if parts is None:
        return value
    out = []
    for part in parts:
        if len(part) >= 2 and (part[0], part[-1]) in (("{", "}"), ('"', '"')):
            out.append(part[1:-1])
        else:
            out.append(strings.get(part.lower(), part))
    return "".join(out)

def _strings(lib: Any, label: str) -> dict[str, str]:
    """The ``@string`` macros, each resolved as BibTeX does, through those defined before it
    (``@string{b = a # a}``); one that expands past a cell's limit is refused at its line (a
    macro joined to itself doubles: forty of them make 16 TiB from 16 bytes)."""
    out: dict[str, str] = {}
    for st in lib.strings:
        value = str(st.value)
        value = out.get(value.lower(), value) if _parts(value) is None else resolve_macros(value, out)
        if len(value) > MAX_CELL_CHARS:
            raise InvalidInput([Problem(label, (getattr(st, "start_line", 0) or 0) + 1, 0, "",
                                        f"@string {st.key} expands to {len(value):,} characters; a value "
                                        f"is at most {MAX_CELL_CHARS:,}")], "the BibTeX file has errors")
        out[str(st.key).lower()] = value
    return out


_ENTRY_START = re.compile(r"^[ \t]*@[A-Za-z]+[ \t]*[{(]", re.MULTILINE)

def bib_entries(text: str, label: str, strict: bool = True) -> tuple[list[BibEntry], list[Problem]]:
    """The one reader of a BibTeX file (survey init, survey import --bib): its entries in file
    order with the line each starts on, and its problems (an unparsable block, a key that
    appears twice). ``strict``: any problem refuses the file; else each is left out (a repeated
    key read under the key with -2 after it) and the problems come back as warnings."""
    # Counted before the parser builds them (200,000 entries took it over a minute).
    starts = _ENTRY_START.finditer(text)
    limit = read_limits().max_entries
    for n, m in enumerate(starts, start=1):
        if n > limit:
            raise too_many(label, text.count("\n", 0, m.start()) + 1, "entries")
    lib = parse_bibtex(text)
    dup = [b for b in lib.blocks if type(b).__name__ == "DuplicateBlockKeyBlock"]
    problems = [Problem(label, getattr(b, "start_line", 0) + 1, 0, "", "unparsable BibTeX block")
                for b in lib.failed_blocks if b not in dup]
    again = "" if strict else "; read under the key with -2 after it"
    problems += [Problem(label, getattr(b, "start_line", 0) + 1, 0, "", f"key {getattr(b, 'key', '?')!r} appears twice{again}")
                 for b in dup]
    if problems and strict:
        raise InvalidInput(problems, "the BibTeX file has errors")
    strings = _strings(lib, label)
    entries = [BibEntry((e.start_line or 0) + 1, key, e.entry_type.lower(),
                        {f.key.lower(): resolve_macros(str(f.value), strings) for f in e.fields})
               for e, key in _bib_blocks(lib, strict)]
    return entries, problems


@dataclass(frozen=True)
class JoinedBib:
    """Several BibTeX files read as one, in the order given (as ``\\bibliography{a,b}`` reads
    them): an ``@string`` or a ``crossref`` target of one file serves the entries of the next."""

    text: str
    label: str  # "a.bib+b.bib": the name the joined text is read under
    starts: tuple[tuple[str, int], ...]  # (file name, the joined line its first line is)

    def where(self, message: str) -> str:
        """``message`` with each ``label:LINE`` of the joined text given as ``file:line``."""

        def one(m: re.Match[str]) -> str:
            n = int(m.group(1))
            name, first = next((f, s) for f, s in reversed(self.starts) if s <= n)
            return f"{name}:{n - first + 1}"

        return re.sub(re.escape(self.label) + r":(\d+)", one, message)


def join_bibtex(paths: list[Path]) -> JoinedBib:
    """The files' texts one after the other (each ending in a line break), and where each starts."""
    texts, starts, line = [], [], 1
    for path in paths:
        text = read_text(path, path.name)
        text = text if text.endswith("\n") else text + "\n"
        starts.append((path.name, line))
        line += text.count("\n")
        texts.append(text)
    return JoinedBib("".join(texts), "+".join(p.name for p in paths), tuple(starts))


def read_bib(path: Path) -> list[BibEntry]:
    """The entries of a BibTeX file (strict: a file with a problem is refused with them all)."""
    return bib_entries(read_text(path, path.name), path.name)[0]


# What an entry does not take from the entry its crossref names: what is the parent's own work.
_NOT_INHERITED = frozenset(["title", "doi", "url", "eprint", "abstract", "file", "keywords", "note",
                            "crossref", "ids", "isbn", "pages"])


def _with_crossref(entry: BibEntry, by_key: Mapping[str, BibEntry]) -> dict[str, str]:
    """The entry's fields and those it inherits through ``crossref`` (as BibTeX does: the
    parent's title becomes the booktitle, its year, publisher, editors... fill what is missing)."""
    fields = dict(entry.fields)
    parent = by_key.get(fields.get("crossref", "").strip().lower())
    if parent is None or parent is entry:
        return fields
    if "title" in parent.fields:
        fields.setdefault("booktitle", parent.fields["title"])
    for name, value in parent.fields.items():
        if name not in _NOT_INHERITED:
            fields.setdefault(name, value)
    return fields


def read_bibtex(text: str, label: str, strict: bool = True) -> Table:
    """A BibTeX file as its reference manager wrote it: one row per entry, its entry type, every
    field with TeX decoded (pylatexenc), authors and editors split into names, a DOI given as a
    URL (``http://dx.doi.org/10...``) reduced to the DOI, and ``links`` made from url, DOI and
    eprint. Every field is read: which are published is
    survey init's allowlist (adopt.init.PUBLISHED), the rest imported private. An
    unparsable block refuses the file unless not ``strict`` (survey init): then it is left out,
    with a warning naming its line."""
    found, problems = bib_entries(text, label, strict)
    if not found:
        raise InvalidInput([Problem(label, 1, 0, "", "no BibTeX entries")], "nothing to read")
    entries: list[tuple[int, Any]] = []
    by_key = {e.key.lower(): e for e in found}
    for e in found:
        cells: dict[str, Any] = {"key": e.key, "entry type": e.entry_type}
        for name, raw in _with_crossref(e, by_key).items():
            cells[name] = _bib_names(raw) if name in ("author", "editor") else _bib_text(name, raw)
        if cells.get("doi"):
            # a DOI as a resolver URL of any host (dx.doi.org, doi.acm.org) or "doi:10..." is the DOI
            found_doi = _DOI_IN.search(str(cells["doi"]))
            cells["doi"] = (normalize_doi(found_doi.group(0)) if found_doi else None) or cells["doi"]
        span = _YEAR_SPAN.match(str(cells.get("year", "")))
        if span:  # "2018-2019", "2018/19": the year it starts, the span as written kept (private)
            cells["year"], cells["year as written"] = span.group(1), cells["year"]
        if "year" not in cells and re.match(r"^\d{4}", str(cells.get("date", ""))):
            cells["year"] = str(cells["date"])[:4]  # biblatex writes date = {2009-04-21}
        cells["links"] = _bib_links(cells)
        cells.pop("url", None)
        entries.append((e.line, cells))
    table = entries_table(label, "bibtex", entries)
    warnings: tuple[str, ...] = tuple(p.format() + ("" if "appears twice" in p.message else "; left out")
                                      for p in problems)
    return Table(table.file, table.format, table.columns, table.rows, warnings, table.list_columns)
