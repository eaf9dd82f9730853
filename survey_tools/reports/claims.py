"""Claims: statements about the corpus, each with a condition evaluated on a view of it.

The claims file (``files.claims`` in ``taxonomy/survey.yaml``) is hand-written data, described
in full in ``docs/claims.md``::

    view: 2605.02801v1          # the default view: an edition id, or the living list's id
    gate: [retained-total]      # optional: claims whose status must stay "holds" (survey claims)
    claims:
      - id: o5-learned
        statement: No retained work trains the stop decision (O5) with RL.   # the survey's words
        finding: One retained work does.                                     # ours, when they differ
        where: {subdecisions: {O5: learned}}
        paper_value: 0       # the number the paper states; the condition is count == paper_value
        evidence: [puppeteer, https://...]  # optional record keys or URLs
      - id: o1-learned-living
        statement: At least {value} work of the living list learns O1; {count} do.
        view: living
        where: {subdecisions: {O1: learned}}
        op: ">="
        value: 1             # a threshold the statement itself makes (no paper number)

No count is kept by hand: ``{count}`` (and ``{value}``, ``{paper_value}``, ``{edition_count}``,
``{living_count}``) in a statement are filled from the data, and a digit written in a statement
is refused. Each claim's status is computed, never enforced by the build:

- ``holds``: the condition holds on the claim's view;
- ``contradicted``: it does not (the records disagree with the statement);
- ``changed``: a claim about the living list that holds, but whose matching records differ from
  those of the latest published edition (``changed since the edition``).

A filter (``where``) maps an axis (a controlled field, a value group, a plain field, dotted for
nested plain fields) to a value or a list of values (any of them); a mapping field maps to
``{key: mode}`` or ``{key: [modes]}``. All entries must hold. ``any_of: [filter, ...]`` holds
when one of the filters does; ``not: filter`` inverts one.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.corpus.views import corpus_view, living_id, view_ids, view_label
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
    "id", "statement", "finding", "view", "collection", "where", "op", "value", "paper_value",
    "evidence",
}
FILE_KEYS = {"view", "gate", "claims"}
STATUSES = ("holds", "changed", "contradicted")
PLACEHOLDERS = ("count", "value", "paper_value", "edition_count", "living_count")
# A number written into a statement by hand (not part of a name like O5 or 2605.02801).
_HAND_NUMBER = re.compile(r"(?<![\w.{])\d+(?:[.,]\d+)?(?![\w}])")
_FIELD = re.compile(r"\{([^{}]*)\}")

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
    statement: str  # may hold {count} and the other PLACEHOLDERS
    where: Mapping[str, Any]
    op: str
    collections: tuple[str, ...]
    predicate: Predicate = field(repr=False, compare=False)
    view: str = ""  # an edition id or the living list's id ("" when the survey has no editions)
    value: int | None = None  # a threshold the statement makes
    paper_value: int | None = None  # the number the paper states
    finding: str = ""
    evidence: tuple[str, ...] = ()
    line: int = 0

    @property
    def target(self) -> int:
        """The number the count is compared with: ``value`` if given, else ``paper_value``."""
        return self.value if self.value is not None else int(self.paper_value or 0)

    def holds(self, count: int) -> bool:
        return OPERATORS[self.op](count, self.target)

    @property
    def condition(self) -> str:
        return f"count {self.op} {self.target}"


@dataclass(frozen=True)
class ClaimResult:
    claim: Claim
    count: int  # matching records in the claim's view
    matches: tuple[str, ...]
    status: str  # holds | changed | contradicted
    statement: str  # with its placeholders filled
    universe: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    compared_with: str = ""  # the other view: living for an edition claim, the edition for a living one
    other_count: int | None = None
    other_holds: bool | None = None
    moved_in: tuple[str, ...] = ()  # matching in the living list, not in the edition
    moved_out: tuple[str, ...] = ()  # matching in the edition, no longer in the living list

    @property
    def actual(self) -> int:
        return self.count

    @property
    def ok(self) -> bool:
        return self.status != "contradicted"

    def summary(self) -> str:
        c = self.claim
        s = f"{c.id}: {self.status} on {c.view or 'the records'} ({c.condition}, count {self.count})"
        if self.moved_in or self.moved_out:
            s += f"; since the edition, in: {', '.join(self.moved_in) or 'none'}"
            s += f"; out: {', '.join(self.moved_out) or 'none'}"
        return s

    def to_dict(self) -> dict[str, Any]:
        c = self.claim
        return {
            "id": c.id,
            "statement": self.statement,
            "finding": c.finding,
            "view": c.view,
            "collections": list(c.collections),
            "where": c.where,
            "op": c.op,
            "value": c.value,
            "paper_value": c.paper_value,
            "count": self.count,
            "status": self.status,
            "records": list(self.matches),
            "compared_with": self.compared_with,
            "other_count": self.other_count,
            "other_holds": self.other_holds,
            "moved_in": list(self.moved_in),
            "moved_out": list(self.moved_out),
            "evidence": list(c.evidence),
        }


@dataclass(frozen=True)
class ClaimsReport:
    source: str
    results: tuple[ClaimResult, ...]
    gate: tuple[str, ...] = ()  # claim ids that must hold (from the claims file)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    @property
    def failed(self) -> tuple[ClaimResult, ...]:
        """Contradicted claims."""
        return tuple(r for r in self.results if r.status == "contradicted")

    def with_status(self, status: str) -> tuple[ClaimResult, ...]:
        return tuple(r for r in self.results if r.status == status)

    def counts(self) -> dict[str, int]:
        return {s: len(self.with_status(s)) for s in STATUSES}

    def result(self, claim_id: str) -> ClaimResult:
        for r in self.results:
            if r.claim.id == claim_id:
                return r
        raise KeyError(claim_id)

    def gate_failures(self, statuses: Sequence[str] = ()) -> list[ClaimResult]:
        """Claims that trip a gate: a status in ``statuses``, or a gated claim not holding."""
        return [
            r for r in self.results
            if r.status in statuses or (r.claim.id in self.gate and r.status != "holds")
        ]

    def problems(self, results: Sequence[ClaimResult] | None = None) -> list[Problem]:
        return [
            Problem(self.source, r.claim.line, 0, f"claim {r.claim.id}", r.summary().split(": ", 1)[1])
            for r in (self.failed if results is None else results)
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "claims": len(self.results),
            "statuses": self.counts(),
            "contradicted": [r.claim.id for r in self.with_status("contradicted")],
            "changed": [r.claim.id for r in self.with_status("changed")],
            "gate": list(self.gate),
            "results": [r.to_dict() for r in self.results],
        }


def _pos(doc: YamlDocument, path: tuple[Any, ...]) -> tuple[int, int]:
    try:
        return doc.position(path)
    except (KeyError, IndexError, TypeError):
        return (0, 0)


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


@dataclass(frozen=True)
class ClaimsFile:
    source: str
    claims: tuple[Claim, ...]
    gate: tuple[str, ...] = ()


def load_claims_file(tax: Taxonomy) -> ClaimsFile:
    """Read the claims file; :class:`InvalidInput` lists every problem, each naming its claim."""
    rel = data_file(tax, "claims", "data/claims.yaml")
    path = tax.root / rel
    if not path.is_file():
        return ClaimsFile(rel, ())
    doc = load_yaml_file(path, rel)
    if doc.problems:
        raise InvalidInput(doc.problems, f"{rel} cannot be read")
    return parse_claims_file(tax, doc, rel)


def load_claims(tax: Taxonomy) -> tuple[str, tuple[Claim, ...]]:
    f = load_claims_file(tax)
    return f.source, f.claims


def parse_claims(tax: Taxonomy, doc: YamlDocument, rel: str) -> tuple[Claim, ...]:
    return parse_claims_file(tax, doc, rel).claims


def parse_claims_file(tax: Taxonomy, doc: YamlDocument, rel: str) -> ClaimsFile:
    d = doc.data
    problems: list[Problem] = []
    raw = d.get("claims") if isinstance(d, dict) else None
    if not isinstance(raw, list):
        line, col = _pos(doc, ())
        raise InvalidInput([Problem(rel, line, col, "claims", "must be a list of claims")], f"{rel} is invalid")
    assert isinstance(d, dict)
    views = view_ids(tax)
    for k in d:
        if k not in FILE_KEYS:
            line, col = _pos(doc, (k,))
            problems.append(Problem(rel, line, col, str(k), f"unknown key (known: {', '.join(sorted(FILE_KEYS))})"))
    default_view = d.get("view", tax.editions.latest.id if tax.editions and tax.editions.latest else "")
    if views and str(default_view) not in views:
        line, col = _pos(doc, ("view",))
        problems.append(Problem(rel, line, col, "view", f"unknown view {default_view!r} (known: {', '.join(views)})"))
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
        statement = c.get("statement")
        if not isinstance(statement, str) or not statement.strip():
            bad(("statement",), "needs the sentence the claim states")
        else:
            for m in _FIELD.finditer(statement):
                if m.group(1) not in PLACEHOLDERS:
                    bad(("statement",), f"unknown placeholder {{{m.group(1)}}} (known: {', '.join('{' + p + '}' for p in PLACEHOLDERS)})")
            hand = next((m for m in _HAND_NUMBER.finditer(statement) if "." not in m.group()), None)
            if hand:
                bad(("statement",), f"the number {hand.group()} is written by hand; write {{count}} (or {{paper_value}}, {{value}}) so that it is filled from the data")
        op = c.get("op", "==")
        if op not in OPERATORS:
            bad(("op",), f"unknown operator {op!r} (known: {' '.join(OPERATORS)})")
        for key in ("value", "paper_value"):
            if key in c:
                v = c[key]
                if not _int(v) or v < 0:
                    bad((key,), f"must be a count (a whole number >= 0), not {v!r}")
        if "value" not in c and "paper_value" not in c:
            bad((), "needs paper_value (the number the paper states) or value (a threshold the statement makes)")
        target = c.get("value", c.get("paper_value"))
        if _int(target):
            if op == "<" and target == 0:
                bad(("op",), "'< 0' can never hold: a count is never negative")
            elif op == ">=" and target == 0:
                bad(("op",), "'>= 0' always holds, so it checks nothing")
        view = c.get("view", default_view)
        if views and str(view) not in views:
            bad(("view",), f"unknown view {view!r} (known: {', '.join(views)})")
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
        ev = c.get("evidence")
        if ev is not None and (not isinstance(ev, list) or not all(isinstance(x, str) for x in ev)):
            bad(("evidence",), "must be a list of record keys or URLs")
            ev = None
        if len(problems) > n0:
            continue
        claims.append(
            Claim(
                id=cid,
                statement=str(statement),
                where=c.get("where") or {},
                op=str(op),
                collections=colls_t,
                predicate=pred,
                view=str(view) if views else "",
                value=c.get("value"),
                paper_value=c.get("paper_value"),
                finding=str(c.get("finding", "")),
                evidence=tuple(ev) if isinstance(ev, list) else (),
                line=line,
            )
        )
    gate_raw = d.get("gate") or []
    gate: tuple[str, ...] = ()
    if not isinstance(gate_raw, list) or not all(isinstance(x, str) for x in gate_raw):
        line, col = _pos(doc, ("gate",))
        problems.append(Problem(rel, line, col, "gate", "must be a list of claim ids"))
    else:
        for i, g in enumerate(gate_raw):
            if g not in seen:
                line, col = _pos(doc, ("gate", i))
                problems.append(Problem(rel, line, col, "gate", f"no claim with id {g!r}"))
        gate = tuple(gate_raw)
    if problems:
        raise InvalidInput(problems, f"{rel} is invalid")
    return ClaimsFile(rel, tuple(claims), gate)


def _matches(corpus: Corpus, c: Claim) -> tuple[tuple[str, ...], frozenset[str]]:
    recs = [r for name in c.collections for r in corpus.of(name)]
    return tuple(sorted(r.id for r in recs if c.predicate(r))), frozenset(r.id for r in recs)


def fill_statement(c: Claim, count: int, edition_count: int | None, living_count: int | None) -> str:
    values = {
        "count": count,
        "value": c.value,
        "paper_value": c.paper_value,
        "edition_count": edition_count if edition_count is not None else count,
        "living_count": living_count if living_count is not None else count,
    }
    return _FIELD.sub(lambda m: str(values.get(m.group(1), m.group(0))), c.statement)


def evaluate_claims(
    corpus: Corpus,
    claims: Sequence[Claim],
    source: str = "",
    gate: Sequence[str] = (),
) -> ClaimsReport:
    """Each claim's status on its view; claims on an edition are also compared with the living
    list, claims on the living list with the latest published edition."""
    tax = corpus.taxonomy
    living = living_id(tax)
    latest = tax.editions.latest.id if tax.editions and tax.editions.latest else ""
    problems: list[Problem] = []
    views: dict[str, Corpus] = {}

    def view_of(v: str) -> Corpus:
        if v not in views:
            views[v] = corpus_view(corpus, v)
        return views[v]

    # Evidence may name a record of any view (an excluded paper keeps its key in its edition).
    known = {r.id for v in (living, *view_ids(tax)) for r in view_of(v)} if tax.editions else {r.id for r in corpus}

    results = []
    for c in claims:
        for key in c.evidence:
            if not key.startswith(("http://", "https://")) and key not in known:
                problems.append(Problem(source, c.line, 0, f"claim {c.id}", f"no record with key {key!r}"))
        matches, universe = _matches(view_of(c.view), c)
        holds = c.holds(len(matches))
        other = living if c.view and c.view != living else latest
        other_count: int | None = None
        other_holds: bool | None = None
        moved_in: tuple[str, ...] = ()
        moved_out: tuple[str, ...] = ()
        if other and other != c.view:
            om, _ = _matches(view_of(other), c)
            other_count, other_holds = len(om), c.holds(len(om))
            new, old = (matches, om) if c.view == living else (om, matches)
            moved_in = tuple(sorted(set(new) - set(old)))
            moved_out = tuple(sorted(set(old) - set(new)))
        if not holds:
            status = "contradicted"
        elif c.view == living and (moved_in or moved_out):
            status = "changed"
        else:
            status = "holds"
        on_edition = c.view != living
        statement = fill_statement(
            c, len(matches),
            len(matches) if on_edition else other_count,
            other_count if on_edition else len(matches),
        )
        results.append(
            ClaimResult(c, len(matches), matches, status, statement, universe, other if other != c.view else "",
                        other_count, other_holds, moved_in, moved_out)
        )
    if problems:
        raise InvalidInput(problems, f"{source} names records that do not exist")
    return ClaimsReport(source, tuple(results), tuple(gate))


def evaluate_claims_file(corpus: Corpus) -> ClaimsReport:
    """Load the survey's claims file and evaluate it (the build and ``survey claims``)."""
    f = load_claims_file(corpus.taxonomy)
    return evaluate_claims(corpus, f.claims, f.source, f.gate)


def _view_name(tax: Taxonomy | None, view: str) -> str:
    return view_label(tax, view) if tax is not None and view else view or "the records"


def claims_markdown(report: ClaimsReport, tax: Taxonomy | None = None) -> str:
    n = len(report.results)
    counts = report.counts()
    out = [
        "# Claims checked against the records",
        "",
        f"Generated by `survey build` from `{report.source}`; do not edit. "
        f"{n} claims: {counts['holds']} hold, {counts['changed']} changed since the edition, "
        f"{counts['contradicted']} contradicted. A claim about the survey is evaluated on the "
        "survey's edition, a claim about the living list on every record; the build reports a "
        "status, it never fails on one (`survey claims --fail-on contradicted` is the opt-in gate).",
        "",
    ]
    contra = report.with_status("contradicted")
    if contra:
        out += ["## Contradicted", ""]
        for r in contra:
            c = r.claim
            paper = f" The paper's number: {c.paper_value}." if c.paper_value is not None else ""
            out.append(
                f"- **{c.id}** ({_view_name(tax, c.view)}): \"{r.statement}\" The records give "
                f"**{r.count}** ({_names(r.matches)}), so `{c.condition}` does not hold.{paper}"
                + (f" {c.finding}" if c.finding else "")
            )
        out.append("")
    changed = report.with_status("changed")
    if changed:
        out += ["## Changed since the edition", ""]
        for r in changed:
            c = r.claim
            out.append(
                f"- **{c.id}**: \"{r.statement}\" {r.other_count} in {_view_name(tax, r.compared_with)}, "
                f"{r.count} now; in: {', '.join(r.moved_in) or 'none'}; out: {', '.join(r.moved_out) or 'none'}."
            )
        out.append("")
    out += [
        "## All claims",
        "",
        "| id | claim | view | condition | count | status | compared with | records |",
        "| --- | --- | --- | --- | ---: | --- | --- | --- |",
    ]
    for r in report.results:
        c = r.claim
        status = {"holds": "holds", "changed": "**changed**", "contradicted": "**contradicted**"}[r.status]
        other = "" if r.other_count is None else f"{_view_name(tax, r.compared_with)}: {r.other_count}"
        if r.moved_in or r.moved_out:
            other += f" (in: {', '.join(r.moved_in) or 'none'}; out: {', '.join(r.moved_out) or 'none'})"
        out.append(
            f"| {c.id} | {_cell(r.statement)} | {_view_name(tax, c.view)} | {c.condition} | {r.count} | {status} | {other} | {_names(r.matches)} |"
        )
    return "\n".join(out) + "\n"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def claims_text(report: ClaimsReport, tax: Taxonomy | None = None) -> str:
    lines = []
    marks = {"holds": "ok  ", "changed": "CHG ", "contradicted": "FAIL"}
    for r in report.results:
        c = r.claim
        lines.append(f"{marks[r.status]} {c.id}: {r.statement}")
        lines.append(f"     {r.status} on {_view_name(tax, c.view)}: {c.condition}, count {r.count}: {_names(r.matches)}")
        if r.other_count is not None:
            lines.append(f"     {_view_name(tax, r.compared_with)}: count {r.other_count}"
                         + (f"; in: {', '.join(r.moved_in) or 'none'}; out: {', '.join(r.moved_out) or 'none'}"
                            if r.moved_in or r.moved_out else ""))
        if r.status == "contradicted" and c.finding:
            lines.append(f"     {c.finding}")
    return "\n".join(lines) + "\n"


def _names(keys: Sequence[str], limit: int = 12) -> str:
    if not keys:
        return "none"
    return ", ".join(keys) if len(keys) <= limit else f"{len(keys)} records"
