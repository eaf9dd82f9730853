"""``survey init``: scaffold a complete survey folder, optionally from an existing CSV list.

From a CSV, every column becomes a field: the id column (``--id-column``, else the first)
names the records; ``--controlled`` columns become controlled fields whose distinct values
become value ids (a value that is not a valid id is mapped with ``values:`` in csv.yaml);
``--list COL:SEP`` columns hold several values joined by SEP; the rest become plain fields
whose type (year, integer, URL, boolean, text) is read off the cells. The CSV is then imported,
and the folder validates and builds. Without a CSV, the flags describe an empty survey.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from survey_tools._version import DISTRIBUTION, __version__
from survey_tools.contrib.csvio import split_cell
from survey_tools.corpus.yamlio import dump_yaml
from survey_tools.errors import UsageError
from survey_tools.fileio import atomic_write

# Column names that mean the same thing in most lists, mapped to the toolkit's usual fields
# (the README links an entry's `links` and shows its `summary`; BibTeX reads `authors`).
_USUAL = {
    "title": "title", "name": "title", "paper": "title",
    "summary": "summary", "description": "summary", "one_liner": "summary", "tldr": "summary",
    "authors": "authors", "author": "authors",
    "year": "year",
    "url": "links", "link": "links", "links": "links", "homepage": "links", "paper_url": "links",
    "venue": "venue",
}
_URL = re.compile(r"^https?://\S+$")
_INT = re.compile(r"^-?[0-9]+$")


def slug(text: str, sep: str = "_") -> str:
    """A field or value id: lowercase letters, digits and ``sep``."""
    s = re.sub(r"[^a-z0-9]+", sep, text.strip().lower()).strip(sep)
    if s and s[0].isdigit():
        s = f"v{sep}{s}"
    return s or "value"


@dataclass
class InitOptions:
    title: str = "Survey"
    csv_path: Path | None = None
    id_column: str | None = None
    controlled: Sequence[str] = ()
    lists: Mapping[str, str] = field(default_factory=dict)  # column -> separator
    ignore: Sequence[str] = ()
    description: str = ""


@dataclass
class _Column:
    column: str
    field: str
    kind: str  # id | controlled | plain | ignore
    type: str = "string"
    separator: str | None = None
    required: bool = False
    values: dict[str, str] = dataclasses.field(default_factory=dict)  # CSV string -> id (controlled)
    labels: dict[str, str] = dataclasses.field(default_factory=dict)  # id -> label


def parse_lists(specs: Sequence[str]) -> dict[str, str]:
    """``["tags:;", "authors: and "]`` -> ``{"tags": ";", "authors": " and "}``."""
    out = {}
    for spec in specs:
        for part in [spec] if spec.count(":") == 1 else [spec]:
            col, sep, separator = part.partition(":")
            if not sep or not col or not separator:
                raise UsageError(f"--list {spec!r}: expected COLUMN:SEPARATOR, e.g. tags:;")
            out[col] = separator
    return out


def _read(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text") from None
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as err:
        raise UsageError(f"{path} is not a well-formed CSV file: {err}") from None
    if not rows:
        raise UsageError(f"{path} is empty (expected a header row)")
    header = [h.strip() for h in rows[0]]
    body = [dict(zip(header, r, strict=False)) for r in rows[1:] if any(c.strip() for c in r)]
    return header, body


def _plain_type(cells: list[str], name: str) -> str:
    filled = [c.strip() for c in cells if c.strip()]
    if not filled:
        return "text"
    if all(_INT.match(c) for c in filled):
        if "year" in name and all(1900 <= int(c) <= 2100 for c in filled):
            return "year"
        return "integer"
    if all(c.lower() in ("true", "false") for c in filled):
        return "boolean"
    if all(_URL.match(c) for c in filled):
        return "url"
    return "string" if all(len(c) <= 120 for c in filled) else "text"


def plan_columns(header: list[str], rows: list[dict[str, str]], opts: InitOptions) -> list[_Column]:
    unknown = [c for c in [*(opts.controlled or ()), *opts.lists, *opts.ignore,
                           *([opts.id_column] if opts.id_column else [])] if c not in header]
    if unknown:
        raise UsageError(f"no column {', '.join(map(repr, unknown))} in the CSV (columns: {', '.join(header)})")
    id_col = opts.id_column or header[0]
    used: set[str] = set()
    out: list[_Column] = []
    for col in header:
        cells = [r.get(col, "") for r in rows]
        sep = opts.lists.get(col)
        if col in opts.ignore:
            out.append(_Column(col, "", "ignore"))
            continue
        if col == id_col:
            name = "id" if slug(col) not in ("id", "key", "slug") else slug(col)
            out.append(_Column(col, name, "id", required=True))
            used.add(name)
            continue
        required = all(c.strip() for c in cells)
        if col in opts.controlled:
            name = slug(col)
            c = _Column(col, name, "controlled", separator=sep, required=required)
            for cell in cells:
                parts = [p.strip() for p in split_cell(cell, sep)] if sep else [cell.strip()]
                for p in parts:
                    if p and p not in c.values:
                        vid = slug(p)
                        while vid in c.labels and c.labels[vid] != p:
                            vid += "_"
                        c.values[p] = vid
                        c.labels[vid] = p
            out.append(c)
            used.add(name)
            continue
        name = _USUAL.get(slug(col), slug(col))
        if name in used or name == "id":
            name = slug(col) if slug(col) not in used else f"{slug(col)}_column"
        used.add(name)
        if sep:
            ftype = "url_list" if all(_URL.match(p.strip()) for c in cells for p in c.split(sep.strip()) if p.strip()) else "string_list"
        else:
            ftype = _plain_type(cells, slug(col))
            if name == "links":
                ftype = "url_list" if ftype == "url" else ftype
        if name == "links" and ftype not in ("url", "url_list"):
            name = slug(col)
        if name == "authors" and ftype != "string_list":
            ftype = "string_list"  # one author per cell
        out.append(_Column(col, name, "plain", type=ftype, separator=sep, required=required))
    return out


def _field_file(c: _Column, collection: str) -> dict[str, Any]:
    return {
        "name": c.field,
        "collection": collection,
        "label": c.column.replace("_", " ").strip().capitalize(),
        "description": f"The list's {c.column} column.",
        "required": c.required,
        "kind": "multi" if c.separator else "single",
        "not_applicable": False,
        "values": [{"id": vid, "label": label} for vid, label in c.labels.items()],
    }


def survey_config(opts: InitOptions, columns: list[_Column], collection: str) -> dict[str, Any]:
    id_col = next(c for c in columns if c.kind == "id")
    title_col = next((c for c in columns if c.field == "title"), id_col)
    fields: dict[str, Any] = {}
    for c in columns:
        if c.kind in ("id", "plain"):
            spec: dict[str, Any] = {"type": c.type if c.kind == "plain" else "string"}
            if c.required:
                spec["required"] = True
            spec["label"] = c.column.replace("_", " ").strip().capitalize()
            spec["description"] = f"The list's {c.column} column."
            fields[c.field] = spec
    # Where `survey add` keeps looked-up identifiers and the source note (not CSV columns).
    fields.setdefault("identifiers", {"type": "identifiers", "label": "Identifiers",
                                      "description": "arXiv id, DOI and OpenReview id where known."})
    fields.setdefault("notes", {"type": "text", "label": "Notes", "description": "Curation notes."})
    controlled = [c.field for c in columns if c.kind == "controlled"]
    group_by = next((c.field for c in columns if c.kind == "controlled"), "")
    short = opts.title if len(opts.title) <= 40 else opts.title[:40].rsplit(" ", 1)[0]
    return {
        "survey": {
            "title": opts.title,
            "short_title": short,
            "list_title": f"Awesome {opts.title}" if not opts.title.lower().startswith("awesome") else opts.title,
            "description": opts.description or f"A curated, machine-checked list: {opts.title}.",
            "readme": {
                "badge": {"image": "https://awesome.re/badge.svg", "link": "https://awesome.re"},
                "group_by": group_by,
                "sections": {"contents": "Contents", "maps": "Maps", "gaps": "Gaps", "figures": "Figures",
                             "papers": "Entries", "exclusions": "Exclusion Log",
                             "toolkit": "Use the Toolkit", "contributing": "Contributing"},
                "rank_by": "",
                "representatives": 3,
                "maps": [{"axis": f} for f in controlled],
                "tags": [f for f in controlled if f != group_by],
                "exclusion_columns": [],
            },
            "site": {
                "path": "reports/site/index.html",
                "facets": list(controlled),
                "range": next((c.field for c in columns if c.type == "year"), ""),
                "search": [title_col.field] + (["summary"] if "summary" in fields else []),
                "columns": controlled[:4],
                "sentinel_labels": {"NA": "Not applicable", "untagged": "Untagged"},
            },
        },
        "sentinels": {"not_applicable": "NA", "untagged": "untagged"},
        "files": {"reports": "data/reports.yaml"},
        "outputs": ["readme", "contributing", "site", "stats", "gaps", "figures", "bib", "github"],
        "collections": {
            collection: {
                "label": "Entries",
                "folder": "corpus",
                "id_field": id_col.field,
                "id_pattern": _id_pattern(opts, columns),
                "title_field": title_col.field,
                "controlled": list(controlled),
                "fields": fields,
            },
        },
        "identifiers": {
            "arxiv": {"label": "arXiv id", "normalize": "arxiv",
                      "pattern": "^([0-9]{4}\\.[0-9]{4,5}|[a-z-]+(\\.[A-Z]{2})?/[0-9]{7})$"},
            "doi": {"label": "DOI", "normalize": "lower", "pattern": "^10\\.[0-9]{4,9}/\\S+$"},
            "openreview": {"label": "OpenReview id", "normalize": "none", "pattern": "^[A-Za-z0-9_-]{6,}$"},
        },
    }


_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"


def _id_pattern(opts: InitOptions, columns: list[_Column]) -> str:
    """Ids become file names: letters, digits, dots, dashes and underscores."""
    return _ID_PATTERN


def csv_config(columns: list[_Column], collection: str, file: str) -> dict[str, Any]:
    cols = []
    for c in columns:
        if c.kind == "ignore":
            cols.append({"column": c.column, "ignore": True})
            continue
        spec: dict[str, Any] = {"column": c.column, "field": c.field}
        if c.separator:
            spec["separator"] = c.separator
        elif c.type in ("string_list", "url_list"):
            spec["take"] = "first"  # one item per cell
        mapped = {text: vid for text, vid in c.values.items() if text != vid}
        if mapped:
            spec["values"] = mapped
        if c.field == "summary":
            spec["sentence"] = True
        cols.append(spec)
    return {"na": "NA", "list_separator": " ; ", collection: {"file": file, "columns": cols}}


def reports_config(columns: list[_Column]) -> dict[str, Any]:
    controlled = [c.field for c in columns if c.kind == "controlled"]
    pairs = [{"rows": a, "cols": b} for i, a in enumerate(controlled) for b in controlled[i + 1:]][:3]
    plots: list[dict[str, Any]] = []
    year = next((c.field for c in columns if c.type == "year"), "")
    if controlled and year:
        plots.append({"name": "per-year", "kind": "stacked", "x": year, "stack": controlled[0],
                      "title": f"Entries per {year}"})
    return {"headline_total": "total", "crosstabs": pairs, "gaps": {"k": 1, "tables": [dict(p) for p in pairs[:1]]},
            "plots": plots}


WORKFLOW = """name: survey

on:
  push:
    branches: [main]
  pull_request:

permissions:
  contents: read

jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install the toolkit
        # pinned: the version this survey was made with, under the toolkit's own PyPI name
        run: python3 -m pip install "{distribution}=={version}"
      - name: Validate the records
        run: survey validate
      - name: Generated files are up to date
        run: survey build --check
"""

def workflow() -> str:
    """The adopter's CI: the toolkit pinned to this version under its own distribution name
    (a bare name can be taken over by whoever owns it on PyPI)."""
    return WORKFLOW.replace("{distribution}", DISTRIBUTION).replace("{version}", __version__)


PRE_COMMIT = """# Checks records before each commit: `pip install pre-commit && pre-commit install`.
repos:
  - repo: local
    hooks:
      - id: survey-validate
        name: survey validate
        entry: survey validate
        language: system
        files: ^(taxonomy|corpus|data)/.*\\.(yaml|csv)$
        pass_filenames: false
"""

COMMANDS = """# Short option names of `survey add` for controlled fields (option: field), how new
# records are keyed, and BibTeX settings. Every key is documented in taxonomy/README.md.
flags: {}
add:
  key: title
bibtex:
  no_author: Anonymous
  entry_types: []
"""


def scaffold(root: Path, opts: InitOptions, collection: str = "entries") -> list[str]:
    """Write the configuration of a new survey under ``root``; return the files written."""
    if (root / "taxonomy" / "survey.yaml").exists():
        raise UsageError(f"{root / 'taxonomy' / 'survey.yaml'} exists: survey init starts a new survey only")
    if opts.csv_path is not None:
        header, rows = _read(opts.csv_path)
        columns = plan_columns(header, rows, opts)
        csv_name = opts.csv_path.name
    else:
        columns = _empty_columns(opts)
        csv_name = f"{collection}.csv"
    files: dict[str, str] = {
        "taxonomy/survey.yaml": "# The survey and the layout of its records; every key is documented in "
                                "taxonomy/README.md.\n" + dump_yaml(survey_config(opts, columns, collection)),
        "taxonomy/csv.yaml": "# The CSV layout of `survey import csv` and `survey export csv`.\n"
                             + dump_yaml(csv_config(columns, collection, csv_name)),
        "taxonomy/commands.yaml": COMMANDS,
        "data/reports.yaml": "# What `survey build` tabulates, maps for gaps and plots.\n"
                             + dump_yaml(reports_config(columns)),
        ".github/workflows/survey.yml": workflow(),
        ".pre-commit-config.yaml": PRE_COMMIT,
        "corpus/.gitkeep": "",
    }
    for c in columns:
        if c.kind == "controlled":
            files[f"taxonomy/fields/{c.field}.yaml"] = dump_yaml(_field_file(c, collection))
    for rel, text in sorted(files.items()):
        atomic_write(root / rel, text)
    return sorted(files)


def _empty_columns(opts: InitOptions) -> list[_Column]:
    """The fields of a survey that starts empty: id, title, authors, year, links, summary, and
    one controlled field per --controlled name, its values given as NAME=v1,v2,..."""
    cols = [
        _Column("key", "key", "id", required=True),
        _Column("title", "title", "plain", type="string", required=True),
        _Column("authors", "authors", "plain", type="string_list", separator=" ; "),
        _Column("year", "year", "plain", type="year", required=True),
        _Column("links", "links", "plain", type="url_list", separator=" ; ", required=True),
        _Column("summary", "summary", "plain", type="text", required=True),
    ]
    for spec in opts.controlled:
        name, eq, vals = spec.partition("=")
        values = [v.strip() for v in vals.split(",") if v.strip()] if eq else []
        if not values:
            raise UsageError(f"--controlled {spec!r}: without --from-csv, give the values: NAME=value1,value2")
        sep = opts.lists.get(name)
        c = _Column(name, slug(name), "controlled", separator=sep, required=True)
        for v in values:
            c.values[v] = slug(v)
            c.labels[slug(v)] = v
        cols.append(c)
    return cols
