"""The browsing page in a real headless Chromium: filters, counts, search, sort, URL hash, tabs,
escaping and phone width. Row counts are checked against the statistics, not typed in."""

from __future__ import annotations

import re

from helpers.render_support import Built

from survey_tools.render.site import render_site


def test_render_is_deterministic(real: Built) -> None:
    assert render_site(real.tax, real.corpus, real.stats) == render_site(
        real.tax, real.corpus, real.stats
    )


def test_page_is_self_contained(real: Built) -> None:
    html = render_site(real.tax, real.corpus, real.stats)
    # No stylesheet, script or image to fetch (the feed's <link rel="alternate"> is not loaded;
    # the icon is a data: URI).
    links = re.findall(r"<link [^>]*>", html)
    assert all(
        'rel="alternate"' in lk
        or 'rel="canonical"' in lk
        or 'rel="icon" type="image/svg+xml" href="data:' in lk
        for lk in links
    ), links
    assert " src=" not in html
    assert len(html.encode()) < 400_000
