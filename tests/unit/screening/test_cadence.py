"""The living list's cadence: `survey stats`, STATS.md, the README and the site say when the
list was last searched and how many candidates wait; `survey validate --strict` (maintainers)
warns when the newest search run is more than 31 days old."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import yaml
from helpers.support import REPO, run

from survey_tools.corpus.inputs import Reads
from survey_tools.corpus.screening_logs import newest_run, stale_search_warning
from survey_tools.render.markdown import render_readme
from survey_tools.render.site import STATS_FILE, site_files
from survey_tools.reports.compute import compute_survey
from survey_tools.reports.living import cadence_line, living_flow

PLAIN = REPO / "tests" / "data" / "found" / "valid" / "plain.csv"


def _searched(root: Path, *dates: str) -> None:
    """One hand run per date (the first queues plain.csv's candidate; later ones find it known)."""
    for d in dates:
        r = run(root, "screen", "import-found", str(PLAIN), "--date", d)
        assert r.exit_code == 0, r.output


def test_the_cadence_line_names_the_newest_run_and_the_queue(living: Path) -> None:
    _searched(living, "2026-11-28", "2026-11-26")  # logged out of order: the newest counts
    flow = living_flow(Reads(living))
    assert flow is not None
    assert (
        cadence_line(flow) == "Last searched 2026-11-28; 1 candidate waits in the screening queue."
    )
    assert newest_run(living) == dt.date(2026, 11, 28)
    assert flow.to_dict()["last_searched"] == "2026-11-28"


def test_stats_readme_and_site_say_it(living: Path) -> None:
    _searched(living, "2026-11-28")
    line = "Last searched 2026-11-28; 1 candidate waits in the screening queue."
    r = run(living, "stats")
    assert r.exit_code == 0, r.output
    head = r.stdout.split("## By edition")[0]
    assert line in head.splitlines()  # beside the headline counts, not only in the flow below
    s = compute_survey(living)
    readme = render_readme(s.taxonomy, s.corpus, s.stats)
    assert "Last searched 2026-11-28; 1 candidate waits in the screening queue. So far:" in readme
    files = site_files(s.taxonomy, s.corpus, s.stats)
    assert str(files[STATS_FILE]).count(f'<p class="cadence">{line}</p>') == 1
    index = next(
        str(files[rel])
        for rel in files
        if rel.endswith(".html") and "/" not in rel and rel != STATS_FILE
    )
    footer = index.split('<footer class="site">', 1)[1]
    assert f" {line}</p>" in footer


def test_validate_strict_warns_when_the_search_is_stale(living: Path) -> None:
    today = dt.date.today()
    old = (today - dt.timedelta(days=40)).isoformat()
    _searched(living, old)
    warning = (
        f"warning: screening/runs.yaml: the newest search run is from {old}, 40 days ago "
        "(more than 31): run `survey search` (or log a hand search with `survey screen "
        "import-found`) so that the living list stays current"
    )
    strict = run(living, "validate", "--strict")
    assert strict.exit_code == 0, strict.output  # a warning: the exit code is unchanged
    assert warning in strict.stderr.splitlines()
    # A contributor's run (no --strict) never shows it.
    assert "newest search run" not in run(living, "validate").stderr
    assert (
        "newest search run"
        not in run(living, "validate", "--strict", "--max-search-age", "40").stderr
    )


def test_a_current_or_absent_search(living: Path) -> None:
    today = dt.date(2026, 12, 2)
    assert stale_search_warning(living, today) == (
        "screening/runs.yaml: no search run is logged: run `survey search` (or log a hand search "
        "with `survey screen import-found`)"
    )
    (living / "screening").mkdir(exist_ok=True)
    runs = [
        {"date": "2026-11-01", "source": "s", "unique": 0, "new": 0},
        {"date": "not a date", "source": "s", "unique": 0, "new": 0},
    ]
    (living / "screening/runs.yaml").write_text(yaml.safe_dump(runs), encoding="utf-8")
    assert stale_search_warning(living, today) is None  # 31 days: still current
    assert stale_search_warning(living, today + dt.timedelta(days=1)) is not None
