"""The report configuration: what ``survey build`` tabulates, maps for gaps and plots.

``data/reports.yaml`` (``files.reports`` in ``taxonomy/survey.yaml`` may move it) has its shape
in ``corpus/config_schemas/reports.schema.yaml``, checked through the one explainer; this module
checks only what the schema cannot say (axes and views named from the taxonomy) and turns the
file into a :class:`ReportConfig`. A new key: its schema entry, then a field here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from survey_tools.corpus.configs import checked
from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.corpus.views import view_ids
from survey_tools.corpus.yamlio import YamlDocument
from survey_tools.errors import InvalidInput, Problem
from survey_tools.reports.axes import known_axes


@dataclass(frozen=True)
class ReportConfig:
    """The hand-written choices of what to tabulate (``data/reports.yaml``)."""

    path: str
    headline_total: str = "total"
    crosstabs: tuple[tuple[str, str], ...] = ()
    # The view of each crosstab and gap table ("" = the living list; else an edition id).
    crosstab_views: tuple[str, ...] = ()
    gap_k: int = 2
    strict_label: str = ""
    strict_where: Mapping[str, Any] = field(default_factory=dict)
    gap_tables: tuple[tuple[str, str], ...] = ()
    gap_views: tuple[str, ...] = ()
    plots: tuple[Mapping[str, Any], ...] = ()
    # Printed next to the agreement figures (reports/AGREEMENT.md): how the audit was made.
    agreement_caveat: str = ""
    positions: Mapping[tuple[Any, ...], tuple[int, int]] = field(default_factory=dict, repr=False)

    def where(self, path: tuple[Any, ...]) -> tuple[int, int]:
        return self.positions.get(path, (0, 0))


def load_config(tax: Taxonomy) -> ReportConfig:
    """Read and check the report configuration; every problem at once, with file and line."""
    rel = tax.data_file("reports")
    doc = tax.document(rel)
    if doc is None:
        return ReportConfig(path=rel)
    doc, problems = checked("reports", doc, rel)
    if doc.problems:
        raise InvalidInput(problems, f"{rel} cannot be read")
    if problems:  # the schema names every shape mistake; below, only names from the taxonomy
        raise InvalidInput(problems, f"{rel} is invalid")
    d = doc.data if isinstance(doc.data, dict) else {}
    problems = _reference_problems(tax, doc, rel, d)
    if problems:
        raise InvalidInput(problems, f"{rel} is invalid")
    return _config(rel, doc, d)


def _reference_problems(
    tax: Taxonomy, doc: YamlDocument, rel: str, d: Mapping[str, Any]
) -> list[Problem]:
    """Axes and views the file names that the taxonomy does not have."""
    axes = set(known_axes(tax))
    views = view_ids(tax)
    known = ", ".join(views) or "none: taxonomy/survey.yaml declares no editions"
    problems: list[Problem] = []

    def bad(p: tuple[Any, ...], msg: str) -> None:
        line, col = _pos(doc, p)
        problems.append(Problem(rel, line, col, ".".join(map(str, p)), msg))

    def tables(key: tuple[Any, ...], items: Any) -> None:
        known_axes_only = []
        for i, item in enumerate(items or []):
            unknown = [side for side in ("rows", "cols") if item[side] not in axes]
            for side in unknown:
                bad((*key, i, side), f"unknown axis {item[side]!r}")
            if not unknown:
                known_axes_only.append(((*key, i), item))
        views_of(known_axes_only)

    def views_of(items: Iterable[tuple[tuple[Any, ...], Any]]) -> None:
        for p, item in items:
            if item.get("view") and item["view"] not in views:
                bad((*p, "view"), f"unknown view {item['view']!r} (known: {known})")

    tables(("crosstabs",), d.get("crosstabs"))
    tables(("gaps", "tables"), (d.get("gaps") or {}).get("tables"))
    views_of((("plots", i), x) for i, x in enumerate(d.get("plots") or []))
    return problems


def _pairs(raw: Any) -> tuple[tuple[str, str], ...]:
    return tuple((str(x["rows"]), str(x["cols"])) for x in raw or [])


def _views(raw: Any) -> tuple[str, ...]:
    return tuple(str(x.get("view", "")) for x in raw or [])


def _config(rel: str, doc: YamlDocument, d: Mapping[str, Any]) -> ReportConfig:
    """The checked file as a :class:`ReportConfig`, with the position of every key and item."""
    gaps = d.get("gaps") or {}
    strict = gaps.get("strict") or {}
    caveat = (d.get("agreement") or {}).get("caveat", "")
    return ReportConfig(
        path=rel,
        headline_total=str(d.get("headline_total", "total")),
        crosstabs=_pairs(d.get("crosstabs")),
        crosstab_views=_views(d.get("crosstabs")),
        gap_k=gaps.get("k", 2),
        # No strict filter configured: no label, and the gap maps show plain counts.
        strict_label=str(strict.get("label", "strict")) if strict else "",
        strict_where=strict.get("where", {}),
        gap_tables=_pairs(gaps.get("tables")),
        gap_views=_views(gaps.get("tables")),
        plots=tuple(d.get("plots") or []),
        agreement_caveat=" ".join(caveat.split()),
        positions={key: _pos(doc, key) for key in _all_paths(d)},
    )


def _pos(doc: YamlDocument, path: tuple[Any, ...]) -> tuple[int, int]:
    try:
        return doc.position(path)
    except (KeyError, IndexError, TypeError):
        return (0, 0)


def _all_paths(data: Any, prefix: tuple[Any, ...] = ()) -> Iterable[tuple[Any, ...]]:
    yield prefix
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _all_paths(v, (*prefix, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _all_paths(v, (*prefix, i))
