"""One computed survey: a build opens each configuration file once, and every report can be
asked of a published edition (`--edition`)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from helpers.survey_copy import SURVEY

from survey_tools.cli import cli
from survey_tools.reports.compute import compute_survey

REPO = Path(__file__).resolve().parents[3]
EDITION = "2605.02801v1"




def test_stats_of_the_published_edition() -> None:
    """The survey's own published counts: 84 retained papers and 32 exclusions (the survey
    artifact's papers.csv and excluded.csv, tests/fixtures/survey-artifact)."""
    result = CliRunner().invoke(cli, ["--root", str(SURVEY), "stats", "--edition", EDITION, "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["headline"]["retained"] == 84
    assert data["headline"]["excluded"] == 32
    living = compute_survey(SURVEY)
    edition = living.view(EDITION)
    assert data == edition.stats.to_dict()
    assert edition.stats.headline["retained"] <= living.stats.headline["retained"]
    assert living.view(None) is living and living.view("living") is living


def test_gaps_and_claims_take_an_edition() -> None:
    runner = CliRunner()
    gaps = runner.invoke(cli, ["--root", str(SURVEY), "gaps", "--edition", EDITION, "--format", "json"])
    assert gaps.exit_code == 0, gaps.output
    assert json.loads(gaps.stdout) == compute_survey(SURVEY).view(EDITION).gaps.to_dict()
    claims = runner.invoke(cli, ["--root", str(SURVEY), "claims", "--edition", EDITION, "--format", "json"])
    assert claims.exit_code in (0, 1), claims.output
    views = {r["view"] for r in json.loads(claims.stdout)["results"] if "view" in r}
    assert views == {EDITION}


def test_an_unknown_edition_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["--root", str(SURVEY), "stats", "--edition", "2605.0280v9"])
    assert result.exit_code == 2
    assert "unknown edition '2605.0280v9' (known: 2605.02801v1, living)" in result.output
