"""Claims: statements about the corpus, each with a condition evaluated on a view of it.

The claims file (``files.claims`` in ``taxonomy/survey.yaml``) is hand-written data, described
in full in ``docs/claims.md``::

    view: 2605.02801v1          # the default view: an edition id, or the living list's id
    gate: [retained-total]      # optional: claims whose status must stay "holds" (survey claims)
    claims:
      - id: o5-learned
        statement: No retained work trains the stop decision (O5) with RL.   # the survey's words
        source: {document: docs/claim_ledger.md, section: claim table}       # where it says so
        finding: One retained work does.                                     # ours, when they differ
        where: {subdecisions: {O5: learned}}
        paper_value: 0       # the number the paper states; the condition is count == paper_value
        evidence: [puppeteer, https://...]  # optional record keys or URLs
      - id: spotcheck-category
        statement: The readers agreed on the category of {paper_value} rows.
        audit: {count: agree, field: category}   # counted on the audit file, not the records
        paper_value: 32
    not_checkable:              # the paper's statements no record can check, with the reason
      - {id: trace-files, statement: ..., source: {...}, paper_value: ..., reason: ...}

No count is kept by hand: ``{count}`` (and ``{value}``, ``{paper_value}``, ``{edition_count}``,
``{living_count}``) in a statement are filled from the data, and a digit written in a statement
is refused. Each claim's status is computed, never enforced by the build:

- ``holds``: the condition holds on the claim's view;
- ``contradicted``: it does not (the records disagree with the statement);
- ``changed``: a claim about the living list that holds, but whose matching records differ from
  those of the latest published edition (``changed since the edition``);
- ``not checkable``: an entry of ``not_checkable:`` (listed, never counted).

A filter (``where``) maps an axis (a controlled field, a value group, a plain field, dotted for
nested plain fields) to a value or a list of values (any of them); a mapping field maps to
``{key: mode}`` or ``{key: [modes]}``. All entries must hold. ``any_of: [filter, ...]`` holds
when one of the filters does; ``not: filter`` inverts one.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.corpus.views import corpus_view, living_id, view_ids, view_label
from survey_tools.corpus.yamlio import YamlDocument
from survey_tools.errors import InvalidInput, Problem
from survey_tools.reports.agreement import AgreementReport
from survey_tools.reports.axes import mode_of, plain_str, resolve_axis
from survey_tools.reports.tables import md, md_cell, md_code, md_table

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
    "evidence", "source", "audit",
}
NOT_CHECKABLE_KEYS = {"id", "statement", "source", "paper_value", "reason"}
AUDIT_KEYS = {"count", "field", "columns"}
FILE_KEYS = {"view", "gate", "claims", "not_checkable"}
STATUSES = ("holds", "changed", "contradicted")
NOT_CHECKABLE = "not checkable"  # the status of an entry of `not_checkable:`
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
class Source:
    """Where the paper states a claim: a document (or the paper itself) and a section or table."""

    document: str
    section: str = ""

    def __str__(self) -> str:
        return f"{self.document}, {self.section}" if self.section else self.document

    def to_dict(self) -> dict[str, str]:
        return {"document": self.document, "section": self.section}


@dataclass(frozen=True)
class AuditCount:
    """A claim counted on the audit file (``files.audit``) instead of the records.

    ``rows``: audit rows (those whose cells equal ``columns``, when given); ``agree``: rows where
    both readers chose the same value of ``field``; ``unaudited``: records the claim's ``where``
    matches that have no audit row.
    """

    count: str
    columns: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    field: str = ""  # declared after `columns`, whose default calls dataclasses.field

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"count": self.count}
        if self.field:
            d["field"] = self.field
        if self.columns:
            d["columns"] = {k: list(v) for k, v in self.columns.items()}
        return d


AUDIT_COUNTS = ("rows", "agree", "unaudited")


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
    paper_value: int | str | None = None  # the number the paper states (or its words, with `value`)
    finding: str = ""
    evidence: tuple[str, ...] = ()
    line: int = 0
    sources: tuple[Source, ...] = ()
    audit: AuditCount | None = None

    @property
    def target(self) -> int:
        """The number the count is compared with: ``value`` if given, else ``paper_value``."""
        if self.value is not None:
            return self.value
        return self.paper_value if isinstance(self.paper_value, int) else 0

    def holds(self, count: int) -> bool:
        return OPERATORS[self.op](count, self.target)

    @property
    def condition(self) -> str:
        return f"count {self.op} {self.target}"


@dataclass(frozen=True)
class NotCheckable:
    """A statement of the paper that the records cannot confirm or contradict, and why."""

    id: str
    statement: str
    reason: str
    sources: tuple[Source, ...] = ()
    paper_value: int | str | None = None
    line: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "statement": self.statement,
            "status": NOT_CHECKABLE,
            "source": [s.to_dict() for s in self.sources],
            "paper_value": self.paper_value,
            "count": None,
            "reason": self.reason,
        }


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
    edition_count: int | None = None  # the count on the latest published edition
    living_count: int | None = None  # the count on the living list
    corrected: int | None = None  # the count on the claim's view with every proposed correction applied

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
            "source": [x.to_dict() for x in c.sources],
            "audit": c.audit.to_dict() if c.audit else None,
            "edition_count": self.edition_count,
            "living_count": self.living_count,
            "with_corrections": self.corrected,
        }


@dataclass(frozen=True)
class ClaimsReport:
    source: str
    results: tuple[ClaimResult, ...]
    gate: tuple[str, ...] = ()  # claim ids that must hold (from the claims file)
    not_checkable: tuple[NotCheckable, ...] = ()

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
        out = {s: len(self.with_status(s)) for s in STATUSES}
        out[NOT_CHECKABLE] = len(self.not_checkable)
        return out

    def with_corrections(self, counts: Mapping[str, int]) -> ClaimsReport:
        """The report with each claim's count after the proposed corrections (``counts`` holds
        the claims they move; every other claim keeps its count)."""
        return replace(
            self, results=tuple(replace(r, corrected=counts.get(r.claim.id, r.count)) for r in self.results)
        )

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
            "not_checkable": [n.id for n in self.not_checkable],
            "results": [r.to_dict() for r in self.results] + [n.to_dict() for n in self.not_checkable],
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
    not_checkable: tuple[NotCheckable, ...] = ()


def load_claims_file(tax: Taxonomy) -> ClaimsFile:
    """Read the claims file; :class:`InvalidInput` lists every problem, each naming its claim."""
    rel = tax.data_file("claims", "data/claims.yaml")
    doc = tax.document(rel)
    if doc is None:
        return ClaimsFile(rel, ())
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
    for c, cid, bad, n0, line in _entries(doc, rel, raw, "claims", "claim", CLAIM_KEYS, seen, problems):
        statement = c.get("statement")
        op = c.get("op", "==")
        if op not in OPERATORS:
            bad(("op",), f"unknown operator {op!r} (known: {' '.join(OPERATORS)})")
        if "value" in c and (not _int(c["value"]) or c["value"] < 0):
            bad(("value",), f"must be a count (a whole number >= 0), not {c['value']!r}")
        if "paper_value" in c:
            v = c["paper_value"]
            if isinstance(v, str) and v.strip():
                if "value" not in c:
                    bad(("paper_value",), "the paper's words need `value`, the count they mean, for the condition")
            elif not _int(v) or v < 0:
                bad(("paper_value",), f"must be a count (a whole number >= 0) or the paper's words, not {v!r}")
        if "value" not in c and "paper_value" not in c:
            bad((), "needs paper_value (the number the paper states) or value (a threshold the statement makes)")
        sources = _parse_source(c, bad)
        audit = _parse_audit(tax, c, bad)
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
                sources=sources,
                audit=audit,
            )
        )
    claim_ids = set(seen)
    not_checkable = _parse_not_checkable(doc, rel, d.get("not_checkable"), seen, problems)
    gate_raw = d.get("gate") or []
    gate: tuple[str, ...] = ()
    if not isinstance(gate_raw, list) or not all(isinstance(x, str) for x in gate_raw):
        line, col = _pos(doc, ("gate",))
        problems.append(Problem(rel, line, col, "gate", "must be a list of claim ids"))
    else:
        for i, g in enumerate(gate_raw):
            if g not in claim_ids:
                line, col = _pos(doc, ("gate", i))
                problems.append(Problem(rel, line, col, "gate", f"no claim with id {g!r}"))
        gate = tuple(gate_raw)
    if problems:
        raise InvalidInput(problems, f"{rel} is invalid")
    return ClaimsFile(rel, tuple(claims), gate, not_checkable)


Bad = Callable[[tuple[Any, ...], str], None]


def _entries(
    doc: YamlDocument, rel: str, raw: list[Any], section: str, label: str,
    keys: frozenset[str] | set[str], seen: set[str], problems: list[Problem],
) -> Iterator[tuple[dict[str, Any], str, Bad, int, int]]:
    """Each mapping of a list section (``claims:``, ``not_checkable:``) with its id, a reporter
    of problems at its keys, the problem count before it and its line; the checks every entry shares
    (a mapping, an id unique across both sections, known keys, the statement) are made here."""
    for i, c in enumerate(raw):
        base: tuple[Any, ...] = (section, i)
        line, col = _pos(doc, base)
        if not isinstance(c, dict):
            what = "a claim must be a mapping" if section == "claims" else "must be a mapping"
            problems.append(Problem(rel, line, col, f"{section}[{i}]", what))
            continue
        cid = str(c.get("id", f"{section}[{i}]"))
        n0 = len(problems)

        def bad(key: tuple[Any, ...], msg: str, cid: str = cid, base: tuple[Any, ...] = base) -> None:
            ln, cl = _pos(doc, (*base, *key))
            where = ".".join(map(str, key))
            problems.append(Problem(rel, ln, cl, f"{label} {cid}" + (f": {where}" if where else ""), msg))

        if "id" not in c:
            bad((), "needs an id")
        elif cid in seen:
            bad(("id",), "duplicate claim id")
        seen.add(cid)
        for k in c:
            if k not in keys:
                bad((k,), f"unknown key (known: {', '.join(sorted(keys))})")
        _check_statement(c.get("statement"), bad)
        yield c, cid, bad, n0, line


def _check_statement(statement: Any, bad: Bad) -> None:
    if not isinstance(statement, str) or not statement.strip():
        bad(("statement",), "needs the sentence the claim states")
        return
    for m in _FIELD.finditer(statement):
        if m.group(1) not in PLACEHOLDERS:
            bad(("statement",), f"unknown placeholder {{{m.group(1)}}} (known: {', '.join('{' + p + '}' for p in PLACEHOLDERS)})")
    hand = next((m for m in _HAND_NUMBER.finditer(statement) if "." not in m.group()), None)
    if hand:
        bad(("statement",), f"the number {hand.group()} is written by hand; write {{count}} (or {{paper_value}}, {{value}}) so that it is filled from the data")


def _parse_source(c: Mapping[str, Any], bad: Bad) -> tuple[Source, ...]:
    """``source: {document, section}`` or a list of them; the document is required."""
    if "source" not in c:
        return ()
    raw = c["source"]
    items = raw if isinstance(raw, list) else [raw]
    out = []
    for i, item in enumerate(items):
        key: tuple[Any, ...] = ("source", i) if isinstance(raw, list) else ("source",)
        if not isinstance(item, dict):
            bad(key, "must be a mapping {document, section} (or a list of them)")
            continue
        unknown = sorted(str(k) for k in item if k not in ("document", "section"))
        if unknown:
            bad((*key, unknown[0]), "unknown key (known: document, section)")
        doc, sec = item.get("document"), item.get("section", "")
        if not isinstance(doc, str) or not doc.strip():
            bad(key, "needs the document the paper states the claim in")
            continue
        if not isinstance(sec, str):
            bad((*key, "section"), "must be text (a section, table or figure)")
            continue
        out.append(Source(doc.strip(), " ".join(sec.split())))
    if isinstance(raw, list) and not raw:
        bad(("source",), "an empty list names no source")
    return tuple(out)


def _parse_audit(tax: Taxonomy, c: Mapping[str, Any], bad: Bad) -> AuditCount | None:
    if "audit" not in c:
        return None
    a = c["audit"]
    if not isinstance(a, dict):
        bad(("audit",), "must be a mapping {count: rows | agree | unaudited, ...}")
        return None
    for k in a:
        if k not in AUDIT_KEYS:
            bad(("audit", k), f"unknown key (known: {', '.join(sorted(AUDIT_KEYS))})")
    count = a.get("count")
    if count not in AUDIT_COUNTS:
        bad(("audit", "count"), f"must be one of {', '.join(AUDIT_COUNTS)}, not {count!r}")
        return None
    fld = a.get("field", "")
    if count == "agree":
        if not isinstance(fld, str) or tax.find_field(fld) is None:
            bad(("audit", "field"), f"agree needs a controlled field whose two readings are compared, not {fld!r}")
            return None
    elif "field" in a:
        bad(("audit", "field"), "only `count: agree` compares a field")
    columns: dict[str, tuple[str, ...]] = {}
    raw_cols = a.get("columns", {})
    if count != "rows" and "columns" in a:
        bad(("audit", "columns"), "only `count: rows` filters the audit file's columns")
    elif not isinstance(raw_cols, dict):
        bad(("audit", "columns"), "must map an audit column to a value or a list of values")
    else:
        for col, v in raw_cols.items():
            vals = v if isinstance(v, list) else [v]
            if not vals or any(isinstance(x, dict | list) or x is None for x in vals):
                bad(("audit", "columns", col), f"expected a value or a list of values, not {v!r}")
            columns[str(col)] = tuple(plain_str(x) for x in vals)
    if count != "unaudited":
        for k in ("where", "collection"):
            if k in c:
                bad((k,), f"`audit: {{count: {count}}}` counts rows of the audit file, not records; drop {k}")
    return AuditCount(str(count), columns, str(fld))


def _parse_not_checkable(
    doc: YamlDocument, rel: str, raw: Any, seen: set[str], problems: list[Problem]
) -> tuple[NotCheckable, ...]:
    """``not_checkable:``: statements of the paper the records cannot check, each with its reason."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        line, col = _pos(doc, ("not_checkable",))
        problems.append(Problem(rel, line, col, "not_checkable", "must be a list of {id, statement, source, paper_value, reason}"))
        return ()
    out = []
    for c, cid, bad, n0, line in _entries(doc, rel, raw, "not_checkable", "not checkable", NOT_CHECKABLE_KEYS, seen, problems):
        reason = c.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            bad(("reason",), "needs the reason the records cannot check it")
        pv = c.get("paper_value")
        if pv is not None and not (isinstance(pv, str) and pv.strip()) and not (_int(pv) and pv >= 0):
            bad(("paper_value",), f"must be a count or the paper's words, not {pv!r}")
        sources = _parse_source(c, bad)
        if len(problems) > n0:
            continue
        out.append(NotCheckable(cid, str(c["statement"]), " ".join(str(reason).split()), sources, pv, line))
    return tuple(out)


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
    agreement: AgreementReport | None = None,
    not_checkable: Sequence[NotCheckable] = (),
) -> ClaimsReport:
    """Each claim's status on its view; claims on an edition are also compared with the living
    list, claims on the living list with the latest published edition. Claims with ``audit:``
    count the audit file (``agreement``, the second-reader comparison)."""
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
        audit_rows: tuple[str, ...] | None = None
        if c.audit is not None:
            if agreement is None:
                problems.append(Problem(source, c.line, 0, f"claim {c.id}", "counts the audit file (files.audit), which this survey does not have"))
                continue
            try:
                c, audit_rows = _audit_claim(c, agreement)
            except ValueError as err:
                problems.append(Problem(source, c.line, 0, f"claim {c.id}: audit", str(err)))
                continue
        if audit_rows is not None:  # rows of the audit file: the same in every view
            matches, universe = audit_rows, frozenset[str]()
        else:
            matches, universe = _matches(view_of(c.view), c)
        holds = c.holds(len(matches))
        other = living if c.view and c.view != living else latest
        other_count: int | None = None
        other_holds: bool | None = None
        moved_in: tuple[str, ...] = ()
        moved_out: tuple[str, ...] = ()
        if other and other != c.view:
            om = audit_rows if audit_rows is not None else _matches(view_of(other), c)[0]
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
        edition_count = len(matches) if on_edition else other_count
        living_count = other_count if on_edition else len(matches)
        statement = fill_statement(c, len(matches), edition_count, living_count)
        results.append(
            ClaimResult(c, len(matches), matches, status, statement, universe, other if other != c.view else "",
                        other_count, other_holds, moved_in, moved_out, edition_count, living_count)
        )
    if problems:
        raise InvalidInput(problems, f"{source} names records or audit columns that do not exist")
    return ClaimsReport(source, tuple(results), tuple(gate), tuple(not_checkable))


def _audit_claim(c: Claim, agreement: AgreementReport) -> tuple[Claim, tuple[str, ...] | None]:
    """The claim with its audit count resolved: the matching audit rows' keys, or (for
    ``unaudited``) a predicate over records that excludes every audited key."""
    a = c.audit
    assert a is not None
    if a.count == "unaudited":
        audited = agreement.keys
        base = c.predicate
        return replace(c, predicate=lambda rec: base(rec) and rec.id not in audited), None
    key = agreement.id_column
    if a.count == "agree":
        try:
            fa = agreement.field(a.field)
        except KeyError:
            raise ValueError(f"{agreement.source} has no orig_{a.field}/ann_{a.field} columns") from None
        disagree = {d.key for d in fa.disagreements}
        return c, tuple(sorted(r[key] for r in agreement.table if r[key] not in disagree))
    missing = sorted(set(a.columns) - set(agreement.columns))
    if missing:
        raise ValueError(f"{agreement.source} has no column {missing[0]!r} (known: {', '.join(agreement.columns)})")
    rows = [r for r in agreement.table if all(r[col] in vals for col, vals in a.columns.items())]
    return c, tuple(sorted(r[key] for r in rows))


def _view_name(tax: Taxonomy | None, view: str) -> str:
    return view_label(tax, view) if tax is not None and view else view or "the records"


def _paper(c: Claim | NotCheckable) -> str:
    return "" if c.paper_value is None else " ".join(str(c.paper_value).split())


def _sources(sources: Sequence[Source]) -> str:
    return "; ".join(str(x) for x in sources)


def _mark(n: int | None, ok: bool | None, mark: str = "✗") -> str:
    if n is None:
        return "–"
    return str(n) if ok is not False else f"**{n}** {mark}"


def claims_markdown(report: ClaimsReport, tax: Taxonomy | None = None) -> str:
    n = len(report.results)
    counts = report.counts()
    living = living_id(tax) if tax is not None else ""
    latest = tax.editions.latest.id if tax is not None and tax.editions and tax.editions.latest else ""
    edition_name = _view_name(tax, latest) if latest else "the records"
    living_name = _view_name(tax, living) if living else "living list"
    corrected = any(r.corrected is not None for r in report.results)
    out = [
        "# Claims checked against the records",
        "",
        f"Generated by `survey build` from `{report.source}`; do not edit. "
        f"{n} claims: {counts['holds']} hold, {counts['changed']} changed since the edition, "
        f"{counts['contradicted']} contradicted"
        + (f"; {counts[NOT_CHECKABLE]} statements are not checkable from the records (listed at the end)" if report.not_checkable else "")
        + ". A claim about the survey is evaluated on the survey's edition, a claim about the living list on "
        "every record; the build reports a status, it never fails on one (`survey claims --fail-on "
        "contradicted` is the opt-in gate).",
        "",
        f"Columns: **paper** is the value the paper states (its words where it states no number; the "
        f"condition then says what they mean); **{edition_name}** is our count on the survey's edition; "
        f"**{living_name}** the same count on every record (a bold value marked Δ differs from the "
        "edition's, which new papers are expected to do)"
        + ("; **with corrections** the count on the claim's view with every proposed correction "
           "(CORRECTIONS.md) applied" if corrected else "")
        + ". A bold value marked ✗ does not meet the claim's condition.",
        "",
    ]
    contra = report.with_status("contradicted")
    if contra:
        out += ["## Contradicted", ""]
        for r in contra:
            c = r.claim
            paper = f" The paper's value: {_paper(c)}." if c.paper_value is not None else ""
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
    groups: dict[str, list[ClaimResult]] = {}
    for r in report.results:
        doc = r.claim.sources[0].document if r.claim.sources else ""
        groups.setdefault(doc, []).append(r)
    head = ["id", "claim", "section", "paper", "condition", md(edition_name), md(living_name)]
    if corrected:
        head.append("with corrections")
    head.append("status")
    for doc, results in groups.items():
        out += [f"## {doc}" if doc else "## Claims without a source", ""]
        rows: list[list[str]] = []
        for r in results:
            c = r.claim
            status = {"holds": "holds", "changed": "**changed**", "contradicted": "**contradicted**"}[r.status]
            on_edition = c.view != living
            ed = _mark(r.edition_count, c.holds(r.edition_count) if on_edition and r.edition_count is not None else None)
            lv_delta = r.living_count is not None and r.edition_count is not None and r.living_count != r.edition_count
            lv = _mark(r.living_count, False if lv_delta and on_edition else None, "Δ")
            if not on_edition and r.living_count is not None:
                lv = _mark(r.living_count, c.holds(r.living_count))
            # the group's heading names the first source's document
            where = "; ".join([c.sources[0].section, *map(str, c.sources[1:])]) if c.sources else ""
            row = [md(c.id), md(r.statement), md(where), md(_paper(c)), md_cell(md_code(c.condition)), ed, lv]
            if corrected:
                row.append(_mark(r.corrected, None if r.corrected is None else c.holds(r.corrected)))
            row.append(status)
            rows.append(row)
        out += [md_table(head, rows, "l" * 5 + "r" * (len(head) - 6) + "l", pad=False), ""]
    if report.not_checkable:
        out += [
            "## Not checkable from the records",
            "",
            "Statements of the paper that no record, tag or audit cell can confirm or contradict, each with "
            "the reason.",
            "",
            md_table(["id", "statement", "source", "paper", "reason"],
                     [[md(x.id), md(x.statement), md(_sources(x.sources)), md(_paper(x)), md(x.reason)]
                      for x in report.not_checkable], pad=False),
            "",
        ]
    return "\n".join(out).rstrip("\n") + "\n"


def claims_text(report: ClaimsReport, tax: Taxonomy | None = None) -> str:
    lines = []
    marks = {"holds": "ok  ", "changed": "CHG ", "contradicted": "FAIL"}
    for r in report.results:
        c = r.claim
        lines.append(f"{marks[r.status]} {c.id}: {r.statement}")
        paper = f"; paper: {_paper(c)}" if c.paper_value is not None else ""
        lines.append(f"     {r.status} on {_view_name(tax, c.view)}: {c.condition}, count {r.count}{paper}: {_names(r.matches)}")
        if r.other_count is not None:
            lines.append(f"     {_view_name(tax, r.compared_with)}: count {r.other_count}"
                         + (f"; in: {', '.join(r.moved_in) or 'none'}; out: {', '.join(r.moved_out) or 'none'}"
                            if r.moved_in or r.moved_out else ""))
        if r.corrected is not None and r.corrected != r.count:
            lines.append(f"     with the proposed corrections: count {r.corrected}")
        if r.status == "contradicted" and c.finding:
            lines.append(f"     {c.finding}")
    for x in report.not_checkable:
        lines.append(f"n/a  {x.id}: {x.statement}")
        lines.append(f"     {NOT_CHECKABLE}: {x.reason}")
    return "\n".join(lines) + "\n"


def _names(keys: Sequence[str], limit: int = 12) -> str:
    if not keys:
        return "none"
    return ", ".join(keys) if len(keys) <= limit else f"{len(keys)} records"
