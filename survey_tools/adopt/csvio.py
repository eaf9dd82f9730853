"""Import records from, and export them to, the survey's CSV layout (``taxonomy/csv.yaml``).

Import is all-or-nothing: every row is checked first and nothing is written unless every
record can be. Export reproduces the CSV column for column; only the columns marked as
sentences (rewritten in the project's own words) differ from the survey's files.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz

from survey_tools import hidden
from survey_tools.adopt.bibtex_list import BibEntry, read_bib, split_names
from survey_tools.adopt.repair import NOTES_FIELD
from survey_tools.adopt.sources import read_source
from survey_tools.adopt.table import name_header, read_limits, too_many
from survey_tools.corpus.checks import ARXIV_YEAR_SLACK, check_record, cleaned_link
from survey_tools.corpus.duplicates import FUZZY_THRESHOLD, _candidate_groups, record_identifiers
from survey_tools.corpus.identifiers import (
    arxiv_year,
    ids_from_label,
    ids_from_url,
    normalize_arxiv,
    normalize_doi,
)
from survey_tools.corpus.records import Corpus
from survey_tools.corpus.taxonomy import Collection, Taxonomy
from survey_tools.corpus.titles import normalize_title
from survey_tools.corpus.yaml_words import cleaned
from survey_tools.corpus.yamlio import dump_yaml, parse_yaml
from survey_tools.csvcells import (
    csv_text,
    from_spreadsheet_safe,
    read_capped,
    read_csv_rows,
    spreadsheet_safe,
)
from survey_tools.errors import InvalidInput, Problem, UsageError
from survey_tools.fileio import atomic_write
from survey_tools.schema_words import suggest


@dataclass(frozen=True)
class Column:
    column: str
    field: str  # "" for an ignored column
    take: str = ""  # "first": the column holds the first item of a list field
    separator: str | None = None  # a list cell: the field's items joined by this separator
    values: Mapping[str, str] = dataclasses.field(default_factory=dict)  # CSV string -> value id
    sentence: bool = False  # prose: copied on import; the project rewrites it in its own words
    ignore: bool = False  # nothing is read; export reproduces the cells kept beside the row order
    generated: str = ""  # "title": the list has no such column; the key is made from the title
    optional: bool = False  # a field the layout does not name, in a column named after it
    private: bool = False  # a private field (survey.yaml): read when the file has it, never exported

    @property
    def back(self) -> dict[str, str]:
        """Value id -> the CSV string export writes (the first string mapped to it)."""
        out: dict[str, str] = {}
        for text, vid in self.values.items():
            out.setdefault(vid, text)
        return out

    def to_id(self, text: str) -> str:
        return self.values.get(text, text)


@dataclass(frozen=True)
class Layout:
    collection: str
    file: str
    columns: tuple[Column, ...]
    na: str
    order: str  # the file recording source row order (and ignored cells), relative to the survey
    every_field: bool = True  # export also writes fields no column names; import reads them back

    @property
    def header(self) -> list[str]:
        return [c.column for c in self.columns]

    @property
    def ignored(self) -> list[Column]:
        return [c for c in self.columns if c.ignore]


# Field types a CSV cell can hold (one value, or a list joined by the separator).
_CELL_TYPES = ("string", "text", "integer", "year", "boolean", "date", "url", "string_list", "person_list", "url_list")


def with_every_field(tax: Taxonomy, lay: Layout, present: set[str] | None = None) -> Layout:
    """``lay`` plus one column per field of the collection that it does not name (a field added
    to the taxonomy after import), named after the field; with ``present``, only those fields.
    Export writes them, so nothing a record holds is dropped; import reads them back."""
    if not lay.every_field:
        return lay
    coll = tax.collection(lay.collection)
    named = {c.field.split(".")[0] for c in lay.columns if c.field} | {c.column for c in lay.columns}
    sep = str(tax.csv_layout.get("list_separator", " ; ")) if tax.csv_layout else " ; "
    extra = []
    for f in coll.fields:
        if f.name not in named and f.type in _CELL_TYPES and (present is None or f.name in present) and not f.private:
            extra.append(Column(f.name, f.name, separator=sep if f.type.endswith("_list") else None, optional=True))
    for cf in coll.controlled:
        if cf.name not in named and cf.kind in ("single", "multi") and (present is None or cf.name in present):
            extra.append(Column(cf.name, cf.name, separator=sep if cf.kind == "multi" else None, optional=True))
    return dataclasses.replace(lay, columns=(*lay.columns, *extra))


def split_cell(cell: str, separator: str) -> list[str]:
    """A list cell's items: split on the separator's visible part (";" of " ; ") so spacing may
    vary, or on the whole separator when that part is a word (" and ")."""
    core = separator.strip()
    return cell.split(separator if not core or core.isalnum() else core)


_LAST_FIRST_AND = re.compile(r"[^,;]+,[^,;]+(?:\s+and\s+[^,;]+,[^,;]+)+")
_INITIALS = re.compile(r"^(?:[A-Z]\.?[ -]?){1,4}$")  # "J.", "J. K.", "JK", "J.-P."
_WORD = re.compile(r"^[^\s,;]+$")


def _comma_parts(cell: str) -> list[str]:
    return [p.strip() for p in cell.split(",") if p.strip()]


def _last_first_pairs(parts: list[str]) -> bool:
    """Parts that read as "Last, First" names one after another: an even number of them, every
    second one initials ("Smith, J., Doe, K.") or every one a single word ("Doe, Jane")."""
    if len(parts) % 2 or not parts:
        return False
    given = parts[1::2]
    return all(_INITIALS.match(g) for g in given) or all(_WORD.match(p) for p in parts)


_NOT_A_NAME = re.compile(r"(?:and\s+)?(?:others|et\.?\s*al\.?)", re.I)


def split_authors(cell: str, separator: str) -> list[str]:
    """An authors cell's names, read cell by cell, not once for the column (a column may join
    its names several ways): ";" joins names when the cell has one; "Doe, J. and Roe, K." is
    names joined by "and"; "A, B, and C" and "A, B and C" are three; "Doe, Jane", "Author,
    Example E" and "Smith, J., Doe, K." are names written "Last, First" (two parts, one of them
    a single word or initials; pairs of them); other commas join names ("Yoshua Bengio, Andrea
    Lodi"); else the column's separator."""
    if ";" in cell:
        return cell.split(";")
    if _LAST_FIRST_AND.fullmatch(cell.strip()):
        return re.split(r"\s+and\s+", cell)
    if re.search(r"\s+(?:and|&)\s+", cell):
        return re.split(r"\s*,\s*(?:and|&)\s+|\s*,\s*|\s+(?:and|&)\s+", cell)
    parts = _comma_parts(cell)
    if len(parts) == 2 and any(_WORD.match(p) or _INITIALS.match(p) for p in parts):
        return [cell]  # "Doe, Jane", "Author, Example E", "van der Berg, J.": one name, Last first
    if len(parts) > 1:
        if _last_first_pairs(parts):
            return [f"{a}, {b}" for a, b in zip(parts[::2], parts[1::2], strict=True)]
        return parts
    return split_cell(cell, separator)


def ambiguous_authors(cell: str) -> str:
    """Why one authors cell could be read two ways ("" when it cannot): four or more single words
    joined by commas are "Last, First" pairs or as many one-word names."""
    parts = _comma_parts(cell)
    if ";" in cell or " and " in cell or len(parts) < 4 or not all(_WORD.match(p) for p in parts):
        return ""
    if all(_INITIALS.match(g) for g in parts[1::2]) or len(parts) % 2:
        return ""
    return (f"{cell.strip()!r} read as {len(parts) // 2} names written 'Last, First' (it could be "
            f"{len(parts)} one-word names: write the cell with ';' between names to say which)")


def layout(tax: Taxonomy, collection: str) -> Layout:
    """The CSV layout of ``collection`` (taxonomy/csv.yaml, checked by its schema on load)."""
    if not tax.csv_layout:
        raise UsageError("no CSV layout: taxonomy/csv.yaml is missing (`survey init --from-csv` "
                         "writes one; taxonomy/README.md documents its keys)")
    raw = tax.csv_layout.get(collection)
    if not isinstance(raw, dict):
        raise UsageError(f"taxonomy/csv.yaml has no layout for {collection!r}")
    default_sep = str(tax.csv_layout.get("list_separator", " ; "))
    coll = tax.collections.get(collection)
    private = {f.name for f in coll.fields if f.private} if coll is not None else set()
    cols = []
    for c in raw.get("columns", []):
        sep = c.get("separator")
        cols.append(Column(
            private=str(c.get("field", "")).split(".")[0] in private,
            column=str(c["column"]),
            field="" if c.get("ignore") else str(c.get("field", "")),
            take=str(c.get("take", "")),
            separator=str(sep) if sep else (default_sep if c.get("split") else None),
            values={str(k): str(v) for k, v in (c.get("values") or {}).items()},
            sentence=bool(c.get("sentence", False)),
            ignore=bool(c.get("ignore", False)),
            generated=str(c.get("generated", "")),
        ))
    return Layout(
        collection=collection,
        file=str(raw.get("file", f"{collection}.csv")),
        columns=tuple(cols),
        na=str(tax.csv_layout.get("na", "NA")),
        order=str(raw.get("order", f"data/csv/{collection}.order.csv")),
        every_field=bool(raw.get("every_field", True)),
    )


def _get(data: Mapping[str, Any], dotted: str) -> Any:
    cur: Any = data
    for part in dotted.split("."):
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(part)
    return cur


def _set(data: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    cur = data
    for part in parts[:-1]:
        cur = cur.setdefault(part, {})
    cur[parts[-1]] = value


# --- reading ---------------------------------------------------------------------------


@dataclass
class CsvRows:
    rows: list[tuple[int, dict[str, str]]] = field(default_factory=list)  # (line, row)
    problems: list[Problem] = field(default_factory=list)


def _header_problems(label: str, missing: list[str], unknown: list[str]) -> list[Problem]:
    """The header's missing and unknown columns, one problem each kind (line 1)."""
    return [
        Problem(label, 1, 0, "", f"{kind} columns: {', '.join(names)}")
        for kind, names in (("missing", missing), ("unknown", unknown))
        if names
    ]


def read_csv(path: Path, expected: Sequence[str], label: str, optional: Sequence[str] = ()) -> CsvRows:
    """Rows of a CSV file with the line each starts on; every malformed row becomes a problem."""
    out = CsvRows()
    try:
        text = csv_text(read_capped(path, label, read_limits().max_bytes), label)
    except InvalidInput as err:  # reported with the other file's problems
        out.problems.extend(err.problems)
        return out
    read = read_csv_rows(text, label)
    if read.header is None:
        out.problems.extend(read.problems or [Problem(label, 1, 0, "", "the file is empty (expected a header row)")])
        return out
    if len(read.rows) > read_limits().max_entries:  # the bound of every list reader (--max-entries)
        raise too_many(label, read.rows[read_limits().max_entries][0], "rows")
    header, _ = name_header(read.header)  # blank and repeated headers named as init named them
    generated = set(optional)
    missing = [c for c in expected if c not in header and c not in generated]
    unknown = [c for c in header if c not in expected]
    out.problems.extend(_header_problems(label, missing, unknown))
    if missing:
        return out
    for line, row in read.rows:
        if len(row) != len(header):
            out.problems.append(Problem(label, line, 0, "", f"row has {len(row)} columns, expected {len(header)}"))
        else:
            # A cell our export quoted against spreadsheet formulas ('=...) reads as written.
            out.rows.append((line, dict(zip(header, map(from_spreadsheet_safe, row), strict=True))))
    out.problems.extend(read.problems)
    return out


# --- BibTeX enrichment ---------------------------------------------------------------


def _bib_authors(entry: BibEntry) -> tuple[list[str], bool]:
    """The entry's authors as written (TeX kept, as records keep it), and whether the list is
    complete (BibTeX's "and others" says it is not)."""
    names = [n for n in (" ".join(n.split()) for n in split_names(entry.fields.get("author", ""))) if n]
    complete = not (names and names[-1].lower() == "others")
    return [n.strip("{}") for n in (names if complete else names[:-1])], complete


def _bib_index(entries: list[BibEntry]) -> dict[str, BibEntry]:
    """Entries by every handle a CSV row can match them on: arXiv id, URL, normalised title."""
    index: dict[str, BibEntry] = {}
    for e in entries:
        for text in (
            e.fields.get("journal", ""),
            e.fields.get("eprint", ""),
            e.fields.get("url", ""),
        ):
            a = normalize_arxiv(text.split()[-1]) if text.strip() else None
            if a:
                index.setdefault(f"arxiv:{a}", e)
        if e.fields.get("url"):
            index.setdefault(f"url:{e.fields['url'].strip().rstrip('/')}", e)
        if e.fields.get("title"):
            index.setdefault(f"title:{normalize_title(e.fields['title'])}", e)
    return index


def _match_bib(index: Mapping[str, BibEntry], data: Mapping[str, Any]) -> BibEntry | None:
    ids = data.get("identifiers") or {}
    if ids.get("arxiv") and f"arxiv:{ids['arxiv']}" in index:
        return index[f"arxiv:{ids['arxiv']}"]
    for link in data.get("links") or []:
        k = f"url:{link.strip().rstrip('/')}"
        if k in index:
            return index[k]
    title = data.get("title")
    if isinstance(title, str):
        return index.get(f"title:{normalize_title(title)}")
    return None


# --- import ----------------------------------------------------------------------------


def _coerce(coll: Collection, name: str, value: str) -> Any:
    plain = {f.name: f for f in coll.fields}
    f = plain.get(name.split(".")[0])
    if f is not None and f.type in ("year", "integer"):
        try:
            return int(value)
        except ValueError:
            return value
    if f is not None and f.type == "boolean" and value in ("true", "false"):
        return value == "true"
    return value


def _clean_link_values(coll: Collection, values: dict[str, Any]) -> None:
    """Every link of a url or url_list field in its cleaner form (https where the host serves
    it, tracking parameters removed: corpus/link_rules.yaml), as the validator asks of a
    contributor: an imported row keeps its link instead of losing it to a refusal."""
    for f in coll.fields:
        value = values.get(f.name)
        if f.type == "url" and isinstance(value, str):
            values[f.name] = cleaned_link(value)
        elif f.type == "url_list" and isinstance(value, list):
            values[f.name] = [cleaned_link(v) if isinstance(v, str) else v for v in value]


def _row_to_record(
    tax: Taxonomy, coll: Collection, lay: Layout, row: Mapping[str, str]
) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for col in lay.columns:
        if col.ignore or ((col.optional or col.private) and col.column not in row):
            continue
        cell = row.get(col.column, "")
        if col.take == "first":
            if cell.strip():
                values[col.field] = [cell.strip()]
            continue
        cf = coll.controlled_field(col.field)
        if col.separator is not None:
            if cell.strip() == lay.na and (cf is None or cf.not_applicable):
                values[col.field] = tax.na
            elif cell.strip():
                parts = (split_authors(cell, col.separator) if col.field == "authors" and cf is None
                         else split_cell(cell, col.separator))
                if col.field == "authors" and cf is None and parts and _NOT_A_NAME.fullmatch(parts[-1].strip()):
                    parts = parts[:-1]  # "..., Graham Kendall, others": the list goes on, "others" is no name
                values[col.field] = [col.to_id(p.strip()) for p in parts if p.strip()]
            continue
        cell = cell.strip()
        if cell == "" and cf is None:
            continue  # an empty optional column: leave the field out
        if cell == "":
            values[col.field] = tax.untagged
            continue
        if cf is not None:
            values[col.field] = tax.na if cell == lay.na and cf.not_applicable else col.to_id(cell)
            continue
        _set(values, col.field, _coerce(coll, col.field, cell))
    _clean_link_values(coll, values)
    # Records list fields in the taxonomy's order, so files read the same way.
    record: dict[str, Any] = {}
    for name in coll.field_names():
        if name in values:
            record[name] = values[name]
        elif coll.controlled_field(name) is not None:
            record[name] = tax.untagged
    return record


def _enrich_identifiers(tax: Taxonomy, record: dict[str, Any]) -> None:
    ids: dict[str, str] = dict(record.get("identifiers") or {})
    for link in record.get("links") or []:
        for k, v in ids_from_url(link).items():
            if k in tax.identifiers:
                ids.setdefault(k, v)
    if isinstance(record.get("url"), str):
        for k, v in ids_from_url(record["url"]).items():
            if k in tax.identifiers:
                ids.setdefault(k, v)
    if isinstance(record.get("identifier"), str):
        for k, v in ids_from_label(record["identifier"]).items():
            if k in tax.identifiers:
                ids.setdefault(k, v)
    # a list's own DOI column (a review spreadsheet, a BibTeX doi field) is the work's DOI
    doi = normalize_doi(str(record.get("doi") or "").strip())
    if doi and "doi" in tax.identifiers:
        ids.setdefault("doi", doi)
    if ids:
        ordered = {k: ids[k] for k in tax.identifiers if k in ids}
        if "identifiers" in record:
            record["identifiers"] = ordered
        else:
            _insert_after(record, "identifiers", ordered, tax)


def _insert_after(record: dict[str, Any], name: str, value: Any, tax: Taxonomy) -> None:
    # Keep the taxonomy's field order when adding a field to an existing record.
    coll = next(
        (c for c in tax.collections.values() if name in c.field_names() and c.id_field in record),
        tax.retained,
    )
    record[name] = value
    _in_field_order(record, coll.field_names())


def _in_field_order(record: dict[str, Any], order: list[str]) -> None:
    """Put ``record``'s fields in the taxonomy's order, in place (fields it does not list last)."""
    items = sorted(
        record.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)
    )
    record.clear()
    record.update(items)


@dataclass
class ImportPlan:
    """Records an import would write, by relative path."""

    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    # Source row order (and the cells of ignored columns) per collection, by relative path.
    orders: dict[str, str] = field(default_factory=dict)
    sentences: list[str] = field(default_factory=list)  # prose columns copied as they are
    warnings: list[str] = field(default_factory=list)  # kept as the list has it, but worth a look
    lines: dict[str, int] = field(default_factory=dict)  # record path -> the source line of its row
    moved: dict[str, int] = field(default_factory=dict)  # field -> values moved to import_notes


def _tag_problems(
    tax: Taxonomy, coll: Collection, lay: Layout, record: Mapping[str, Any], label: str, line: int
) -> list[Problem]:
    """Values of controlled fields that the taxonomy does not know, single or listed."""
    out: list[Problem] = []
    columns = {c.field: c for c in lay.columns if not c.ignore}
    for cf in coll.controlled:
        value = record.get(cf.name)
        if value in (tax.untagged, None) or (value == tax.na and cf.not_applicable):
            continue
        items = value if isinstance(value, list) else [value]
        if cf.kind == "mapping":
            continue  # a mapping is not a CSV cell; the record check below reports it
        allowed = list(cf.ids)
        col = columns.get(cf.name)
        where = f"{col.column}" if col else cf.name
        for v in items:
            if not isinstance(v, str) or v not in allowed:
                hint = suggest(v, allowed)
                shown = f" (did you mean {hint!r}?)" if hint else f" (one of: {', '.join(allowed)})"
                mapped = f"; or map it in taxonomy/csv.yaml: values: {{{v}: {hint}}}" if hint and col else ""
                out.append(Problem(label, line, 0, where, f"{v!r} is not a {cf.noun}{shown}{mapped}"))
        if cf.kind == "single" and isinstance(value, list):
            out.append(Problem(label, line, 0, where, f"holds {len(value)} values; {cf.name} takes one"))
    return out


def _source_rows(lay: Layout, path: Path, label: str, partial: bool = False) -> CsvRows:
    """The rows of a list in any format :mod:`sources` reads, as CSV rows of this layout: list
    cells joined with the column's separator, so one path checks and converts them."""
    if path.suffix.lower() == ".csv":
        named = read_csv(path, lay.header, label, [c.column for c in lay.columns if c.generated or c.optional or c.private])
        if not _header_unfit(named.problems):
            return named
        # a list's own CSV whose layout init made from the table read off it (its address
        # columns folded into links, a row of group names above the header): read as that table
        try:
            table_rows = _table_rows(lay, path, label, partial)
        except InvalidInput:
            return named
        return named if _header_unfit(table_rows.problems) else table_rows
    return _table_rows(lay, path, label, partial)


def _header_unfit(problems: Sequence[Problem]) -> bool:
    return any(p.line == 1 and p.message.startswith(("missing columns", "unknown columns")) for p in problems)


def _table_rows(lay: Layout, path: Path, label: str, partial: bool) -> CsvRows:
    table = read_source(path, strict=not partial)
    out = CsvRows()
    missing = [c.column for c in lay.columns
               if c.column not in table.columns and not (c.generated or c.optional or c.ignore or c.private)]
    unknown = [c for c in table.columns if c not in lay.header]
    out.problems.extend(_header_problems(label, missing, unknown))
    if missing:
        return out
    by_name = {c.column: c for c in lay.columns}
    for row in table.rows:
        cells: dict[str, str] = {}
        for name, cell in row.cells.items():
            col = by_name.get(name)
            if isinstance(cell, str) or col is None:
                cells[name] = cell if isinstance(cell, str) else " ; ".join(cell)
            elif col.separator is not None:
                cells[name] = col.separator.join(cell)
            elif len(cell) <= 1:
                cells[name] = cell[0] if cell else ""
            else:
                out.problems.append(Problem(label, row.line, 0, name, f"holds {len(cell)} values; the layout takes one (give the column a separator in taxonomy/csv.yaml)"))
        out.rows.append((row.line, cells))
    return out


_KEY_STOPWORDS = frozenset(["a", "an", "the", "of", "for", "and", "on", "in", "to", "with", "by", "from", "via", "towards", "toward", "is", "are"])


def title_key(title: str, taken: set[str], pattern: str) -> str:
    """A readable key from a title (its first significant words), made unique with -2, -3..."""
    words = [w for w in re.sub(r"[^a-z0-9 ]+", " ", normalize_title(title)).split() if w not in _KEY_STOPWORDS]
    base = "-".join(words[:6])[:60].strip("-") or "entry"
    rx = re.compile(pattern)
    # Lazily: the list of every candidate was 100,000 strings built for each imported row.
    for key in itertools.chain([base], (f"{base}-{n}" for n in range(2, 100_000))):
        if key not in taken and rx.match(key):
            return key
    raise UsageError(f"cannot make a free key from the title {title!r}")


@dataclass(frozen=True)
class ImportOptions:
    """How rows that look alike are taken (``survey init`` and ``survey import``)."""

    # Rows with the same title (one row per study of the same work) are different entries:
    # each record declares the others distinct instead of failing as a duplicate.
    distinct_titles: bool = False
    # survey init: a row's problems leave out the field (or, for a required one, the row) and
    # are listed as warnings, so that a list is never refused whole; `survey import` refuses.
    partial: bool = False


def plan_import(
    tax: Taxonomy,
    papers_csv: Path,
    excluded_csv: Path | None = None,
    bib: Path | None = None,
    edition: str | None = None,
    options: ImportOptions = ImportOptions(),
) -> ImportPlan:
    """Check every row and build the records; raise :class:`InvalidInput` with every problem.

    The list may be a CSV file or any other format :mod:`survey_tools.adopt.sources` reads.
    Imported records name the edition the CSVs come from (default: the latest published one).
    """
    edition = _import_edition(tax, edition)
    plan = ImportPlan()
    bib_index = _bib_index(read_bib(bib)) if bib else {}
    sources: list[tuple[Collection, Path]] = [(tax.retained, papers_csv)]
    if excluded_csv is not None:
        if tax.excluded is None:
            raise UsageError("the taxonomy defines no exclusion collection")
        sources.append((tax.excluded, excluded_csv))
    problems: list[Problem] = []
    for coll, path in sources:
        problems.extend(_import_file(tax, coll, path, plan, bib_index, edition, options))
    if problems:
        raise InvalidInput(problems, "nothing was imported")
    return plan


def _import_edition(tax: Taxonomy, edition: str | None) -> str | None:
    """The published edition the imported records name (default: the latest one)."""
    ed = tax.editions
    if ed is not None:
        edition = edition or (ed.latest.id if ed.latest else ed.living.id)
        if edition not in ed.ids or edition == ed.living.id:
            known = ", ".join(e.id for e in ed.published)
            raise UsageError(f"--edition {edition!r} is not a published edition (known: {known})")
    return edition


def _import_file(
    tax: Taxonomy,
    coll: Collection,
    path: Path,
    plan: ImportPlan,
    bib_index: Mapping[str, BibEntry],
    edition: str | None,
    options: ImportOptions,
) -> list[Problem]:
    """The rows of one list into ``plan``; the problems of every row, none stopping the rest."""
    lay = with_every_field(tax, layout(tax, coll.name))
    label = path.name
    rows = _source_rows(lay, path, label, options.partial)
    plan.sentences.extend(f"{label}:{c.column}" for c in lay.columns if c.sentence)
    run = _FileImport(tax, coll, lay, label, plan, options, bib_index, edition, list(rows.problems))
    id_column = run.generated or next((c for c in lay.columns if c.field == coll.id_field), None)
    if id_column is not None:  # keys given in the list come first; made keys avoid them
        run.taken = {row.get(id_column.column, "").strip() for _, row in rows.rows} - {""}
    for line, raw in rows.rows:
        run.row(line, raw)
    return run.finish()


@dataclass
class _FileImport:
    """One list being imported into a plan: its rows one by one, then what spans rows."""

    tax: Taxonomy
    coll: Collection
    lay: Layout
    label: str
    plan: ImportPlan
    options: ImportOptions
    bib_index: Mapping[str, BibEntry]
    edition: str | None
    problems: list[Problem]
    taken: set[str] = field(default_factory=set)
    lines: dict[str, int] = field(default_factory=dict)
    order: list[list[str]] = field(default_factory=list)
    spaced: dict[str, list[int]] = field(default_factory=dict)  # column -> lines made plain

    @property
    def generated(self) -> Column | None:
        return next((c for c in self.lay.columns if c.generated), None)

    def row(self, line: int, raw: Mapping[str, str]) -> None:
        tax, coll, lay, label = self.tax, self.coll, self.lay, self.label
        spaced: list[str] = []
        row = _clean_cells(coll, lay, raw, f"{label}:{line}", self.plan.warnings, spaced)
        for column in spaced:
            self.spaced.setdefault(column, []).append(line)
        record = _row_record(tax, coll, lay, row, self.generated, self.taken, self.edition)
        self._say_ambiguous_authors(row, line)
        rid = self._key(record, line)
        if not isinstance(rid, str) or not re.match(coll.id_pattern, rid):
            self.problems.extend(_bad_key_problems(tax, coll, lay, record, label, line))
            return
        rid = self._unfolded(record, rid, line)
        rel = f"{coll.folder}/{rid}.yaml"
        if rel in self.plan.files and self.options.partial:
            # init: a key the list gives twice names the later row with -2 (-3...) after it, as a
            # repeated BibTeX key is read; the look-alike rule then merges the rows or keeps both
            first = self.lines[rel]
            rid = self._renamed(record, rid)
            self.plan.warnings.append(f"{label}:{line}: {coll.id_field}: {rid.rsplit('-', 1)[0]!r} appears twice "
                                      f"(first on line {first}); imported as {rid!r}")
            rel = f"{coll.folder}/{rid}.yaml"
        if rel in self.plan.files:
            message = f"{rid!r} appears twice (first on line {self.lines[rel]})"
            self.problems.append(Problem(label, line, 0, coll.id_field, message))
            return
        if self.bib_index and coll is tax.retained:
            _take_from_bib(tax, self.bib_index, record)
        _keep_own_fields(tax, coll, lay, row, rel, record)
        _enrich_identifiers(tax, record)
        _waive_year(tax, coll, record, self.plan, label, line)
        found: list[Problem] | None = _tag_problems(tax, coll, lay, record, label, line)
        found = (found or []) + _record_problems(tax, coll, lay, rel, record, label, line)
        if found and self.options.partial:
            found = _leave_out(tax, coll, lay, rel, record, found, self.plan, row)
            if found is None:
                return
        self.problems.extend(found)
        self.lines[rel] = line
        self.plan.lines[rel] = line
        self.plan.files[rel] = record
        self.order.append([rid, *(row.get(c.column, "") for c in lay.ignored)])

    def _say_ambiguous_authors(self, row: Mapping[str, str], line: int) -> None:
        """One warning for an authors cell that could be read two ways (none for the column)."""
        for col in self.lay.columns:
            if col.field == "authors" and col.separator is not None and not col.ignore:
                why = ambiguous_authors(row.get(col.column, ""))
                if why:
                    self.plan.warnings.append(f"{self.label}:{line}: {col.column}: {why}")

    def _key(self, record: dict[str, Any], line: int) -> Any:
        """The row's key; in init, a key no file can be named by is remade (with a warning)."""
        coll = self.coll
        rid = record.get(coll.id_field)
        if self.options.partial and isinstance(rid, str) and rid and not re.match(coll.id_pattern, rid):
            new = _fit_key(rid, record, self.taken, coll)
            self.plan.warnings.append(f"{self.label}:{line}: {coll.id_field}: {rid!r} cannot name a file; "
                                      f"imported as {new!r}")
            self.taken.add(new)
            record[coll.id_field] = rid = new
        return rid

    def _renamed(self, record: dict[str, Any], rid: str) -> str:
        """``rid`` with -2 (-3...) after it: the first such key no row has taken yet."""
        folded = {str(r.get(self.coll.id_field, "")).lower() for r in self.plan.files.values()}
        n = 2
        while f"{rid}-{n}".lower() in folded or f"{rid}-{n}" in self.taken:
            n += 1
        self.taken.add(f"{rid}-{n}")
        record[self.coll.id_field] = f"{rid}-{n}"
        return f"{rid}-{n}"

    def _unfolded(self, record: dict[str, Any], rid: str, line: int) -> str:
        """In init, a key that differs from an earlier one only by case (``IEEE-CEC``,
        ``ieee-cec``: one file and one page where case does not count) gets -2 (-3...) after it,
        with a warning; the documented rule of docs/new-survey.md."""
        folded = {str(r.get(self.coll.id_field, "")).lower() for r in self.plan.files.values()}
        if not self.options.partial or rid.lower() not in folded or f"{self.coll.folder}/{rid}.yaml" in self.plan.files:
            return rid
        new = self._renamed(record, rid)
        self.plan.warnings.append(f"{self.label}:{line}: {self.coll.id_field}: {rid!r} differs from an earlier key "
                                  f"only by case; imported as {new!r}")
        return new

    def finish(self) -> list[Problem]:
        coll, plan = self.coll, self.plan
        for column, lines in self.spaced.items():
            shown = ", ".join(map(str, lines[:8])) + (", ..." if len(lines) > 8 else "")
            plan.warnings.append(f"{self.label}: {column}: look-alike spaces (no-break, thin) made spaces and "
                                 f"accents composed in {len(lines)} row{'' if len(lines) == 1 else 's'} "
                                 f"(line{'' if len(lines) == 1 else 's'} {shown})")
        rels = [r for r in plan.files if r.startswith(f"{coll.folder}/")]
        self.problems.extend(_same_titles(self.tax, coll, plan, rels, self.lines, self.label, self.options))
        kept = {str(plan.files[r][coll.id_field]) for r in rels if r in plan.files}
        order = [o for o in self.order if o[0] in kept]
        if order:  # no rows, no order to keep
            plan.orders[self.lay.order] = _csv_text([[coll.id_field, *(c.column for c in self.lay.ignored)], *order])
        if self.options.partial:  # init: every problem is a warning, nothing is refused
            plan.warnings.extend(p.format() for p in self.problems)
            return []
        return self.problems


def _fit_key(key: str, record: Mapping[str, Any], taken: set[str], coll: Collection) -> str:
    """A key made fit for a file name from a list's own (``--__theory`` -> ``theory``), else from
    the title; unique among the keys already taken."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", key).strip("-._")[:100]
    if not base:
        title = record.get(coll.title_field)
        return title_key(title if isinstance(title, str) else "", taken, coll.id_pattern)
    return title_key(base, taken, coll.id_pattern) if base in taken or not re.match(coll.id_pattern, base) else base


# Characters that show as nothing and make a text hold other than it displays (the hidden
# module's ZERO_WIDTH class; a bidi mark stays, for validate to name: it may be meant).
_INVISIBLE = hidden.pattern(hidden.ZERO_WIDTH)


def without_invisible(text: str) -> str:
    """``text`` without the characters that show as nothing (what an imported cell becomes)."""
    return _INVISIBLE.sub("", text)


def _clean_cells(coll: Collection, lay: Layout, row: Mapping[str, str], where: str,
                 warnings: list[str], spaced: list[str]) -> dict[str, str]:
    """Cells as spreadsheets write them, made fit for their fields: a line break in a one-line
    field (anything but free text, or a list split on line breaks) becomes a space, invisible
    characters go; each change is a warning naming the row and the column. Look-alike spaces
    (no-break, thin) become spaces and accents are composed, as the validator asks (the columns
    so changed are added to ``spaced``, said once a column for the file)."""
    kinds = {f.name: f.type for f in coll.fields}
    out = dict(row)
    for col in lay.columns:
        cell = row.get(col.column)
        if not cell or col.ignore:
            continue
        new = _INVISIBLE.sub("", cell)
        if new != cell:
            warnings.append(f"{where}: {col.column}: invisible characters (zero-width spaces) removed")
        plain = cleaned(new)  # what the validator asks of a contributor (corpus/yaml_words)
        if plain != new:
            spaced.append(col.column)
            new = plain
        keeps_breaks = kinds.get(col.field.split(".")[0]) == "text" or "\n" in (col.separator or "")
        if not keeps_breaks and ("\n" in new or "\r" in new):
            new = " ".join(new.split()) if col.separator is None else col.separator.join(
                " ".join(p.split()) for p in split_cell(new, col.separator))
            warnings.append(f"{where}: {col.column}: line breaks in a one-line field became spaces")
        out[col.column] = new
    return out


def _source_values(lay: Layout, row: Mapping[str, str], fields: set[str]) -> list[str]:
    """The cells of ``row`` that fill ``fields``, as "column: cell" (what init keeps in
    import_notes when a field cannot take them)."""
    return [f"{c.column}: {row[c.column]}" for c in lay.columns
            if c.field and c.field.split(".")[0] in fields and str(row.get(c.column) or "").strip()]


def _leave_out(tax: Taxonomy, coll: Collection, lay: Layout, rel: str, record: dict[str, Any],
               found: list[Problem], plan: ImportPlan, row: Mapping[str, str]) -> list[Problem] | None:
    """``survey init``'s way with a row's problems: each field a problem names is left out of
    the record (a warning each); a row whose required field is wrong is left out whole (None).
    What is left out is said, with the row, in the warnings."""
    columns = {c.column: c.field.split(".")[0] for c in lay.columns if c.field}
    required = {f.name for f in coll.fields if f.required} | {coll.id_field, coll.title_field}
    bad = {columns.get(p.field, p.field.split(".")[0]) for p in found}
    for p in found:
        plan.warnings.append(f"{p.format()}; moved to {NOTES_FIELD}")
    if bad & required or not bad <= set(record):
        plan.warnings.append(f"{found[0].file}:{found[0].line}: the row is left out (its {', '.join(sorted(bad & required or bad))} "
                             "cannot be imported)")
        return None
    kept = _source_values(lay, row, bad)
    for name in bad:
        plan.moved[name] = plan.moved.get(name, 0) + 1
    for name in bad:
        cf = coll.controlled_field(name)
        record[name] = tax.untagged if cf is not None else None
        if cf is None:
            del record[name]
    if kept and NOTES_FIELD in coll.field_names():
        # nothing the list held is lost: the value no field could take is kept, privately
        notes = [record[NOTES_FIELD]] if isinstance(record.get(NOTES_FIELD), str) else []
        record[NOTES_FIELD] = "\n\n".join(notes + kept)
        # in the taxonomy's field order, as every record is written (an export and import again
        # gives the same file, the notes not moved to the end)
        _in_field_order(record, coll.field_names())
    label, line = found[0].file, found[0].line
    again = _tag_problems(tax, coll, lay, record, label, line) + _record_problems(tax, coll, lay, rel, record, label, line)
    if again:
        plan.warnings.extend(f"{p.format()}; the row is left out" for p in again)
        return None
    return []


def _row_record(
    tax: Taxonomy,
    coll: Collection,
    lay: Layout,
    row: Mapping[str, str],
    generated: Column | None,
    taken: set[str],
    edition: str | None,
) -> dict[str, Any]:
    """The record of one row, with a key made from its title where the list gives none."""
    record = _row_to_record(tax, coll, lay, row)
    if generated is not None and not record.get(coll.id_field):
        title = record.get(coll.title_field)
        key = title_key(title if isinstance(title, str) else "", taken, coll.id_pattern)
        taken.add(key)
        record = {coll.id_field: key, **{k: v for k, v in record.items() if k != coll.id_field}}
    ed = tax.editions
    if ed is not None and edition and ed.field in coll.field_names():
        _insert_after(record, ed.field, edition, tax)
    return record


def _bad_key_problems(
    tax: Taxonomy, coll: Collection, lay: Layout, record: dict[str, Any], label: str, line: int
) -> list[Problem]:
    rid = record.get(coll.id_field)
    problems = [
        Problem(
            label,
            line,
            0,
            coll.id_field,
            f"{_short(rid)} is not a valid {coll.id_field} (must match {coll.id_pattern})",
        )
    ]
    # the row's other cells are still checked: every problem of every row at once
    problems.extend(_tag_problems(tax, coll, lay, record, label, line))
    # The key was said above; the record check would say it again under the id column's name.
    id_column = next((c.column for c in lay.columns if c.field == coll.id_field), coll.id_field)
    rel = f"{coll.folder}/row-{line}.yaml"
    problems.extend(
        p
        for p in _record_problems(tax, coll, lay, rel, record, label, line)
        if p.field != id_column
    )
    return problems


def _take_from_bib(
    tax: Taxonomy, bib_index: Mapping[str, BibEntry], record: dict[str, Any]
) -> None:
    """The authors and DOI of the BibTeX entry that matches the record, where there is one."""
    entry = _match_bib(bib_index, record)
    if entry is None:
        return
    names, complete = _bib_authors(entry)
    if names:
        record["authors"] = names
        _insert_after(record, "authors_complete", complete, tax)
    doi = entry.fields.get("doi")
    if doi:
        ids = dict(record.get("identifiers") or {})
        ids.setdefault("doi", doi.strip().lower())
        record["identifiers"] = ids


def _keep_own_fields(tax: Taxonomy, coll: Collection, lay: Layout, row: Mapping[str, str], rel: str,
                     record: dict[str, Any]) -> None:
    """A record the import replaces keeps what the list does not hold: fields no column of this
    file fills (a declared non-duplicate, a waiver, identifiers looked up later)."""
    path = tax.root / rel
    if not path.is_file():
        return
    try:
        old = parse_yaml(path.read_text(encoding="utf-8"), rel).data
    except (OSError, UnicodeDecodeError):
        return
    if not isinstance(old, dict):
        return
    filled = {c.field.split(".")[0] for c in lay.columns if c.field and c.column in row}
    for key, value in old.items():
        if key not in filled and key not in record:
            _insert_after(record, key, value, tax)


def _short(value: Any, limit: int = 60) -> str:
    """A value shown in a message: a 5000-digit cell is not repeated whole."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


@dataclass(frozen=True)
class _Alike:
    what: str  # "the same title as", "a title nearly the same as", "the same arXiv id 2401.00001 as"
    identifier: tuple[str, str] | None = None  # (kind, value) when only an identifier is shared


def _look_alike(tax: Taxonomy, coll: Collection, plan: ImportPlan, rels: Sequence[str]) -> dict[tuple[str, str], _Alike]:
    """Pairs of planned records the corpus checks would call duplicates: the same title, a title
    at least FUZZY_THRESHOLD% alike, or a shared identifier; (rel, rel) -> what they share."""
    pairs: dict[tuple[str, str], _Alike] = {}
    titles = [normalize_title(str(plan.files[r].get(coll.title_field) or "")) for r in rels]
    for group in _candidate_groups(titles):  # the corpus check's blocking: never all pairs
        for x, i in enumerate(group):
            for j in group[x + 1:]:
                if not titles[i] or not titles[j]:
                    continue
                if titles[i] == titles[j]:
                    pairs[(rels[i], rels[j])] = _Alike("the same title as")
                elif fuzz.ratio(titles[i], titles[j], score_cutoff=FUZZY_THRESHOLD):
                    pairs.setdefault((rels[i], rels[j]), _Alike("a title nearly the same as"))
    kinds = {k: v.normalize for k, v in tax.identifiers.items()}
    seen: dict[tuple[str, str], list[str]] = {}
    for r in rels:
        for kind, value in record_identifiers(plan.files[r], kinds).items():
            seen.setdefault((kind, value), []).append(r)
    for (kind, value), sharing in seen.items():
        for x, a in enumerate(sharing):
            for b in sharing[x + 1:]:
                label = tax.identifiers[kind].label
                pairs.setdefault((a, b), _Alike(f"the same {label} {value} as", (kind, value)))
    return pairs


def _same_titles(tax: Taxonomy, coll: Collection, plan: ImportPlan, rels: Sequence[str],
                 lines: Mapping[str, int], label: str, options: ImportOptions) -> list[Problem]:
    """Rows that look like one work twice (a title the same or nearly, a shared identifier).

    With --distinct-titles every such pair is declared distinct (true homonyms); `survey import`
    (not partial) reports the others as problems. ``survey init`` settles them by the rule
    docs/new-survey.md states: rows whose cells agree wherever both are filled are one
    work listed twice and are merged into the first; rows that only share an identifier (an
    arXiv id given on two different titles) keep both records and the identifier stays with the
    first row (the second's notes say so); rows with the same or a nearly the same title whose
    cells differ (one work reporting several studies, say) stay separate records, each naming
    the other in its ``not_duplicate_of``. Every choice is a warning naming both rows; without a
    field for these choices (``key_reasons``) the pairs are problems, as before.
    """
    distinct = next((f.name for f in coll.fields if f.type == "key_reasons"), None)
    run = _Settling(tax, coll, plan, dict(lines), label, options, distinct)
    run.key = {r: plan.files[r][coll.id_field] for r in rels}
    run.declared = {(run.key[r], k) for r in rels for k in (plan.files[r].get(distinct) or {} if distinct else {})}
    # A choice can uncover another pair (a record that loses one arXiv id shows the next link's),
    # so pairs are looked for again until none is left, a few rounds at most.
    for _ in range(4):
        live = [r for r in rels if r in plan.files]
        pairs = sorted(_look_alike(tax, coll, plan, live).items(), key=lambda kv: (lines[kv[0][0]], lines[kv[0][1]]))
        if not sum(run.settle(a, b, alike) for (a, b), alike in pairs):
            break
    run.repoint()
    return run.out


@dataclass
class _Settling:
    """Pairs of planned records that look like one work twice, settled one by one."""

    tax: Taxonomy
    coll: Collection
    plan: ImportPlan
    lines: dict[str, int]
    label: str
    options: ImportOptions
    distinct: str | None
    key: dict[str, Any] = field(default_factory=dict)
    declared: set[tuple[Any, Any]] = field(default_factory=set)
    merged: dict[str, str] = field(default_factory=dict)  # a merged row's rel -> the rel it went into
    out: list[Problem] = field(default_factory=list)

    def settle(self, a: str, b: str, alike: _Alike) -> bool:
        """Settle one pair (False: settled already)."""
        a, b = self._final(a), self._final(b)
        key, lines, label, distinct = self.key, self.lines, self.label, self.distinct
        if a == b or (key[a], key[b]) in self.declared or (key[b], key[a]) in self.declared:
            return False
        self.declared |= {(key[a], key[b]), (key[b], key[a])}
        where = f"{label}:{lines[b]}: {alike.what} {key[a]} (line {lines[a]})"
        if distinct is None or not (self.options.partial or self.options.distinct_titles):
            # survey import settles nothing itself: the rows are the user's to tell apart
            hint = ("if they are different entries, say --distinct-titles" if distinct
                    else "declare a field of type key_reasons to mark different works")
            self.out += [Problem(label, lines[r], 0, self.coll.title_field,
                                 f"{alike.what} {key[o]} (line {lines[o]}); {hint}") for r, o in ((a, b), (b, a))]
        elif self.options.distinct_titles:
            _declare_distinct(self.tax, self.plan, distinct, (a, b), key, "a separate entry in the source list")
        elif alike.identifier is None and _agree(self.coll, self.plan.files[a], self.plan.files[b]):
            _merge_into(self.tax, self.coll, self.plan, a, b, f"line {lines[b]} of {label} is the same work: merged here")
            self.merged[b] = a
            self.plan.warnings.append(f"{where}: one work listed twice; merged into {key[a]}")
        elif alike.identifier is not None:
            self._identifier(a, b, alike, where)
        else:
            reason = f"another row of {label} with {alike.what.replace(' as', '')} title (its other cells differ)"
            _declare_distinct(self.tax, self.plan, distinct, (a, b), key, reason)
            self.plan.warnings.append(f"{where}: kept as separate records, each naming the other in {distinct}")
        return True

    def _identifier(self, a: str, b: str, alike: _Alike, where: str) -> None:
        key, distinct = self.key, self.distinct
        assert alike.identifier is not None and distinct is not None
        owner = f"{key[a]} (line {self.lines[a]} of {self.label})"
        if _give_identifier(self.tax, self.coll, self.plan, (a, b), alike.identifier, owner):
            self.plan.warnings.append(f"{where} on another title; kept on {key[a]}, left out of {key[b]} (see its notes)")
            return
        # its only link carries it: both kept as the list has them, the doubt recorded
        _declare_distinct(self.tax, self.plan, distinct, (a, b), key,
                          f"{alike.what.removesuffix(' as')} in {self.label}, on another title: one of the two is wrong")
        self.plan.warnings.append(f"{where} on another title, its only link: both kept, each naming the other "
                                  f"in {distinct}; check which is right")

    def repoint(self) -> None:
        """Declarations naming a merged record name the record it went into (or go, if that is
        the record itself)."""
        if not self.merged or self.distinct is None:
            return
        into = {self.key[b]: self.key[self._final(b)] for b in self.merged}
        for record in self.plan.files.values():
            reasons = record.get(self.distinct)
            if isinstance(reasons, dict) and set(reasons) & set(into):
                fixed: dict[str, Any] = {}
                for k, why in reasons.items():
                    now = str(into.get(k, k))
                    if now != record.get(self.coll.id_field):
                        fixed.setdefault(now, why)
                if fixed:
                    record[self.distinct] = fixed
                else:
                    del record[self.distinct]

    def _final(self, rel: str) -> str:
        while rel in self.merged:
            rel = self.merged[rel]
        return rel


def _declare_distinct(tax: Taxonomy, plan: ImportPlan, distinct: str, pair: tuple[str, str],
                      key: Mapping[str, Any], reason: str) -> None:
    for one, other in (pair, pair[::-1]):
        reasons = dict(plan.files[one].get(distinct) or {})
        reasons.setdefault(key[other], reason)
        _insert_after(plan.files[one], distinct, reasons, tax)


def _agree(coll: Collection, a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two rows say the same wherever both say something (besides their keys)."""
    for name, value in a.items():
        other = b.get(name)
        if name == coll.id_field or value in (None, "", [], {}) or other in (None, "", [], {}):
            continue
        if isinstance(value, list) and isinstance(other, list):
            continue  # lists (links, sections, authors) are joined when merged
        if isinstance(value, str) and isinstance(other, str):
            if " ".join(value.lower().split()) != " ".join(other.lower().split()):
                return False
        elif value != other:
            return False
    return True


def _note(tax: Taxonomy, coll: Collection, record: dict[str, Any], text: str) -> None:
    notes = next((f.name for f in coll.fields if f.name == "notes" and f.type == "text"), None)
    if notes is not None:
        old = str(record.get(notes) or "")
        _insert_after(record, notes, f"{old}\n{text}".strip(), tax)


def _merge_into(tax: Taxonomy, coll: Collection, plan: ImportPlan, keep: str, drop: str, note: str) -> None:
    """The dropped row's values that the kept one lacks (and the items of its lists) go to it."""
    record, other = plan.files[keep], plan.files.pop(drop)
    for name, value in other.items():
        have = record.get(name)
        if isinstance(have, list) and isinstance(value, list):
            record[name] = have + [v for v in value if v not in have]
        elif have in (None, "", [], {}, tax.untagged) and value not in (None, "", [], {}):
            _insert_after(record, name, value, tax)
    _note(tax, coll, record, note)


def _give_identifier(tax: Taxonomy, coll: Collection, plan: ImportPlan, pair: tuple[str, str],
                     ident: tuple[str, str], owner: str) -> bool:
    """An identifier two rows of different titles give stays with the first; the second loses it
    and the links that carry it, and its notes say which row kept it. False (nothing changed)
    when those links are all the second row has."""
    kind, value = ident
    record = plan.files[pair[1]]
    if not [u for u in record.get("links") or [] if ids_from_url(u).get(kind) != value] and record.get("links"):
        return False
    ids = dict(record.get("identifiers") or {})
    ids.pop(kind, None)
    if ids:
        record["identifiers"] = ids
    else:
        record.pop("identifiers", None)
    links = [u for u in record.get("links") or [] if ids_from_url(u).get(kind) != value]
    dropped = [u for u in record.get("links") or [] if u not in links]
    if "links" in record:
        record["links"] = links
    # the identifiers its other links carry, as an import of the record again would find them
    _enrich_identifiers(tax, record)
    label = tax.identifiers[kind].label
    shown = f" (link {', '.join(dropped)})" if dropped else ""
    _note(tax, coll, record, f"The source list also gives this entry {label} {value}{shown}, which is {owner}'s: "
                             "left to that entry; check this entry's own.")
    return True


def _waive_year(tax: Taxonomy, coll: Collection, record: dict[str, Any], plan: ImportPlan, label: str, line: int) -> None:
    """A year the list gives that does not fit the record's arXiv id is the list's to keep
    (a journal version, a typo to fix later): a warning, and a per-record waiver saying so."""
    waivers = next((f.name for f in coll.fields if f.type == "waivers"), None)
    ids = record.get("identifiers")
    year = record.get("year")
    if waivers is None or not isinstance(ids, Mapping) or not isinstance(year, int) or isinstance(year, bool):
        return
    a = ids.get("arxiv")
    ay = arxiv_year(a) if isinstance(a, str) else None
    if ay is None or ay <= year <= ay + ARXIV_YEAR_SLACK:
        return
    reason = f"the source list gives {year}; the arXiv id {a} was issued in {ay}"
    current = dict(record.get(waivers) or {})
    current.setdefault("year_fits_arxiv", reason)
    _insert_after(record, waivers, current, tax)
    plan.warnings.append(f"{label}:{line}: year: {year} does not fit arXiv id {a} (issued {ay}); "
                         f"kept, with a waiver in the record's {waivers!r} field")


# Problems an imported record may have until people finish it (see _record_problems).
_LEFT_FOR_PEOPLE = ("not yet tagged", "required field is missing", "too short:", "too long:", "placeholder ")


def _record_problems(tax: Taxonomy, coll: Collection, lay: Layout, rel: str,
                     record: Mapping[str, Any], label: str, line: int) -> list[Problem]:
    """The record checks a written file would fail, reported at the CSV row.

    What people finish after an import is not an import error: untagged fields, and the
    curation rules on prose length and on how names are written (another list's one-line notes
    and author columns rarely follow them); `survey validate` reports those on the records.
    """
    columns = {c.field.split(".")[0]: c.column for c in lay.columns if not c.ignore}
    out = []
    for p in check_record(tax, coll, rel, parse_yaml(dump_yaml(record), rel)):
        if p.message.startswith(_LEFT_FOR_PEOPLE) or "is not written as 'Last, First'" in p.message:
            continue
        if p.message.startswith("expected") and record.get(p.field.split(".")[0]) == tax.untagged:
            continue
        head = p.field.split(".")[0]
        out.append(Problem(label, line, 0, columns.get(head, p.field), p.message))
    return out


def _csv_text(rows: Sequence[Sequence[str]]) -> str:
    buf = io.StringIO()
    # A title like =HYPERLINK(...) must not run when the export is opened in a spreadsheet.
    safe = ([spreadsheet_safe(c) if isinstance(c, str) else c for c in row] for row in rows)
    csv.writer(buf, lineterminator="\n").writerows(safe)
    return buf.getvalue()


def write_import(tax: Taxonomy, plan: ImportPlan, overwrite: bool = False) -> ImportPlan:
    """Write the planned records and the recorded row order; existing records are kept unless
    ``overwrite``."""
    existing = [rel for rel in plan.files if (tax.root / rel).exists()]
    if existing and not overwrite:
        plan.skipped = sorted(existing)
    for rel, record in sorted(plan.files.items()):
        if rel in plan.skipped:
            continue
        atomic_write(tax.root / rel, dump_yaml(record))
    for rel, text in sorted(plan.orders.items()):
        atomic_write(tax.root / rel, text)
    return plan


# --- export ----------------------------------------------------------------------------


def _recorded_order(tax: Taxonomy, lay: Layout) -> list[list[str]]:
    """Rows of the order file written by import: [id, ignored cells...]; [] when there is none."""
    path = tax.root / lay.order
    if not path.is_file():
        return []
    try:
        read = read_csv_rows(path.read_text(encoding="utf-8"), lay.order, strict=False)
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"cannot read {lay.order}: {err}") from None
    if read.problems:
        raise UsageError(f"cannot read {read.problems[0].format()}")
    return [r for _, r in read.rows]


def _cell(tax: Taxonomy, lay: Layout, col: Column, value: Any) -> str:
    if col.take == "first":
        value = value[0] if isinstance(value, list) and value else ""
    elif col.separator is not None and isinstance(value, list):
        value = col.separator.join(col.back.get(str(v), str(v)) for v in value)
    elif value == tax.untagged:
        value = ""  # nothing was known: the cell was empty
    elif value == tax.na:
        value = lay.na
    elif isinstance(value, str):
        value = col.back.get(value, value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def export_rows(tax: Taxonomy, corpus: Corpus, collection: str) -> list[list[str]]:
    """The CSV rows: the recorded source order first (with its ignored cells), then any other
    record by id."""
    lay = layout(tax, collection)
    by_id = {r.id: r for r in corpus.of(collection)}
    present = {k for r in by_id.values() for k, v in r.data.items() if v not in (None, "", [], tax.untagged)}
    lay = with_every_field(tax, lay, present)
    # a private field never leaves the records (import keeps it when the file has no such column)
    lay = dataclasses.replace(lay, columns=tuple(c for c in lay.columns if not c.private))
    recorded = _recorded_order(tax, lay)
    kept = {r[0]: r[1:] for r in recorded if r[0] in by_id}
    ids = [r[0] for r in recorded if r[0] in by_id]
    ids += sorted(set(by_id) - set(ids))
    rows = [lay.header]
    for rid in ids:
        rec = by_id[rid]
        ignored = iter(kept.get(rid, []))
        row: list[str] = []
        for col in lay.columns:
            if col.ignore:
                row.append(next(ignored, ""))
            else:
                row.append(_cell(tax, lay, col, _get(rec.data, col.field)))
        rows.append(row)
    return rows


def export_csv(tax: Taxonomy, corpus: Corpus, out_dir: Path) -> list[Path]:
    """Write one CSV per collection in the survey's layout; returns the files written."""
    written = []
    for name in tax.collections:
        if name not in tax.csv_layout:
            continue
        lay = layout(tax, name)
        path = out_dir / lay.file
        atomic_write(path, _csv_text(export_rows(tax, corpus, name)))
        written.append(path)
    if not written:
        layout(tax, tax.retained.name)  # raises the clear "no layout" error
    return written
