"""Lists as people keep them, read into one shape: a table of named columns and rows.

``survey init --from`` and ``survey import`` read CSV/TSV, an Excel workbook's first sheet, one
YAML file of entries, JSON (an array of objects, CSL-JSON, or JSON lines), BibTeX, RIS and a Markdown
README (:mod:`survey_tools.adopt.markdown_list`). Each reader returns a
:class:`Table` whose cells are text or, where the file itself says a value is a list (a YAML or
JSON array, BibTeX's ``and``-joined authors), a tuple of texts. Every row keeps the line it
starts on, so problems point into the user's file.

Hostile input fails early with one clear message and nothing read further: a file over the
size limit, binary bytes, too many columns, an empty file, a YAML or JSON file that is not a
list of entries.
"""

from __future__ import annotations

from pathlib import Path

from survey_tools.adopt.bibtex_list import read_bibtex
from survey_tools.adopt.delimited import read_delimited
from survey_tools.adopt.entries import read_json_list, read_yaml_list
from survey_tools.adopt.excel import read_xlsx
from survey_tools.adopt.markdown_list import read_awesome
from survey_tools.adopt.ris import read_ris
from survey_tools.adopt.roles import with_author_marks, with_link_roles, with_signed_links_private
from survey_tools.adopt.table import Table, read_text
from survey_tools.errors import UsageError

FORMATS = ("csv", "tsv", "xlsx", "yaml", "json", "jsonl", "bibtex", "ris", "markdown")
_SUFFIXES = {
    ".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".xlsx": "xlsx", ".yaml": "yaml", ".yml": "yaml",
    ".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", ".bib": "bibtex", ".ris": "ris",
    ".md": "markdown", ".markdown": "markdown",
}


def detect_format(path: Path) -> str:
    fmt = _SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        known = ", ".join(sorted(_SUFFIXES))
        raise UsageError(f"{path.name}: cannot tell the format from the file name (known endings: {known})")
    return fmt


def read_source(path: Path, fmt: str | None = None, strict: bool = True) -> Table:
    """The list in ``path``, in the format its name says (or ``fmt``). Columns of addresses become the entries' links
    (adopt.roles) in every format but a Markdown list (whose reader reads each link's role itself); `survey import`
    reads a CSV file whose header fits its layout by the names instead (csvio.read_csv)."""
    fmt = fmt or detect_format(path)
    table = _read(path, fmt, strict)
    return table if fmt == "markdown" else with_signed_links_private(with_author_marks(with_link_roles(table)))


def _read(path: Path, fmt: str, strict: bool) -> Table:
    label = path.name
    if fmt == "xlsx":
        return read_xlsx(path, label)
    text = read_text(path, label)
    if fmt in ("csv", "tsv"):
        return read_delimited(text, label, "\t" if fmt == "tsv" else ",")
    if fmt == "yaml":
        return read_yaml_list(text, label)
    if fmt in ("json", "jsonl"):
        return read_json_list(text, label, lines=fmt == "jsonl")
    if fmt == "bibtex":
        return read_bibtex(text, label, strict)
    if fmt == "ris":
        return read_ris(text, label)
    if fmt == "markdown":
        return read_awesome(text, label)
    raise UsageError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
