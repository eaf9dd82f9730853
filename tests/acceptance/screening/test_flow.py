"""The living list's PRISMA 2020 flow in STATS.md, stats.json and the figure; the edition's own flow."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.search_server import SearchServer
from helpers.support import run

from survey_tools.corpus.loading import load_corpus
from survey_tools.reports.plots import plot_outputs
from survey_tools.reports.report_config import load_config
from survey_tools.reports.stats import compute_stats
from survey_tools.reports.stats_output import stats_markdown

FAST = ["--delay", "0", "--backoff", "0", "--timeout", "2"]


def test_living_flow_counts_and_figure(living: Path, search_server: SearchServer) -> None:
    run(living, "search", "--since", "2025-01-01", "--arxiv-url", search_server.url, *FAST, ok=True)
    run(living, "search", "--since", "2025-01-01", "--arxiv-url", search_server.url, *FAST, ok=True)
    run(living, "screen", "2507.90001", "--retain", "--date", "2026-05-12", ok=True)
    run(living, "screen", "2507.90003", "--exclude", "--stage", "abstract_screen", "--reason",
        "prompted_only", "--note", "Prompted only.", "--date", "2026-05-12", ok=True)
    corpus = load_corpus(living)
    config = load_config(corpus.taxonomy)
    stats = compute_stats(corpus, config)
    flow = stats.to_dict()["living"]
    assert flow["runs"] == 2 and flow["identified"] == 18 and flow["duplicates_removed"] == 12
    assert flow["screened"] == 2 and flow["included"] == 1 and flow["awaiting_screening"] == 4
    assert flow["excluded_by_stage"] == {"abstract_screen": 1}
    assert flow["identified_per_family"]["safety"] == 18
    first = plot_outputs(corpus, stats, config)
    again = plot_outputs(load_corpus(living), compute_stats(load_corpus(living), config), config)
    assert first == again  # deterministic
    svg = first["reports/figures/living-flow.svg"].decode()
    assert "n = 18" in svg and "Duplicates removed" in svg and "n = 4" in svg
    # The screening flow prints the page's own headline counts (the whole list: retained and
    # screened), never a number of its own (issue 56: the figure said 107 where the page said 131).
    edition = first["reports/figures/screening-flow.svg"].decode()
    retained = len(corpus.retained)
    screened = retained + len(corpus.excluded)
    assert f"n = {retained}" in edition and f"n = {screened}" in edition


def test_stats_markdown_has_the_living_section(living: Path, search_server: SearchServer) -> None:
    run(living, "search", "--since", "2025-01-01", "--arxiv-url", search_server.url, *FAST, ok=True)
    corpus = load_corpus(living)
    stats = compute_stats(corpus, load_config(corpus.taxonomy))
    md = stats_markdown(corpus.taxonomy, stats)
    assert "## Living list: PRISMA 2020 flow" in md
    assert "| Records identified (arXiv) | 9 |" in md
    assert "| Awaiting screening | 6 |" in md
    assert json.dumps(stats.to_dict())
