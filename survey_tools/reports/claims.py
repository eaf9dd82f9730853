"""Claims evaluated: each claim's status on its view, against the records or the audit file.

Each claim's status is computed, never enforced by the build:

- ``holds``: the condition holds on the claim's view;
- ``contradicted``: it does not (the records disagree with the statement);
- ``changed``: a claim about the living list that holds, but whose matching records differ from
  those of the latest published edition (``changed since the edition``);
- ``not checkable``: an entry of ``not_checkable:`` (listed, never counted).

The file and its model are :mod:`survey_tools.reports.claims_file`; CLAIMS.md and the text of
``survey claims`` are :mod:`survey_tools.reports.claims_output`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from survey_tools.corpus.records import Corpus
from survey_tools.corpus.views import corpus_view, living_id, view_ids
from survey_tools.errors import InvalidInput, Problem
from survey_tools.reports.agreement import AgreementReport
from survey_tools.reports.claims_file import FIELD, NOT_CHECKABLE, Claim, NotCheckable

STATUSES = ("holds", "changed", "contradicted")


@dataclass(frozen=True)
class ClaimResult:
    claim: Claim
    count: int  # matching records in the claim's view
    matches: tuple[str, ...]
    status: str  # holds | changed | contradicted
    statement: str  # with its placeholders filled
    universe: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    compared_with: str = (
        ""  # the other view: living for an edition claim, the edition for a living one
    )
    other_count: int | None = None
    other_holds: bool | None = None
    moved_in: tuple[str, ...] = ()  # matching in the living list, not in the edition
    moved_out: tuple[str, ...] = ()  # matching in the edition, no longer in the living list
    edition_count: int | None = None  # the count on the latest published edition
    living_count: int | None = None  # the count on the living list
    corrected: int | None = (
        None  # the count on the claim's view with every proposed correction applied
    )

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
            self,
            results=tuple(
                replace(r, corrected=counts.get(r.claim.id, r.count)) for r in self.results
            ),
        )

    def result(self, claim_id: str) -> ClaimResult:
        for r in self.results:
            if r.claim.id == claim_id:
                return r
        raise KeyError(claim_id)

    def gate_failures(self, statuses: Sequence[str] = ()) -> list[ClaimResult]:
        """Claims that trip a gate: a status in ``statuses``, or a gated claim not holding."""
        return [
            r
            for r in self.results
            if r.status in statuses or (r.claim.id in self.gate and r.status != "holds")
        ]

    def problems(self, results: Sequence[ClaimResult] | None = None) -> list[Problem]:
        return [
            Problem(
                self.source, r.claim.line, 0, f"claim {r.claim.id}", r.summary().split(": ", 1)[1]
            )
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
            "results": [r.to_dict() for r in self.results]
            + [n.to_dict() for n in self.not_checkable],
        }


def _matches(corpus: Corpus, c: Claim) -> tuple[tuple[str, ...], frozenset[str]]:
    recs = [r for name in c.collections for r in corpus.of(name)]
    return tuple(sorted(r.id for r in recs if c.predicate(r))), frozenset(r.id for r in recs)


def fill_statement(
    c: Claim, count: int, edition_count: int | None, living_count: int | None
) -> str:
    values = {
        "count": count,
        "value": c.value,
        "paper_value": c.paper_value,
        "edition_count": edition_count if edition_count is not None else count,
        "living_count": living_count if living_count is not None else count,
    }
    return FIELD.sub(lambda m: str(values.get(m.group(1), m.group(0))), c.statement)


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
    views = _Views(corpus)
    # Evidence may name a record of any view (an excluded paper keeps its key in its edition).
    known = (
        {r.id for v in (views.living, *view_ids(tax)) for r in views.of(v)}
        if tax.editions
        else {r.id for r in corpus}
    )
    problems: list[Problem] = []
    results = []
    for c in claims:
        resolved = _resolve(c, agreement, known, source, problems)
        if resolved is not None:
            results.append(_result(*resolved, views))
    if problems:
        raise InvalidInput(problems, f"{source} names records or audit columns that do not exist")
    return ClaimsReport(source, tuple(results), tuple(gate), tuple(not_checkable))


class _Views:
    """The records of each view, computed when first asked for."""

    def __init__(self, corpus: Corpus) -> None:
        tax = corpus.taxonomy
        self.corpus = corpus
        self.living = living_id(tax)
        self.latest = tax.editions.latest.id if tax.editions and tax.editions.latest else ""
        self._views: dict[str, Corpus] = {}

    def of(self, v: str) -> Corpus:
        if v not in self._views:
            self._views[v] = corpus_view(self.corpus, v)
        return self._views[v]


def _resolve(
    c: Claim,
    agreement: AgreementReport | None,
    known: set[str],
    source: str,
    problems: list[Problem],
) -> tuple[Claim, tuple[str, ...] | None] | None:
    """The claim with its audit count resolved (and the audit rows it counts, if any); None,
    with a problem, when the audit file cannot give it. Evidence must name known records."""
    for key in c.evidence:
        if not key.startswith(("http://", "https://")) and key not in known:
            problems.append(
                Problem(source, c.line, 0, f"claim {c.id}", f"no record with key {key!r}")
            )
    if c.audit is None:
        return c, None
    if agreement is None:
        problems.append(
            Problem(
                source,
                c.line,
                0,
                f"claim {c.id}",
                "counts the audit file (files.audit), which this survey does not have",
            )
        )
        return None
    try:
        return _audit_claim(c, agreement)
    except ValueError as err:
        problems.append(Problem(source, c.line, 0, f"claim {c.id}: audit", str(err)))
        return None


def _result(c: Claim, audit_rows: tuple[str, ...] | None, views: _Views) -> ClaimResult:
    """One claim's count and status on its view, compared with the other view."""
    living = views.living
    if audit_rows is not None:  # rows of the audit file: the same in every view
        matches, universe = audit_rows, frozenset[str]()
    else:
        matches, universe = _matches(views.of(c.view), c)
    holds = c.holds(len(matches))
    other = living if c.view and c.view != living else views.latest
    other_count: int | None = None
    other_holds: bool | None = None
    moved_in: tuple[str, ...] = ()
    moved_out: tuple[str, ...] = ()
    if other and other != c.view:
        om = audit_rows if audit_rows is not None else _matches(views.of(other), c)[0]
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
    return ClaimResult(
        c,
        len(matches),
        matches,
        status,
        statement,
        universe,
        other if other != c.view else "",
        other_count,
        other_holds,
        moved_in,
        moved_out,
        edition_count,
        living_count,
    )


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
            raise ValueError(
                f"{agreement.source} has no orig_{a.field}/ann_{a.field} columns"
            ) from None
        disagree = {d.key for d in fa.disagreements}
        return c, tuple(sorted(r[key] for r in agreement.table if r[key] not in disagree))
    missing = sorted(set(a.columns) - set(agreement.columns))
    if missing:
        raise ValueError(
            f"{agreement.source} has no column {missing[0]!r} (known: {', '.join(agreement.columns)})"
        )
    rows = [r for r in agreement.table if all(r[col] in vals for col, vals in a.columns.items())]
    return c, tuple(sorted(r[key] for r in rows))
