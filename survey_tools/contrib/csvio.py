"""Import records from, and export them to, the survey's CSV layout (``taxonomy/csv.yaml``).

Import is all-or-nothing: every row is checked first and nothing is written unless every
record can be. Export reproduces the CSV column for column; only the columns marked as
sentences (rewritten in the project's own words) differ from the survey's files.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from survey_tools.corpus.identifiers import ids_from_label, ids_from_url, normalize_arxiv
from survey_tools.corpus.records import Corpus
from survey_tools.corpus.taxonomy import Collection, Taxonomy
from survey_tools.corpus.titles import normalize_title
from survey_tools.corpus.yamlio import dump_yaml
from survey_tools.errors import InvalidInput, Problem, UsageError
from survey_tools.fileio import atomic_write

MAX_CSV_BYTES = 50 * 1024 * 1024


@dataclass(frozen=True)
class Column:
    column: str
    field: str
    take: str = ""  # "first": the column holds the first item of a list field
    split: bool = False  # the column joins a list field with the layout's separator
    sentence: bool = False


@dataclass(frozen=True)
class Layout:
    file: str
    columns: tuple[Column, ...]
    na: str
    separator: str

    @property
    def header(self) -> list[str]:
        return [c.column for c in self.columns]


def layout(tax: Taxonomy, collection: str) -> Layout:
    raw = tax.csv_layout.get(collection)
    if not isinstance(raw, dict):
        raise UsageError(f"taxonomy/csv.yaml has no layout for {collection!r}")
    cols = tuple(
        Column(
            column=str(c["column"]),
            field=str(c["field"]),
            take=str(c.get("take", "")),
            split=bool(c.get("split", False)),
            sentence=bool(c.get("sentence", False)),
        )
        for c in raw.get("columns", [])
    )
    return Layout(
        file=str(raw.get("file", f"{collection}.csv")),
        columns=cols,
        na=str(tax.csv_layout.get("na", "NA")),
        separator=str(tax.csv_layout.get("list_separator", " ; ")),
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


def read_csv(path: Path, expected: Sequence[str], label: str) -> CsvRows:
    """Rows of a CSV file with the line each starts on; every malformed row becomes a problem."""
    out = CsvRows()
    try:
        size = path.stat().st_size
        if size > MAX_CSV_BYTES:  # refused by size, before reading
            out.problems.append(
                Problem(label, 1, 0, "", f"file is {size:,} bytes; the limit is {MAX_CSV_BYTES:,}")
            )
            return out
        raw = path.read_bytes()
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror or err}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        out.problems.append(
            Problem(
                label,
                line,
                0,
                "",
                f"not valid UTF-8 (byte 0x{raw[err.start : err.start + 1].hex()})",
            )
        )
        return out
    if "\x00" in text:
        out.problems.append(Problem(label, 1, 0, "", "contains NUL bytes; not a text CSV file"))
        return out
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
    except csv.Error as err:
        out.problems.append(Problem(label, 1, 0, "", f"malformed CSV: {err}"))
        return out
    if header is None:
        out.problems.append(Problem(label, 1, 0, "", "the file is empty (expected a header row)"))
        return out
    header = [h.strip() for h in header]
    missing = [c for c in expected if c not in header]
    unknown = [c for c in header if c not in expected]
    if missing:
        out.problems.append(Problem(label, 1, 0, "", f"missing columns: {', '.join(missing)}"))
    if unknown:
        out.problems.append(Problem(label, 1, 0, "", f"unknown columns: {', '.join(unknown)}"))
    if missing:
        return out
    line = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as err:
            out.problems.append(Problem(label, line, 0, "", f"malformed CSV: {err}"))
            break
        if row and any(cell.strip() for cell in row):
            if len(row) != len(header):
                out.problems.append(
                    Problem(
                        label, line, 0, "", f"row has {len(row)} columns, expected {len(header)}"
                    )
                )
            else:
                out.rows.append((line, dict(zip(header, row, strict=True))))
        line = reader.line_num + 1
    return out


# --- BibTeX enrichment ---------------------------------------------------------------


@dataclass(frozen=True)
class BibEntry:
    key: str
    entry_type: str
    fields: Mapping[str, str]

    @property
    def authors(self) -> tuple[list[str], bool]:
        raw = self.fields.get("author", "")
        names = [" ".join(n.split()) for n in raw.replace("\n", " ").split(" and ") if n.strip()]
        complete = True
        if names and names[-1].lower() == "others":
            names = names[:-1]
            complete = False
        return [n.strip("{}") for n in names], complete


def read_bib(path: Path) -> list[BibEntry]:
    import bibtexparser

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"cannot read {path}: {err}") from None
    lib = bibtexparser.parse_string(text)
    if lib.failed_blocks:
        first = lib.failed_blocks[0]
        raise InvalidInput(
            [
                Problem(
                    str(path),
                    getattr(first, "start_line", 0) + 1,
                    0,
                    "",
                    f"unparsable BibTeX block ({len(lib.failed_blocks)} in all)",
                )
            ],
            "the BibTeX file has errors",
        )
    return [
        BibEntry(
            e.key, e.entry_type.lower(), {k.lower(): str(v.value) for k, v in e.fields_dict.items()}
        )
        for e in lib.entries
    ]


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


def _coerce(coll: Collection, name: str, value: str, lay: Layout) -> Any:
    plain = {f.name: f for f in coll.fields}
    f = plain.get(name.split(".")[0])
    if f is not None and f.type in ("year", "integer"):
        try:
            return int(value)
        except ValueError:
            return value
    return value


def _row_to_record(
    tax: Taxonomy, coll: Collection, lay: Layout, row: Mapping[str, str]
) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for col in lay.columns:
        cell = row.get(col.column, "").strip()
        if col.take == "first":
            if cell:
                values[col.field] = [cell]
            continue
        if col.split:
            if cell and cell != lay.na:
                values[col.field] = [
                    p.strip() for p in cell.split(lay.separator.strip()) if p.strip()
                ]
            continue
        if cell == "" and coll.controlled_field(col.field) is None:
            continue  # an empty optional column: leave the field out
        if cell == "":
            values[col.field] = tax.untagged
            continue
        _set(values, col.field, _coerce(coll, col.field, cell, lay))
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
    order = coll.field_names()
    record[name] = value
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


def _tag_problems(
    tax: Taxonomy, coll: Collection, record: Mapping[str, Any], label: str, line: int
) -> list[Problem]:
    """Values of single-valued controlled fields that the taxonomy does not know."""
    from survey_tools.corpus.explain import suggest

    out: list[Problem] = []
    for cf in coll.controlled:
        value = record.get(cf.name)
        if cf.kind != "single" or not isinstance(value, str) or value == tax.untagged:
            continue
        allowed = [*cf.ids, *([tax.na] if cf.not_applicable else [])]
        if value not in allowed:
            hint = suggest(value, allowed)
            msg = f"{value!r} is not a {cf.noun}" + (f" (did you mean {hint!r}?)" if hint else "")
            out.append(Problem(label, line, 0, cf.name, msg))
    return out


def plan_import(
    tax: Taxonomy,
    papers_csv: Path,
    excluded_csv: Path | None = None,
    bib: Path | None = None,
) -> ImportPlan:
    """Check every row and build the records; raise :class:`InvalidInput` with every problem."""
    problems: list[Problem] = []
    plan = ImportPlan()
    bib_index = _bib_index(read_bib(bib)) if bib else {}
    sources: list[tuple[Collection, Path]] = [(tax.retained, papers_csv)]
    if excluded_csv is not None:
        if tax.excluded is None:
            raise UsageError("the taxonomy defines no exclusion collection")
        sources.append((tax.excluded, excluded_csv))
    import re

    for coll, path in sources:
        lay = layout(tax, coll.name)
        label = path.name
        rows = read_csv(path, lay.header, label)
        problems.extend(rows.problems)
        for line, row in rows.rows:
            record = _row_to_record(tax, coll, lay, row)
            rid = record.get(coll.id_field)
            if not isinstance(rid, str) or not re.match(coll.id_pattern, rid):
                problems.append(
                    Problem(
                        label,
                        line,
                        0,
                        coll.id_field,
                        f"{rid!r} is not a valid {coll.id_field} (must match {coll.id_pattern})",
                    )
                )
                continue
            problems.extend(_tag_problems(tax, coll, record, label, line))
            rel = f"{coll.folder}/{rid}.yaml"
            if rel in plan.files:
                problems.append(Problem(label, line, 0, coll.id_field, f"{rid!r} appears twice"))
                continue
            if bib_index and coll is tax.retained:
                entry = _match_bib(bib_index, record)
                if entry is not None:
                    names, complete = entry.authors
                    if names:
                        record["authors"] = names
                        _insert_after(record, "authors_complete", complete, tax)
                    doi = entry.fields.get("doi")
                    if doi:
                        ids = dict(record.get("identifiers") or {})
                        ids.setdefault("doi", doi.strip().lower())
                        record["identifiers"] = ids
            _enrich_identifiers(tax, record)
            plan.files[rel] = record
    if problems:
        raise InvalidInput(problems, "nothing was imported")
    return plan


def write_import(tax: Taxonomy, plan: ImportPlan, overwrite: bool = False) -> ImportPlan:
    """Write the planned records; existing files are kept unless ``overwrite``."""
    existing = [rel for rel in plan.files if (tax.root / rel).exists()]
    if existing and not overwrite:
        plan.skipped = sorted(existing)
    for rel, record in sorted(plan.files.items()):
        if rel in plan.skipped:
            continue
        atomic_write(tax.root / rel, dump_yaml(record))
    return plan


# --- export ----------------------------------------------------------------------------


def export_rows(tax: Taxonomy, corpus: Corpus, collection: str) -> list[list[str]]:
    lay = layout(tax, collection)
    rows = [lay.header]
    for rec in corpus.of(collection):
        row: list[str] = []
        for col in lay.columns:
            value = _get(rec.data, col.field)
            if col.take == "first":
                value = value[0] if isinstance(value, list) and value else ""
            elif col.split:
                value = lay.separator.join(value) if isinstance(value, list) else ""
            if value is None:
                value = ""
            if isinstance(value, bool):
                value = "true" if value else "false"
            row.append(str(value))
        rows.append(row)
    return rows


def export_csv(tax: Taxonomy, corpus: Corpus, out_dir: Path) -> list[Path]:
    """Write one CSV per collection in the survey's layout; returns the files written."""
    written = []
    for name in tax.collections:
        if name not in tax.csv_layout:
            continue
        lay = layout(tax, name)
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(export_rows(tax, corpus, name))
        path = out_dir / lay.file
        atomic_write(path, buf.getvalue())
        written.append(path)
    return written
