"""The living list's PRISMA 2020 flow, from the search run records and the screening decisions.

Identification comes from ``screening/runs.yaml`` (records found per family, distinct records
per run, those already known removed as duplicates), screening from ``screening/decisions.yaml``
(excluded by stage and reason, included) and the queue (awaiting screening). The survey's
edition keeps its own flow: records decided from the screening queue are counted here only.
The balance holds by construction: identified - duplicates = screened + awaiting (+ candidates
removed by hand, reported as ``unaccounted`` when not zero).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from survey_tools.corpus.inputs import Reads
from survey_tools.corpus.screening_logs import DECISIONS, QUEUE, RUNS, read_log
from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.reports.tables import md, md_table


@dataclass(frozen=True)
class LivingFlow:
    runs: int
    first_run: str
    last_run: str
    source: str
    identified: int  # distinct records per run, summed over runs
    per_family: dict[str, int]  # hits per family over all runs
    duplicates: int
    screened: int
    excluded_by_stage: dict[str, int]
    excluded_by_reason: dict[str, int]
    included: int
    awaiting: int
    records: frozenset[str] = field(default=frozenset())  # record paths decided from the queue

    @property
    def excluded(self) -> int:
        return sum(self.excluded_by_stage.values())

    @property
    def unaccounted(self) -> int:
        return self.identified - self.duplicates - self.screened - self.awaiting

    def to_dict(self) -> dict[str, Any]:
        return {
            "runs": self.runs, "first_run": self.first_run, "last_run": self.last_run,
            "source": self.source, "identified": self.identified,
            "identified_per_family": dict(self.per_family), "duplicates_removed": self.duplicates,
            "screened": self.screened, "excluded_by_stage": dict(self.excluded_by_stage),
            "excluded_by_reason": dict(self.excluded_by_reason), "included": self.included,
            "awaiting_screening": self.awaiting, "last_searched": self.last_run,
        }


def living_flow(reads: Reads) -> LivingFlow | None:
    """The flow, or None when nothing was ever searched; a malformed log raises
    :class:`~survey_tools.errors.InvalidInput` naming each bad entry."""
    runs = read_log(reads, RUNS)
    if not runs:
        return None
    decisions = read_log(reads, DECISIONS)
    per_family: Counter[str] = Counter()
    for r in runs:
        for fam, n in (r.get("hits") or {}).items():
            per_family[str(fam)] += int(n)
    identified = sum(int(r.get("unique", 0)) for r in runs)
    new = sum(int(r.get("new", 0)) for r in runs)
    by_stage: Counter[str] = Counter()
    by_reason: Counter[str] = Counter()
    included = 0
    for d in decisions:
        if d.get("decision") == "retained":
            included += 1
        else:
            by_stage[str(d.get("stage"))] += 1
            by_reason[str(d.get("reason"))] += 1
    awaiting = len(reads.names(QUEUE, ".yaml"))
    dates = sorted(str(r.get("date", "")) for r in runs)
    sources = sorted({str(r.get("source", "")) for r in runs})
    return LivingFlow(
        runs=len(runs), first_run=dates[0], last_run=dates[-1], source=", ".join(sources),
        identified=identified, per_family=dict(sorted(per_family.items())),
        duplicates=identified - new, screened=len(decisions),
        excluded_by_stage=dict(by_stage), excluded_by_reason=dict(by_reason),
        included=included, awaiting=awaiting,
        records=frozenset(str(d.get("record")) for d in decisions if d.get("record")),
    )


def cadence_line(flow: LivingFlow) -> str:
    """When the list was last searched (the newest run of screening/runs.yaml, hand runs
    included) and how many candidates wait in the queue: what a reader needs to judge whether
    the living list is current."""
    n = flow.awaiting
    wait = f"{n} candidate{'s' if n != 1 else ''} wait{'s' if n == 1 else ''} in the screening queue"
    return f"Last searched {flow.last_run}; {wait}."


def ordered(counts: dict[str, int], tax: Taxonomy, field_name: str) -> list[tuple[str, str, int]]:
    """(id, label, n) in the taxonomy field's value order; unknown ids last."""
    cf = tax.find_field(field_name)
    ids = list(cf.ids) if cf else []
    keys = sorted(counts, key=lambda k: (ids.index(k) if k in ids else len(ids), k))
    return [(k, cf.label_of(k) if cf else k, counts[k]) for k in keys]


def living_markdown(flow: LivingFlow, tax: Taxonomy, stage_field: str, reason_field: str,
                    family_labels: dict[str, str]) -> list[str]:
    span = flow.first_run if flow.first_run == flow.last_run else f"{flow.first_run} to {flow.last_run}"
    out = [
        "## Living list: PRISMA 2020 flow",
        "",
        cadence_line(flow),
        "",
        f"From {flow.runs} search run{'s' if flow.runs != 1 else ''} of {flow.source} "
        f"({span}) and the screening decisions since; the survey's "
        "edition is counted in the tables above.",
        "",
    ]
    rows: list[tuple[str, int]] = [(f"Records identified ({md(flow.source)})", flow.identified)]
    rows += [(f"&nbsp;&nbsp;hits of {md(family_labels.get(fam, fam))}", n)
             for fam, n in flow.per_family.items()]
    rows += [("Duplicates removed (already retained, excluded or queued)", flow.duplicates),
             ("Records screened", flow.screened)]
    rows += [(f"Excluded at {md(label.lower())}", n)
             for _k, label, n in ordered(flow.excluded_by_stage, tax, stage_field)]
    rows += [(f"&nbsp;&nbsp;reason: {md(label)}", n)
             for _k, label, n in ordered(flow.excluded_by_reason, tax, reason_field)]
    rows += [("Included", flow.included), ("Awaiting screening", flow.awaiting)]
    if flow.unaccounted:
        rows.append(("Removed from the queue without a decision", flow.unaccounted))
    out.append(md_table(["stage", "count"], rows, "lr", pad=False))
    return [*out, ""]


__all__ = ["LivingFlow", "cadence_line", "living_flow", "living_markdown", "ordered"]
