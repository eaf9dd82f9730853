"""The tests of test_render_markdown.py that build the whole real survey or run the `survey` command end to end."""

from __future__ import annotations

from helpers.render_support import REPO


def test_committed_readme_and_contributing_are_current() -> None:
    # The files the build's own generator writes (with figures and gaps) match the commit.
    from survey_tools.build import make_context
    from survey_tools.render.generators import GENERATORS

    ctx = make_context(REPO)  # the committed files against the live survey they come from
    out = {**GENERATORS["readme"](ctx), **GENERATORS["contributing"](ctx)}
    for rel in ("README.md", "CONTRIBUTING.md"):
        assert (REPO / rel).read_text(encoding="utf-8") == out[rel], (
            f"{rel} is stale: run survey build"
        )
