"""Checks on one record: its JSON Schema, its id, and facts that must agree within it.

The schema is generated from the taxonomy. A Rust-backed validator answers "valid?" in about a
microsecond; only an invalid record pays for the pure-Python validator that lists every error,
which are then rewritten as messages a contributor can act on, with the nearest valid value.
"""

from __future__ import annotations

import datetime
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any
from urllib.parse import quote, urlsplit

from survey_tools.corpus.explain import TYPE_NAMES as _TYPE_NAMES
from survey_tools.corpus.explain import SchemaExplainer, show
from survey_tools.corpus.explain import describe_type as _describe_type
from survey_tools.corpus.explain import dotted as _dotted
from survey_tools.corpus.explain import hint as _hint
from survey_tools.corpus.explain import (
    suggest as suggest,  # re-exported: callers import it from here
)
from survey_tools.corpus.identifiers import arxiv_format_problem, arxiv_year, normalize_arxiv
from survey_tools.corpus.record_schema import record_schema
from survey_tools.corpus.schema_validator import SchemaValidator
from survey_tools.corpus.taxonomy import FORMER_FIELD, Collection, ControlledField, Taxonomy
from survey_tools.corpus.yamlio import YamlDocument
from survey_tools.errors import Problem
from survey_tools.net.addresses import private_url

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


class _Explainer(SchemaExplainer):
    """The shared explainer, in a contributor's terms: field nouns, sentinels, record ids."""

    def __init__(self, tax: Taxonomy, coll: Collection, doc: YamlDocument, rel: str) -> None:
        super().__init__(doc, rel)
        self.tax = tax
        self.coll = coll
        self.plain = {f.name: f for f in coll.fields}
        self.schema = _validators(tax, coll.name).schema

    def why(self, err: Any) -> str:
        """The condition under which a conditional requirement (``allOf``/``then``) applies."""
        sp = list(err.schema_path)
        if len(sp) >= 2 and sp[0] == "allOf" and isinstance(sp[1], int):
            return str(self.schema.get("allOf", [{}])[sp[1]].get("description", ""))
        return ""

    def controlled(self, path: Sequence[Any]) -> ControlledField | None:
        return self.coll.controlled_field(str(path[0])) if path else None

    def explain(self, err: Any) -> list[Problem]:
        path = list(err.absolute_path)
        v = err.validator
        inst = err.instance
        if v == "anyOf":
            return self.any_of(err)
        if v == "required":
            return self.missing(err, path)
        if v == "not" and inst == self.tax.untagged:
            cf = self.controlled(path)
            why = self.why(err).split(" is required ", 1)[-1]
            choose = f"; choose {self.expected(cf)}" if cf is not None else ""
            return [self.problem(path, f"not yet tagged (required {why}{choose})")]
        if v == "additionalProperties":
            return self.unknown_keys(err, path)
        if v == "enum":
            return self.not_in_enum(err, path)
        if v == "type":
            want = err.validator_value
            want_s = (
                _TYPE_NAMES.get(want, want)
                if isinstance(want, str)
                else " or ".join(_TYPE_NAMES.get(w, w) for w in want)
            )
            return [self.problem(path, f"expected {want_s}, got {_describe_type(inst)}")]
        if v == "pattern":
            return [self.problem(path, self.pattern_message(path, inst))]
        return self.out_of_bounds(err, path)

    def missing(self, err: Any, path: list[Any]) -> list[Problem]:
        # One problem per missing field, named by its dotted path; a controlled field lists its
        # values, so the contributor can fill it in without opening the taxonomy.
        missing = [
            m
            for m in err.validator_value
            if not isinstance(err.instance, dict) or m not in err.instance
        ]
        out = []
        why = self.why(err)
        for m in missing:
            field = _dotted([*path, m])
            cf = self.coll.controlled_field(m) if not path else None
            extra = f" (one of: {self.choices(cf)})" if cf else ""
            if why:
                extra = f" ({why.split(' is required ', 1)[-1]}){extra}"
            out.append(self.problem(path, f"required field is missing{extra}", field=field))
        return out

    def unknown_keys(self, err: Any, path: list[Any]) -> list[Problem]:
        # Inside a mapping field the keys are values of the taxonomy, so a stray key is a wrong
        # value (named by the field's noun), not a wrong field.
        extras = [k for k in err.instance if k not in (err.schema.get("properties") or {})]
        allowed = list((err.schema.get("properties") or {}).keys())
        cf = self.controlled(path)
        out = []
        for k in extras:
            what = "unknown field"
            if cf is not None and cf.kind == "mapping":
                what = f"{k!r} is not a {cf.noun}"
            out.append(self.problem([*path, k], what + _hint(k, allowed), key=True))
        return out

    def not_in_enum(self, err: Any, path: list[Any]) -> list[Problem]:
        inst = err.instance
        cf = self.controlled(path)
        choices = [str(c) for c in err.validator_value]
        if inst == self.tax.untagged and cf is not None:
            return [self.problem(path, f"not yet tagged (choose one of: {self.choices(cf)})")]
        pf = self.plain.get(str(path[0])) if path else None
        # The noun says which list the value was looked up in: a mode of a mapping field is
        # checked against the modes, not the field's values.
        if cf is not None and cf.kind == "mapping" and len(path) >= 2:
            noun = f"{cf.noun} mode"
            choices = list(cf.mode_ids)
        elif cf is not None:
            noun = cf.noun
        elif pf is not None and pf.type == "edition":
            noun = "edition"
        else:
            noun = "allowed value"
        article = "an" if noun[:1] in "aeiou" else "a"
        return [
            self.problem(path, f"{show(repr(inst))} is not {article} {noun}{_hint(inst, choices)}")
        ]

    def out_of_bounds(self, err: Any, path: list[Any]) -> list[Problem]:
        """Numbers, lengths and list items the schema bounds; any other keyword as it words it."""
        v = err.validator
        inst = err.instance
        if (
            v in ("minimum", "maximum")
            and path
            and self.plain.get(str(path[0]))
            and self.plain[str(path[0])].type == "year"
        ):
            return [self.problem(path, f"year {show(inst)} is not plausible (1900-2100)")]
        if (
            v in ("minLength", "maxLength")
            and isinstance(inst, str)
            and (not inst.strip() or inst == self.tax.untagged)
        ):
            return []  # check_record says "must not be empty" / "must not be blank"
        if v == "minLength" and isinstance(inst, str):
            return [
                self.problem(
                    path, f"too short: {len(inst)} characters (at least {err.validator_value})"
                )
            ]
        if v == "maxLength" and isinstance(inst, str):
            return [
                self.problem(
                    path, f"too long: {len(inst):,} characters (at most {err.validator_value})"
                )
            ]
        if v in ("minItems", "minLength"):
            return [self.problem(path, "must not be empty")]
        if v == "uniqueItems":
            return [self.problem(path, "values must not repeat")]
        return [self.problem(path, err.message)]

    def pattern_message(self, path: Sequence[Any], inst: object) -> str:
        name = str(path[0]) if path else ""
        if name == self.coll.id_field:
            return f"{show(repr(inst))} is not a valid {self.coll.id_field} (must match {self.coll.id_pattern})"
        pf = self.plain.get(name)
        if pf is not None and pf.type in ("url", "url_list"):
            return f"{show(repr(inst))} is not a well-formed http(s) URL"
        if pf is not None and pf.type == "date":
            return f"{show(repr(inst))} is not an ISO date (YYYY-MM-DD)"
        if pf is not None and pf.type == "identifiers" and len(path) > 1:
            kind = self.tax.identifiers.get(str(path[1]))
            label = kind.label if kind else str(path[1])
            hint = ""
            if kind and kind.normalize == "arxiv" and isinstance(inst, str):
                n = normalize_arxiv(inst)
                if n and n != inst:
                    hint = f" (did you mean {n!r}? store the id without version or prefix)"
            return f"{show(repr(inst))} is not a valid {label}{hint}"
        if len(path) > 2 and path[-1] == "evidence":
            return f"{show(repr(inst))} is not a well-formed http(s) URL"
        if len(path) > 2 and path[-1] == "date":  # the date of a sub-decision's second reading
            return f"{show(repr(inst))} is not an ISO date (YYYY-MM-DD)"
        return f"{show(repr(inst))} does not match {self.coll.id_pattern if not pf else 'the expected format'}"

    def any_of(self, err: Any) -> list[Problem]:
        # The branches are "a well-formed value" and "one of the sentinels". Explain the branch
        # whose shape fits the value, so that a typo inside a mapping is named precisely.
        inst = err.instance
        path = list(err.absolute_path)
        cf = self.controlled(path)
        if isinstance(inst, str) and cf is not None and len(path) == 1:
            if inst == self.tax.untagged:
                return [self.problem(path, f"not yet tagged (choose {self.expected(cf)})")]
            return [
                self.problem(
                    path, f"{show(repr(inst))} is not allowed here (expected {self.expected(cf)})"
                )
            ]
        by_branch: dict[int, list[Any]] = {}
        for sub in err.context or []:
            by_branch.setdefault(sub.schema_path[0], []).append(sub)
        best: list[Any] | None = None
        for subs in by_branch.values():
            if any(s.validator in ("type", "enum") and list(s.absolute_path) == path for s in subs):
                continue
            best = subs
            break
        if best is None:
            if cf is not None and len(path) == 2 and cf.kind == "mapping":
                return [
                    self.problem(
                        path,
                        f"{show(repr(inst))} is not a {cf.noun} mode{_hint(inst, cf.mode_ids)}",
                    )
                ]
            if cf is not None:
                return [
                    self.problem(path, f"expected {self.expected(cf)}, got {_describe_type(inst)}")
                ]
            return [self.problem(path, err.message)]
        out: list[Problem] = []
        for s in best:
            out.extend(self.explain(s))
        return out

    def expected(self, cf: ControlledField) -> str:
        specials = [self.tax.na] if cf.not_applicable else []
        if cf.kind == "mapping":
            shape = f"a mapping from {', '.join(cf.ids)} to {' or '.join(cf.mode_ids)}"
            return shape + (f", {{}} for none, or {self.tax.na}" if specials else "")
        if cf.kind == "multi":
            return f"a list of {', '.join(cf.ids)}" + (f" or {self.tax.na}" if specials else "")
        return "one of: " + self.choices(cf)

    def choices(self, cf: ControlledField) -> str:
        """The values a field takes, the not-applicable sentinel last where the field allows it."""
        specials = [self.tax.na] if cf.not_applicable else []
        return ", ".join([*cf.ids, *specials])


# Names Windows gives to devices, with any extension: a clone there fails on such a file.
_WINDOWS_RESERVED = frozenset(
    ["con", "prn", "aux", "nul"] + [f"{d}{i}" for d in ("com", "lpt") for i in range(10)]
)


def valid_url(url: str) -> bool:
    """A well-formed http(s) URL: scheme, host, no spaces (what `survey validate` requires)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname) and " " not in url


# Characters no URL or identifier carries unencoded (RFC 3986 leaves them out of URLs). Each can
# close or open a field in BibTeX, a link in Markdown or an attribute in HTML, so a value holding
# one is refused outright, whatever the output escapes later.
_UNSAFE_IN_REFERENCE = re.compile(r'[{}\\"<>`\s\x00-\x1f\x7f]')


def _clip(value: str, limit: int = 80) -> str:
    """A long value shortened for a message (the message must stay one readable line)."""
    return value if len(value) <= limit else value[: limit - 1] + "…"


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
    # The order is the order of the report: the file's name first, then the schema, then what
    # only this module knows about the values.
    problems = _file_name_problems(coll, rel, doc, data)
    problems.extend(_schema_problems(tax, coll, rel, doc, data))
    problems.extend(_field_problems(tax, coll, rel, doc, data))
    problems.extend(_prose_problems(tax, coll, rel, doc, data))
    problems.extend(_author_list_problems(coll, rel, doc, data))
    problems.extend(_identifier_problems(tax, rel, doc, data))
    problems.extend(_year_problems(coll, rel, doc, data))
    return _dedupe(problems)


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
        message = (
            f"file name {stem!r} is not a valid {coll.id_field} (must match {coll.id_pattern})"
        )
        return [Problem(rel, 1, 1, coll.id_field, message)]
    if stem.split(".", 1)[0].lower() in _WINDOWS_RESERVED:
        message = (
            f"{stem!r} is a device name on Windows: a file named {name} cannot be checked out "
            f"there (choose another {coll.id_field})"
        )
        return [Problem(rel, 1, 1, coll.id_field, message)]
    if isinstance(ident, str) and ident != stem:
        message = f"{ident!r} does not match the file name {stem!r}"
        return [_at(rel, doc, (coll.id_field,), message)]
    return []


def _schema_problems(
    tax: Taxonomy, coll: Collection, rel: str, doc: YamlDocument, data: dict[str, Any]
) -> list[Problem]:
    vals = _validators(tax, coll.name)
    if vals.full.is_valid(data):
        return []
    # Only an invalid record pays for listing every error and for the explainer's lookups.
    explainer = _Explainer(tax, coll, doc, rel)
    problems: list[Problem] = []
    for err in vals.full.iter_errors(data):
        problems.extend(explainer.explain(err))
    return problems


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
        if unsafe or not valid_url(link):
            why = "is not a well-formed http(s) URL" if not valid_url(link) else unsafe
            msg = f"{_clip(link)!r} {why}"
        else:
            msg = private_url(link)
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
            problems.append(_at(rel, doc, path, f"{_clip(value)!r} {unsafe}"))
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


def _waived(coll: Collection, data: Mapping[str, Any], check: str) -> bool:
    """The record explains, in a field of type ``waivers``, why this check does not apply to it."""
    return any(f.type == "waivers" and isinstance(data.get(f.name), dict) and data[f.name].get(check)
               for f in coll.fields)


# Control characters, and the invisible format characters (Unicode category Cf: bidirectional
# overrides and isolates, zero-width spaces and joiners, the BOM, tag characters) that make text
# display differently from what it holds ("Trojan Source"); no title or summary needs them.
_CONTROL = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0001\U000e0020-\U000e007f]"
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


def _has_control(value: Any) -> bool:
    """Whether any string of a record (mapping keys too) holds a character ``_CONTROL`` names:
    one walk without paths, so that the paths are built only for the few records that do."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if _CONTROL.search(v) is not None:
                return True
        elif isinstance(v, dict):
            stack.extend(k for k in v if isinstance(k, str))
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


@lru_cache(maxsize=8)
def _placeholder_patterns(placeholders: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str] | None], ...]:
    # A word is matched as a whole word, any case; anything else as written.
    return tuple(
        (p, re.compile(rf"(?<![\w-]){re.escape(p)}(?![\w-])", re.IGNORECASE) if p.isalnum() else None)
        for p in placeholders
    )


def _placeholder(tax: Taxonomy, text: str) -> str | None:
    for p, rx in _placeholder_patterns(tuple(tax.placeholders)):
        if (rx.search(text) is not None) if rx is not None else (p in text):
            return p
    return None


def _author_problem(name: str, org_field: str) -> str | None:
    parts = name.split(",")
    if name.count(",") > 1 or (len(parts) == 2 and _MERGED.search(name)):
        return f"{show(repr(name))} looks like several authors merged into one item (write one 'Last, First' per item)"
    if len(parts) != 2 or not parts[0].strip() or not parts[1].strip() or parts[1][:1] != " ":
        hint = f" (for an organisation, set {org_field}: true)" if org_field else ""
        return f"{show(repr(name))} is not written as 'Last, First'{hint}"
    return None


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

    plain = {f.name: f for f in coll.fields}
    for path, text, is_key in _scalars(data, ()) if _has_control(data) else ():
        top = plain.get(str(path[0])) if path else None
        if top is not None and top.name == FORMER_FIELD and len(path) > 1 and tax.retained is not coll:
            # a retained record kept whole in the exclusion log: its fields keep their own types
            top = {f.name: f for f in tax.retained.fields}.get(str(path[1]))
        why = _control_problem(text, multiline=top is not None and top.type == "text")
        if why:
            add(path, why, key=is_key)
    for name, f in plain.items():
        value = data.get(name)
        if f.type in ("string", "text") and isinstance(value, str):
            if not value.strip():
                add((name,), "must not be empty" if value == "" else "must not be blank")
            elif f.type == "text" and value.strip() != tax.untagged:
                ph = _placeholder(tax, value)
                if ph:
                    add((name,), f"placeholder {ph!r} left in the text (write it in your own words)")
        if f.type == "text" and isinstance(value, str) and value.strip() == tax.untagged and not f.required:
            add((name,), "placeholder 'untagged' left in the text (write it in your own words, or leave the field out)")
        if f.type == "url_list" and isinstance(value, list):
            first: dict[str, int] = {}
            for i, link in enumerate(value):
                if not isinstance(link, str):
                    continue
                norm = link.strip().rstrip("/")
                if norm in first:
                    add((name, i), f"{show(repr(link))} repeats {name}.{first[norm]}")
                else:
                    first[norm] = i
        if f.type == "person_list" and isinstance(value, list):
            if f.organisation_field and data.get(f.organisation_field) is True:
                continue
            for i, person in enumerate(value):
                if isinstance(person, str):
                    why = _author_problem(person, f.organisation_field)
                    if why:
                        add((name, i), why)
    return out


def _dedupe(problems: list[Problem]) -> list[Problem]:
    seen: set[Problem] = set()
    out = []
    for p in problems:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out
