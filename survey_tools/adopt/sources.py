"""Lists as people keep them, read into one shape: a table of named columns and rows.

``survey init --from`` and ``survey import`` read CSV/TSV, an Excel workbook's first sheet, one
YAML file of entries, JSON (an array of objects, CSL-JSON, or JSON lines), BibTeX and a Markdown
README (:mod:`survey_tools.adopt.markdown_list`). Each reader returns a
:class:`Table` whose cells are text or, where the file itself says a value is a list (a YAML or
JSON array, BibTeX's ``and``-joined authors), a tuple of texts. Every row keeps the line it
starts on, so problems point into the user's file.

Hostile input fails early with one clear message and nothing read further: a file over the
size limit, binary bytes, too many columns, an empty file, a YAML or JSON file that is not a
list of entries.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from pylatexenc.latex2text import LatexNodes2Text

from survey_tools.adopt.excel import xlsx_rows
from survey_tools.adopt.markdown_list import read_markdown
from survey_tools.corpus.identifiers import normalize_arxiv, normalize_doi
from survey_tools.corpus.yamlio import parse_yaml
from survey_tools.csvcells import read_csv_rows
from survey_tools.errors import InvalidInput, Problem, UsageError

# Limits on what a source list may be: generous for any real list, small enough that a wrong
# file (a database dump, a binary) is refused before it costs memory.
MAX_SOURCE_BYTES = 50 * 1024 * 1024
MAX_COLUMNS = 500
MAX_CELL_CHARS = 100_000

Cell = str | tuple[str, ...]

FORMATS = ("csv", "tsv", "xlsx", "yaml", "json", "jsonl", "bibtex", "markdown")
_SUFFIXES = {
    ".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".xlsx": "xlsx", ".yaml": "yaml", ".yml": "yaml",
    ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", ".bib": "bibtex",
    ".md": "markdown", ".markdown": "markdown",
}


@dataclass(frozen=True)
class Row:
    line: int
    cells: Mapping[str, Cell]


@dataclass(frozen=True)
class Table:
    """A list read from a file: columns in the order the file first uses them."""

    file: str  # the name problems are reported under
    format: str
    columns: tuple[str, ...]
    rows: tuple[Row, ...]
    warnings: tuple[str, ...] = ()
    # Columns the format itself marks as holding lists (YAML/JSON arrays, BibTeX authors).
    list_columns: frozenset[str] = frozenset()
    title: str = ""  # a title the file gives itself (an awesome list's first heading)
    description: str = ""  # and the sentence under it
    # Values of a column in the order the file introduces them (an awesome list's headings).
    value_order: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # The list's own words outside its entries, as written: ("", introduction) first, then
    # (heading, Markdown body) of each part (how to cite, licence); a Markdown list's only.
    prose: tuple[tuple[str, str], ...] = ()


def detect_format(path: Path) -> str:
    fmt = _SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        known = ", ".join(sorted(_SUFFIXES))
        raise UsageError(f"{path.name}: cannot tell the format from the file name (known endings: {known})")
    return fmt


def _text(path: Path, label: str) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_SOURCE_BYTES:
            raise InvalidInput([Problem(label, 0, 0, "", f"file is {size:,} bytes; the limit is {MAX_SOURCE_BYTES:,}")],
                               "the list is too large to be a list of entries")
        raw = path.read_bytes()
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror or err}") from None
    if b"\x00" in raw:
        raise InvalidInput([Problem(label, raw[: raw.index(b"\x00")].count(b"\n") + 1, 0, "",
                                    "contains NUL bytes: a binary file, not a list")], "not a text file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise InvalidInput([Problem(label, line, 0, "", f"not valid UTF-8 (byte 0x{raw[err.start:err.start + 1].hex()})")],
                           "not a UTF-8 text file") from None
    if not text.strip():
        raise InvalidInput([Problem(label, 1, 0, "", "the file is empty")], "nothing to read")
    return text


def name_header(header: Sequence[str]) -> tuple[list[str], list[str]]:
    """Column names a user can type: a blank header becomes ``column N``, a repeated one gets
    `` (2)``; each change is a warning naming the column by its position."""
    names: list[str] = []
    warnings: list[str] = []
    seen: set[str] = set()
    for i, raw in enumerate(header, start=1):
        name = " ".join(raw.split())
        if not name:
            name = f"column {i}"
            warnings.append(f"column {i} has no header: it is named {name!r}")
        if name in seen:
            n = 2
            while f"{name} ({n})" in seen:
                n += 1
            warnings.append(f"column {i} repeats the header {name!r}: it is named {name + f' ({n})'!r}")
            name = f"{name} ({n})"
        seen.add(name)
        names.append(name)
    return names, warnings


def _check_columns(label: str, columns: Sequence[str]) -> None:
    if len(columns) > MAX_COLUMNS:
        raise InvalidInput([Problem(label, 1, 0, "", f"{len(columns):,} columns; the limit is {MAX_COLUMNS}")],
                           "too many columns for a list of entries")


def _check_cells(label: str, rows: Iterable[Row]) -> None:
    problems = []
    for row in rows:
        for col, cell in row.cells.items():
            size = len(cell) if isinstance(cell, str) else sum(len(c) for c in cell)
            if size > MAX_CELL_CHARS:
                problems.append(Problem(label, row.line, 0, col, f"cell of {size:,} characters; the limit is {MAX_CELL_CHARS:,}"))
    if problems:
        raise InvalidInput(problems, "cells too large to be entries")


def read_delimited(text: str, label: str, delimiter: str) -> Table:
    # the csv module's own cell limit (128 KiB) would end the read with a bare error; cells are
    # measured below against MAX_CELL_CHARS instead, with the row and column named
    read = read_csv_rows(text, label, delimiter, cell_limit=MAX_SOURCE_BYTES)
    if read.header is None:
        raise InvalidInput(list(read.problems), "not a well-formed table")
    _check_columns(label, read.header)
    names, warnings = name_header(read.header)
    rows: list[Row] = []
    problems: list[Problem] = []
    for line, raw in read.rows:
        if len(raw) > len(names) and any(c.strip() for c in raw[len(names):]):
            problems.append(Problem(label, line, 0, "", f"row has {len(raw)} cells, the header {len(names)}"))
        rows.append(Row(line, {n: (raw[i] if i < len(raw) else "") for i, n in enumerate(names)}))
    problems += read.problems
    if problems:
        raise InvalidInput(problems, "the table has malformed rows")
    table = Table(label, "tsv" if delimiter == "\t" else "csv", tuple(names), tuple(rows), tuple(warnings))
    _check_cells(label, table.rows)
    return table


def read_xlsx(path: Path, label: str) -> Table:
    """The first sheet of an Excel workbook as a table: its first row the header."""
    header, found = xlsx_rows(path, label, MAX_SOURCE_BYTES)
    _check_columns(label, header)
    names, warnings = name_header(header)
    if not names:
        raise InvalidInput([Problem(label, 1, 0, "", "the first sheet is empty")], "nothing to read")
    rows = [Row(n, {name: (cells[i] if i < len(cells) else "") for i, name in enumerate(names)}) for n, cells in found]
    table = Table(label, "xlsx", tuple(names), tuple(rows), tuple(warnings))
    _check_cells(label, table.rows)
    return table


def _scalar(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _flatten(entry: Mapping[str, Any], prefix: str = "") -> dict[str, Cell]:
    """One entry's values by column: nested mappings become ``parent.child`` columns, lists of
    scalars lists, lists of mappings one JSON text per item."""
    out: dict[str, Cell] = {}
    for key, value in entry.items():
        name = f"{prefix}{key}"
        date = _csl_date(value)
        names = _person_names(value)
        if date:  # CSL: issued: {date-parts: [[2004, 4, 28]]} -> 2004-04-28, and the year
            out[name] = date
            if key == "issued" and not prefix:
                out.setdefault("year", date[:4])
        elif names:
            out[name] = names
        elif isinstance(value, Mapping):
            out.update(_flatten(value, name + "."))
        elif isinstance(value, list):
            out[name] = tuple(_scalar(v) if not isinstance(v, Mapping | list) else json.dumps(v, sort_keys=True, ensure_ascii=False)
                              for v in value if v is not None)
        else:
            out[name] = _scalar(value)
    return out


def _csl_date(value: Any) -> str:
    """A CSL-JSON date ({"date-parts": [[2004, 4, 28]]}) as an ISO date, "" for anything else."""
    if not isinstance(value, Mapping) or not isinstance(value.get("date-parts"), list) or not value["date-parts"]:
        return ""
    parts = value["date-parts"][0]
    if not isinstance(parts, list) or not parts or not str(parts[0]).strip().isdigit():
        return ""
    out = [f"{int(str(parts[0]).strip()):04d}"]
    out += [f"{int(str(p).strip()):02d}" for p in parts[1:3] if str(p).strip().isdigit()]
    return "-".join(out)


# How reference managers write a person: CSL-JSON (family, given; literal) and Zotero's own
# export (lastName, firstName; name).
_NAME_KEYS = (("family", "given"), ("lastName", "firstName"))


def _person_names(value: Any) -> tuple[str, ...]:
    """A list of persons as "Last, First" names; () when ``value`` is not such a list."""
    if not isinstance(value, list) or not value or not all(isinstance(v, Mapping) for v in value):
        return ()
    out = []
    for v in value:
        last, first = next(((str(v.get(a) or ""), str(v.get(b) or "")) for a, b in _NAME_KEYS if v.get(a)), ("", ""))
        whole = str(v.get("literal") or v.get("name") or "")
        if not last and not whole:
            return ()
        out.append(f"{last}, {first}" if last and first else (last or whole))
    return tuple(" ".join(n.split()) for n in out)


def _entries_table(label: str, fmt: str, entries: Sequence[tuple[int, Any]]) -> Table:
    problems = [Problem(label, line, 0, "", f"entry {i} is a {type(e).__name__}, not a mapping of fields")
                for i, (line, e) in enumerate(entries, start=1) if not isinstance(e, Mapping)]
    if problems:
        raise InvalidInput(problems, "every entry must be a mapping of fields")
    columns: list[str] = []
    lists: set[str] = set()
    rows = []
    for line, e in entries:
        cells = _flatten(e)
        for k, v in cells.items():
            if k not in columns:
                columns.append(k)
            if isinstance(v, tuple):
                lists.add(k)
        rows.append(Row(line, cells))
    _check_columns(label, columns)
    # A column that is a list in some entries and a single value in others is a list throughout.
    rows = [Row(r.line, {k: ((v,) if v else ()) if k in lists and isinstance(v, str) else v for k, v in r.cells.items()})
            for r in rows]
    table = Table(label, fmt, tuple(columns), tuple(rows), list_columns=frozenset(lists))
    _check_cells(label, table.rows)
    return table


def _entry_list(data: Any, label: str, what: str) -> list[Any]:
    """The entries of a YAML/JSON document: a list, or a mapping holding exactly one list."""
    if isinstance(data, list):
        return data
    if isinstance(data, Mapping):
        lists = [k for k, v in data.items() if isinstance(v, list)]
        if len(lists) == 1:
            return list(data[lists[0]])
        hint = f" (it has {len(lists)} lists: {', '.join(map(str, lists))})" if lists else ""
        raise InvalidInput([Problem(label, 1, 0, "", f"the {what} file is a mapping, not a list of entries{hint}")],
                           "expected a list of entries")
    raise InvalidInput([Problem(label, 1, 0, "", f"the {what} file holds a {type(data).__name__}, not a list of entries")],
                       "expected a list of entries")


def read_yaml_list(text: str, label: str) -> Table:
    doc = parse_yaml(text, label)
    if doc.problems:
        raise InvalidInput(doc.problems, "the YAML file cannot be read")
    entries = _entry_list(doc.data, label, "YAML")
    top = () if isinstance(doc.data, list) else (next(k for k, v in doc.data.items() if isinstance(v, list)),)
    return _entries_table(label, "yaml", [(doc.position((*top, i))[0], e) for i, e in enumerate(entries)])


def read_json_list(text: str, label: str, lines: bool) -> Table:
    entries: list[tuple[int, Any]] = []
    dec = json.JSONDecoder()
    try:
        if lines:
            for n, ln in enumerate(text.splitlines(), start=1):
                if ln.strip():
                    entries.append((n, json.loads(ln)))
        else:
            data = json.loads(text)
            items = _entry_list(data, label, "JSON")
            # The line each entry starts on: decode the array item by item.
            starts = []
            idx = text.find("[") + 1
            for _ in items:
                while idx < len(text) and text[idx] in " \t\r\n,":
                    idx += 1
                starts.append(text.count("\n", 0, idx) + 1)
                _, idx = dec.raw_decode(text, idx)
            if not isinstance(data, list):  # a wrapped list: positions are not worth a second walk
                starts = [0] * len(items)
            entries = list(zip(starts, items, strict=True))
    except json.JSONDecodeError as err:
        line = getattr(err, "lineno", 0) if not lines else n
        raise InvalidInput([Problem(label, line, 0, "", f"not valid JSON: {err.msg}")], "the JSON file cannot be read") from None
    except ValueError as err:  # e.g. an integer too long to convert
        raise InvalidInput([Problem(label, 0, 0, "", f"not usable JSON: {err}")], "the JSON file cannot be read") from None
    if not entries:
        raise InvalidInput([Problem(label, 1, 0, "", "no entries")], "nothing to read")
    return _entries_table(label, "jsonl" if lines else "json", entries)


_BRACES = re.compile(r"[{}]")
# Fields reference managers keep for their owner, never for readers: JabRef (owner, timestamp,
# file, groups, ranking, readstatus, printed, priority, relevance, qualityassured, comment-*),
# Zotero and Better BibTeX (file, annotation, urldate, langid is public), Mendeley
# (mendeley-groups, mendeley-tags, annote), BibDesk (date-added, date-modified, bdsk-*), and
# the abstract (the publisher's words, not the list's). `survey init --keep-field NAME`
# imports one of them, declared private: no output shows it.
PRIVATE_FIELDS = frozenset([
    "owner", "timestamp", "file", "files", "groups", "ranking", "readstatus", "printed", "priority", "relevance",
    "qualityassured", "annote", "annotation", "abstract", "mendeley-groups", "mendeley-tags", "date-added",
    "date-modified", "creationdate", "modificationdate", "urldate", "comment", "comments", "review", "read",
    "rating", "citeulike-article-id", "citeulike-linkout-0", "local-url", "pdf", "keywords-personal",
])
_PRIVATE_PREFIXES = ("bdsk-", "comment-", "jabref-", "mendeley-", "zotero-", "citeulike-")
_DOI_IN = re.compile(r"10\.\d{4,9}/[^\s\"<>{}\\]+")
_TEX_SPECIAL = re.compile(r"\\([_&%#$~])")
# Values that are addresses, not text: never decoded as TeX.
_VERBATIM = frozenset(["url", "doi", "eprint", "isbn", "issn", "key"])


def private_field(name: str) -> bool:
    return name in PRIVATE_FIELDS or name.startswith(_PRIVATE_PREFIXES)


@lru_cache(maxsize=1)
def _tex_decoder() -> Any:
    # as survey_tools.latex decodes TeX, but math as text too: a list's title
    # "$\\Delta\\Sigma$ modulators" is read as "ΔΣ modulators", not kept as TeX source
    return LatexNodes2Text(math_mode="text", strict_latex_spaces=True)


def plain_tex(text: str) -> str:
    """A BibTeX value as the text it prints (accents, escapes and math decoded)."""
    if "\\" not in text and "$" not in text:
        return text
    out = _tex_decoder().latex_to_text(re.sub(r"(?<!\\)%", r"\\%", text))
    return unicodedata.normalize("NFC", out.replace("\xa0", " "))


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
    out = [" ".join(_BRACES.sub("", plain_tex(n)).split()) for n in split_names(value)]
    return [n for n in out if n and n.lower() != "others"]


def _bib_text(name: str, value: str) -> str:
    if name in _VERBATIM:  # an address: only TeX's escapes of its characters undone (10.1007/x\_49)
        return " ".join(_TEX_SPECIAL.sub(r"\1", _BRACES.sub("", value)).split())
    return " ".join(_BRACES.sub("", plain_tex(value)).split())


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


def bib_entries(text: str, label: str, strict: bool = True) -> tuple[list[BibEntry], list[Problem]]:
    """The one reader of a BibTeX file (survey init, survey import --bib): its entries in file
    order with the line each starts on, and its problems (an unparsable block, a key that
    appears twice). ``strict``: any problem refuses the file; else each is left out (a repeated
    key read under the key with -2 after it) and the problems come back as warnings."""
    lib = parse_bibtex(text)
    dup = [b for b in lib.blocks if type(b).__name__ == "DuplicateBlockKeyBlock"]
    problems = [Problem(label, getattr(b, "start_line", 0) + 1, 0, "", "unparsable BibTeX block")
                for b in lib.failed_blocks if b not in dup]
    again = "" if strict else "; read under the key with -2 after it"
    problems += [Problem(label, getattr(b, "start_line", 0) + 1, 0, "", f"key {getattr(b, 'key', '?')!r} appears twice{again}")
                 for b in dup]
    if problems and strict:
        raise InvalidInput(problems, "the BibTeX file has errors")
    entries = [BibEntry((e.start_line or 0) + 1, key, e.entry_type.lower(), {f.key.lower(): str(f.value) for f in e.fields})
               for e, key in _bib_blocks(lib, strict)]
    return entries, problems


def read_bib(path: Path) -> list[BibEntry]:
    """The entries of a BibTeX file (strict: a file with a problem is refused with them all)."""
    return bib_entries(_text(path, path.name), path.name)[0]


def read_bibtex(text: str, label: str, keep: frozenset[str] = frozenset(), strict: bool = True) -> Table:
    """A BibTeX file as its reference manager wrote it: one row per entry, its entry type, every
    field with TeX decoded (pylatexenc), authors and editors split into names, a DOI given as a
    URL (``http://dx.doi.org/10...``) reduced to the DOI, and ``links`` made from url, DOI and
    eprint. Private fields (:data:`PRIVATE_FIELDS`) are left out unless named in ``keep``. An
    unparsable block refuses the file unless not ``strict`` (survey init): then it is left out,
    with a warning naming its line."""
    found, problems = bib_entries(text, label, strict)
    if not found:
        raise InvalidInput([Problem(label, 1, 0, "", "no BibTeX entries")], "nothing to read")
    entries: list[tuple[int, Any]] = []
    left_out: dict[str, int] = {}
    for e in found:
        cells: dict[str, Any] = {"key": e.key, "entry type": e.entry_type}
        for name, raw in e.fields.items():
            if private_field(name) and name not in keep:
                left_out[name] = left_out.get(name, 0) + 1
                continue
            cells[name] = _bib_names(raw) if name in ("author", "editor") else _bib_text(name, raw)
        if cells.get("doi"):
            # a DOI as a resolver URL of any host (dx.doi.org, doi.acm.org) or "doi:10..." is the DOI
            found_doi = _DOI_IN.search(str(cells["doi"]))
            cells["doi"] = (normalize_doi(found_doi.group(0)) if found_doi else None) or cells["doi"]
        if "year" not in cells and re.match(r"^\d{4}", str(cells.get("date", ""))):
            cells["year"] = str(cells["date"])[:4]  # biblatex writes date = {2009-04-21}
        cells["links"] = _bib_links(cells)
        cells.pop("url", None)
        entries.append((e.line, cells))
    table = _entries_table(label, "bibtex", entries)
    warnings: tuple[str, ...] = tuple(p.format() + ("" if "appears twice" in p.message else "; left out")
                                      for p in problems)
    if left_out:
        shown = ", ".join(f"{k} ({n})" for k, n in sorted(left_out.items()))
        warnings += (f"{label}: private reference-manager fields left out: {shown}; --keep-field NAME imports one, "
                    "kept in the records but out of every output",)
    return Table(table.file, table.format, table.columns, table.rows, warnings, table.list_columns)


def read_awesome(text: str, label: str) -> Table:
    """A Markdown list (an awesome list, a paper list), read through its token tree by
    :mod:`survey_tools.adopt.markdown_list`: one row per work, its headings as the ``section``
    column (a list where the work is listed under several), the text outside the entries kept
    in :attr:`Table.prose`."""
    found = read_markdown(text)
    if not found.entries:
        raise InvalidInput([Problem(label, 1, 0, "", "no entries: no list item, table row or heading in the file "
                                    "names a work with a link (a bold or linked title, or a [paper](...) link)")],
                           "nothing to read")
    several = any(len(e.sections) > 1 for e in found.entries)
    entries: list[tuple[int, Any]] = []
    for e in found.entries:
        cells: dict[str, Any] = {"title": e.title, "authors": list(e.authors), "year": e.year, "date": e.date,
                                 "venue": e.venue, "links": list(e.links), "code": e.code, "project": e.project,
                                 "description": " ".join(e.description)}
        if e.sections or found.sections:
            cells["section"] = list(e.sections) if several else (e.sections[0] if e.sections else "")
        entries.append((e.line, cells))
    table = _entries_table(label, "markdown", entries)
    # columns no entry fills (no list here gives dates, say) are left out
    used = [c for c in table.columns if any(_filled(r.cells.get(c, "")) for r in table.rows)]
    rows = tuple(Row(r.line, {c: v for c, v in r.cells.items() if c in used}) for r in table.rows)
    return Table(table.file, table.format, tuple(used), rows, tuple(found.merged),
                 list_columns=frozenset(c for c in table.list_columns if c in used), title=found.title,
                 description=found.description, value_order={"section": tuple(found.sections)},
                 prose=tuple(found.prose))


def _filled(cell: Cell) -> bool:
    return bool(cell.strip()) if isinstance(cell, str) else any(c.strip() for c in cell)


def read_source(path: Path, fmt: str | None = None, keep: frozenset[str] = frozenset(), strict: bool = True) -> Table:
    """The list in ``path``, in the format its name says (or ``fmt``); ``keep``: the private
    BibTeX fields to import all the same."""
    fmt = fmt or detect_format(path)
    label = path.name
    if fmt == "xlsx":
        return read_xlsx(path, label)
    text = _text(path, label)
    if fmt in ("csv", "tsv"):
        return read_delimited(text, label, "\t" if fmt == "tsv" else ",")
    if fmt == "yaml":
        return read_yaml_list(text, label)
    if fmt in ("json", "jsonl"):
        return read_json_list(text, label, lines=fmt == "jsonl")
    if fmt == "bibtex":
        return read_bibtex(text, label, keep, strict)
    if fmt == "markdown":
        return read_awesome(text, label)
    raise UsageError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
