"""RIS files as reference managers and databases export them (Zotero, EndNote, Scopus, Web of
Science, PubMed, Rayyan...): one row per reference, read with rispy (a core dependency, the
library `survey screen` writes RIS with). The fields a reader of the survey is meant to see get
the toolkit's names (title, authors, year, venue, doi, links, entry type); every other tag keeps
rispy's name for it and is imported private (survey init's allowlist, adopt.init.PUBLISHED).
"""

from __future__ import annotations

import re
from typing import Any

from survey_tools.adopt.entries import entries_table
from survey_tools.adopt.table import Table, read_limits, too_many
from survey_tools.corpus.identifiers import normalize_doi
from survey_tools.errors import InvalidInput, Problem

_START = re.compile(r"^\s*TY  -", re.M)
_DOI_IN = re.compile(r"10\.\d{4,9}/[^\s\"<>]+")
_YEAR = re.compile(r"\b(\d{4})\b")
# The title, then the venue, as the tags that hold them are tried in turn (RIS writers disagree:
# Zotero writes T2 for a journal, EndNote JF/JO, PubMed JT/JO).
_TITLE_TAGS = ("title", "primary_title", "translated_title", "short_title")
_VENUE_TAGS = (
    "secondary_title",
    "journal_name",
    "alternate_title3",
    "alternate_title1",
    "alternate_title2",
    "tertiary_title",
)
_AUTHOR_TAGS = ("authors", "first_authors")


def _first(entry: dict[str, Any], tags: tuple[str, ...]) -> str:
    for tag in tags:
        value = entry.get(tag)
        if isinstance(value, list):
            value = value[0] if value else ""
        if value and str(value).strip():
            return " ".join(str(value).split())
    return ""


def _links(entry: dict[str, Any], doi: str) -> list[str]:
    """Where the reference can be read: its DOI at doi.org, then its URLs (UR, L1, L2)."""
    out = [f"https://doi.org/{doi}"] if doi else []
    for tag in ("urls", "file_attachments2", "file_attachments1"):
        value = entry.get(tag) or []
        for url in value if isinstance(value, list) else str(value).split():
            url = str(url).strip()
            found = _DOI_IN.search(url)
            if found and normalize_doi(found.group(0)) == doi:
                continue  # the DOI again, as a resolver URL
            if url.startswith(("http://", "https://")):
                out.append(url)
    return list(dict.fromkeys(out))


def _ris_date(text: str) -> str:
    """RIS's DA/Y1 date (``2024/05/12/``, ``2024///``) as an ISO date, as far as it is given
    (``2024-05-12``, ``2024``); the text as it is when it is no such date."""
    parts = [p for p in text.split("/")]
    if not parts or not re.fullmatch(r"\d{4}", parts[0].strip()):
        return text
    out = [parts[0].strip()]
    for p in parts[1:3]:
        if not p.strip().isdigit():
            break
        out.append(f"{int(p):02d}")
    return "-".join(out) if len(out) != 2 else out[0] + "-" + out[1]


def _row(entry: dict[str, Any]) -> dict[str, Any]:
    cells: dict[str, Any] = {"entry type": str(entry.get("type_of_reference", "")).lower()}
    cells["title"] = _first(entry, _TITLE_TAGS)
    authors: list[Any] = next((entry[t] for t in _AUTHOR_TAGS if entry.get(t)), [])
    cells["authors"] = [" ".join(str(a).split()) for a in authors if str(a).strip()]
    year = _YEAR.search(_first(entry, ("year", "publication_year", "date")))
    cells["year"] = year.group(1) if year else ""
    venue_tag = next((t for t in _VENUE_TAGS if _first(entry, (t,))), "")
    cells["venue"] = _first(entry, (venue_tag,)) if venue_tag else ""
    date = _ris_date(_first(entry, ("date",)))
    if date:
        cells["date"] = date
    found = _DOI_IN.search(_first(entry, ("doi",)))
    doi = (normalize_doi(found.group(0)) if found else None) or ""
    cells["doi"] = doi
    cells["links"] = _links(entry, doi)
    # the tags read into the fields above (the venue's too: its value is the venue now)
    used = {
        "type_of_reference",
        "doi",
        "urls",
        "date",
        venue_tag,
        *_TITLE_TAGS[:1],
        *_AUTHOR_TAGS[:1],
    }
    for tag, value in entry.items():
        if tag in used or tag in cells:
            continue
        # N1 is rispy's "notes": the name of the survey's own curation notes, so it keeps its tag
        name = "N1 notes" if tag == "notes" else tag
        cells[name] = [str(v) for v in value] if isinstance(value, list) else str(value)
    return cells


def _start_lines(text: str) -> list[int]:
    """The line each TY tag's match starts on, in one pass over the text (a count from the
    start of the text for every entry was quadratic in the file's size)."""
    lines: list[int] = []
    line, pos = 1, 0
    for m in _START.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        lines.append(line)
    return lines


def read_ris(text: str, label: str) -> Table:
    """The references of a RIS file, each with the line its TY tag is on."""
    import rispy  # the RIS reader, loaded for this format only

    lines = _start_lines(text)
    limit = read_limits().max_entries
    if len(lines) > limit:  # counted before rispy builds a dict for each
        raise too_many(label, lines[limit], "references")
    try:
        found = rispy.loads(text, skip_unknown_tags=False, enforce_list_tags=False)
    except Exception as err:  # rispy raises plain IOError/ValueError on a malformed file
        raise InvalidInput(
            [Problem(label, 0, 0, "", f"not a RIS file: {err}")], "the RIS file cannot be read"
        ) from None
    if not found:
        raise InvalidInput(
            [Problem(label, 1, 0, "", "no references (no TY tag)")], "nothing to read"
        )
    lines += [0] * (len(found) - len(lines))
    return entries_table(label, "ris", [(lines[i], _row(e)) for i, e in enumerate(found)])
