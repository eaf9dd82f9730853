"""Claims checked by code: each claim counts the records matching a filter and compares the count.

The claims file (``files.claims`` in ``taxonomy/survey.yaml``) is hand-written data::

    claims:
      - id: o5-learned
        statement: No retained work trains the stop decision (O5) with RL.   # the survey's words
        finding: One retained work does.                                     # ours, when they differ
        where: {subdecisions: {O5: learned}}
        op: "=="
        expected: 1          # what the records hold now; CI checks this
        survey_expected: 0   # what the survey states; a difference is reported, not failed
        records: [puppeteer] # optional: the exact records expected to match
        evidence: [puppeteer, https://...]  # optional record keys or URLs

A filter (``where``) maps an axis (a controlled field, a value group, a plain field, dotted for
nested plain fields) to a value or a list of values (any of them); a mapping field maps to
``{key: mode}`` or ``{key: [modes]}``. All entries must hold. ``any_of: [filter, ...]`` holds
when one of the filters does; ``not: filter`` inverts one.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.corpus.yamlio import YamlDocument, load_yaml_file
from survey_tools.errors import InvalidInput, Problem
from survey_tools.reports.stats import data_file, mode_of, plain_str, resolve_axis

OPERATORS: Mapping[str, Callable[[int, int], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
}
CLAIM_KEYS = {
    "id", "statement", "finding", "collection", "where", "op", "expected", "survey_expected",
    "records", "evidence",
}

Predicate = Callable[[Record], bool]


class FilterError(ValueError):
    """A filter problem: ``path`` is where in the filter (for the message), ``message`` what."""

    def __init__(self, path: tuple[Any, ...], message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


def compile_filter(tax: Taxonomy, where: Any, path: tuple[Any, ...] = ()) -> Predicate:
    """Turn a filter into a predicate; raise :class:`FilterError` on anything unknown."""
    if where is None:
        return lambda rec: True
    if not isinstance(where, dict):
        raise FilterError(path, f"a filter must be a mapping of field to value, not {type(where).__name__}")
    preds: list[Predicate] = []
    for key, cond in where.items():
        p = (*path, key)
        if key == "any_of":
            if not isinstance(cond, list) or not cond:
                raise FilterError(p, "any_of needs a non-empty list of filters")
            subs = [compile_filter(tax, c, (*p, i)) for i, c in enumerate(cond)]
            preds.append(lambda rec, subs=subs: any(s(rec) for s in subs))  # type: ignore[misc]
            continue
        if key == "not":
            sub = compile_filter(tax, cond, p)
            preds.append(lambda rec, sub=sub: not sub(rec))  # type: ignore[misc]
            continue
        preds.append(_condition(tax, str(key), cond, p))
    return lambda rec: all(pr(rec) for pr in preds)


def _as_list(cond: Any, p: tuple[Any, ...]) -> list[Any]:
    vals = cond if isinstance(cond, list) else [cond]
    if not vals:
        raise FilterError(p, "an empty list matches nothing; name at least one value")
    for v in vals:
        if isinstance(v, dict | list) or v is None:
            raise FilterError(p, f"expected a value or a list of values, not {v!r}")
    return vals


def _condition(tax: Taxonomy, key: str, cond: Any, p: tuple[Any, ...]) -> Predicate:
    try:
        axis = resolve_axis(tax, key)
    except KeyError as err:
        raise FilterError(p, str(err.args[0])) from None
    untagged = tax.untagged
    if axis.kind == "keys":
        cf = axis.cf
        assert cf is not None
        if isinstance(cond, dict):
            wanted: dict[str, set[str]] = {}
            for k, modes in cond.items():
                if str(k) not in cf.ids:
                    raise FilterError((*p, k), f"unknown value {k!r} of {cf.name} (known: {', '.join(cf.ids)})")
                ms = {str(m) for m in _as_list(modes, (*p, k))}
                bad = sorted(ms - set(cf.mode_ids))
                if bad:
                    raise FilterError((*p, k), f"unknown mode {bad[0]!r} (known: {', '.join(cf.mode_ids)})")
                wanted[str(k)] = ms

            def pred(rec: Record) -> bool:
                raw = rec.get(cf.name)
                if not isinstance(raw, dict):
                    return False
                return all(k in raw and mode_of(raw[k]) in ms for k, ms in wanted.items())

            return pred
    vals = {plain_str(v) for v in _as_list(cond, p)}
    if axis.kind != "plain":
        known = set(axis.values)
        bad = sorted(vals - known)
        if bad:
            raise FilterError(p, f"unknown value {bad[0]!r} of {key} (known: {', '.join(axis.values)})")
    return lambda rec: not vals.isdisjoint(axis.extract(rec, untagged))


# --- claims ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    id: str
    statement: str
    where: Mapping[str, Any]
    op: str
    expected: int
    collections: tuple[str, ...]
    predicate: Predicate = field(repr=False, compare=False)
    finding: str = ""
    survey_expected: int | None = None
    records: tuple[str, ...] | None = None
    evidence: tuple[str, ...] = ()
    line: int = 0


@dataclass(frozen=True)
class ClaimResult:
    claim: Claim
    actual: int
    matches: tuple[str, ...]
    ok: bool
    survey_ok: bool | None
    moved_in: tuple[str, ...] = ()  # matching now, not before (or not in `records`)
    moved_out: tuple[str, ...] = ()

    def summary(self) -> str:
        c = self.claim
        s = f"{c.id}: expected {c.op} {c.expected}, actual {self.actual}"
        if self.moved_in or self.moved_out:
            s += f"; records that moved in: {', '.join(self.moved_in) or 'none'}"
            s += f"; moved out: {', '.join(self.moved_out) or 'none'}"
        return s

    def to_dict(self) -> dict[str, Any]:
        c = self.claim
        return {
            "id": c.id,
            "statement": c.statement,
            "finding": c.finding,
            "collections": list(c.collections),
            "where": c.where,
            "op": c.op,
            "expected": c.expected,
            "actual": self.actual,
            "status": "holds" if self.ok else "fails",
            "survey_expected": c.survey_expected,
            "survey_status": None if self.survey_ok is None else ("agrees" if self.survey_ok else "contradicted"),
            "records": list(self.matches),
            "moved_in": list(self.moved_in),
            "moved_out": list(self.moved_out),
            "evidence": list(c.evidence),
        }


@dataclass(frozen=True)
class ClaimsReport:
    source: str
    results: tuple[ClaimResult, ...]

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    @property
    def failed(self) -> tuple[ClaimResult, ...]:
        return tuple(r for r in self.results if not r.ok)

    def result(self, claim_id: str) -> ClaimResult:
        for r in self.results:
            if r.claim.id == claim_id:
                return r
        raise KeyError(claim_id)

    def problems(self) -> list[Problem]:
        return [
            Problem(self.source, r.claim.line, 0, f"claim {r.claim.id}", r.summary().split(": ", 1)[1])
            for r in self.failed
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "ok": self.ok,
            "claims": len(self.results),
            "failed": [r.claim.id for r in self.failed],
            "contradicting_survey": [r.claim.id for r in self.results if r.survey_ok is False],
            "results": [r.to_dict() for r in self.results],
        }


def _pos(doc: YamlDocument, path: tuple[Any, ...]) -> tuple[int, int]:
    try:
        return doc.position(path)
    except (KeyError, IndexError, TypeError):
        return (0, 0)


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def load_claims(tax: Taxonomy) -> tuple[str, tuple[Claim, ...]]:
    """Read the claims file; :class:`InvalidInput` lists every problem, each naming its claim."""
    rel = data_file(tax, "claims", "data/claims.yaml")
    path = tax.root / rel
    if not path.is_file():
        return rel, ()
    doc = load_yaml_file(path, rel)
    if doc.problems:
        raise InvalidInput(doc.problems, f"{rel} cannot be read")
    return rel, parse_claims(tax, doc, rel)


def parse_claims(tax: Taxonomy, doc: YamlDocument, rel: str) -> tuple[Claim, ...]:
    d = doc.data
    problems: list[Problem] = []
    raw = d.get("claims") if isinstance(d, dict) else None
    if not isinstance(raw, list):
        line, col = _pos(doc, ())
        raise InvalidInput([Problem(rel, line, col, "claims", "must be a list of claims")], f"{rel} is invalid")
    claims: list[Claim] = []
    seen: set[str] = set()
    for i, c in enumerate(raw):
        base: tuple[Any, ...] = ("claims", i)
        line, col = _pos(doc, base)
        if not isinstance(c, dict):
            problems.append(Problem(rel, line, col, f"claims[{i}]", "a claim must be a mapping"))
            continue
        cid = str(c.get("id", f"claims[{i}]"))
        n0 = len(problems)

        def bad(key: tuple[Any, ...], msg: str, cid: str = cid, base: tuple[Any, ...] = base) -> None:
            ln, cl = _pos(doc, (*base, *key))
            where = ".".join(map(str, key))
            problems.append(Problem(rel, ln, cl, f"claim {cid}" + (f": {where}" if where else ""), msg))

        if "id" not in c:
            bad((), "needs an id")
        elif cid in seen:
            bad(("id",), "duplicate claim id")
        seen.add(cid)
        for k in c:
            if k not in CLAIM_KEYS:
                bad((k,), f"unknown key (known: {', '.join(sorted(CLAIM_KEYS))})")
        if not isinstance(c.get("statement"), str) or not c.get("statement"):
            bad(("statement",), "needs the sentence the survey states")
        op = c.get("op", "==")
        if op not in OPERATORS:
            bad(("op",), f"unknown operator {op!r} (known: {' '.join(OPERATORS)})")
        for key in ("expected", "survey_expected"):
            if key not in c:
                if key == "expected":
                    bad((), "needs an expected count")
                continue
            v = c[key]
            if not _int(v) or v < 0:
                bad((key,), f"must be a count (a whole number >= 0), not {v!r}")
            elif op == "<" and v == 0:
                bad(("op",), f"'< 0' can never hold: a count is never negative ({key})")
            elif op == ">=" and v == 0:
                bad(("op",), f"'>= 0' always holds, so it checks nothing ({key})")
        colls = c.get("collection", tax.retained.name)
        colls_t = tuple(str(x) for x in colls) if isinstance(colls, list) else (str(colls),)
        for x in colls_t:
            if x not in tax.collections:
                bad(("collection",), f"unknown collection {x!r} (known: {', '.join(tax.collections)})")
        pred: Predicate = lambda rec: True  # noqa: E731
        try:
            pred = compile_filter(tax, c.get("where"), ())
        except FilterError as err:
            bad(("where", *err.path), err.message)
        lists: dict[str, tuple[str, ...] | None] = {}
        for key in ("records", "evidence"):
            v = c.get(key)
            if v is not None and (not isinstance(v, list) or not all(isinstance(x, str) for x in v)):
                bad((key,), "must be a list of record keys" + (" or URLs" if key == "evidence" else ""))
                v = None
            lists[key] = tuple(v) if isinstance(v, list) else None
        if len(problems) > n0:
            continue
        claims.append(
            Claim(
                id=cid,
                statement=str(c["statement"]),
                where=c.get("where") or {},
                op=str(op),
                expected=int(c["expected"]),
                collections=colls_t,
                predicate=pred,
                finding=str(c.get("finding", "")),
                survey_expected=c.get("survey_expected"),
                records=lists["records"],
                evidence=lists["evidence"] or (),
                line=line,
            )
        )
    if problems:
        raise InvalidInput(problems, f"{rel} is invalid")
    return tuple(claims)


def read_baseline(text: str | None) -> dict[str, tuple[str, ...]]:
    """Matching records per claim from a previous ``claims.json`` (to name records that moved)."""
    if not text:
        return {}
    try:
        data = json.loads(text)
        return {str(r["id"]): tuple(r["records"]) for r in data["results"]}
    except (ValueError, KeyError, TypeError):
        return {}


def evaluate_claims(
    corpus: Corpus,
    claims: Sequence[Claim],
    source: str = "",
    baseline: Mapping[str, Sequence[str]] | None = None,
) -> ClaimsReport:
    """Count each claim's matches; ``baseline`` (last build's matches) names records that moved."""
    baseline = baseline or {}
    known = {r.id for r in corpus}
    problems: list[Problem] = []
    results = []
    for c in claims:
        for key in (*(c.records or ()), *c.evidence):
            if not key.startswith(("http://", "https://")) and key not in known:
                problems.append(Problem(source, c.line, 0, f"claim {c.id}", f"no record with key {key!r}"))
        recs = [r for name in c.collections for r in corpus.of(name)]
        matches = tuple(sorted(r.id for r in recs if c.predicate(r)))
        check = OPERATORS[c.op]
        ok = check(len(matches), c.expected)
        before = c.records if c.records is not None else baseline.get(c.id)
        moved_in: tuple[str, ...] = ()
        moved_out: tuple[str, ...] = ()
        if before is not None:
            moved_in = tuple(sorted(set(matches) - set(before)))
            moved_out = tuple(sorted(set(before) - set(matches)))
            if c.records is not None and (moved_in or moved_out):
                ok = False  # the claim names its records: a different set breaks it
        survey_ok = None if c.survey_expected is None else check(len(matches), c.survey_expected)
        results.append(ClaimResult(c, len(matches), matches, ok, survey_ok, moved_in, moved_out))
    if problems:
        raise InvalidInput(problems, f"{source} names records that do not exist")
    return ClaimsReport(source, tuple(results))


def claims_markdown(report: ClaimsReport) -> str:
    n = len(report.results)
    bad = len(report.failed)
    contra = [r for r in report.results if r.survey_ok is False]
    out = [
        "# Claims checked against the records",
        "",
        f"Generated by `survey build` from `{report.source}`; do not edit. "
        f"{n} claims, {n - bad} hold, {bad} fail.",
        "",
    ]
    if contra:
        out += ["## Where our records contradict the survey", ""]
        for r in contra:
            c = r.claim
            out.append(
                f"- **{c.id}**: the survey states \"{c.statement}\" (count {c.op} {c.survey_expected}); "
                f"the records give **{r.actual}** ({', '.join(r.matches) or 'none'})."
                + (f" {c.finding}" if c.finding else "")
            )
        out.append("")
    out += ["## All claims", "", "| id | claim | check | actual | status | survey | records |", "| --- | --- | --- | ---: | --- | --- | --- |"]
    for r in report.results:
        c = r.claim
        survey = "" if r.survey_ok is None else f"{c.op} {c.survey_expected}: " + ("agrees" if r.survey_ok else "**contradicted**")
        recs = _names(r.matches)
        status = "holds" if r.ok else "**FAILS**"
        out.append(f"| {c.id} | {c.statement} | {c.op} {c.expected} | {r.actual} | {status} | {survey} | {recs} |")
    return "\n".join(out) + "\n"


def claims_text(report: ClaimsReport) -> str:
    lines = []
    for r in report.results:
        c = r.claim
        mark = "ok  " if r.ok else "FAIL"
        lines.append(f"{mark} {c.id}: {c.statement}")
        lines.append(f"     expected {c.op} {c.expected}, actual {r.actual}: {_names(r.matches)}")
        if r.survey_ok is False:
            lines.append(f"     CONTRADICTS THE SURVEY: it states {c.op} {c.survey_expected}." + (f" {c.finding}" if c.finding else ""))
        if r.moved_in or r.moved_out:
            lines.append(f"     moved in: {', '.join(r.moved_in) or 'none'}; moved out: {', '.join(r.moved_out) or 'none'}")
    return "\n".join(lines) + "\n"


def _names(keys: Sequence[str], limit: int = 12) -> str:
    if not keys:
        return "none"
    return ", ".join(keys) if len(keys) <= limit else f"{len(keys)} records"
