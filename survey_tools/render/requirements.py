"""What the selected outputs need from the configuration, checked before anything is built:
known output names, and the README's and page's axes, fields and columns (cross-references a
schema cannot express), each reported at its place in ``taxonomy/survey.yaml``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from survey_tools.corpus.taxonomy import SURVEY_FILE, Taxonomy
from survey_tools.errors import Problem
from survey_tools.render import model
from survey_tools.render.registry import GENERATORS, selected
from survey_tools.reports.axes import resolve_axis
from survey_tools.schema_words import hint


def output_problems(tax: Taxonomy) -> list[Problem]:
    """Unknown output names, and every selected output's unmet requirement, before any is built."""
    doc = tax.document(SURVEY_FILE)
    assert doc is not None  # a loaded taxonomy has its survey.yaml
    out: list[Problem] = []

    def bad(path: tuple[Any, ...], msg: str) -> None:
        line, col = doc.position(path)
        out.append(Problem("taxonomy/survey.yaml", line, col, ".".join(map(str, path)), msg))

    for i, name in enumerate(tax.outputs or ()):
        if name not in GENERATORS:
            bad(("outputs", i), f"{name!r} is not an output (known: {', '.join(GENERATORS)})"
                + hint(name, list(GENERATORS)))
    on = selected(tax)
    if "readme" in on:
        readme_requirements(tax, bad)
    if "site" in on:
        site_requirements(tax, bad)
    return out


def _axis_ok(tax: Taxonomy, spec: str) -> str:
    try:
        resolve_axis(tax, spec)
    except KeyError as err:
        return str(err.args[0]) if err.args else f"unknown axis {spec!r}"
    return ""


def readme_requirements(tax: Taxonomy, bad: Callable[[tuple[Any, ...], str], None]) -> None:
    conf = model.presentation(tax, "readme")
    base = ("survey", "readme")
    controlled = [c.name for c in tax.retained.controlled if c.kind != "mapping"]
    group_by = str(conf.get("group_by") or "")
    if group_by and group_by not in controlled:
        bad((*base, "group_by"), f"{group_by!r} is not a single- or multi-valued controlled field "
            f"of {tax.retained.name}" + hint(group_by, controlled))
    for i, m in enumerate(conf.get("maps") or []):
        msg = _axis_ok(tax, str(m["axis"]))
        if msg:
            bad((*base, "maps", i, "axis"), msg)
        typical = m.get("typical")
        if typical and tax.find_field(str(typical["field"])) is None:
            bad((*base, "maps", i, "typical", "field"), f"{typical['field']!r} is not a controlled field")
    for i, t in enumerate(conf.get("tags") or []):
        msg = _axis_ok(tax, str(t))
        if msg:
            bad((*base, "tags", i), msg)
    rank_by = str(conf.get("rank_by") or "")
    if rank_by and rank_by not in tax.retained.field_names():
        bad((*base, "rank_by"), f"{rank_by!r} is not a field of {tax.retained.name}"
            + hint(rank_by, tax.retained.field_names()))
    ex = tax.excluded
    for i, c in enumerate(conf.get("exclusion_columns") or []):
        if ex is None:
            bad((*base, "exclusion_columns"), "the survey has no exclusion collection; leave this out")
            break
        if c not in ex.field_names():
            bad((*base, "exclusion_columns", i), f"{c!r} is not a field of {ex.name}" + hint(c, ex.field_names()))


def site_requirements(tax: Taxonomy, bad: Callable[[tuple[Any, ...], str], None]) -> None:
    conf = model.presentation(tax, "site")
    base = ("survey", "site")
    for key in ("facets", "columns"):
        for i, spec in enumerate(conf.get(key) or []):
            msg = _axis_ok(tax, str(spec))
            if msg:
                bad((*base, key, i), msg)
    rng = str(conf.get("range") or "")
    if rng:
        msg = _axis_ok(tax, rng)
        if msg:
            bad((*base, "range"), msg)
    names = tax.retained.field_names()
    for i, f in enumerate(conf.get("search") or []):
        if str(f) not in names:
            bad((*base, "search", i), f"{f!r} is not a field of {tax.retained.name}" + hint(str(f), names))
