"""The claims file: its model (:class:`Claim`, :class:`NotCheckable`, their sources and audit
counts) and its reader.

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

Its shape (keys, types, which keys go together) is ``corpus/config_schemas/claims.schema.yaml``,
checked through the one explainer; :func:`parse_claims_file` checks only what a schema cannot
say: views, collections, filters and audit fields named from the taxonomy, ids unique across
both lists and the gate's ids, the statement's placeholders and hand-written numbers (no count
is kept by hand: ``{count}`` and the other :data:`PLACEHOLDERS` are filled from the data), and
conditions that cannot fail.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from survey_tools.corpus.configs import checked
from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.corpus.views import view_ids
from survey_tools.corpus.yamlio import YamlDocument
from survey_tools.errors import InvalidInput, Problem
from survey_tools.reports.axes import plain_str
from survey_tools.reports.filters import FilterError, Predicate, compile_filter

OPERATORS: Mapping[str, Callable[[int, int], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
}
NOT_CHECKABLE = "not checkable"  # the status of an entry of `not_checkable:`
PLACEHOLDERS = ("count", "value", "paper_value", "edition_count", "living_count")
# A number written into a statement by hand (not part of a name like O5 or 2605.02801).
_HAND_NUMBER = re.compile(r"(?<![\w.{])\d+(?:[.,]\d+)?(?![\w}])")
FIELD = re.compile(r"\{([^{}]*)\}")  # a placeholder in a statement


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
class ClaimsFile:
    source: str
    claims: tuple[Claim, ...]
    gate: tuple[str, ...] = ()
    not_checkable: tuple[NotCheckable, ...] = ()


def load_claims_file(tax: Taxonomy) -> ClaimsFile:
    """Read the claims file; :class:`InvalidInput` lists every problem, each naming its claim."""
    rel = tax.data_file("claims")
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
    """The claims of ``doc``: its shape checked by the schema first (every shape mistake at
    once), then what only the taxonomy and the file as a whole can say."""
    doc, problems = checked("claims", doc, rel)
    if problems:
        raise InvalidInput(problems, f"{rel} is invalid")
    d = doc.data
    assert isinstance(d, dict)  # the schema says so
    reader = _Reader(tax, doc, rel)
    default_view = reader.default_view(d)
    claims = tuple(
        c for i, raw in enumerate(d["claims"]) if (c := reader.claim(i, raw, default_view))
    )
    claim_ids = set(reader.seen)
    not_checkable = tuple(
        n
        for i, raw in enumerate(d.get("not_checkable") or [])
        if (n := reader.not_checkable(i, raw))
    )
    gate = tuple(str(g) for g in d.get("gate") or [])
    for i, g in enumerate(gate):
        if g not in claim_ids:
            reader.at(("gate", i), "gate", f"no claim with id {g!r}")
    if reader.problems:
        raise InvalidInput(reader.problems, f"{rel} is invalid")
    return ClaimsFile(rel, claims, gate, not_checkable)


Bad = Callable[[tuple[Any, ...], str], None]


class _Reader:
    """The checks a schema cannot make, over a file whose shape the schema has checked; every
    problem is kept (``problems``), each at its key's line."""

    def __init__(self, tax: Taxonomy, doc: YamlDocument, rel: str) -> None:
        self.tax = tax
        self.doc = doc
        self.rel = rel
        self.views = view_ids(tax)
        self.problems: list[Problem] = []
        self.seen: set[str] = set()  # ids of both lists

    def at(self, path: tuple[Any, ...], fld: str, msg: str) -> None:
        line, col = _pos(self.doc, path)
        self.problems.append(Problem(self.rel, line, col, fld, msg))

    def default_view(self, d: Mapping[str, Any]) -> str:
        ed = self.tax.editions
        view = str(d.get("view", ed.latest.id if ed and ed.latest else ""))
        if self.views and view not in self.views:
            self.at(("view",), "view", f"unknown view {view!r} (known: {', '.join(self.views)})")
        return view

    def entry(self, section: str, i: int, c: Mapping[str, Any], label: str) -> tuple[str, Bad]:
        """The entry's id and a reporter of problems at its keys; checks what every entry shares
        (an id unique across both lists, the statement)."""
        base: tuple[Any, ...] = (section, i)
        cid = str(c["id"])

        def bad(key: tuple[Any, ...], msg: str) -> None:
            where = ".".join(map(str, key))
            self.at((*base, *key), f"{label} {cid}" + (f": {where}" if where else ""), msg)

        if cid in self.seen:
            bad(("id",), "duplicate claim id")
        self.seen.add(cid)
        _check_statement(c["statement"], bad)
        return cid, bad

    def claim(self, i: int, c: Mapping[str, Any], default_view: str) -> Claim | None:
        before = len(self.problems)
        cid, bad = self.entry("claims", i, c, "claim")
        audit = self.audit(c.get("audit"), bad)
        op = str(c.get("op", "=="))
        _check_condition(op, c.get("value", c.get("paper_value")), bad)
        view = str(c.get("view", default_view))
        if self.views and view not in self.views:
            bad(("view",), f"unknown view {view!r} (known: {', '.join(self.views)})")
        colls = c.get("collection", self.tax.retained.name)
        collections = tuple(str(x) for x in colls) if isinstance(colls, list) else (str(colls),)
        for x in collections:
            if x not in self.tax.collections:
                bad(
                    ("collection",),
                    f"unknown collection {x!r} (known: {', '.join(self.tax.collections)})",
                )
        pred: Predicate = lambda rec: True  # noqa: E731
        try:
            pred = compile_filter(self.tax, c.get("where"), ())
        except FilterError as err:
            bad(("where", *err.path), err.message)
        if len(self.problems) > before:
            return None
        return Claim(
            id=cid,
            statement=str(c["statement"]),
            where=c.get("where") or {},
            op=op,
            collections=collections,
            predicate=pred,
            view=view if self.views else "",
            value=c.get("value"),
            paper_value=c.get("paper_value"),
            finding=str(c.get("finding", "")),
            evidence=tuple(c.get("evidence") or ()),
            line=_pos(self.doc, ("claims", i))[0],
            sources=_sources(c),
            audit=audit,
        )

    def audit(self, a: Mapping[str, Any] | None, bad: Bad) -> AuditCount | None:
        if a is None:
            return None
        fld = str(a.get("field", ""))
        if a["count"] == "agree" and self.tax.find_field(fld) is None:
            bad(
                ("audit", "field"),
                f"agree needs a controlled field whose two readings are compared, not {fld!r}",
            )
        columns = {
            str(col): tuple(plain_str(x) for x in (v if isinstance(v, list) else [v]))
            for col, v in (a.get("columns") or {}).items()
        }
        return AuditCount(str(a["count"]), columns, fld)

    def not_checkable(self, i: int, c: Mapping[str, Any]) -> NotCheckable | None:
        before = len(self.problems)
        cid, _ = self.entry("not_checkable", i, c, "not checkable")
        if len(self.problems) > before:
            return None
        line = _pos(self.doc, ("not_checkable", i))[0]
        reason = " ".join(str(c["reason"]).split())
        return NotCheckable(
            cid, str(c["statement"]), reason, _sources(c), c.get("paper_value"), line
        )


def _pos(doc: YamlDocument, path: tuple[Any, ...]) -> tuple[int, int]:
    try:
        return doc.position(path)
    except (KeyError, IndexError, TypeError):
        return (0, 0)


def _check_statement(statement: str, bad: Bad) -> None:
    """No count kept by hand: placeholders the data fills, and no number written in."""
    for m in FIELD.finditer(statement):
        if m.group(1) not in PLACEHOLDERS:
            bad(
                ("statement",),
                f"unknown placeholder {{{m.group(1)}}} (known: {', '.join('{' + p + '}' for p in PLACEHOLDERS)})",
            )
    hand = next((m for m in _HAND_NUMBER.finditer(statement) if "." not in m.group()), None)
    if hand:
        bad(
            ("statement",),
            f"the number {hand.group()} is written by hand; write {{count}} (or {{paper_value}}, {{value}}) so that it is filled from the data",
        )


def _check_condition(op: str, target: Any, bad: Bad) -> None:
    """A condition that cannot fail checks nothing."""
    if isinstance(target, int) and not isinstance(target, bool) and target == 0:
        if op == "<":
            bad(("op",), "'< 0' can never hold: a count is never negative")
        elif op == ">=":
            bad(("op",), "'>= 0' always holds, so it checks nothing")


def _sources(c: Mapping[str, Any]) -> tuple[Source, ...]:
    """``source: {document, section}`` or a list of them."""
    raw = c.get("source")
    items = [] if raw is None else raw if isinstance(raw, list) else [raw]
    return tuple(
        Source(x["document"].strip(), " ".join(x.get("section", "").split())) for x in items
    )
