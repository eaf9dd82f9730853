"""What test_render_page_round2.py shares with the slower tests split from it (by kind, under tests/)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from helpers.survey_copy import SURVEY
from survey_tools.render.bibtex import bibtex_entry

SITE_URL = "https://lists.example.org/rl-mas"


@pytest.fixture(scope="module")
def ctx() -> Any:
    from survey_tools.build import make_context

    return make_context(SURVEY)


@pytest.fixture(scope="module")
def site(ctx: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real survey as `survey build` draws it (corrections, figures), with a site address."""
    from survey_tools.render.generators import _figures
    from survey_tools.render.site import site_files

    survey = ctx.taxonomy.survey
    tax = replace(ctx.taxonomy, survey={**survey, "site": {**survey["site"], "url": SITE_URL}})
    folder = tmp_path_factory.mktemp("site2")
    for rel, text in site_files(
        tax, ctx.display, ctx.stats, bibtex_entry, ctx.corrections, _figures(ctx)
    ).items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder / "index.html"
