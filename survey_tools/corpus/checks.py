"""Checks on one record: its JSON Schema, its id, and facts that must agree within it.

The schema is generated from the taxonomy. A Rust-backed validator answers "valid?" in about a
microsecond; only an invalid record pays for the pure-Python validator that lists every error,
which are then rewritten as messages a contributor can act on, with the nearest valid value.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from survey_tools.corpus.explain import TYPE_NAMES as _TYPE_NAMES
from survey_tools.corpus.explain import SchemaExplainer, show
from survey_tools.corpus.explain import describe_type as _describe_type
from survey_tools.corpus.explain import dotted as _dotted
from survey_tools.corpus.explain import hint as _hint
from survey_tools.corpus.explain import (
    suggest as suggest,  # re-exported: callers import it from here
)
from survey_tools.corpus.identifiers import arxiv_year, normalize_arxiv
from survey_tools.corpus.taxonomy import Collection, ControlledField, Taxonomy, record_schema
from survey_tools.corpus.yamlio import YamlDocument
from survey_tools.errors import Problem

_ISO_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")

# A paper's cited version may appear up to this many years after its arXiv id was issued.
ARXIV_YEAR_SLACK = 3


class _Validators:
    def __init__(self, tax: Taxonomy, collection: str) -> None:
        import jsonschema_rs

        self.schema = record_schema(tax, collection)
        self.fast = jsonschema_rs.validator_for(self.schema)
        self._full: Any = None

    @property
    def full(self) -> Any:
        # The pure-Python validator (and its imports, ~50 ms) is needed only for invalid records.
        if self._full is None:
            import jsonschema

            self._full = jsonschema.Draft202012Validator(self.schema)
        return self._full


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

    def controlled(self, path: Sequence[Any]) -> ControlledField | None:
        return self.coll.controlled_field(str(path[0])) if path else None

    def explain(self, err: Any) -> list[Problem]:
        path = list(err.absolute_path)
        v = err.validator
        inst = err.instance
        if v == "anyOf":
            return self.any_of(err)
        if v == "required":
            missing = [
                m
                for m in err.validator_value
                if not isinstance(err.instance, dict) or m not in err.instance
            ]
            out = []
            for m in missing:
                field = _dotted([*path, m])
                cf = self.coll.controlled_field(m) if not path else None
                extra = (
                    f" (one of: {', '.join(cf.ids)}{', ' + self.tax.na if cf.not_applicable else ''})"
                    if cf
                    else ""
                )
                out.append(self.problem(path, f"required field is missing{extra}", field=field))
            return out
        if v == "additionalProperties":
            extras = [k for k in err.instance if k not in (err.schema.get("properties") or {})]
            allowed = list((err.schema.get("properties") or {}).keys())
            out = []
            for k in extras:
                what = "unknown field"
                cf = self.controlled(path)
                if cf is not None and cf.kind == "mapping":
                    what = f"{k!r} is not a {cf.noun}"
                    out.append(self.problem([*path, k], what + _hint(k, allowed), key=True))
                else:
                    out.append(self.problem([*path, k], what + _hint(k, allowed), key=True))
            return out
        if v == "enum":
            cf = self.controlled(path)
            choices = [str(c) for c in err.validator_value]
            if inst == self.tax.untagged and cf is not None:
                return [
                    self.problem(
                        path,
                        f"not yet tagged (choose one of: {', '.join(cf.ids)}{', ' + self.tax.na if cf.not_applicable else ''})",
                    )
                ]
            if cf is not None and cf.kind == "mapping" and len(path) >= 2:
                noun = f"{cf.noun} mode"
                choices = list(cf.mode_ids)
            elif cf is not None:
                noun = cf.noun
            else:
                noun = "allowed value"
            article = "an" if noun[:1] in "aeiou" else "a"
            return [
                self.problem(
                    path, f"{show(repr(inst))} is not {article} {noun}{_hint(inst, choices)}"
                )
            ]
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
        if (
            v in ("minimum", "maximum")
            and path
            and self.plain.get(str(path[0]))
            and self.plain[str(path[0])].type == "year"
        ):
            return [self.problem(path, f"year {show(inst)} is not plausible (1900-2100)")]
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
        return "one of: " + ", ".join([*cf.ids, *specials])


def _valid_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname) and " " not in url


def check_record(tax: Taxonomy, coll: Collection, rel: str, doc: YamlDocument) -> list[Problem]:
    """Every problem in one parsed record file (schema, id, internal consistency)."""
    data = doc.data
    if not isinstance(data, dict):
        return [
            Problem(
                rel, 1, 1, "", f"a record must be a mapping of fields, got {_describe_type(data)}"
            )
        ]
    problems: list[Problem] = []
    name = rel.rsplit("/", 1)[-1]
    stem = name.rsplit(".", 1)[0] if "." in name else name
    ident = data.get(coll.id_field)
    if not re.match(coll.id_pattern, stem):
        problems.append(
            Problem(
                rel,
                1,
                1,
                coll.id_field,
                f"file name {stem!r} is not a valid {coll.id_field} (must match {coll.id_pattern})",
            )
        )
    elif isinstance(ident, str) and ident != stem:
        line, col = doc.position((coll.id_field,))
        problems.append(
            Problem(
                rel, line, col, coll.id_field, f"{ident!r} does not match the file name {stem!r}"
            )
        )

    vals = _validators(tax, coll.name)
    if not vals.fast.is_valid(data):
        explainer = _Explainer(tax, coll, doc, rel)
        for err in vals.full.iter_errors(data):
            problems.extend(explainer.explain(err))

    # Facts that must agree within the record: the schema cannot see these.
    plain = {f.name: f for f in coll.fields}
    for name, f in plain.items():
        value = data.get(name)
        if f.required and value == tax.untagged:
            # `survey add` leaves prose it cannot know (the summary) untagged on purpose.
            line, col = doc.position((name,))
            problems.append(Problem(rel, line, col, name, "not yet tagged (write it in your own words)"))
        if f.type == "date" and isinstance(value, str) and _ISO_DATE.match(value):
            # The schema checks the shape; only the calendar knows that 2026-13-45 is no date.
            try:
                datetime.date.fromisoformat(value)
            except ValueError:
                line, col = doc.position((name,))
                problems.append(Problem(rel, line, col, name, f"{value!r} is not a calendar date"))
        if f.type in ("url", "url_list") and value is not None:
            links = value if isinstance(value, list) else [value]
            for i, link in enumerate(links):
                if isinstance(link, str) and not _valid_url(link):
                    p = (name, i) if isinstance(value, list) else (name,)
                    line, col = doc.position(p)
                    msg = f"{link!r} is not a well-formed http(s) URL"
                    problems.append(Problem(rel, line, col, _dotted(p), msg))
    idents = data.get("identifiers")
    year = data.get("year")
    if isinstance(idents, dict) and isinstance(year, int) and not isinstance(year, bool):
        a = idents.get("arxiv")
        ay = arxiv_year(a) if isinstance(a, str) else None
        if ay is not None and not (ay <= year <= ay + ARXIV_YEAR_SLACK):
            line, col = doc.position(("year",))
            problems.append(
                Problem(
                    rel,
                    line,
                    col,
                    "year",
                    f"{show(year)} does not fit arXiv id {a} (issued {ay}; expected {ay}-{ay + ARXIV_YEAR_SLACK})",
                )
            )
    return _dedupe(problems)


def _dedupe(problems: list[Problem]) -> list[Problem]:
    seen: set[Problem] = set()
    out = []
    for p in problems:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out
