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
REPO = Path(__file__).resolve().parents[2]

CASES = yaml.safe_load((DATA / "claims" / "cases.yaml").read_text(encoding="utf-8"))


def _report(root: Path):  # type: ignore[no-untyped-def]
    tax = load_taxonomy(root)
    source, claims = load_claims(tax)
    return evaluate_claims(load_corpus(root, tax), claims, source)


def test_seeded_claims_report_the_survey_contradictions(survey: Path) -> None:
    report = _report(survey)
    counts = {r.claim.id: r.count for r in report.results}
    assert counts["retained-total"] == 84 and counts["excluded-total"] == 32
    assert counts["audited-total"] == 116
    assert [counts[f"excluded-{s}"] for s in ("abstract", "full-text", "artifact", "duplicate")] == [16, 9, 6, 1]
    assert (counts["message-credit"], counts["message-credit-strict"]) == (2, 1)
    assert (counts["orchestrator-credit"], counts["orchestrator-credit-strict"]) == (8, 5)
    assert (counts["hybrid-reward"], counts["shared-reward"], counts["orchestration-reward"]) == (15, 10, 7)
    assert (counts["agent-credit"], counts["role-credit"]) == (23, 10)
    assert all(counts[f"o{i}-learned"] >= 1 for i in range(1, 5))
    o5 = report.result("o5-learned")
    assert o5.matches == ("puppeteer",) and o5.claim.paper_value == 0 and o5.status == "contradicted"
    assert report.to_dict()["contradicted"] == ["o5-learned", "figure-o1-spawn", "figure-o3-communicate"]
    assert report.counts() == {"holds": 25, "changed": 0, "contradicted": 3}
    # numbers in statements come from the data
    assert report.result("retained-total").statement == "The review retains 84 works."
    assert report.result("o1-learned").statement.startswith("At least 1 retained work")


def _add_record(root: Path, key: str, title: str, **tags: str) -> None:
    text = (REPO / "corpus" / "hera.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    data.update({"key": key, "title": title, "identifiers": {"arxiv": "2604.99999"},
                 "links": ["https://arxiv.org/abs/2604.99999"], "edition": "living", "added": "2026-05-20"})
    data.update(tags)
    (root / "corpus" / f"{key}.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def test_survey_claims_keep_holding_when_the_list_grows(survey: Path) -> None:
    _add_record(survey, "brand-new-work", "A Brand New Orchestration Study", credit_granularity="message")
    report = _report(survey)
    # the survey's claims are evaluated on its edition: unchanged
    assert report.result("retained-total").status == "holds"
    assert report.result("retained-total").count == 84
    assert report.result("message-credit").status == "holds"
    r = report.result("message-credit")
    assert (r.count, r.compared_with, r.other_count, r.moved_in) == (2, "living", 3, ("brand-new-work",))
    # claims about the living list show the change
    living = report.result("living-retained")
    assert (living.status, living.count, living.other_count) == ("changed", 85, 84)
    assert living.moved_in == ("brand-new-work",)
    assert living.statement == "The living list retains 85 works (84 in the survey's edition)."


def test_a_changed_tag_is_reported_and_gated_only_on_request(survey: Path) -> None:
    path = survey / "corpus" / "hera.yaml"
    path.write_text(path.read_text().replace("credit_granularity: orchestrator", "credit_granularity: message"))
    result = CliRunner().invoke(cli, ["--root", str(survey), "claims"])
    assert result.exit_code == 0, result.output
    assert "FAIL message-credit: 3 retained works assign credit at the message level." in result.output
    assert "28 claims: 23 hold, 0 changed since the edition, 5 contradicted" in result.output
    result = CliRunner().invoke(cli, ["--root", str(survey), "claims", "--fail-on", "contradicted"])
    assert result.exit_code == 1
    assert (
        "data/claims.yaml:48: claim message-credit: contradicted on 2605.02801v1 (count == 2, count 3)"
        in result.output
    )
    # the build reports and writes
    result = CliRunner().invoke(cli, ["--root", str(survey), "build"])
    assert result.exit_code == 0, result.output
    claims_md = (survey / "reports" / "CLAIMS.md").read_text(encoding="utf-8")
    assert "- **message-credit** (Survey v1): \"3 retained works assign credit at the message level.\"" in claims_md


def test_gate_in_the_claims_file(survey: Path) -> None:
    path = survey / "data" / "claims.yaml"
    path.write_text(path.read_text().replace("view: 2605.02801v1\n", "view: 2605.02801v1\ngate: [retained-total, living-retained]\n", 1))
    assert CliRunner().invoke(cli, ["--root", str(survey), "claims"]).exit_code == 0
    _add_record(survey, "brand-new-work", "A Brand New Orchestration Study")
    result = CliRunner().invoke(cli, ["--root", str(survey), "claims"])
    assert result.exit_code == 1
    assert "claim living-retained: changed on living (count >= 1, count 85); since the edition, in: brand-new-work; out: none" in result.output


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
