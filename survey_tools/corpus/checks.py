"""Checks on one record: its JSON Schema, its id, and facts that must agree within it.

The schema is generated from the taxonomy. A Rust-backed validator answers "valid?" in about a
microsecond; only an invalid record pays for the pure-Python validator that lists every error,
which are then rewritten as messages a contributor can act on, with the nearest valid value.
"""

from __future__ import annotations

import datetime
import fnmatch
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import yaml

from survey_tools import hidden
from survey_tools.corpus.identifiers import (
    arxiv_format_problem,
    arxiv_year,
    normalize_arxiv,
    normalize_doi,
)
from survey_tools.corpus.record_schema import YEAR_BOUNDS, record_schema
from survey_tools.corpus.schema_validator import SchemaValidator
from survey_tools.corpus.taxonomy import (
    FORMER_FIELD,
    Collection,
    ControlledField,
    PlainField,
    Taxonomy,
)
from survey_tools.corpus.yaml_words import CURLY_QUOTES, cleaned
from survey_tools.corpus.yamlio import YamlDocument
from survey_tools.errors import WARNING, Problem
from survey_tools.net.addresses import private_url
from survey_tools.net.hrefs import href_problem
from survey_tools.schema_words import (
    Choices,
    IdWords,
    Vocabulary,
    clip,
    explain_all,
    key_words,
    noun,
    show,
    url_words,
)
from survey_tools.schema_words import describe_type as _describe_type
from survey_tools.schema_words import dotted as _dotted
from survey_tools.schema_words import problems as schema_problems

_CURLY = re.compile(f"[{CURLY_QUOTES}]")
MISSING = "required field is missing"
_ISO_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")

# A paper's cited version may appear up to this many years after its arXiv id was issued.
ARXIV_YEAR_SLACK = 3


class _Validators:
    # jsonschema-rs answers "valid?", jsonschema explains an invalid record (schema_validator.py
    # says why, and what keeps the two in agreement).
    def __init__(self, tax: Taxonomy, collection: str) -> None:
        self.schema = record_schema(tax, collection)
        self.full = SchemaValidator(self.schema)


_VALIDATORS: dict[tuple[str, str, str], _Validators] = {}


def _validators(tax: Taxonomy, collection: str) -> _Validators:
    # Compiled once per process and taxonomy version; worker processes inherit them.
    key = (str(tax.root), tax.digest, collection)
    if key not in _VALIDATORS:
        _VALIDATORS[key] = _Validators(tax, collection)
    return _VALIDATORS[key]


def record_vocabulary(tax: Taxonomy, coll: Collection) -> Vocabulary:
    """The survey's words for one collection's records, as data for the one explainer
    (schema_words): field nouns and values, the sentinels, identifier labels, the conditions of
    the generated schema and the record's own wording of what to type."""
    schema = _validators(tax, coll.name).schema
    choices = {
        c.name: Choices(c.noun, c.kind, tuple(c.ids), tuple(c.mode_ids), bool(c.not_applicable),
                        placed_example(c) if c.where_words else "")
        for c in coll.controlled
    }
    normal: dict[str, Callable[[str], str | None]] = {}
    tips = {}
    for name, kind in tax.identifiers.items():
        if kind.normalize == "arxiv":
            normal[name] = normalize_arxiv
            tips[name] = " (did you mean {normal!r}? store the id without version or prefix)"
        elif name == "doi":
            normal[name] = _doi_alone
            tips[name] = ": write the DOI alone, without its address: {kind}: '{normal}'"
    return Vocabulary(
        templates=_RECORD_TEMPLATES,
        worded=_RECORD_WORDED,
        say_the_fix=True,
        blank_said_elsewhere=True,
        schema_wording=False,
        untagged=tax.untagged,
        not_applicable=tax.na,
        choices=choices,
        field_types={f.name: f.type for f in coll.fields},
        identifier_labels={name: kind.label for name, kind in tax.identifiers.items()},
        normal_forms=normal,
        normal_tips=tips,
        clean_key=cleaned,
        ids=_id_words(coll),
        conditions=tuple(str(c.get("description", "")) for c in schema.get("allOf", [])),
        pattern_words={
            "evidence": "{value} is not a well-formed http(s) URL",
            "date": "{value} is not an ISO date (YYYY-MM-DD)",  # a sub-decision's second reading
        },
    )


# A record's wording where it differs from the table's (schema_words.KEYWORDS): what to type.
_RECORD_TEMPLATES = {
    "required": MISSING + ": add a line {key}: …{extra}",
    "additionalProperties": "unknown field: remove this line (CONTRIBUTING.md lists the fields a "
                            "record takes)",
    "additionalProperties.near": "unknown field: did you mean {near}? (field names are written as "
                                 "in the template, lower-case)",
    "minimum": "{message}",
    "maximum": "{message}",
    "minimum.year": "year {shown} is not plausible (1900-2100)",
    "maximum.year": "year {shown} is not plausible (1900-2100)",
    "minLength": "too short: {length} characters (at least {limit})",
    "maxLength": "too long: {length:,} characters (at most {limit})",
    "anyOf": "{message}",
}


def placed_example(cf: ControlledField) -> str:
    """What to write for a field that places readings: one entry per tag set, its mode and its
    place, as a line the contributor can copy and change."""
    paper, code = cf.mode_ids[0], (cf.mode_ids[1] if len(cf.mode_ids) > 1 else cf.mode_ids[0])
    first, second = cf.ids[0], (cf.ids[1] if len(cf.ids) > 1 else cf.ids[0])
    return (f"say where each tag you set was read, one entry per tag, like "
            f"{cf.name}: {{{first}: {{how: {paper}, where: Section 3.1}}, "
            f"{second}: {{how: {code}, where: src/train.py at 1a2b3c4}}}}; "
            f"how is one of {', '.join(cf.mode_ids)}, where names a section, figure, table, equation, "
            "appendix or the abstract, or a code file at a commit")


# The keywords a record's schema words; any other in the validator's own sentence.
_RECORD_WORDED = frozenset({
    "required", "additionalProperties", "enum", "type", "pattern", "anyOf", "not", "minimum",
    "maximum", "minLength", "maxLength", "minItems", "uniqueItems",
})


def _doi_alone(value: str) -> str | None:
    """A DOI written as an address or with ``doi:``, as the DOI alone."""
    bare = re.sub(r"^\s*(https?://(dx\.)?doi\.org/|doi:\s*)", "", value, flags=re.I)
    return bare if normalize_doi(value) else None


def _id_words(coll: Collection) -> IdWords:
    return IdWords(coll.id_field, coll.id_pattern, coll.folder)


# Names Windows gives to devices, with any extension: a clone there fails on such a file.
_WINDOWS_RESERVED = frozenset(
    ["con", "prn", "aux", "nul"] + [f"{d}{i}" for d in ("com", "lpt") for i in range(10)]
)


def _well_formed(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname) and " " not in url


def valid_url(url: str) -> bool:
    """A well-formed http(s) URL that the href rule lets into a link: scheme, host, no spaces, no
    credentials (what `survey validate` requires)."""
    return _well_formed(url) and href_problem(url) is None


# Characters no URL or identifier carries unencoded (RFC 3986 leaves them out of URLs). Each can
# close or open a field in BibTeX, a link in Markdown or an attribute in HTML, so a value holding
# one is refused outright, whatever the output escapes later.
_UNSAFE_IN_REFERENCE = re.compile(r'[{}\\"<>`\s\x00-\x1f\x7f]')


def reference_problem(value: str) -> str | None:
    """Why a URL or identifier value is unsafe to publish, or None."""
    m = _UNSAFE_IN_REFERENCE.search(value)
    if m is None:
        return None
    ch = m.group(0)
    shown = {" ": "a space", "\t": "a tab", "\n": "a line break", "\r": "a carriage return"}.get(
        ch, repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}"
    )
    return f"contains {shown}, which URLs and identifiers never hold unencoded (percent-encode it, e.g. {quote(ch)})"


def check_record(tax: Taxonomy, coll: Collection, rel: str, doc: YamlDocument) -> list[Problem]:
    """Every problem in one parsed record file (schema, id, internal consistency)."""
    data = doc.data
    if not isinstance(data, dict):
        return [
            Problem(
                rel, 1, 1, "", f"a record must be a mapping of fields, got {_describe_type(data)}"
            )
        ]
    elsewhere = _other_collection(tax, coll, rel, data)
    if elsewhere is not None:
        # A paper saved among the exclusions (or the reverse): one line saying where it goes,
        # not one per field of the wrong schema.
        return [elsewhere]
    _drop_blank_identifiers(data)
    # The order is the order of the report: the file's name first, then the schema, then what
    # only this module knows about the values.
    problems = _file_name_problems(coll, rel, doc, data)
    schema = _schema_problems(tax, coll, rel, doc, data)
    if problems:  # the id is said to be wrong once, where the file name is
        schema = [p for p in schema if p.field != coll.id_field]
    problems.extend(schema)
    problems.extend(_field_problems(tax, coll, rel, doc, data))
    problems.extend(_prose_problems(tax, coll, rel, doc, data))
    problems.extend(_author_list_problems(coll, rel, doc, data))
    problems.extend(_identifier_problems(tax, rel, doc, data))
    problems.extend(_year_problems(coll, rel, doc, data))
    problems.extend(_placement_problems(tax, coll, rel, doc, data))
    problems.extend(_plausible_problems(coll, rel, doc, data))
    # A field name glued to an invisible character is said once, as that (not also as text).
    glued = {(p.line, p.field) for p in problems if p.message.startswith("the field name ")}
    problems = [p for p in problems
                if not ((p.line, p.field) in glued and p.message.startswith("contains "))]
    return _dedupe(_one_line_lists(coll, rel, doc, data, problems))


# How the one line about a record saved in the other collection's folder starts: the loader
# then leaves the record out, so no check across records speaks of it as this folder's.
WRONG_FOLDER = "this file has the fields of a record of "


def _other_collection(
    tax: Taxonomy, coll: Collection, rel: str, data: dict[str, Any]
) -> Problem | None:
    """A record shaped like another collection's (three of its own fields or more, none of this
    folder's): it was saved in the wrong folder."""
    mine = set(coll.field_names())
    for other in tax.collections.values():
        if other is coll:
            continue
        theirs = set(other.field_names())
        only_theirs = [k for k in data if k in theirs and k not in mine]
        only_mine = [k for k in data if k in mine and k not in theirs]
        if len(only_theirs) >= 3 and not only_mine:
            stem = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            return Problem(rel, 1, 1, "", (
                f"{WRONG_FOLDER}{other.folder}/ "
                f"({', '.join(only_theirs[:3])}), not of {coll.folder}/: records like it live in "
                f"{other.folder}/{other.id_field.upper()}.yaml; move it to {other.folder}/{stem}.yaml"))
    return None


def _drop_blank_identifiers(data: dict[str, Any]) -> None:
    """``arxiv: ''`` (the template's line, left blank for a paper without an arXiv id) and an
    ``identifiers:`` left empty say "none": they are read as absent, not as a malformed id."""
    idents = data.get("identifiers")
    if isinstance(idents, dict):
        for kind in [k for k, v in idents.items() if v is None or (isinstance(v, str) and not v.strip())]:
            del idents[kind]
    if "identifiers" in data and (idents is None or idents == {}):
        del data["identifiers"]


def _one_line_lists(
    coll: Collection, rel: str, doc: YamlDocument, data: dict[str, Any], problems: list[Problem]
) -> list[Problem]:
    """``authors: [Doe, Jane, Roe, Richard]``: a list of people written on one line splits each
    name at its comma. One line says to write one person a line, instead of one per fragment."""
    for f in coll.fields:
        value = data.get(f.name)
        if f.type != "person_list" or not isinstance(value, list) or len(value) < 2:
            continue
        lines = {doc.position((f.name, i))[0] for i in range(len(value))}
        if len(lines) != 1 or not all(isinstance(v, str) and "," not in v for v in value):
            continue
        item = noun(f.name)
        kept = [p for p in problems if not p.field.startswith(f"{f.name}.")]
        kept.append(_at(rel, doc, (f.name,), (
            f"the {f.name} are written on one line, which splits each name at its comma: write "
            f"{f.name}: alone on its line, then each {item} on its own line starting with '- ', "
            f"as - Last, First")))
        problems = kept
    return problems


def _at(rel: str, doc: YamlDocument, path: tuple[Any, ...], message: str) -> Problem:
    """A problem pointing at the value under ``path``, named by its dotted path."""
    line, col = doc.position(path)
    return Problem(rel, line, col, _dotted(path), message)


def _file_name_problems(
    coll: Collection, rel: str, doc: YamlDocument, data: dict[str, Any]
) -> list[Problem]:
    # The file name is the record's id. At most one problem is said about it, the most basic
    # first: a name that is no valid id makes the other two moot.
    name = rel.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name else name
    ident = data.get(coll.id_field)
    if not re.match(coll.id_pattern, stem):
        message = key_words(_id_words(coll), stem, f"the file name {stem!r} cannot be a {coll.id_field}",
                            rename=True)
        return [Problem(rel, 1, 1, coll.id_field, message)]
    if stem.split(".", 1)[0].lower() in _WINDOWS_RESERVED:
        message = (
            f"{stem!r} is a device name on Windows: a file named {name} cannot be checked out "
            f"there (choose another {coll.id_field})"
        )
        return [Problem(rel, 1, 1, coll.id_field, message)]
    if isinstance(ident, str) and ident != stem:
        message = (f"{show(repr(ident))} does not match the file name {stem!r}: write "
                   f"{coll.id_field}: {stem} (the file name without .yaml), or rename the file")
        return [_at(rel, doc, (coll.id_field,), message)]
    return []


def _schema_problems(
    tax: Taxonomy, coll: Collection, rel: str, doc: YamlDocument, data: dict[str, Any]
) -> list[Problem]:
    vals = _validators(tax, coll.name)
    if vals.full.is_valid(data):
        return []
    # Only an invalid record pays for listing every error and for the explainer's lookups.
    said, explainer = explain_all(vals.full.iter_errors(data), record_vocabulary(tax, coll))
    problems = schema_problems(said, rel, doc.position)
    said_missing = {p.field for p in problems if p.message.startswith(MISSING)}
    return [p for p in problems if not (p.field in said_missing and p.field in explainer.meant
                                        and p.message.startswith(MISSING))]


def _field_problems(
    tax: Taxonomy, coll: Collection, rel: str, doc: YamlDocument, data: dict[str, Any]
) -> list[Problem]:
    """Facts that must agree within the record: the schema cannot see these."""
    problems: list[Problem] = []
    for name, f in {f.name: f for f in coll.fields}.items():
        value = data.get(name)
        if f.required and value == tax.untagged:
            # `survey add` leaves prose it cannot know (the summary) untagged on purpose.
            problems.append(_at(rel, doc, (name,), "not yet tagged (write it in your own words)"))
        if f.type == "date" and isinstance(value, str) and _ISO_DATE.match(value):
            # The schema checks the shape; only the calendar knows that 2026-13-45 is no date.
            try:
                datetime.date.fromisoformat(value)
            except ValueError:
                problems.append(_at(rel, doc, (name,), f"{value!r} is not a calendar date"))
        if f.type in ("url", "url_list") and value is not None:
            problems.extend(_link_problems(rel, doc, name, value))
    return problems


@lru_cache(maxsize=1)
def _rules_file() -> dict[str, Any]:
    """link_rules.yaml, read once for the link and the venue rules."""
    return dict(yaml.safe_load((Path(__file__).parent / "link_rules.yaml").read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def _link_rules() -> tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[re.Pattern[str], str], ...]]:
    """link_rules.yaml: the hosts that serve https, the tracking parameters, the landing pages."""
    rules = _rules_file()
    pages = tuple((re.compile(r["pattern"]), str(r["page"])) for r in rules.get("landing_pages") or [])
    return tuple(rules["https_hosts"]), tuple(rules["tracking_parameters"]), pages


def _landing_page(link: str) -> str | None:
    for pattern, page in _link_rules()[2]:
        m = pattern.match(link)
        if m is not None:
            return page.format(**m.groupdict())
    return None


def cleaned_link(link: str) -> str:
    """``link`` with https for a host that serves it, tracking parameters removed, and a file's
    landing page for the file (link_rules.yaml); a link needing none is returned as it is."""
    hosts, params, _ = _link_rules()
    try:
        parts = urlsplit(link)
        host = (parts.hostname or "").lower()
    except ValueError:
        # A link urllib cannot take apart ("http://[x": an unclosed IPv6 bracket) is left as
        # written; the link's format check names it (found by tests/stress/hardening's fuzz).
        return link
    scheme = parts.scheme
    if scheme == "http" and any(host == h or host.endswith("." + h) for h in hosts):
        scheme = "https"
    kept = [q for q in parts.query.split("&") if q and not any(
        fnmatch.fnmatchcase(q.split("=", 1)[0].lower(), p) for p in params)]
    query = "&".join(kept) if len(kept) != len([q for q in parts.query.split("&") if q]) else parts.query
    out = link if scheme == parts.scheme and query == parts.query else urlunsplit(
        (scheme, parts.netloc, parts.path, query, parts.fragment))
    return _landing_page(out) or out


def _cleaner_link(link: str, written: str = "- ") -> str | None:
    better = cleaned_link(link)
    if better == link:
        return None
    what = []
    if better.split(":", 1)[0] != link.split(":", 1)[0]:
        what.append(f"{urlsplit(link).hostname} serves https")
    if _landing_page(link.replace("http://", "https://", 1)) or _landing_page(link):
        what.append("the link is to a file whose page is the paper's landing page")
    elif urlsplit(better).query != urlsplit(link).query:
        what.append("the part after ? only says where the link was clicked")
    # Not refused: the cleaned link is what every output publishes (corpus/published.py).
    return (f"{WARNING}{' and '.join(what)}, so the link is published as {better}; write the "
            f"line as: {written}{better}")


# Punctuation a link copied out of a sentence or a Markdown link carries at its end: a closing
# bracket that opens nowhere in the link, a full stop, a comma.
_TRAILING = re.compile(r"(?:[.,;:!?]|(?<=[^(])\)|\]|>|\*+)+$")


def _trailing_punctuation(link: str, written: str) -> str | None:
    m = _TRAILING.search(link)
    if m is None or (m.group().startswith(")") and link.count("(") >= link.count(")")):
        return None
    return (f"{clip(link)!r} ends with {m.group()!r}, copied with it from the text around it: "
            f"write the line as: {written}{link[: m.start()]}")


# A reading placed in code names a file (a path with an extension) and the commit it was read at.
_CODE_PLACE = re.compile(r"[\w./-]+\.\w+\b.*\b(?:at|@|commit)\s*[0-9a-f]{7,40}\b", re.IGNORECASE)


def _names_place(where: str, words: tuple[str, ...]) -> bool:
    return bool(places_named(where, words))


def places_named(where: str, words: Sequence[str]) -> set[str]:
    """The words of ``words`` a reading's ``where`` names, and ``CODE_PLACE`` when it names a
    code file at a commit (corpus/stages.py tells an abstract reading from a full-text one)."""
    low = where.lower()
    found = {w for w in words if re.search(rf"(?<![a-z]){re.escape(w.lower())}", low)}
    if _CODE_PLACE.search(where):
        found.add(CODE_PLACE)
    return found


CODE_PLACE = "\0code"  # in places_named's answer: a code file at a commit


def _placement_problems(
    tax: Taxonomy, coll: Collection, rel: str, doc: YamlDocument, data: dict[str, Any]
) -> list[Problem]:
    """A mapping that places readings (``where_words``): each entry's ``where`` names a place in
    the source, and a record that places any reading places every tag it sets: each value that is
    a field of the record (not untagged) or a key of one of its other mappings."""
    problems: list[Problem] = []
    for cf in coll.controlled:
        placed = data.get(cf.name)
        if not cf.where_words or not isinstance(placed, dict):
            continue
        for key, entry in placed.items():
            where = entry.get("where") if isinstance(entry, dict) else None
            if isinstance(where, str) and where.strip() and not _names_place(where, cf.where_words):
                problems.append(_at(rel, doc, (cf.name, key, "where"), (
                    f"{clip(where)!r} names no place in the source: say the section, figure, "
                    f"table, equation or appendix ({', '.join(cf.where_words[:6])}, ...), or a code "
                    "file at a commit (path/to/file.py at 1a2b3c4)")))
        keys = {str(k) for other in coll.controlled if other is not cf and other.kind == "mapping"
                for k in (data.get(other.name) or {}) if isinstance(data.get(other.name), dict)}
        missing = [v for v in cf.ids if v not in placed
                   and ((v in data and data[v] not in (tax.untagged, None)) or v in keys)]
        if missing:  # one line for the record: which tags still lack a placed reading
            problems.append(_at(rel, doc, (cf.name,), (
                f"tagged but not placed: {', '.join(missing)} (a record that places a reading places "
                "every tag it sets: add each as {how: " + "|".join(cf.mode_ids) + ", where: ...})")))
    return problems


def _link_problems(rel: str, doc: YamlDocument, name: str, value: Any) -> list[Problem]:
    problems: list[Problem] = []
    links = value if isinstance(value, list) else [value]
    for i, link in enumerate(links):
        if not isinstance(link, str):
            continue
        unsafe = reference_problem(link)
        # A published link to this machine or its network would have `survey links`
        # (and every reader) probe it: links must name public hosts.
        msg: str | None
        if not _well_formed(link):
            msg = url_words(link)
        elif unsafe:
            msg = f"{clip(link)!r} {unsafe}"
        else:  # the one href rule (credentials, the host), no local host, then a cleaner form
            written = "- " if isinstance(value, list) else f"{name}: "
            msg = (href_problem(link) or private_url(link) or _trailing_punctuation(link, written)
                   or _cleaner_link(link, written))
        if msg:
            p = (name, i) if isinstance(value, list) else (name,)
            problems.append(_at(rel, doc, p, msg))
    return problems


def _identifier_problems(
    tax: Taxonomy, rel: str, doc: YamlDocument, data: dict[str, Any]
) -> list[Problem]:
    idents = data.get("identifiers")
    if not isinstance(idents, dict):
        return []
    problems: list[Problem] = []
    for kind, value in idents.items():
        path = ("identifiers", kind)
        unsafe = reference_problem(value) if isinstance(value, str) else None
        if unsafe:
            # An unsafe value is refused for that alone: its format is beside the point.
            problems.append(_at(rel, doc, path, f"{clip(value)!r} {unsafe}"))
            continue
        ik = tax.identifiers.get(str(kind))
        if ik is not None and ik.normalize == "arxiv" and isinstance(value, str):
            why = arxiv_format_problem(value)
            if why:
                problems.append(_at(rel, doc, path, f"{value!r} is not a valid {ik.label}: {why}"))
    return problems


def _year_problems(
    coll: Collection, rel: str, doc: YamlDocument, data: dict[str, Any]
) -> list[Problem]:
    idents = data.get("identifiers")
    year = data.get("year")
    if not (isinstance(idents, dict) and isinstance(year, int) and not isinstance(year, bool)):
        return []
    a = idents.get("arxiv")
    ay = arxiv_year(a) if isinstance(a, str) else None
    if ay is None or ay <= year <= ay + ARXIV_YEAR_SLACK or _waived(coll, data, "year_fits_arxiv"):
        return []
    message = (
        f"{show(year)} does not fit arXiv id {a} "
        f"(issued {ay}; expected {ay}-{ay + ARXIV_YEAR_SLACK})"
    )
    return [_at(rel, doc, ("year",), message)]


def _plausible_problems(
    coll: Collection, rel: str, doc: YamlDocument, data: dict[str, Any]
) -> list[Problem]:
    """A year or date no record can have: a year after this one, before the field's earliest
    (taxonomy: ``earliest``, ``earliest_by``), written as a fraction; a date after today."""
    today = datetime.date.today()
    out: list[Problem] = []
    for f in coll.fields:
        value = data.get(f.name)
        if f.type == "year" and isinstance(value, float) and value.is_integer():
            out.append(_at(rel, doc, (f.name,), _fraction_words(f, value, data, today.year)))
        elif f.type == "year" and isinstance(value, int) and not isinstance(value, bool):
            why = _year_words(f, value, data, today.year)
            at, why = ((f.name,), why) if why else _venue_year_words(f, value, data)
            if why:
                out.append(_at(rel, doc, at, why))
        elif f.type == "date" and isinstance(value, str) and _ISO_DATE.match(value):
            with_date = _future_date(f.name, value, today)
            if with_date:
                out.append(_at(rel, doc, (f.name,), with_date))
    return out


def _fraction_words(f: PlainField, value: float, data: Mapping[str, Any], this_year: int) -> str:
    """A year YAML read as a fraction (2026.0, 2e3): the whole number only where it is a
    plausible year itself (2e3 is 2000, which no rule may allow)."""
    whole = int(value) if value.is_integer() and abs(value) < 1e6 else None
    idents = data.get("identifiers")
    a = idents.get("arxiv") if isinstance(idents, dict) else None
    ay = arxiv_year(a) if isinstance(a, str) else None
    if whole is not None and YEAR_BOUNDS[0] <= whole <= YEAR_BOUNDS[1] and (
        _year_words(f, whole, data, this_year) is None
    ) and (ay is None or ay <= whole <= ay + ARXIV_YEAR_SLACK):
        return f"write the {f.name} as a whole number: {f.name}: {whole}"
    return (f"write the {f.name} as its four digits, without a point or an exponent, like "
            f"{f.name}: 2026")


def _year_words(f: PlainField, year: int, data: Mapping[str, Any], this_year: int) -> str | None:
    if not YEAR_BOUNDS[0] <= year <= YEAR_BOUNDS[1]:
        return None  # the schema's bounds say so
    if year > this_year:
        return (f"{year} is after this year: write the year of the version you cite (a work "
                f"not out yet is added when it is)")
    idents = data.get("identifiers")
    if f.earliest is None or (isinstance(idents, dict) and idents.get("arxiv")):
        return None  # an arXiv id dates the work better (_year_problems)
    earliest, why = f.earliest, ""
    for cf, value, allowed in f.earliest_by:
        if data.get(cf) == value:
            earliest, why = allowed, f" for {cf} {value}"
    if year >= earliest:
        return None
    older = [f"{cf} {v} from {y}" for cf, v, y in f.earliest_by if y <= year]
    also = f"; older works are {', '.join(older)}" if older and not why else ""
    return (f"{year} is earlier than any work of this survey{why} (from {earliest}): check the "
            f"year of the version you cite{also}")


@lru_cache(maxsize=1)
def _venue_series() -> re.Pattern[str]:
    """A venue's edition year: four digits, or two after a known series and an apostrophe
    (link_rules.yaml: venue_series)."""
    rules = _rules_file()
    series = "|".join(re.escape(s) for s in rules["venue_series"])
    return re.compile(
        rf"(?<![\w])(?P<four>(?:19|20)\d\d)(?!\d)|\b(?:{series})\s?['’‘](?P<two>\d\d)\b",
        re.IGNORECASE,
    )


def _venue_year_words(
    f: PlainField, year: int, data: Mapping[str, Any]
) -> tuple[tuple[str, ...], str | None]:
    """A venue that names its edition's year (NeurIPS 2023, ICLR'25) and a year that is
    neither that one nor the year before (the preprint a conference early in the year cites)."""
    venue = data.get("venue")
    if not isinstance(venue, str) or not YEAR_BOUNDS[0] <= year <= YEAR_BOUNDS[1]:
        return (), None  # an implausible year is said by the schema's bound, once
    named = sorted({int(m["four"]) if m["four"] else 2000 + int(m["two"])
                    for m in _venue_series().finditer(venue)})
    if not named or any(v - 1 <= year <= v for v in named):
        return (), None
    v = named[-1]
    idents = data.get("identifiers")
    a = idents.get("arxiv") if isinstance(idents, dict) else None
    ay = arxiv_year(a) if isinstance(a, str) else None
    # the id dates the work: the venue is off. A paper may reach arXiv after its conference
    # (EMNLP in December, the preprint in January), hence the year before the id's too.
    if ay is not None and not ay - 1 <= v <= ay + ARXIV_YEAR_SLACK:
        return ("venue",), (f"the venue {venue!r} names {v}, which does not fit arXiv id {a} "
                            f"(issued {ay}): correct the venue (venue: 'arXiv' for the preprint alone)")
    return (f.name,), (f"{year} does not fit the venue {venue!r}, which names {v}: write the year of the "
            f"version you cite, {f.name}: {v} (or {f.name}: {v - 1} for the preprint of the year "
            f"before), or correct the venue")


def _future_date(name: str, value: str, today: datetime.date) -> str | None:
    try:
        day = datetime.date.fromisoformat(value)
    except ValueError:
        return None  # the calendar check says so
    if day <= today:
        return None
    return (f"{value} is after today: write the day you add the record, year, month and day, "
            f"like {name}: '2026-01-31'")


def _waived(coll: Collection, data: Mapping[str, Any], check: str) -> bool:
    """The record explains, in a field of type ``waivers``, why this check does not apply to it."""
    return any(f.type == "waivers" and isinstance(data.get(f.name), dict) and data[f.name].get(check)
               for f in coll.fields)


# What the blank record (corpus.examples) writes on a person line.
TEMPLATE_PERSON = "Last, First"


# Control characters, and the invisible format characters (Unicode category Cf: bidirectional
# overrides and isolates, zero-width spaces and joiners, the BOM, tag characters) that make text
# display differently from what it holds ("Trojan Source"); no title or summary needs them.
# Then what XML 1.0 forbids or discourages and many readers refuse (the Atom feed, the pages):
# lone surrogates (a YAML escape can write one) and the 66 noncharacters (U+FDD0..U+FDEF and the
# last two code points of every plane, U+FFFE and U+FFFF among them).
_NONCHARACTERS = "\ufdd0-\ufdef" + "".join(
    f"{chr(plane << 16 | 0xFFFE)}{chr(plane << 16 | 0xFFFF)}" for plane in range(17)
)
# The hidden characters are survey_tools.hidden's classes: every one but the look-alike spaces
# (readback.py names those, with the corrected line).
_CONTROL = hidden.pattern(
    hidden.C0, hidden.C1, hidden.BIDI, hidden.ZERO_WIDTH, hidden.FORMAT,
    extra="\ud800-\udfff" + _NONCHARACTERS,
)
_NONCHARACTER_SET = frozenset(
    [chr(c) for c in range(0xFDD0, 0xFDF0)] + [chr(p << 16 | low) for p in range(17) for low in (0xFFFE, 0xFFFF)]
)
_MERGED = re.compile(r"\s[-–—;&]\s|;|\s+and\s+")


def _control_problem(value: str, multiline: bool) -> str | None:
    if _CONTROL.search(value) is None:  # nearly every value: no iterator, no match objects
        return None
    for m in _CONTROL.finditer(value):
        ch = m.group()
        if ch == "\n" and multiline:
            continue
        if ch == "\t":
            return "contains a tab (U+0009); use spaces"
        if ch in "\r\n":
            return f"contains a line break (U+{ord(ch):04X}); write it on one line"
        if 0xD800 <= ord(ch) <= 0xDFFF:
            return (f"contains a lone surrogate (U+{ord(ch):04X}), which is not a character: "
                    "XML, the feed and BibTeX readers refuse it; remove it")
        if ch in _NONCHARACTER_SET:
            return (f"contains the noncharacter U+{ord(ch):04X}, which XML readers (the feed, the "
                    "pages) refuse; remove it")
        if ord(ch) > 0x9F:
            name = unicodedata.name(ch, "FORMAT CHARACTER")
            return (
                f"contains an invisible character (U+{ord(ch):04X} {name}) that can make the "
                f"text display differently from what it holds; remove it"
            )
        return f"contains a control character (U+{ord(ch):04X})"
    return None


def _scalars(value: Any, path: tuple[Any, ...]) -> Iterable[tuple[tuple[Any, ...], str, bool]]:
    """Every string in a record (mapping keys too) with its path and whether it is a key."""
    if isinstance(value, str):
        yield path, value, False
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str):
                yield (*path, k), k, True
            yield from _scalars(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _scalars(v, (*path, i))


def record_texts(value: Any) -> list[str]:
    """Every string of a record (mapping keys too), in no particular order: one walk without
    paths, shared by the checks that ask a question of each string alone."""
    texts: list[str] = [value] if isinstance(value, str) else []
    stack = [value] if isinstance(value, (dict, list)) else []
    append, push = texts.append, stack.append
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            for k, x in v.items():
                if isinstance(k, str):
                    append(k)
                if isinstance(x, str):
                    append(x)
                elif isinstance(x, (dict, list)):
                    push(x)
        else:
            for x in v:
                if isinstance(x, str):
                    append(x)
                elif isinstance(x, (dict, list)):
                    push(x)
    return texts


def _has_control(value: Any) -> bool:
    """Whether any string of a record (mapping keys too) holds a character ``_CONTROL`` names:
    one search of the strings joined by a space (a class of single characters, without the
    space, matches the joined text exactly where it matches one of them), so that the paths are
    built only for the few records that do. One search instead of one per string: 500,000
    searches at 10k records. A printable text holds none: every character of ``_CONTROL`` is
    one ``str.isprintable`` refuses (Unicode's Other classes; tests/unit/core/test_worked_out_once.py
    checks every code point), and that question is answered in C about 30 times faster than the
    class's search, so the search runs only on a text with something unprintable in it."""
    joined = " ".join(record_texts(value))
    return not joined.isprintable() and _CONTROL.search(joined) is not None


@lru_cache(maxsize=8)
def _placeholder_patterns(placeholders: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str] | None], ...]:
    # A word is matched as a whole word, any case; anything else as written.
    return tuple(
        (p, re.compile(rf"(?<![\w-]){re.escape(p)}(?![\w-])", re.IGNORECASE) if p.isalnum() else None)
        for p in placeholders
    )


@lru_cache(maxsize=8)
def _any_placeholder(placeholders: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern that matches wherever any placeholder would: the words with their whole-word
    guards, the rest as written (any case too: a wider net only sends a text to the exact
    questions below)."""
    words = "|".join(re.escape(p) for p in placeholders if p.isalnum())
    rest = [re.escape(p) for p in placeholders if not p.isalnum()]
    parts = ([rf"(?<![\w-])(?:{words})(?![\w-])"] if words else []) + rest
    return re.compile("|".join(parts) or r"(?!)", re.IGNORECASE)


def _placeholder(tax: Taxonomy, text: str) -> str | None:
    # One search answers the common case, no placeholder at all; only a text holding one asks
    # each word in turn for the first (one search instead of eight per text field).
    placeholders = tuple(tax.placeholders)
    if _any_placeholder(placeholders).search(text) is None:
        return None
    for p, rx in _placeholder_patterns(placeholders):
        if (rx.search(text) is not None) if rx is not None else (p in text):
            return p
    return None


# Field types whose text goes into papers.bib (title, authors, venue, affiliation, ...).
_BIBTEX_TYPES = ("string", "string_list", "person_list")


def unbalanced_brace(value: str) -> int | None:
    """The 0-based offset of the first brace BibTeX would mis-pair in ``value`` (a ``}`` that
    closes nothing, else the first ``{`` left open), or None when the braces balance. BibTeX
    counts every brace, escaped or not."""
    if "{" not in value and "}" not in value:
        return None
    opened: list[int] = []
    for i, c in enumerate(value):
        if c == "{":
            opened.append(i)
        elif c == "}":
            if not opened:
                return i
            opened.pop()
    return opened[0] if opened else None


def _brace_problem(value: str) -> str | None:
    at = unbalanced_brace(value)
    if at is None:
        return None
    what = "closes no brace" if value[at] == "}" else "is never closed"
    return (f"unbalanced braces: the {value[at]!r} at character {at + 1} {what}; BibTeX counts "
            "braces even after a backslash and would read past this field (balance or remove them)")


def _bibtex_text_problems(value: Any, path: tuple[Any, ...]) -> Iterable[tuple[tuple[Any, ...], str]]:
    for p, text, is_key in _scalars(value, path):
        why = None if is_key else _brace_problem(text)
        if why:
            yield p, why


# Footnote marks a name copied from a paper's first page carries: equal contribution (*),
# corresponding author (†), affiliations (1, ¹).
_FOOTNOTE = re.compile(r"(?<=\w)\s?([*∗†‡§¶#]+|[0-9]+|[¹²³⁰-⁹]+)(,[0-9¹²³⁰-⁹]+)*$")
_ET_AL = re.compile(r"(^|[\s,])(et\.?\s*al\.?|and others)$", re.IGNORECASE)


def _marked_name(name: str, complete_field: str) -> str | None:
    """'et al.' or a footnote mark in an author item: what to write instead."""
    m = _ET_AL.search(name.strip())
    if m is not None:
        rest = name.strip()[: m.start()].strip(" ,")
        keep = f"write - {rest} for this author, then " if rest else ""
        end = (f"or remove it and add a line {complete_field}: false" if complete_field
               else "or remove it")
        head = f"{show(repr(name))}: 'et al.'" if rest else "'et al.'"
        return f"{head} is not an author: {keep}list every author, one '- ' line each, {end}"
    m = _FOOTNOTE.search(name.strip())
    if m is not None:
        return (f"{show(repr(name))} ends with a footnote mark ({m.group(0).strip()}) copied from "
                f"the paper: write - {name.strip()[: m.start()].strip()}")
    return None


# An e-mail address (or any text in brackets holding one) copied with the name from a paper's
# first page: `Roe, Richard (richard.roe@example.org)`, `Roe, Richard <rr@x.org>`.
_CONTACT = re.compile(r"\s*[(<\[]?\s*[\w.+-]+@[\w-]+(?:\.[\w-]+)+\s*[)>\]]?\s*$")
# The words that join names in one item: BibTeX's `and`, a semicolon, an ampersand.
_JOINS = re.compile(r"\s+(?:and|&|[-–—])\s+|\s*;\s*", re.IGNORECASE)


def _contact_in_name(name: str) -> str | None:
    m = _CONTACT.search(name) if "@" in name else None  # (an address holds an "@")
    if m is None or not name[: m.start()].strip():
        return None
    return (f"{show(repr(name))} holds an e-mail address, which is not part of the name: write "
            f"- {name[: m.start()].strip()}")


def _merged_words(name: str) -> str:
    """Several names in one item: the lines to write when each piece is 'Last, First'."""
    pieces = [p.strip() for p in _JOINS.split(name) if p.strip()]
    if len(pieces) > 1 and all(p.count(",") == 1 and p.split(",")[1].strip() for p in pieces):
        lines = ", then ".join(f"- {p}" for p in pieces)
        return (f"{show(repr(name))} holds {len(pieces)} authors in one item: write each on its "
                f"own line: {lines}")
    return f"{show(repr(name))} looks like several authors merged into one item (write one 'Last, First' per item)"


def _two_word_name(name: str, hint: str) -> str:
    """A name without a comma: which word is the family name is not known from the order
    (Tan Weiting puts it first), unless one word is in capitals (TAN Weiting)."""
    words = name.split()
    caps = [w for w in words if len(w) > 1 and w.isupper()]
    if len(caps) == 1:
        family = caps[0]
        given = " ".join(w for w in words if w is not family)
        return f"{show(repr(name))} is not written as 'Last, First': write {family}, {given}{hint}"
    if len(words) == 2:
        a, b = words
        return (f"{show(repr(name))} is not written as 'Last, First': write the family name "
                f"first, then a comma: {b}, {a} if {b} is the family name, {a}, {b} if it is "
                f"{a}{hint}")
    return (f"{show(repr(name))} is not written as 'Last, First': write the family name first, "
            f"then a comma, like {words[-1]}, {' '.join(words[:-1])}{hint}")


def _author_problem(name: str, org_field: str, complete_field: str = "") -> str | None:
    if name.strip() == TEMPLATE_PERSON:  # the blank record's line, left as it was
        return f"{name!r} is the template's example: write the author's name, as Last, First"
    marked = _marked_name(name, complete_field) or _contact_in_name(name)
    if marked is not None:
        return marked
    parts = name.split(",")
    if name.count(",") > 1 or (len(parts) == 2 and _MERGED.search(name)):
        return _merged_words(name)
    if len(parts) != 2 or not parts[0].strip() or not parts[1].strip() or parts[1][:1] != " ":
        hint = f" (for an organisation, set {org_field}: true)" if org_field else ""
        words = name.split()
        if len(parts) == 1 and len(words) >= 2:
            return _two_word_name(name, hint)
        if len(words) == 1:  # `authors: [Doe, Jane, Roe, Richard]`: the names split at the commas
            hint = (": a name of one word; write each author on its own line starting with '- ', "
                    "as - Last, First" + hint)
        return f"{show(repr(name))} is not written as 'Last, First'{hint}"
    return None


def _blank(value: str) -> str:
    return "must not be empty" if value == "" else "must not be blank"


def _string_prose(tax: Taxonomy, f: PlainField, value: Any, data: Mapping[str, Any]) -> Iterator[tuple[tuple[Any, ...], str]]:
    if isinstance(value, str) and not value.strip():
        yield (), _blank(value)


def _text_prose(tax: Taxonomy, f: PlainField, value: Any, data: Mapping[str, Any]) -> Iterator[tuple[tuple[Any, ...], str]]:
    if not isinstance(value, str):
        return
    if not value.strip():
        yield (), _blank(value)
    elif value.strip() == tax.untagged:
        if not f.required:
            yield (), "placeholder 'untagged' left in the text (write it in your own words, or leave the field out)"
    elif ph := _placeholder(tax, value):
        yield (), f"placeholder {ph!r} left in the text (write it in your own words)"


def _repeated_links(tax: Taxonomy, f: PlainField, value: Any, data: Mapping[str, Any]) -> Iterator[tuple[tuple[Any, ...], str]]:
    first: dict[str, int] = {}
    for i, link in enumerate(value if isinstance(value, list) else ()):
        if not isinstance(link, str):
            continue
        norm = link.strip().rstrip("/")
        if norm in first:
            yield (i,), f"{show(repr(link))} repeats {f.name}.{first[norm]}"
        else:
            first[norm] = i


def _merged_authors(tax: Taxonomy, f: PlainField, value: Any, data: Mapping[str, Any]) -> Iterator[tuple[tuple[Any, ...], str]]:
    if not isinstance(value, list) or (f.organisation_field and data.get(f.organisation_field) is True):
        return
    # `authors_complete: false` says the list ends with "and others": the field named so
    # (looked up once for the list, not once per name).
    complete = next((g.name for c in tax.collections.values() for g in c.fields
                     if g.name == f"{f.name}_complete" and g.type == "boolean"), "")
    for i, person in enumerate(value):
        why = _author_problem(person, f.organisation_field, complete) if isinstance(person, str) else None
        if why:
            yield (i,), why


# A field's prose rules, by its type: what a reviewer would send back.
_PROSE_RULES = {"string": _string_prose, "text": _text_prose, "url_list": _repeated_links,
                "person_list": _merged_authors}


def _control_problems(tax: Taxonomy, coll: Collection, data: dict[str, Any]) -> Iterator[tuple[tuple[Any, ...], str, bool]]:
    """Control characters in any value or key (multi-line text may hold line breaks)."""
    if not _has_control(data):
        return
    plain = {f.name: f for f in coll.fields}
    for path, text, is_key in _scalars(data, ()):
        top = plain.get(str(path[0])) if path else None
        if top is not None and top.name == FORMER_FIELD and len(path) > 1 and tax.retained is not coll:
            # a retained record kept whole in the exclusion log: its fields keep their own types
            top = {f.name: f for f in tax.retained.fields}.get(str(path[1]))
        why = _control_problem(text, multiline=top is not None and top.type == "text")
        if why:
            yield path, why, is_key


def _author_list_problems(coll: Collection, rel: str, doc: YamlDocument, data: dict[str, Any]) -> list[Problem]:
    """Author lists kept as plain strings (a list imported as it was) that cannot be right."""
    out = []
    for f in coll.fields:
        value = data.get(f.name)
        if f.type == "string_list" and "author" in f.name and isinstance(value, list):
            for i, why in _name_list_problems(value):
                line, col = doc.position((f.name, i))
                out.append(Problem(rel, line, col, f"{f.name}.{i}", why))
    return out


def _name_list_problems(names: list[Any]) -> list[tuple[int, str]]:
    """Author lists that cannot be right: an item holding several names joined by ";", or names
    that are all single words, in pairs ("Doe", "Jane", "Roe", "John": 'Last, First' names split
    at their commas)."""
    out = [(i, f"{show(repr(n))} holds several names joined by ';' (one name per item)")
           for i, n in enumerate(names) if isinstance(n, str) and ";" in n]
    words = [n for n in names if isinstance(n, str)]
    if len(words) >= 4 and len(words) % 2 == 0 and all(len(n.split()) == 1 for n in words):
        out.append((0, f"{len(words)} one-word names look like 'Last, First' names split at their commas "
                       "(write one name per item)"))
    return out


def _prose_problems(
    tax: Taxonomy, coll: Collection, rel: str, doc: YamlDocument, data: dict[str, Any]
) -> list[Problem]:
    """Text a reviewer would send back: blank or placeholder prose, control characters,
    repeated links, merged author names."""
    out: list[Problem] = []

    def add(path: tuple[Any, ...], message: str, key: bool = False) -> None:
        line, col = doc.position(path, key=key)
        out.append(Problem(rel, line, col, _dotted(path), message))

    for path, why, is_key in _control_problems(tax, coll, data):
        add(path, why, key=is_key)
    for f in coll.fields:
        rule = _PROSE_RULES.get(f.type)
        for sub, why in rule(tax, f, data.get(f.name), data) if rule else ():
            add((f.name, *sub), why)
    for f in coll.fields:
        value = data.get(f.name)
        if f.type in _BIBTEX_TYPES and value is not None:
            for path, why in _bibtex_text_problems(value, (f.name,)):
                add(path, why)
    return out


def _dedupe(problems: list[Problem]) -> list[Problem]:
    seen: set[Problem] = set()
    out = []
    for p in problems:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out
