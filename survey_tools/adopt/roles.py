"""Column roles read from the values, not the names: a column whose every value is an address
(a URL, a DOI, an arXiv id) holds the entries' links, whatever the list calls it (``pdf``,
``DOI/URL``, al-folio's ``arxiv`` and ``html``, Scopus's ``Link``).

:func:`with_link_roles` folds those columns into one ``links`` column of the table (each DOI as
its doi.org page, each arXiv id as its abstract page), after the links the reader already made;
a column of DOIs stays too (the entries' DOI). Every reader's table but a Markdown list's (whose
reader reads each link's role itself) goes through it, for ``survey init`` and ``survey import``
alike, so a list imported again gives the same records.
"""

from __future__ import annotations

import re
from dataclasses import replace

from survey_tools.adopt.table import Cell, Row, Table
from survey_tools.corpus.identifiers import normalize_arxiv, normalize_doi

LINKS = "links"
_URL = re.compile(r"^https?://[^\s<>\"]+$")
_DOI = re.compile(r"^(?:doi:\s*)?(10\.\d{4,9}/\S+)$", re.I)
_ARXIV = re.compile(r"^(?:arxiv:\s*)?(\d{4}\.\d{4,5}(?:v\d+)?|[a-z-]+(?:\.[A-Z]{2})?/\d{7})$", re.I)
_RESOLVER = re.compile(r"^https?://(?:dx\.)?doi\.[a-z.]+/(10\.\d{4,9}/\S+)$", re.I)
_RELATIVE = re.compile(
    r"^(?:\.{0,2}/)?[\w.~%-]+(?:/[\w.~%-]+)*\.[A-Za-z0-9]{2,5}$|^(?:\.{0,2}/)[\w.~%/-]+$"
)
_SPLIT = re.compile(r"\s*[;|]\s*|\s+")
# Columns a reader fills with what it knows the role of already: the key and the links.
_SKIP = frozenset(["key", "id", LINKS, "entry type"])
_OWN_LINKS = frozenset(["link", "url", "paper_url", "paper_link"])


def _address(text: str) -> tuple[str, str] | None:
    """(kind, the page it gives) of one value: url, doi or arxiv; None for anything else."""
    text = text.strip()
    resolver = _RESOLVER.match(text)
    if resolver and (found := normalize_doi(resolver.group(1))):
        return "url", f"https://doi.org/{found}"  # a DOI resolver's URL (doi.acm.org) is the DOI
    if _URL.match(text):
        return "url", text
    doi = _DOI.match(text)
    if doi and (found := normalize_doi(doi.group(1))):
        return "doi", f"https://doi.org/{found}"
    arxiv = _ARXIV.match(text)
    if arxiv and (found := normalize_arxiv(arxiv.group(1))):
        return "arxiv", f"https://arxiv.org/abs/{found}"
    return None


def _parts(cell: Cell) -> list[str]:
    items = list(cell) if isinstance(cell, tuple) else [cell]
    return [p for item in items for p in _SPLIT.split(item.strip()) if p]


def _kinds(table: Table, column: str) -> set[str] | None:
    """The kinds of address the column holds when every value it has is one or a relative path
    (``/assets/x.pdf``: the list's own site), with one address at least; else None."""
    kinds: set[str] = set()
    for row in table.rows:
        for part in _parts(row.cells.get(column, "")):
            found = _address(part)
            if found is None and not _RELATIVE.match(part):
                return None
            kinds.add(found[0] if found else "relative")
    return kinds if kinds - {"relative"} else None


def _target(table: Table, roles: dict[str, set[str]]) -> str:
    """The column the links go to: ``links``, else the list's own column of links by its usual
    name (``Link``, ``URL``: a CSV exported by the toolkit reads back byte for byte)."""
    if LINKS in table.columns:
        return LINKS
    return next((c for c in table.columns if c.lower() in _OWN_LINKS and roles.get(c) == {"url"}), LINKS)


def with_link_roles(table: Table) -> Table:
    """The table with its address columns folded into ``links`` (see the module's docstring)."""
    roles = {c: k for c in table.columns if c.lower() not in _SKIP and (k := _kinds(table, c))}
    target = _target(table, roles)
    roles.pop(target, None)
    if not roles:
        return table
    # a DOI column stays the DOI; a column that also holds relative paths stays, with them
    folded = [c for c, kinds in roles.items() if kinds != {"doi"} and "relative" not in kinds]
    rows = []
    for row in table.rows:
        links = list(_parts(row.cells.get(target, ""))) if target in table.columns else []
        for column in roles:
            links += [a[1] for p in _parts(row.cells.get(column, "")) if (a := _address(p))]
        cells = {k: v for k, v in row.cells.items() if k not in folded}
        for column in roles.keys() - set(folded):  # what stays of a kept column: its relative paths
            if column in cells and roles[column] != {"doi"}:
                kept = [p for p in _parts(cells[column]) if _address(p) is None]
                cells[column] = tuple(kept) if isinstance(cells[column], tuple) else " ".join(kept)
        cells[target] = tuple(dict.fromkeys(links))
        rows.append(Row(row.line, cells))
    columns = tuple(c for c in table.columns if c not in folded)
    columns = columns if target in columns else (*columns, target)
    if not folded and all(c.lower() == "doi" for c in roles):
        return replace(
            table,
            rows=tuple(rows),
            list_columns=table.list_columns | {target},
            columns=table.columns if target in table.columns else (*table.columns, target),
        )
    said = ", ".join(repr(c) for c in roles)
    warning = (
        f"{table.file}: the columns {said} hold addresses (URLs, DOIs, arXiv ids): they are the "
        f"entries' links" + (f" (folded into links: {', '.join(folded)})" if folded else "")
    )
    return replace(
        table,
        columns=columns,
        rows=tuple(rows),
        warnings=(*table.warnings, warning),
        list_columns=table.list_columns | {target},
    )


# Marks after a name that say something of the author, not the name: equal contribution (*),
# corresponding author (†, ‡), footnotes (§, ¶), as al-folio's papers.bib writes them
_MARKS = re.compile(r"(?<=[^\s*†‡§¶#])[*†‡§¶#]+(?=\s*(?:,|;|\band\b|&|$))")
_AUTHOR_COLUMNS = ("author", "authors")
AS_WRITTEN = "authors_as_written"


def _unmarked(cell: Cell) -> Cell:
    if isinstance(cell, tuple):
        return tuple(_MARKS.sub("", c) for c in cell)
    return _MARKS.sub("", cell)


def with_author_marks(table: Table) -> Table:
    """The table with the marks after authors' names (``Einstein*†, A.``) taken off the names;
    each row whose names had them keeps the names as written in a column of its own,
    ``authors_as_written`` (private, as every field off the allowlist), so nothing is lost."""
    column = next((c for c in table.columns if c.lower() in _AUTHOR_COLUMNS), None)
    if column is None or AS_WRITTEN in table.columns:
        return table
    marked = [r for r in table.rows if _unmarked(r.cells.get(column, "")) != r.cells.get(column, "")]
    if not marked:
        return table
    rows = []
    for row in table.rows:
        cell = row.cells.get(column, "")
        if _unmarked(cell) == cell:
            rows.append(row)
            continue
        written = "; ".join(cell) if isinstance(cell, tuple) else cell
        rows.append(Row(row.line, {**row.cells, column: _unmarked(cell), AS_WRITTEN: written}))
    warning = (f"{table.file}: {len(marked)} entr{'y marks' if len(marked) == 1 else 'ies mark'} authors' names "
               f"(*, †, ...): the names are read without the marks, kept as written in {AS_WRITTEN}")
    return replace(table, columns=(*table.columns, AS_WRITTEN), rows=tuple(rows),
                   warnings=(*table.warnings, warning))


# A link signed for one session (an S3, Google Cloud or Azure address with its signature and
# credential in the query): it opens for no reader and names the account it was signed for
_SIGNED = re.compile(
    r"[?&](?:X-Amz-(?:Signature|Credential|Security-Token)|X-Goog-(?:Signature|Credential)|sig|Signature|"
    r"access_token)=",
    re.I,
)
SIGNED = "signed_links"


def _unsigned(cell: Cell) -> tuple[Cell, list[str]]:
    """The cell without its signed links, and those links."""
    parts = _parts(cell)
    signed = [p for p in parts if _SIGNED.search(p) and _address(p)]
    if not signed:
        return cell, []
    if isinstance(cell, tuple):
        return tuple(c for c in cell if c not in signed), signed
    return " ".join(p for p in parts if p not in signed), signed


def with_signed_links_private(table: Table) -> Table:
    """The table with every signed link (:data:`_SIGNED`), in whatever column, moved into a
    column of its own, ``signed_links`` (always private), with one warning."""
    if SIGNED in table.columns:
        return table
    rows, moved = [], 0
    for row in table.rows:
        cells, signed = dict(row.cells), []
        for column in table.columns:
            if column.lower() not in _SKIP - {LINKS}:
                cells[column], found = _unsigned(cells.get(column, ""))
                signed += found
        if not signed:
            rows.append(row)
            continue
        moved += 1
        rows.append(Row(row.line, {**cells, SIGNED: " ".join(signed)}))
    if not moved:
        return table
    warning = (f"{table.file}: {moved} entr{'y has' if moved == 1 else 'ies have'} a link signed for one session "
               f"(X-Amz-Signature, sig=...): kept private in {SIGNED}, not published")
    return replace(table, columns=(*table.columns, SIGNED), rows=tuple(rows), warnings=(*table.warnings, warning))
