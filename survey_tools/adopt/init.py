"""``survey init``: scaffold a complete survey folder, optionally from a list kept elsewhere.

The list (``--from``: CSV/TSV, an Excel workbook, a YAML or JSON file of entries, JSON lines,
BibTeX, a Markdown README; see :mod:`survey_tools.adopt.sources`) is read into a table, and every
column becomes a field: the id column (``--id``, else a column called id/key, else keys made
from the titles) names the records; ``--controlled`` columns (and an awesome list's headings)
become controlled fields whose distinct values become value ids; list columns (arrays in the
file, ``--list FIELD=SEP``, authors split on the usual separators, cells holding several URLs)
hold several values; the rest become plain fields whose type is read off the cells. The mapping
is written to ``taxonomy/csv.yaml``, so ``survey import`` and ``survey export csv`` use it again.

The survey is made and built in a folder beside the target, then moved into place: a failure
leaves the target as it was. A row's problems never refuse the list: the import leaves out the
field (or the row) concerned and says so by row (adopt.csvio, ``ImportOptions.partial``).
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from survey_tools import slugs
from survey_tools.adopt.csvio import split_authors, split_cell, without_invisible
from survey_tools.adopt.pins import CHECKOUT, REQUIREMENTS, SETUP_PYTHON, ToolkitPin, toolkit_pin
from survey_tools.adopt.repair import NOTES_FIELD, NOTES_MAX
from survey_tools.adopt.roles import SIGNED
from survey_tools.adopt.table import Table
from survey_tools.corpus.yamlio import dump_yaml
from survey_tools.errors import UsageError
from survey_tools.fileio import UnsafePath, atomic_write, confined
from survey_tools.schema_words import suggest

# Column names that mean the same thing in most lists, mapped to the toolkit's usual fields
# (the README links an entry's `links` and shows its `summary`; BibTeX reads `authors`).
_USUAL = {
    "title": "title", "name": "title", "paper": "title", "paper_title": "title",
    "summary": "summary", "description": "summary", "one_liner": "summary", "tldr": "summary",
    "authors": "authors", "author": "authors",
    "year": "year",
    "url": "links", "link": "links", "links": "links", "homepage": "links", "paper_url": "links",
    "paper_link": "links",
    "venue": "venue",
    # where a work appeared, as reference managers and databases name it (Scopus, Zotero's
    # CSV, CSL-JSON, RIS readers): the venue a reader is meant to see
    "source_title": "venue", "publication_title": "venue",
    "container_title": "venue", "secondary_title": "venue", "journal_name": "venue",
    "conference": "venue", "published_in": "venue", "publication": "venue",
}
_ID_NAMES = ("id", "key", "slug", "citekey", "citation_key", "bibtex_key")
# the fields that say where a work appeared, besides a press
_VENUE_FIELDS = frozenset(["venue", "journal", "journaltitle", "booktitle"])
_URL = re.compile(r"^https?://\S+$")
_URLS = re.compile(r"https?://[^\s,;|<>\"]+")
_INT = re.compile(r"^-?[0-9]{1,18}$")  # longer digit runs are text: int() of 5000 digits raises

# The fields a reader of the survey is meant to see: what names, dates and places a work, and
# where to read it. Every other field of a list (an abstract, a reference manager's own, a
# review sheet's comments, in any language) is imported private: kept in the records, out of
# the README, the site, papers.bib and the exports. `--controlled` columns (the list's tags),
# a Markdown list's own fields (the list is a published page) and `--public-field NAME` are
# published too. An allowlist, not a list of private names: an unknown field stays private.
PUBLISHED = frozenset([
    "title", "authors", "year", "venue", "links", "summary", "doi", "arxiv", "identifiers",
    "entry_type", "date", "month",
    # BibTeX's bibliographic fields: where a work appeared (papers.bib writes them back)
    "journal", "journaltitle", "booktitle", "volume", "number", "pages", "publisher", "series",
    "edition", "address", "location", "editor", "institution", "organization", "school",
    "howpublished", "type", "chapter", "isbn", "issn", "eprint", "archiveprefix", "eprinttype",
    "primaryclass", "eprintclass", "url", "subtitle", "booksubtitle", "maintitle", "issue",
])


def slug(text: str, sep: str = "_") -> str:
    """A field or value id: the package's one slug rule (survey_tools.slugs), with ``sep``, and
    a letter before a leading digit (an id starts with a letter)."""
    s = slugs.slug(text, sep, empty="")
    if s and s[0].isdigit():
        s = f"v{sep}{s}"
    return s or "value"


def label_of(header: str) -> str:
    """A label from a column header: underscores to spaces, the first letter raised, every other
    capital kept (acronyms such as "HRI type" stay as the list wrote them)."""
    text = " ".join(header.replace("_", " ").split())
    return text[:1].upper() + text[1:] if text else header


_SMALL_WORDS = frozenset(["a", "an", "and", "as", "at", "but", "by", "for", "in", "nor", "of", "on", "or", "the", "to", "vs", "via", "with"])


def title_case(text: str) -> str:
    """A heading in title case (awesome-lint asks it of the main heading): each word's first
    letter raised except small words inside the title; the rest of each word is kept (acronyms)."""
    words = text.split(" ")
    out = []
    for i, w in enumerate(words):
        small = w.lower() in _SMALL_WORDS and 0 < i < len(words) - 1
        # each part of a hyphenated word too ("Hand-Over"), as awesome-lint's title case has it
        out.append(w if small or not w else "-".join(p[:1].upper() + p[1:] for p in w.split("-")))
    return " ".join(out)


@dataclass
class InitOptions:
    title: str = "Survey"
    source: Path | None = None
    id_field: str | None = None
    controlled: Sequence[str] = ()
    lists: Mapping[str, str] = field(default_factory=dict)  # column -> separator
    ignore: Sequence[str] = ()
    description: str = ""
    distinct_titles: bool = False  # rows with the same title are separate entries
    awesome: bool = False  # "Awesome" before the title and the awesome.re badge
    fmt: str | None = None  # the source's format when its name does not say
    entry_order: str = ""  # title | newest | oldest | source ("": inferred)
    toolkit_repository: str | None = None  # where the workflow installs the toolkit from, until
    toolkit_commit: str | None = None  # a release exists (default: this checkout's; pins.py)
    public_fields: Sequence[str] = ()  # source fields published although not on the allowlist
    list_repository: str = ""  # the source list's repository: its relative links point there


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
    generated: bool = False  # an id column the list does not have: keys made from titles
    private: bool = False  # kept in the records, out of every output (not on PUBLISHED)


def parse_lists(specs: Sequence[str]) -> dict[str, str]:
    """``["tags=;", "authors= and "]`` -> ``{"tags": ";", "authors": " and "}``. The name ends at
    the last ``=``, so a column name may hold commas, colons and ``=``. ``COLUMN:SEP`` (the
    older form) is read when there is no ``=``."""
    out = {}
    for spec in specs:
        if "=" in spec:
            col, _, separator = spec.rpartition("=")
        else:
            col, _, separator = spec.partition(":")
        if not col or not separator:
            raise UsageError(f"--list {spec!r}: expected FIELD=SEPARATOR, e.g. --list 'Tags=;'")
        out[col] = separator
    return out


def _plain_type(cells: Sequence[str], name: str) -> str:
    filled = [c.strip() for c in cells if c.strip()]
    if not filled:
        return "text"
    if "year" in name:
        # A year column with a few bad cells is still a year: the import reports those cells.
        plausible = [c for c in filled if _INT.match(c) and 1900 <= int(c) <= 2100]
        if len(plausible) * 2 >= len(filled):
            return "year"
    if all(_INT.match(c) for c in filled):
        return "integer"
    if all(c.lower() in ("true", "false") for c in filled):
        return "boolean"
    if all(_URL.match(c) for c in filled):
        return "url"
    return "string" if all(len(c) <= 120 and "\n" not in c for c in filled) else "text"


def _texts(cell: Any) -> list[str]:
    return [c for c in cell if c.strip()] if isinstance(cell, tuple) else ([cell] if cell.strip() else [])


def _list_separator(items: Sequence[str]) -> str:
    """A separator that none of the items contains, so joined lists split back the same."""
    for sep in (" ; ", " | ", " / ", "\n"):
        if not any(sep.strip() in i if sep.strip() else sep in i for i in items):
            return sep
    raise UsageError("list items contain every separator (; | / and line breaks); give --list FIELD=SEP")


def _author_separator(cells: Sequence[str]) -> str | None:
    """The separator an authors column is joined with when written back: "; " where any cell
    holds several names (each cell is split by its own shape on import, csvio.split_authors),
    None where every cell is one name."""
    if any(";" in c or " and " in c or len(split_authors(c, "; ")) > 1 for c in cells):
        return "; "
    return None


def _url_separator(cells: Sequence[str]) -> str | None:
    """The separator of cells that hold several URLs and nothing else (None: one URL per cell)."""
    seps: set[str] = set()
    for c in cells:
        urls = _URLS.findall(c)
        if len(urls) < 2:
            continue
        rest = c
        for u in urls:
            rest = rest.replace(u, "\0", 1)
        between = rest.strip().split("\0")[1:-1]
        if rest.strip().replace("\0", "").strip(" ,;|\n\t"):
            return None  # prose with links in it, not a list of URLs
        seps.update(b.strip(" ") or (" " if "\n" not in b else "\n") for b in between)
    if not seps:
        return None
    # The longest separator wins; among equally long ones the order is fixed, not the set's
    # (which moves with PYTHONHASHSEED: `survey init` must write the same files every run).
    sep = max(seps, key=lambda s: (len(s), s))
    return sep if sep in ("\n", " ") else f"{sep.strip()} "


def plan_columns(table: Table, opts: InitOptions) -> tuple[list[_Column], list[str]]:
    """The field every column becomes, and the warnings about what was inferred."""
    header = list(table.columns)
    _check_named_columns(table, opts, header)
    warnings = list(table.warnings)
    controlled = list(opts.controlled)
    if table.format == "markdown" and "section" not in opts.ignore and "section" not in controlled:
        controlled.append("section")  # an awesome list's headings are its taxonomy
    id_col = opts.id_field or next(
        (c for c in header if slug(c) in _ID_NAMES and c not in opts.ignore), None
    )
    used: set[str] = set()
    out: list[_Column] = []
    for col in header:
        cells = [row.cells.get(col, "") for row in table.rows]
        texts = [t for c in cells for t in _texts(c)]
        sep = opts.lists.get(col)
        listed = col in table.list_columns
        if col in opts.ignore:
            out.append(_Column(col, "", "ignore"))
            continue
        if col == id_col:
            name = slug(col) if slug(col) in _ID_NAMES else "key"
            out.append(_Column(col, name, "id", required=True))
            used.add(name)
            continue
        # required where every row has it, for the fields a new entry cannot do without
        required = all(_texts(c) for c in cells)
        if listed and sep is None:
            sep = _list_separator(texts)
        if col in controlled:
            order = list(table.value_order.get(col, ()))
            out.append(_controlled_column(col, cells, sep, required, order))
            used.add(slug(col))
            continue
        out.append(_plain_column(col, cells, texts, sep, listed, required, used, warnings))
    _add_id_and_title(table, out, warnings)
    _publisher_as_venue(table, out)
    _mark_private(table, opts, out)
    return out, warnings


def _publisher_as_venue(table: Table, out: list[_Column]) -> None:
    """A list kept as a table (not BibTeX or RIS, whose publisher is the press beside a journal
    or booktitle) with no venue column but a ``publisher`` one: that column names where each
    work appeared (ICLR, CVPR, arXiv), and is the venue the README shows."""
    if table.format in ("bibtex", "ris") or any(c.field in _VENUE_FIELDS for c in out):
        return
    found = [c for c in out if c.kind == "plain" and c.field == "publisher" and c.type in ("string", "text")]
    if len(found) == 1:
        found[0].field = "venue"


def _mark_private(table: Table, opts: InitOptions, out: list[_Column]) -> None:
    """Every plain field off the allowlist (:data:`PUBLISHED`) is private, unless the adopter
    opens it (``--public-field``) or the list is a Markdown page (already published)."""
    opened = {slug(n) for n in opts.public_fields} | set(opts.public_fields)
    for c in out:
        if c.kind != "plain" or table.format == "markdown":
            continue
        # a column of addresses is links, whatever its name (adopt.roles folds them into links
        # but in a CSV file, whose columns survey import reads by name)
        on_list = (c.field in PUBLISHED or c.type in ("url", "url_list")) and c.column != SIGNED
        c.private = not on_list and c.field not in opened and c.column not in opened


def _check_named_columns(table: Table, opts: InitOptions, header: list[str]) -> None:
    # A misspelt column in an option would otherwise be silently a plain field.
    named = [
        *opts.controlled,
        *opts.lists,
        *opts.ignore,
        *([opts.id_field] if opts.id_field else []),
    ]
    unknown = [c for c in named if c not in header]
    if unknown:
        hints = [
            f"{c!r}" + (f" (did you mean {suggest(c, header)!r}?)" if suggest(c, header) else "")
            for c in unknown
        ]
        raise UsageError(
            f"no column {', '.join(hints)} in {table.file} (columns: {', '.join(header)})"
        )


def _controlled_column(
    col: str, cells: list[Any], sep: str | None, required: bool, order: list[str]
) -> _Column:
    """A controlled field whose values are the column's distinct cells (or list items), in the
    source's order where it gives one, else as first seen."""
    c = _Column(col, slug(col), "controlled", separator=sep, required=required)
    seen = order + [
        p
        for cell in cells
        for p in (
            _texts(cell)
            if isinstance(cell, tuple)
            else [x.strip() for x in (split_cell(cell, sep) if sep else [cell])]
        )
    ]
    pages: set[str] = set()
    for p in map(without_invisible, seen):
        # the values as the import will read the cells: invisible characters removed (an emoji
        # joined by U+200D in a heading would otherwise name a value no row has)
        if p and p not in c.values:
            base = vid = slug(p)
            # Two values that slug alike ("C++" and "C"), or whose ids make the same page name
            # (naacl_2025_demos and naacl_2025_demos_), get _2, _3... (docs/new-survey.md)
            n = 1
            while vid in c.labels or slugs.slug(vid) in pages:
                n += 1
                vid = f"{base}_{n}"
            pages.add(slugs.slug(vid))
            c.values[p] = vid
            c.labels[vid] = p
    return c


def _plain_column(
    col: str,
    cells: list[Any],
    texts: list[str],
    sep: str | None,
    listed: bool,
    required: bool,
    used: set[str],
    warnings: list[str],
) -> _Column:
    flat = [c for c in cells if isinstance(c, str)]
    # only the title is required of an adopted entry (and its key): a row whose year or link
    # cannot be read keeps its record, the value in import_notes (the import is total)
    plain_required = required and _USUAL.get(slug(col)) == "title"
    name = _USUAL.get(slug(col), slug(col))
    if name in used or name in _ID_NAMES:
        # A second "link" column, or one named like an id, keeps its own name.
        name = (
            slug(col)
            if slug(col) not in used and slug(col) not in _ID_NAMES
            else f"{slug(col)}_column"
        )
    if sep is None and not listed:
        sep = _inferred_separator(col, name, flat, warnings)
    used.add(name)
    ftype = _column_type(col, name, flat, texts, sep, listed)
    if name == "links" and not texts and listed:
        ftype = "url_list"  # a reader's links column with none yet (BibTeX entries without a url)
    elif name == "links" and ftype not in ("url", "url_list"):
        # The README links an entry's `links`: a column of other text cannot be them.
        used.discard("links")  # ... and leaves the name to a column that can
        name = slug(col) if slug(col) not in used else f"{slug(col)}_column"
        used.add(name)
    if name == "authors" and ftype != "string_list":
        ftype = "string_list"  # one author per cell
    return _Column(
        col,
        name,
        "plain",
        type=ftype,
        separator=sep,
        required=plain_required or name == "title",
    )


def _inferred_separator(col: str, name: str, flat: list[str], warnings: list[str]) -> str | None:
    """The separator of a column the list wrote as text but that holds several values, said in
    a warning, since the guess may be wrong (None: one value per cell)."""
    if name == "authors":
        # split cell by cell on import (csvio.split_authors); a cell that reads two ways is
        # warned about by its row, not the column once
        sep = _author_separator(flat)
        if sep is not None:
            return sep
    url_sep = _url_separator(flat)
    if url_sep is not None:
        warnings.append(f"{col}: cells holding several URLs are split into a list of links")
    return url_sep


def _column_type(
    col: str, name: str, flat: list[str], texts: list[str], sep: str | None, listed: bool
) -> str:
    if sep is not None:
        items = (
            texts if listed else [p.strip() for c in flat for p in split_cell(c, sep) if p.strip()]
        )
        return "url_list" if items and all(_URL.match(p) for p in items) else "string_list"
    ftype = _plain_type(flat, slug(col))
    if name == "title" and ftype == "text":
        return "string"  # a title is one line: a line break in a cell becomes a space on import
    return "url_list" if name == "links" and ftype == "url" else ftype


def _add_id_and_title(table: Table, out: list[_Column], warnings: list[str]) -> None:
    # Every record needs a key (its file name) and a title (what the README shows).
    if not any(c.kind == "id" for c in out):
        out.append(_Column("key", "key", "id", required=True, generated=True))
        warnings.append(
            "no id column: keys are made from the titles (say --id FIELD to use a column)"
        )
    if not any(c.field == "title" for c in out):
        first = next((c for c in out if c.kind == "plain" and c.type in ("string", "text")), None)
        if first is None:
            raise UsageError(f"{table.file}: no column holds titles (name one 'title')")
        first.field = "title"


EXCLUDED = "excluded"
_REASONS = (("out_of_scope", "Out of scope", "The work is not about the list's subject."),
            ("duplicate", "Duplicate", "Another entry is the same work."),
            ("unavailable", "Unavailable", "The work cannot be found or read."),
            ("other", "Other", "Another reason, given in the note."))


def _reason_file() -> dict[str, Any]:
    return {"name": "reason", "collection": EXCLUDED, "label": "Reason", "description": "Why a work was left out.",
            "required": True, "kind": "single", "not_applicable": False,
            "values": [{"id": i, "label": lb, "description": d} for i, lb, d in _REASONS]}


def _field_file(c: _Column, collection: str) -> dict[str, Any]:
    return {
        "name": c.field,
        "collection": collection,
        "label": label_of(c.column),
        "description": f"The list's {c.column} column.",
        "required": c.required,
        "kind": "multi" if c.separator else "single",
        "not_applicable": False,
        "values": [{"id": vid, "label": label} for vid, label in c.labels.items()],
    }


def short_title(title: str, limit: int = 40) -> str:
    """The short title pages put in their ``<title>``: the title when it fits, else its part
    before a colon or dash when that part fits, else the whole title (never a phrase cut off)."""
    if len(title) <= limit:
        return title
    for sep in (": ", " – ", " — ", " - ", "; "):
        head = title.split(sep, 1)[0].strip()
        if sep in title and 2 <= len(head) <= limit:
            return head
    return title


def survey_config(opts: InitOptions, columns: list[_Column], collection: str) -> dict[str, Any]:
    id_col = next(c for c in columns if c.kind == "id")
    title_col = next((c for c in columns if c.field == "title"), id_col)
    fields = _record_fields(columns)
    controlled = [c.field for c in columns if c.kind == "controlled"]
    # Groups from a single-valued field: an entry in two groups would be listed (and linked) twice;
    # a Markdown list's headings group it even so, since the list itself shows a work under each.
    group_by = next((c.field for c in columns if c.kind == "controlled" and not c.separator), "")
    if opts.fmt == "markdown" and any(c.field == "section" for c in columns):
        group_by = "section"
    short = short_title(opts.title)
    awesome_title = opts.awesome and not opts.title.lower().startswith("awesome")
    return {
        "survey": {
            "title": opts.title,
            "short_title": short,
            # "Awesome" and the badge only when asked: they are a claim about the list (awesome.re)
            "list_title": title_case(f"Awesome {opts.title}" if awesome_title else opts.title),
            "description": opts.description or f"A curated, machine-checked list: {opts.title}.",
            "readme": _readme_config(opts, columns, controlled, group_by),
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
            EXCLUDED: _exclusion_collection(),
        },
        "identifiers": {
            # each with the page it resolves to: an entry whose only link is its DOI is linked
            "arxiv": {
                "label": "arXiv id",
                "normalize": "arxiv",
                "pattern": "^([0-9]{4}\\.[0-9]{4,5}|[a-z-]+(\\.[A-Z]{2})?/[0-9]{7})$",
                "url": "https://arxiv.org/abs/{id}",
            },
            "doi": {"label": "DOI", "normalize": "lower", "pattern": "^10\\.[0-9]{4,9}/\\S+$",
                    "url": "https://doi.org/{id}"},
            "openreview": {
                "label": "OpenReview id",
                "normalize": "none",
                "pattern": "^[A-Za-z0-9_-]{6,}$",
                "url": "https://openreview.net/forum?id={id}",
            },
        },
    }


def _record_fields(columns: list[_Column]) -> dict[str, Any]:
    """The entries' plain fields: the list's columns, then those the toolkit's commands fill."""
    fields: dict[str, Any] = {}
    # the key first: records read key, title, ... whether the list had ids or not
    for c in sorted(columns, key=lambda c: c.kind != "id"):
        if c.kind in ("id", "plain"):
            fields[c.field] = _field_spec(
                c.type if c.kind == "plain" else "string",
                label_of(c.column),
                "The key, made from the title when the record was imported."
                if c.generated
                else f"The list's {c.column} column.",
                required=c.required,
                # a field off the allowlist (PUBLISHED): kept in the records, never published
                private=c.private,
            )
    # Where `survey add` keeps looked-up identifiers and the source note (not CSV columns).
    fields.setdefault(
        "identifiers",
        _field_spec("identifiers", "Identifiers", "arXiv id, DOI and OpenReview id where known."),
    )
    fields.setdefault("notes", _field_spec("text", "Notes", "Curation notes."))
    # What a field could not hold at import (a link to another work, a value over a limit),
    # "field: value" each: kept, never published (adopt/repair.py).
    notes = _field_spec(
        "text", "Import notes", "Values of the list no field could hold, kept at import.", private=True
    )
    fields.setdefault(NOTES_FIELD, {**notes, "max_length": NOTES_MAX})
    # Two entries with the same title (or link) that are different works say so here.
    fields.setdefault(
        "not_duplicate_of",
        _field_spec(
            "key_reasons",
            "Not a duplicate of",
            "Keys of entries that look the same but are different works, with the reason.",
        ),
    )
    # A record's explained exception to one check (a year the list gives that its arXiv id
    # contradicts).
    fields.setdefault(
        "waive",
        _field_spec(
            "waivers",
            "Waived checks",
            "Checks that do not apply to this entry, each with the reason.",
        ),
    )
    return fields


def _field_spec(kind: str, label: str, description: str, required: bool = False,
                private: bool = False) -> dict[str, Any]:
    """A plain field as survey.yaml writes it: type, required (only when it is), label and
    description, in that order; private (kept out of every output) when it is."""
    spec: dict[str, Any] = {"type": kind}
    if required:
        spec["required"] = True
    spec["label"] = label
    spec["description"] = description
    if private:
        spec["private"] = True
    return spec


_README_SECTIONS = {
    "contents": "Contents",
    "maps": "Maps",
    "gaps": "Gaps",
    "figures": "Figures",
    "papers": "Entries",
    "exclusions": "Exclusion Log",
    "contributing": "Contributing",
}


def _readme_config(
    opts: InitOptions, columns: list[_Column], controlled: list[str], group_by: str
) -> dict[str, Any]:
    badge = {"image": "https://awesome.re/badge.svg", "link": "https://awesome.re"}
    dated = any(c.type == "year" for c in columns)
    return {
        **({"badge": badge} if opts.awesome else {}),
        "group_by": group_by,
        # an awesome list keeps its curated order; a list of dated works reads newest first
        "entry_order": opts.entry_order or ("newest" if dated else "title"),
        "group_order": "taxonomy",
        "sections": dict(_README_SECTIONS),
        "rank_by": "",
        "representatives": 3,
        "maps": [{"axis": f} for f in controlled],
        "tags": [f for f in controlled if f != group_by],
        "exclusion_columns": [],
    }


# The exclusion log's fields: (name, type, label, description, required).
_EXCLUSION_FIELDS = (
    ("exclusion_id", "string", "Id", "The exclusion's id; equals the file name.", True),
    ("title", "string", "Title", "The excluded work's title.", True),
    ("identifier", "string", "Identifier", "The work's identifier or URL.", False),
    ("identifiers", "identifiers", "Identifiers",
     "Identifiers parsed from the identifier and URL, for duplicate checks.", False),
    ("url", "url", "URL", "Where the work can be found.", False),
    ("date_screened", "date", "Date", "ISO date of the decision.", True),
    ("note", "text", "Note", "Why it was excluded, in the maintainers' own words.", True),
    ("duplicate_of", "key_reasons", "Duplicate of",
     "The entry this one duplicates, with the reason.", False),
    ("retained_record", "object", "Former entry",
     "The whole entry when it was moved from the list.", False),
)  # fmt: skip


def _exclusion_collection() -> dict[str, Any]:
    # An empty exclusion log: `survey exclude` works from the first day. Its ids are
    # derived from the work (X-arxiv-2501-01234, X-url-<hash>), so that two pull requests
    # excluding different works never pick the same one; numbered ids (X001) stay valid.
    return {
        "label": "Exclusion log",
        "folder": "exclusions",
        "id_field": "exclusion_id",
        "id_pattern": "^X([0-9]{3,}|-[a-z0-9][a-z0-9-]{2,79})$",
        "title_field": "title",
        "controlled": ["reason"],
        "fields": {
            name: _field_spec(kind, label, description, required=required)
            for name, kind, label, description, required in _EXCLUSION_FIELDS
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
        if c.generated:
            spec["generated"] = "title"
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


WORKFLOW = """# A pull request carries records only: it is validated and built here (nothing is committed),
# and after the merge the push to main regenerates every output in one bot commit, so
# contributors never regenerate and two pull requests never conflict on generated files.
name: survey

on:
  push:
    branches: [main]
  pull_request:

permissions: {}

jobs:
  check:
    if: ${{ github.event_name == 'pull_request' }}
    runs-on: ubuntu-latest
    timeout-minutes: 15
    permissions:
      contents: read
    steps:
      - uses: {checkout}
        with:
          fetch-depth: 0  # check-paths compares the branch with its base
          persist-credentials: false
      - uses: {setup_python}
        with:
          python-version: "3.11"
      - name: Install the toolkit
        # pinned as .github/survey-toolkit.txt says: a released version by hash, else one commit
        run: |
{install}
      - name: Validate the records
        env:
          SURVEY_MAINTAINER_WARNINGS: "0"  # a contributor cannot set survey.repository
        run: survey validate
      - name: Build every output (in the runner; nothing is committed)
        run: survey build
      - name: Every changed file in its place (a record outside corpus/ would be left out)
        env:
          BASE_SHA: ${{ github.event.pull_request.base.sha }}
        run: survey check-paths --built .

  regenerate:
    # who pushed decides (the bot's own push is skipped), never words in a commit message
    if: ${{ github.event_name == 'push' && github.actor != 'github-actions[bot]' }}
    runs-on: ubuntu-latest
    timeout-minutes: 15
    permissions:
      contents: write  # the bot commit of the regenerated outputs on main
    concurrency:
      group: survey-regenerate
      cancel-in-progress: false
    steps:
      - uses: {checkout}
        with:
          persist-credentials: false
      - uses: {setup_python}
        with:
          python-version: "3.11"
      - name: Install the toolkit
        run: |
{install}
      - name: Build every output
        run: survey build
      - name: Commit and push the outputs
        env:
          GH_TOKEN: ${{ github.token }}
        run: |
          set -euo pipefail
          git add --all
          if git diff --cached --quiet; then
            echo "outputs are up to date"
            exit 0
          fi
          git -c user.name="github-actions[bot]" \\
              -c user.email="41898282+github-actions[bot]@users.noreply.github.com" \\
              commit -q -m "Regenerate outputs [survey-regenerate]"
          git push "https://x-access-token:${GH_TOKEN}@github.com/${GITHUB_REPOSITORY}.git" HEAD:main
"""

def workflow(pin: ToolkitPin | None = None) -> str:
    """The adopter's CI: the toolkit installed as ``pin`` says (a released version by hash, else
    one commit; a bare name can be taken over by whoever owns it on PyPI), every action pinned
    to the commit the toolkit's own workflows use."""
    pin = pin or toolkit_pin()
    install = "\n".join(f"          {line}" for line in pin.install.splitlines())
    return (WORKFLOW.replace("{checkout}", CHECKOUT).replace("{setup_python}", SETUP_PYTHON)
            .replace("{install}", install))


PRE_COMMIT = """# Checks records before each commit: `pip install pre-commit && pre-commit install`.
repos:
  - repo: local
    hooks:
      - id: survey-validate
        name: survey validate
        entry: survey validate
        language: system
        # Once per commit, on the survey as taxonomy/survey.yaml lays it out (records may live
        # in any folder): no file filter that could skip them.
        always_run: true
        pass_filenames: false
      - id: survey-check-paths
        name: survey check-paths
        # A staged file the survey never reads (a record outside corpus/) fails, saying where it goes.
        entry: survey check-paths
        language: system
        always_run: true
        pass_filenames: false
"""

COMMANDS = """# Short option names of `survey add` for controlled fields (option: field), how new
# records are keyed, and BibTeX settings. Every key is documented in taxonomy/README.md.
flags: {}
add:
  key: title
bibtex:
  no_author: Anonymous
  # Entry types by venue (first match wins; anything else is @misc). Edit to fit the list.
  entry_types:
    - {venue: "blog|documentation|project page|github", type: misc}
    - {venue: "tech(nical)? report", type: techreport}
    - {venue: "workshop|conference|proceedings|symposium|findings|\\\\b(neurips|nips|iclr|icml|acl|emnlp|naacl|aaai|ijcai|cvpr|iccv|eccv|kdd|chi|icra|iros|hri|ro-man|roman)\\\\b", type: inproceedings}
    - {venue: "journal|transactions|letters|review|magazine|\\\\b(tmlr|jmlr|nature|science|plos)\\\\b", type: article}
"""


def check_target(root: Path, source: Path | None = None) -> None:
    """Refuse to start a survey over another one, or over files init would replace."""
    if (root / "taxonomy" / "survey.yaml").exists():
        raise UsageError(f"{root / 'taxonomy' / 'survey.yaml'} exists: survey init starts a new survey only")
    if root.exists() and not root.is_dir():
        raise UsageError(f"{root} is a file, not a folder")


@contextmanager
def staged(root: Path, source: Path | None = None) -> Iterator[Path]:
    """A folder beside ``root`` to make the survey in; on success its contents move into
    ``root`` (created if missing), on any failure it is removed and ``root`` is as it was.

    Files already in ``root`` are kept; one that init would replace is refused up front, except
    the source list itself (an awesome list's README is replaced by the generated one)."""
    check_target(root, source)
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{root.name or 'survey'}.init-", dir=root.parent))
    mask = os.umask(0)
    os.umask(mask)
    tmp.chmod(0o777 & ~mask)  # mkdtemp's folder is private; the survey gets the usual mode
    try:
        yield tmp
        _move_into(tmp, root, source)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _move_into(tmp: Path, root: Path, source: Path | None) -> None:
    if not root.exists():
        os.replace(tmp, root)  # one rename: the whole survey appears at once
        return
    _no_links_in(tmp, root)
    src = source.resolve() if source is not None else None
    clashes = [p for p in sorted(tmp.rglob("*")) if p.is_file() and (root / p.relative_to(tmp)).exists()
               and (root / p.relative_to(tmp)).resolve() != src]
    if clashes:
        names = ", ".join(str(p.relative_to(tmp)) for p in clashes[:10])
        raise UsageError(f"{root} already has {names}{' and more' if len(clashes) > 10 else ''}: "
                         "move them away or start the survey in a new folder")
    moved: list[Path] = []
    try:
        for p in sorted(tmp.rglob("*")):
            dest = root / p.relative_to(tmp)
            if p.is_dir():
                if not dest.exists():
                    dest.mkdir()
                    moved.append(dest)
                continue
            os.replace(p, dest)
            moved.append(dest)
    except OSError:
        for dest in reversed(moved):  # put the folder back as it was
            if dest.is_dir():
                shutil.rmtree(dest, ignore_errors=True)
            else:
                dest.unlink(missing_ok=True)
        raise


def _no_links_in(tmp: Path, root: Path) -> None:
    """Refuse, before anything moves, a folder of ``root`` that init writes into and that is a
    symbolic link (an adopted repository's ``corpus -> ../../elsewhere``): the files would land
    outside the survey. A link is refused whatever it points at, as the build refuses one."""
    safe: set[str] = set()
    for p in sorted(tmp.rglob("*")):
        if p.is_dir():
            try:
                confined(root, p.relative_to(tmp).as_posix(), safe)
            except UnsafePath as err:
                raise UsageError(f"{root}: {err}".replace("outputs are written", "init writes")) from None
            safe.add(os.path.join(os.fspath(root), *p.relative_to(tmp).parts))


def exchange_file(table: Table | None, collection: str) -> str:
    """The CSV `survey export csv` writes: the list's own name for a CSV, else <stem>.csv."""
    if table is None:
        return f"{collection}.csv"
    stem = Path(table.file).stem
    return table.file if table.format == "csv" else f"{stem or collection}.csv"


def scaffold(root: Path, opts: InitOptions, table: Table | None = None,
             collection: str = "entries") -> tuple[list[str], list[str]]:
    """Write the configuration of a new survey under ``root``; return the files written and
    the warnings about what was inferred from the list."""
    warnings: list[str] = []
    if table is not None:
        columns, warnings = plan_columns(table, opts)
    else:
        columns = _empty_columns(opts)
    pin = toolkit_pin(opts.toolkit_repository, opts.toolkit_commit)
    if pin.warning:
        warnings.append(pin.warning)
    files: dict[str, str] = {
        "taxonomy/survey.yaml": "# The survey and the layout of its records; every key is documented in "
                                "taxonomy/README.md.\n" + dump_yaml(survey_config(opts, columns, collection)),
        "taxonomy/csv.yaml": "# The layout of `survey import` and `survey export csv`: which column fills which field.\n"
                             + dump_yaml(csv_config(columns, collection, exchange_file(table, collection))),
        "taxonomy/commands.yaml": COMMANDS,
        "data/reports.yaml": "# What `survey build` tabulates, maps for gaps and plots.\n"
                             + dump_yaml(reports_config(columns)),
        ".github/workflows/survey.yml": workflow(pin),
        REQUIREMENTS: pin.requirements,
        ".pre-commit-config.yaml": PRE_COMMIT,
        "corpus/.gitkeep": "",
        "exclusions/.gitkeep": "",
        # The README's opening in the maintainers' own words (Markdown, copied as written).
        "taxonomy/readme/intro.md": (opts.description or f"A curated list: {opts.title}.") + "\n",
        "taxonomy/fields/reason.yaml": dump_yaml(_reason_file()),
    }
    if opts.list_repository and not re.match(r"^https?://[^\s/]+/\S+$", opts.list_repository):
        raise UsageError(f"--list-repository {opts.list_repository!r}: give the repository's address, "
                         "https://github.com/OWNER/REPO")
    if table is not None:
        if opts.list_repository:
            table = dataclasses.replace(table, prose=tuple(
                (h, absolute_links(b, opts.list_repository)) for h, b in table.prose))
        files.update(prose_files(table))
        warnings.extend(relative_links(table))
    for c in columns:
        if c.kind == "controlled":
            files[f"taxonomy/fields/{c.field}.yaml"] = dump_yaml(_field_file(c, collection))
    for rel, text in sorted(files.items()):
        atomic_write(root / rel, text)
    return sorted(files), warnings


def prose_files(table: Table) -> dict[str, str]:
    """The list's own words outside its entries (a Markdown list's introduction, how to cite,
    licence), as written, into the README's parts: ``taxonomy/readme/intro.md`` and one
    numbered file per part, in the list's order (render/markdown.py readme_parts)."""
    files: dict[str, str] = {}
    parts = [(h, b.strip("\n")) for h, b in table.prose if b.strip()]
    generated = {s.lower() for s in _README_SECTIONS.values()}
    footer: list[str] = []
    for n, (heading, body) in enumerate(parts, start=1):
        if not heading:
            files["taxonomy/readme/intro.md"] = body + "\n"
        elif slug(heading) in ("license", "licence", "licensing"):
            footer.append(body)  # awesome-lint wants no licence heading in the README; its words close it
        else:
            # a heading the README already has (Contributing) is told apart, so both stay
            shown = f"{heading} guidelines" if heading.lower() in generated else heading
            files[f"taxonomy/readme/{n:02d}-{slug(heading, '-')[:40]}.md"] = f"## {shown}\n\n{body}\n"
    if footer:
        files["taxonomy/readme/footer.md"] = "\n\n".join(footer) + "\n"
    return files


_MD_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?[^)]*\)|(?:href|src)=[\"']([^\"']+)[\"']")


_RELATIVE_TARGET = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|\.?/?#|//)", re.I)


def absolute_links(body: str, repository: str) -> str:
    """``body`` with each relative link made an address in the list's own repository
    (``docs/x.md`` -> ``REPO/blob/HEAD/docs/x.md``; an image's -> ``REPO/raw/HEAD/...``)."""
    base = repository.rstrip("/")

    def one(m: re.Match[str]) -> str:
        whole, target = m.group(0), m.group(1) or m.group(2) or ""
        if not target or _RELATIVE_TARGET.match(target):
            return whole
        image = whole.startswith("!") or whole.startswith("src")
        path = target.removeprefix("./").lstrip("/")
        return whole.replace(target, f"{base}/{'raw' if image else 'blob'}/HEAD/{path}", 1)

    return _MD_LINK.sub(one, body)


def relative_links(table: Table) -> list[str]:
    """A warning for each relative link (``docs/x.md``, ``assets/fig.png``) of the list's own
    words that init copies into taxonomy/readme/: it points into the source list's repository
    and resolves nowhere in the new survey's until the file is copied or the link made absolute."""
    out = []
    for heading, body in table.prose:
        for m in _MD_LINK.finditer(body):
            target = m.group(1) or m.group(2) or ""
            if target and not _RELATIVE_TARGET.match(target):
                part = f"the part {heading!r}" if heading else "the introduction"
                out.append(f"{table.file}: {part} links {target!r}, a path in the list's own repository: "
                           f"it resolves nowhere here; say --list-repository URL, copy the file or make "
                           f"the link absolute")
    return list(dict.fromkeys(out))


def describe_columns(table: Table, opts: InitOptions) -> list[str]:
    """The mapping init infers, one line per column (``--dry-run``)."""
    columns, _ = plan_columns(table, opts)
    lines = []
    for c in columns:
        if c.kind == "ignore":
            lines.append(f"{c.column!r}: ignored")
            continue
        what = {"id": "key", "controlled": f"controlled, {len(c.labels)} values", "plain": c.type}[c.kind]
        sep = f", list split on {c.separator!r}" if c.separator else ""
        made = " (made from the titles)" if c.generated else ""
        req = ", required" if c.required else ""
        lines.append(f"{c.column!r} -> {c.field} ({what}{sep}{req}){made}")
    return lines


def field_report(table: Table, opts: InitOptions, moved: Mapping[str, int]) -> list[str]:
    """What went where (init prints it): the published fields, the private ones with the
    column each comes from, the ignored columns, and the values moved to import_notes."""
    columns, _ = plan_columns(table, opts)
    named = [c for c in columns if not c.generated]

    def source(c: _Column) -> str:  # the field, and the column it comes from when named otherwise
        return c.field if slug(c.column) == c.field else f"{c.field} ({c.column})"

    public = [source(c) for c in named if c.kind in ("id", "plain", "controlled") and not c.private]
    private = [source(c) for c in named if c.private]
    lines = [f"published fields: {', '.join(public) or 'none'}"]
    if private:
        lines.append(f"private fields (kept in the records, out of every output; --public-field NAME "
                     f"publishes one): {', '.join(private)}")
    ignored = [c.column for c in columns if c.kind == "ignore"]
    if ignored:
        lines.append(f"ignored columns (not imported): {', '.join(ignored)}")
    if moved:
        shown = ", ".join(f"{k} ({n})" for k, n in sorted(moved.items()))
        lines.append(f"values moved to {NOTES_FIELD} (kept, private; the warnings name each row): {shown}")
    return lines


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
