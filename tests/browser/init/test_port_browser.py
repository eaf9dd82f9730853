"""The tests of test_port.py that drive the built pages in headless Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.external_tools import chromium as find_chromium
from helpers.external_tools import missing_chromium
from helpers.port_cases import port as port  # a fixture, found by name


def test_page_opens_in_chromium(port: Path) -> None:
    chromium = find_chromium()
    if chromium is None:
        pytest.skip(missing_chromium())
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="pip install playwright (the test extra)"
    )
    errors: list[str] = []
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(chromium),
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        try:
            page = browser.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto((port / "reports" / "site" / "index.html").as_uri())
            assert "Synthetic Scheduling Studies" in page.title()
            # every entry is in the page's data; the rows in view are drawn
            page.wait_for_function(
                "document.querySelector('#status').textContent.startsWith('44 ')"
            )
            assert page.locator("#rows tr:not(.spacer)").count() >= 1
        finally:
            browser.close()
    assert not errors, errors
