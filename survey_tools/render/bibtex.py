"""BibTeX for retained records: one entry per record, keyed by the record's key.

Entries are built and written with bibtexparser (v2); every entry whose text holds anything that
gives BibTeX structure (a brace, a quote, an ``@``, a TeX escape, a line break) is then parsed back
and compared with its record (fields, title, authors, year), so an escaping mistake fails the
build instead of reaching a reader's bibliography. Entry types follow the venue, by the rules in
``taxonomy/commands.yaml`` (``bibtex.entry_types``); works with an arXiv id and no matching rule
are ``@misc`` with eprint fields, as arXiv itself exports them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import quote

import bibtexparser
from bibtexparser.library import Library
from bibtexparser.middlewares import default_unparse_stack
from bibtexparser.model import Entry, Field

from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import Taxonomy, commands_config
from survey_tools.errors import SurveyError
from survey_tools.net.hrefs import safe_href

OUTPUT = "reports/papers.bib"

# Characters that mean something to TeX, and how to write them literally.
_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_ESCAPE_RX = re.compile("|".join(re.escape(c) for c in _ESCAPES))
_UNESCAPE = {v: k for k, v in _ESCAPES.items()} | {r"\textbraceleft{}": "{", r"\textbraceright{}": "}"}
_UNESCAPE_RX = re.compile("|".join(re.escape(v) for v in sorted(_UNESCAPE, key=len, reverse=True)))


# TeX accent commands -> Unicode combining marks. A few imported names still carry TeX
# accents (``Balunovi\\'{c}``); they are decoded so every entry is plain UTF-8, escaped once.
_ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303",
            "=": "\u0304", ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b",
            "c": "\u0327", "k": "\u0328"}
_ACCENT_RX = re.compile(r"""\\([`'^"~=.]|[uvHck](?=[{\s]))\s*(?:\{(\w)\}|(\w))""")


def detex(text: str) -> str:
    """``Tram\\`{e}r`` -> ``Tramèr``; text without TeX accents is returned unchanged."""
    if "\\" not in text:
        return text
    out = _ACCENT_RX.sub(lambda m: (m.group(2) or m.group(3)) + _ACCENTS[m.group(1)], text)
    return unicodedata.normalize("NFC", out)


class BibtexError(SurveyError):
    """The generated BibTeX does not read back as the records it was made from."""


def escape(text: str) -> str:
    """Plain text -> TeX source that prints it (``R&D_1`` -> ``R\\&D\\_1``)."""
    return _ESCAPE_RX.sub(lambda m: _ESCAPES[m.group(0)], text)


def unescape(text: str) -> str:
    return _UNESCAPE_RX.sub(lambda m: _UNESCAPE[m.group(0)], text)


# Fields written as they are (URLs, DOIs, eprints) must not be able to close their braces: a
# `}` in a DOI would end the field and let the rest of the value add fields or a @preamble that
# BibTeX copies into the reader's document. Such characters are percent-encoded, as a URL would
# carry them anyway (`survey validate` refuses them in records in the first place).
_RAW_SAFE = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in '{}\\"%')


def verbatim(value: str) -> str:
    """A URL, DOI or eprint as a brace-safe field value (``{``, ``}``, ``\\`` percent-encoded)."""
    return quote(value, safe=_RAW_SAFE + "%")


# BibTeX (and pybtex, biber) count braces as written, backslash or not: ``\}`` closes a level as
# surely as ``}``, so a venue ``x\}, note=\{...`` ends its field early and the rest becomes
# fields or entries of the reader's own. Every field value therefore leaves here with its braces
# balanced as BibTeX counts them; a brace that would not be is written as the LaTeX command that
# prints it, whose own braces are balanced. (validate refuses unbalanced braces in the records'
# BibTeX fields first: this is the writer's own guarantee, for every field however it was built.)
_BRACE_COMMANDS = {"{": r"\textbraceleft{}", "}": r"\textbraceright{}"}


def brace_balanced(value: str) -> str:
    r"""``value`` with every brace BibTeX would mis-pair written as ``\textbraceleft{}`` or
    ``\textbraceright{}`` (a ``\{`` or ``\}`` escape included); a balanced value is returned as is."""
    if "{" not in value and "}" not in value:
        return value
    if value[0] == "{" and value[-1] == "}" and "{" not in value[1:-1] and "}" not in value[1:-1]:
        return value  # a title in the braces _fields puts around it, holding none of its own
    unmatched: set[int] = set()
    opened: list[int] = []
    for i, c in enumerate(value):
        if c == "{":
            opened.append(i)
        elif c == "}":
            if opened:
                opened.pop()
            else:
                unmatched.add(i)
    unmatched.update(opened)
    if not unmatched:
        return value
    out: list[str] = []
    for i, c in enumerate(value):
        if i in unmatched:
            if out and out[-1] == "\\":
                out.pop()  # the escape \{ or \} becomes the command itself
            out.append(_BRACE_COMMANDS[c])
        else:
            out.append(c)
    return "".join(out)


# Compiled once per commands.yaml as read (the document itself, kept alive beside its rules, is
# the key: a parsed document is never changed): the site asks for every record's entry type (its
# citation tags and JSON-LD), 10,000 times in a build of 10,000 records.
_RULES: dict[int, tuple[Any, tuple[tuple[re.Pattern[str], str], ...]]] = {}


def _rules(tax: Taxonomy) -> tuple[tuple[re.Pattern[str], str], ...]:
    # From the taxonomy the build holds (never re-read from disk: a renderer opens no file).
    cfg = commands_config(tax).get("bibtex")
    if not cfg:
        return ()
    found = _RULES.get(id(cfg))
    if found is not None and found[0] is cfg:
        return found[1]
    out = []
    for rule in cfg.get("entry_types") or []:
        out.append((re.compile(str(rule["venue"]), re.I), str(rule["type"])))
    if len(_RULES) >= 64:  # a process that loads many taxonomies (the tests) keeps a few
        _RULES.clear()
    _RULES[id(cfg)] = (cfg, tuple(out))
    return tuple(out)


def entry_type(venue: str, has_arxiv: bool, rules: Sequence[tuple[re.Pattern[str], str]]) -> str:
    # Records share a few venues (a controlled field's labels): each (venue, rules) is matched
    # once, not once for papers.bib and again for every paper page's citation tags.
    return _entry_type(venue, has_arxiv, tuple(rules))


@lru_cache(maxsize=1 << 12)
def _entry_type(venue: str, has_arxiv: bool, rules: tuple[tuple[re.Pattern[str], str], ...]) -> str:
    for rx, kind in rules:
        if rx.search(venue):
            return kind
    # arXiv preprints, blogs, documentation and anything unrecognised: @misc is always valid.
    return "misc"


def record_entry_type(rec: Record, tax: Taxonomy) -> str:
    """The BibTeX entry type of ``rec`` (``article``, ``inproceedings``, ``techreport``,
    ``misc``...): the one answer papers.bib and the site's citation tags and JSON-LD share."""
    ids = rec.get("identifiers") if isinstance(rec.get("identifiers"), dict) else {}
    return _kind(rec, venue_text(rec, tax), bool(ids.get("arxiv")), _rules(tax))


def _no_author(tax: Taxonomy) -> str:
    """Who a record without authors is written as (commands.yaml bibtex.no_author)."""
    return str((commands_config(tax).get("bibtex") or {}).get("no_author") or "Anonymous")


# The word "and" in a name (which BibTeX would split the list at); asked only of a name holding
# the three letters.
_AND = re.compile(r"\band\b")


def _authors(data: Mapping[str, Any], no_author: str = "Anonymous") -> str:
    names = [str(a) for a in data.get("authors") or []]
    if not names:
        # Braces make BibTeX styles print the name whole, as they do for an organisation.
        return "{" + escape(no_author) + "}"
    # A name holding the word "and" would split in two; braces keep it one name.
    names = [detex(n) for n in names]
    parts = [f"{{{escape(n)}}}" if "and" in n and _AND.search(n) else escape(n) for n in names]
    if data.get("authors_complete") is False:
        parts.append("others")
    return " and ".join(parts)


def venue_text(rec: Record, tax: Taxonomy | None) -> str:
    """The record's venue as a reader writes it: a controlled venue's label, not its value id
    (``ro_man`` -> ``RO-MAN``); several values joined."""
    value = rec.get("venue")
    cf = tax.retained.controlled_field("venue") if tax is not None else None
    values = value if isinstance(value, list) else [value] if value is not None else []
    if cf is not None:
        values = [cf.label_of(str(v)) if str(v) in cf.ids else v for v in values]
    return ", ".join(str(v) for v in values)


# The bibliographic fields a record may hold as a list imported from BibTeX left them (survey
# init --from refs.bib keeps them as plain fields of the same name), written back in this order.
BIB_FIELDS = ("journal", "journaltitle", "booktitle", "editor", "volume", "number", "issue", "pages", "chapter",
              "edition", "series", "publisher", "organization", "institution", "school", "address", "location",
              "month", "type", "howpublished", "note", "isbn", "issn")
# The record field that names a work's BibTeX entry type (kept from an imported .bib file).
ENTRY_TYPE_FIELD = "entry_type"
_ENTRY_TYPE = re.compile(r"[a-z]{2,40}")


def _venue_field(kind: str, d: Mapping[str, Any], venue: str) -> tuple[str, str] | None:
    """Where the venue goes for the entry type, unless the record already holds that field."""
    if kind == "inproceedings" and not d.get("booktitle"):
        return ("booktitle", escape(venue))
    if kind == "article" and not d.get("journal") and not d.get("journaltitle"):
        return ("journal", escape(venue))
    if kind == "techreport" and not d.get("institution"):
        return ("institution", escape(str(d.get("affiliation") or venue)))
    if kind not in ("inproceedings", "article", "techreport") and venue and venue != "arXiv" \
            and not d.get("howpublished"):
        return ("howpublished", escape(venue))
    return None


def _bib_value(value: Any) -> str | None:
    if isinstance(value, bool) or value is None or value == "":
        return None
    if isinstance(value, list):
        names = [detex(str(v)) for v in value if str(v).strip()]
        return " and ".join(f"{{{escape(n)}}}" if "and" in n and _AND.search(n) else escape(n) for n in names) or None
    return escape(detex(str(value))) if isinstance(value, str | int) else None


def _fields(
    rec: Record, kind: str, no_author: str = "Anonymous", venue: str | None = None,
    kept: frozenset[str] | None = None,
) -> list[tuple[str, str]]:
    d = rec.data
    raw_ids = d.get("identifiers")
    ids: Mapping[str, Any] = raw_ids if isinstance(raw_ids, dict) else {}
    links = [str(x) for x in d.get("links") or []]
    venue = str(d.get("venue", "")) if venue is None else venue
    fields: list[tuple[str, str]] = [
        # inner braces keep the title's capitals; balanced inside them first, so that they pair
        ("title", "{" + brace_balanced(escape(detex(rec.title))) + "}"),
        ("author", _authors(d, no_author)),
    ]
    if isinstance(d.get("year"), int) and not isinstance(d.get("year"), bool):
        fields.append(("year", str(d["year"])))
    at_venue = _venue_field(kind, d, venue)
    if at_venue is not None:
        fields.append(at_venue)
    for name in BIB_FIELDS:  # every field escaped as any value is; a private one never written
        value = _bib_value(d.get(name)) if kept is None or name in kept else None
        if value is not None:
            fields.append((name, value))
    if ids.get("arxiv"):
        fields += [("eprint", verbatim(str(ids["arxiv"]))), ("archiveprefix", "arXiv")]
    if ids.get("doi"):
        fields.append(("doi", verbatim(str(ids["doi"]))))
    if links and safe_href(links[0]):  # the href rule (net/hrefs.py): validate refuses the rest
        fields.append(("url", verbatim(links[0])))
    return fields


def _entry(
    rec: Record,
    rules: Sequence[tuple[re.Pattern[str], str]],
    no_author: str = "Anonymous",
    tax: Taxonomy | None = None,
) -> Any:
    ids = rec.get("identifiers") if isinstance(rec.get("identifiers"), dict) else {}
    venue = venue_text(rec, tax)
    kind = _kind(rec, venue, bool(ids.get("arxiv")), rules)
    # every value, however a field was built (brace_balanced leaves a balanced one as it is)
    fields = _fields(rec, kind, no_author, venue, _kept(tax))
    return Entry(kind, rec.id, [Field(k, brace_balanced(v)) for k, v in fields])


def _kind(rec: Record, venue: str, has_arxiv: bool, rules: Any) -> str:
    """The entry type the record keeps (a list imported from BibTeX) wins over the venue rules."""
    own = str(rec.get(ENTRY_TYPE_FIELD) or "").strip().lower()
    return own if _ENTRY_TYPE.fullmatch(own) else entry_type(venue, has_arxiv, rules)


# Field types that hold bibliographic text; a field of the same name but another type (the
# survey's own "edition" a record entered in) is not BibTeX's.
_TEXT_TYPES = frozenset(["string", "text", "integer", "year", "string_list", "person_list"])


def _kept(tax: Taxonomy | None) -> frozenset[str] | None:
    """The BIB_FIELDS a record of ``tax`` may carry into papers.bib: declared with a text type
    and not private (None: any, when no taxonomy is given)."""
    if tax is None:
        return None
    return frozenset(f.name for f in tax.retained.fields
                     if f.name in BIB_FIELDS and f.type in _TEXT_TYPES and not f.private)


def _write(entries: list[Any]) -> str:
    # The writer encloses each value in braces; it does so on copies of the entries made here
    # (the entries stay as built, to be compared with the text read back), not on deep copies.
    lib = Library([Entry(e.entry_type, e.key, [Field(f.key, f.value) for f in e.fields]) for e in entries])
    fmt = bibtexparser.BibtexFormat()
    fmt.indent = "  "
    fmt.block_separator = "\n"
    stack = default_unparse_stack(allow_inplace_modification=True)
    return str(bibtexparser.write_string(lib, unparse_stack=stack, bibtex_format=fmt))


def _written(entry: Any) -> str:
    """``_write([entry])``, the text bibtexparser's writer gives for the entry alone with the
    format above, put together here: ``@type{key,``, one ``  name = {value}`` line a field (every
    value in braces, as the writer's enclosing step puts them, integers too), a comma after each
    but the last, and ``}``. The writer's passes (a library, the enclosing middleware on copies)
    were about a fifth of papers.bib's time at 10,000 records; tests/unit/bibtex/test_bibtex.py
    holds the two texts equal for every entry of the fixture, hostile and generated records."""
    fields = ",\n".join([f"  {f.key} = {{{f.value}}}" for f in entry.fields])
    if not fields:
        return f"@{entry.entry_type}{{{entry.key},\n}}\n"
    return f"@{entry.entry_type}{{{entry.key},\n{fields}\n}}\n"


def bibtex_entry(record: Record, taxonomy: Taxonomy) -> str:
    """The BibTeX entry of one retained record (the site shows it beside the record)."""
    return _written(_entry(record, _rules(taxonomy), _no_author(taxonomy), taxonomy))


@dataclass(frozen=True)
class Bibliography:
    """Every retained record's entry, built and written once: ``papers.bib`` is their texts
    joined, and the site shows each beside its record."""

    records: tuple[Record, ...]  # in key order
    entries: tuple[Entry, ...]  # as built, to compare with the text read back
    texts: Mapping[str, str]  # record key -> its entry as written


def bibliography(corpus: Corpus) -> Bibliography:
    rules, no_author = _rules(corpus.taxonomy), _no_author(corpus.taxonomy)
    recs = tuple(sorted(corpus.retained, key=lambda r: r.id))
    entries = tuple(_entry(r, rules, no_author, corpus.taxonomy) for r in recs)
    # An entry written alone is the same text as within the whole file (which is the entries
    # joined by blank lines); tests/unit/bibtex/test_bibtex.py holds the two together.
    return Bibliography(recs, entries, {r.id: _written(e) for r, e in zip(recs, entries, strict=True)})


def papers_bib(corpus: Corpus, bib: Bibliography | None = None) -> str:
    """``reports/papers.bib``: every retained record, in key order, checked by reading it back."""
    bib = bib if bib is not None else bibliography(corpus)
    header = (
        f"% {len(bib.records)} entries generated by `survey build` from the records in "
        f"{corpus.taxonomy.retained.folder}/; do not edit.\n\n"
    )
    text = header + "\n".join(bib.texts[r.id] for r in bib.records)
    # Read back, for both checks, each entry whose text could read back otherwise (at 10,000
    # records, parsing every entry was a tenth of a cold build); alone, so a problem names it.
    no_author = _no_author(corpus.taxonomy)
    problems = []
    for rec, entry in zip(bib.records, bib.entries, strict=True):
        if needs_reading_back(entry):
            lib = bibtexparser.parse_string(bib.texts[rec.id])
            found = check_bib(lib, [rec], no_author) + check_fields(lib, [entry])
            problems += [p if p.startswith(f"{rec.id}: ") else f"{rec.id}: {p}" for p in found]
    if problems:
        raise BibtexError(f"{OUTPUT} does not read back as the records: {problems[0]}")
    return text


# What gives a BibTeX value structure: its delimiters, a quote, a block's start, a TeX command (every
# escape writes a backslash), a line break. An entry whose key, type and values hold none of these,
# and no space that BibTeX trims (at either end of a value or of a name), is written as
# ``key = {value}`` lines that a parser can only read back as they are; any other entry (a title
# with braces or a ``%``, a hostile link, a name ending in a space) is read back and compared.
_STRUCTURE = re.compile(r'[{}"@\\\r\n]')
_PLAIN_KEY = re.compile(r"[\w.:+/-]+")


def needs_reading_back(entry: Any) -> bool:
    """Whether ``papers_bib`` must parse ``entry``'s text back to know it reads as built."""
    if not _PLAIN_KEY.fullmatch(entry.key) or not entry.entry_type.isalnum():
        return True
    for f in entry.fields:
        value = f.value
        if f.key == "title" and value.startswith("{") and value.endswith("}"):
            value = value[1:-1]  # the braces _fields puts around a title to keep its capitals
        if _STRUCTURE.search(value):
            return True
        # names are split on " and "; every part (a name, or the value itself) must be trimmed
        if any(not part or part != part.strip() for part in value.split(" and ")):
            return True
    return False


def _strip_braces(v: str) -> str:
    v = v.strip()
    while v.startswith("{") and v.endswith("}"):
        v = v[1:-1]
    return v


def _split_names(value: str) -> list[str]:
    """Split an author list on `` and `` outside braces, as BibTeX does."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(value):
        c = value[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth == 0 and value.startswith(" and ", i):
            out.append(value[start:i])
            start = i = i + 5
            continue
        i += 1
    out.append(value[start:])
    return [x.strip() for x in out]


def check_fields(text: str | Library, entries: Sequence[Any]) -> list[str]:
    """Differences between the parsed file and the entries it was written from, field by field.

    Anything but entries and comment lines (a ``@preamble``, ``@string`` or explicit
    ``@comment``), a field more or less, or any value read back differently is reported: a value
    that escaped its braces cannot go unnoticed. ``text`` may be given already parsed.
    """
    lib = bibtexparser.parse_string(text) if isinstance(text, str) else text
    out: list[str] = [f"a parse error near line {b.start_line}" for b in lib.failed_blocks]
    for block in lib.blocks:
        if type(block).__name__ not in ("Entry", "ImplicitComment"):
            out.append(f"an unexpected @{type(block).__name__.lower()} block near line {block.start_line}")
    parsed = {e.key: e for e in lib.entries}
    for want in entries:
        got = parsed.get(want.key)
        if got is None:
            out.append(f"no entry {want.key}")
            continue
        if got.entry_type != want.entry_type:
            out.append(f"{want.key}: reads back as @{got.entry_type}")
        a = [(f.key, f.value) for f in want.fields]
        b = [(f.key, f.value) for f in got.fields]
        if a != b:
            diff = sorted(set(b) ^ set(a))
            out.append(f"{want.key}: fields read back differently: {diff[:3]!r}")
    return out


def check_bib(text: str | Library, records: Sequence[Record], no_author: str = "Anonymous") -> list[str]:
    """Differences between the parsed BibTeX (``text``, or already parsed) and the records
    (empty when faithful)."""
    lib = bibtexparser.parse_string(text) if isinstance(text, str) else text
    out: list[str] = [f"a parse error near line {b.start_line}" for b in lib.failed_blocks]
    entries = {e.key: e for e in lib.entries}
    if len(lib.entries) != len(records):
        out.append(f"{len(lib.entries)} entries for {len(records)} records")
    for rec in records:
        e = entries.get(rec.id)
        if e is None:
            out.append(f"no entry {rec.id}")
            continue
        title = unescape(_strip_braces(e.fields_dict["title"].value))
        if title != detex(rec.title):
            out.append(f"{rec.id}: title reads back as {title!r}")
        names = [unescape(_strip_braces(a)) for a in _split_names(e.fields_dict["author"].value)]
        want = [detex(str(a)) for a in rec.get("authors") or []] or [no_author]
        if rec.get("authors") and rec.get("authors_complete") is False:
            want.append("others")
        if names != want:
            out.append(f"{rec.id}: authors read back as {names!r}")
        year = e.fields_dict["year"].value if "year" in e.fields_dict else None
        if year != (None if rec.get("year") is None else str(rec.get("year"))):
            out.append(f"{rec.id}: year reads back as {year!r}")
    return out
