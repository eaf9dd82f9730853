"""Claims: the seeded claims hold on the real corpus; bad claims files name the claim."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from survey_tools.cli import cli
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.errors import InvalidInput
from survey_tools.reports.claims import evaluate_claims, load_claims

DATA = Path(__file__).resolve().parents[1] / "data"

CASES = yaml.safe_load((DATA / "claims" / "cases.yaml").read_text(encoding="utf-8"))


def _report(root: Path):  # type: ignore[no-untyped-def]
    tax = load_taxonomy(root)
    source, claims = load_claims(tax)
    return evaluate_claims(load_corpus(root, tax), claims, source)


def test_seeded_claims_hold_and_show_the_survey_contradiction(survey: Path) -> None:
    report = _report(survey)
    assert report.ok, [r.summary() for r in report.failed]
    counts = {r.claim.id: r.actual for r in report.results}
    assert counts["retained-total"] == 84 and counts["excluded-total"] == 32
    assert counts["audited-total"] == 116
    assert [counts[f"excluded-{s}"] for s in ("abstract", "full-text", "artifact", "duplicate")] == [16, 9, 6, 1]
    assert (counts["message-credit"], counts["message-credit-strict"]) == (2, 1)
    assert (counts["orchestrator-credit"], counts["orchestrator-credit-strict"]) == (8, 5)
    assert (counts["hybrid-reward"], counts["shared-reward"], counts["orchestration-reward"]) == (15, 10, 7)
    assert (counts["agent-credit"], counts["role-credit"]) == (23, 10)
    assert all(counts[f"o{i}-learned"] >= 1 for i in range(1, 5))
    o5 = report.result("o5-learned")
    assert o5.matches == ("puppeteer",) and o5.claim.survey_expected == 0 and o5.survey_ok is False
    assert "o5-learned" in report.to_dict()["contradicting_survey"]


def test_changed_tag_fails_claims_naming_claim_counts_and_records(survey: Path) -> None:
    path = survey / "corpus" / "hera.yaml"
    path.write_text(path.read_text().replace("credit_granularity: orchestrator", "credit_granularity: message"))
    result = CliRunner().invoke(cli, ["--root", str(survey), "claims"])
    assert result.exit_code == 1
    assert "data/claims.yaml:45: claim message-credit: expected == 2, actual 3; records that moved in: hera; moved out: none" in result.output
    assert "claim orchestrator-credit: expected == 8, actual 7; records that moved in: none; moved out: hera" in result.output
    # build refuses and names the same claims; nothing is written
    result = CliRunner().invoke(cli, ["--root", str(survey), "build"])
    assert result.exit_code == 1
    assert "claim message-credit: expected == 2, actual 3" in result.output
    assert not (survey / "reports").exists()


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_bad_claims_files(survey: Path, case: dict) -> None:  # type: ignore[type-arg]
    (survey / "data" / "claims.yaml").write_text(case["claims"], encoding="utf-8")
    with pytest.raises(InvalidInput) as info:
        load_claims(load_taxonomy(survey))
    assert [p.format() for p in info.value.problems] == case["problems"]


def test_claims_json_equals_library(survey: Path) -> None:
    import json

    result = CliRunner().invoke(cli, ["--root", str(survey), "claims", "--format", "json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout) == json.loads(json.dumps(_report(survey).to_dict()))
