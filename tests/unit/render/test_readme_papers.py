"""The README's list of entries written by markdown.papers_markdown is the text the package's
readme/partials/papers.md.j2 renders, for the fixture survey, the hostile corpus and a synthetic
corpus, each also grouped and ungrouped, with marks, new entries and hostile texts."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from helpers.render_support import Built, build_inputs

from survey_tools.render.markdown import (
    PAPERS_PARTIAL,
    environment,
    papers_markdown,
    readme_context,
    render_readme,
    tidy,
)

_HOSTILE = "a *b* _c_ [d](e) `f` <g> | h \\ i!"


def _jinja(ctx: dict[str, Any]) -> str:
    return environment().get_template(PAPERS_PARTIAL).render(**ctx)


def _ctx(b: Built) -> dict[str, Any]:
    return readme_context(b.tax, b.corpus, b.stats)


def _variants(ctx: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for grouped, marks, order, new in itertools.product(
        (True, False), (True, False), ("title", "newest"), (True, False)
    ):
        groups = ctx["groups"] if grouped else [{**ctx["groups"][0], "description": ""}]
        entries = [
            {
                **e,
                "new": new,
                "added": "2026-01-01" if new and i % 2 else "",
                "summary": e["summary"] if i % 3 else "",
                "anchors": ["x-1", "y"] if i % 4 == 0 else [],
                "title": e["title"] + (_HOSTILE if i % 5 == 0 else ""),
            }
            for i, e in enumerate(groups[0]["entries"][:40])
        ]
        out.append(
            {
                **ctx,
                "group_label": ctx["group_label"] if grouped else "",
                "conf": {**ctx["conf"], "entry_order": order},
                "map_marks": [{"mark": "†", "legend": "read from *code*"}] if marks else [],
                "edition": ctx["edition"] or {"label": "Edition <1>"},
                "groups": [{**groups[0], "entries": entries, "description": _HOSTILE}, *groups[1:]],
            }
        )
    return out


def test_the_fixture_and_hostile_surveys(real: Built, hostile: Built) -> None:
    for b in (real, hostile):
        ctx = _ctx(b)
        assert papers_markdown(ctx) == _jinja(ctx)
        for v in _variants(ctx):
            assert papers_markdown(v) == _jinja(v)


def test_a_synthetic_corpus(tmp_path: Path) -> None:
    from benchmarks.bench_validate import make_corpus

    root = make_corpus(300, tmp_path)
    for rec in (root / "corpus").glob(
        "*.yaml"
    ):  # as benchmarks/bench_incremental.py: an edition each
        rec.write_text(
            rec.read_text(encoding="utf-8") + "edition: 2605.02801v1\n", encoding="utf-8"
        )
    ctx = _ctx(build_inputs(root))
    assert papers_markdown(ctx) == _jinja(ctx)


def test_the_readme_is_the_templates(real: Built) -> None:
    """The whole README with the list written in Python, against the package's templates alone."""
    ctx = _ctx(real)
    assert render_readme(real.tax, real.corpus, real.stats) == tidy(
        environment().get_template("readme/README.md.j2").render(**ctx)
    )
