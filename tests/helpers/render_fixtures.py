"""Fixtures of the render tests: the real corpus built once, a corpus with a hostile title, and one
headless Chromium shared by every browser test (Debian's, driven by Playwright)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from helpers.render_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    Built,
    build_inputs,
    make_hostile_survey,
)
from helpers.survey_copy import SURVEY


@pytest.fixture(scope="session")
def real() -> Built:
    """The repository's own taxonomy and records."""
    return build_inputs(SURVEY)


@pytest.fixture(scope="session")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build_inputs(make_hostile_survey(tmp_path_factory.mktemp("hostile") / "survey"))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module (starting it costs more than a test). Not for the whole
    session: Playwright's sync API keeps an asyncio loop running in the main thread while it is open,
    and later tests that call asyncio.run (the Agents SDK's, say) must not find it running."""
    if CHROMIUM is None or not CHROMIUM.is_file():
        where = "on PATH" if CHROMIUM is None else f"at {CHROMIUM}"
        pytest.skip(f"Chromium is not installed (none {where}): install it with `apt-get install -y chromium`")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed: pip install -e '.[test]'")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def pages(browser: Any) -> Iterator[list[Any]]:
    opened: list[Any] = []
    yield opened
    for pg in opened:
        errors = pg.errors
        pg.context.close()
        assert not errors, errors
