"""Claims: the survey's ledger on the real corpus (paper value, edition, living list, with
corrections); bad claims files name the claim."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from helpers.survey_copy import SURVEY

from survey_tools.cli import cli
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.errors import InvalidInput
from survey_tools.reports.claims_file import load_claims
from survey_tools.reports.compute import survey_of

DATA = Path(__file__).resolve().parents[2] / "data"
REPO = Path(__file__).resolve().parents[3]

CASES = yaml.safe_load((DATA / "claims" / "cases.yaml").read_text(encoding="utf-8"))


def _report(root: Path):  # type: ignore[no-untyped-def]
    """What `survey claims` reports: every claim, with the count the proposed corrections give."""
    corpus = load_corpus(root, load_taxonomy(root))
    return survey_of(corpus).claims


def _claims_file(root: Path) -> dict:  # type: ignore[type-arg]
    return yaml.safe_load((root / "data" / "claims.yaml").read_text(encoding="utf-8"))


def _line_of(root: Path, claim_id: str) -> int:
    lines = (root / "data" / "claims.yaml").read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if line == f"- id: {claim_id}")


def test_every_claim_states_the_papers_value_and_where(survey_ro: Path) -> None:
    """The claims file is the survey's ledger: each entry has a source and the paper's value, and
    no condition is one that cannot fail."""
    data = _claims_file(survey_ro)
    for c in data["claims"]:
        sources = c.get("source") or []
        sources = sources if isinstance(sources, list) else [sources]  # one source or a list of them
        assert sources and all(src.get("document") for src in sources), c["id"]
        assert "paper_value" in c, c["id"]
        if isinstance(c["paper_value"], str):  # the paper's words: the condition says what they mean
            assert "value" in c, c["id"]
        assert (c.get("op", "=="), c.get("value", c["paper_value"])) not in {(">=", 0), ("<", 0)}, c["id"]
    for n in data["not_checkable"]:
        assert n["source"]["document"] and n["reason"].strip() and "paper_value" in n, n["id"]
    # a figure that names works as covering a sub-decision: they must touch it, learned or designed
    for c in data["claims"]:
        if c["id"].startswith("figure-o"):
            (modes,) = c["where"]["subdecisions"].values()
            assert sorted(modes) == ["designed", "learned"], c["id"]


def test_the_ledger_on_the_survey_edition(survey: Path) -> None:
    report = _report(survey)
    counts = {r.claim.id: r.count for r in report.results}
    assert counts["retained-total"] == 84 and counts["excluded-total"] == 32
    assert counts["audited-total"] == 116
    assert [counts[f"excluded-{s}"] for s in ("abstract", "full-text", "artifact", "duplicate")] == [16, 9, 6, 1]
    assert (counts["message-credit"], counts["message-credit-strict"]) == (2, 1)
    assert (counts["orchestrator-credit"], counts["orchestrator-credit-strict"]) == (8, 5)
    o5 = report.result("o5-learned")
    assert o5.matches == ("puppeteer",) and o5.claim.paper_value == 0 and o5.status == "contradicted"
    # the O5 statement is counted once (the ledger, the stress test and the figure are its sources);
    # the audit covers the five industrial rows of its own scope; the README's map tables disagree
    # with the survey's CSV on the rows named in each claim's finding
    assert report.to_dict()["contradicted"] == [
        "o5-learned", "spotcheck-covers-sparse-rows",
        "readme-reward-family-r2", "readme-reward-family-r3", "readme-reward-family-r4",
        "readme-reward-family-r5", "readme-reward-family-r8",
        "readme-topology-centralized", "readme-topology-hierarchical",
    ]
    assert report.counts() == {"holds": 177, "changed": 0, "contradicted": 9, "not checkable": 6}
    assert report.result("spotcheck-covers-industry").status == "holds"
    assert report.result("readme-reward-family-r5").matches == ()
    assert report.result("readme-topology-centralized").matches == ("puppeteer",)
    assert report.result("readme-topology-hierarchical").matches == ("depart2026", "halo", "lamo2026")
    # the figure's named works touch their sub-decision (the caption says "cover", not "learned")
    for cid in ("figure-o1-spawn", "figure-o2-delegate", "figure-o3-communicate", "figure-o4-aggregate"):
        assert report.result(cid).status == "holds"
    # Kimi K2.6 is deployment evidence, not an independent training claim
    k26 = report.result("ledger-kimi-k26-not-training")
    assert (k26.count, k26.status) == (0, "holds")
    # the spot-check figures are counted on the audit file
    assert [report.result(f"spotcheck-{f}").count for f in ("rows", "category", "credit-granularity")] == [32, 32, 31]
    assert report.result("spotcheck-strict-orchestrator").matches == ("kimi-k2-5", "owl2025", "paramanager", "puppeteer")
    assert report.result("spotcheck-covers-sparse-rows").matches == ("wideseek-r1-2026",)
    # numbers in statements come from the data
    assert report.result("retained-total").statement == "The survey retains 84 entries."
    assert report.result("o1-anchor").statement.startswith("O1 has at least 1 retained anchor")
    # what the proposed corrections would make of the strict orchestrator cell (C009, C017, C018)
    strict = report.result("orchestrator-credit-strict")
    assert (strict.claim.paper_value, strict.edition_count, strict.corrected) == (5, 5, 2)


def test_json_lists_every_ledger_entry_with_a_status(survey_ro: Path) -> None:
    data = _claims_file(survey_ro)
    ids = [c["id"] for c in data["claims"]] + [n["id"] for n in data["not_checkable"]]
    result = CliRunner().invoke(cli, ["--root", str(survey_ro), "claims", "--format", "json"])
    assert result.exit_code == 0
    listed = {r["id"]: r for r in json.loads(result.stdout)["results"]}
    assert sorted(listed) == sorted(ids)
    assert {listed[n["id"]]["status"] for n in data["not_checkable"]} == {"not checkable"}
    assert all(listed[c["id"]]["status"] in ("holds", "changed", "contradicted") for c in data["claims"])
    r = listed["orchestrator-credit-strict"]
    assert (r["paper_value"], r["edition_count"], r["with_corrections"]) == (5, 5, 2)
    assert r["source"][0]["document"] == "docs/claim_ledger.md"


def _add_record(root: Path, key: str, title: str, **tags: str) -> None:
    text = (SURVEY / "corpus" / "hera.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    data.update({"key": key, "title": title, "identifiers": {"arxiv": "2604.99999"},
                 "links": ["https://arxiv.org/abs/2604.99999"], "edition": "living", "added": "2026-05-20",
                 # its own words and evidence (a copy of hera's is refused by validation)
                 "summary": f"{title}: a later work added to the living list for this test."})
    for value in (data.get("subdecisions") or {}).values():
        if isinstance(value, dict) and "evidence" in value:
            value["evidence"] = "https://arxiv.org/abs/2604.99999"
    data.update(tags)
    (root / "corpus" / f"{key}.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


LIVING_CLAIM = """- id: living-message-credit
  statement: The living list holds {count} works with message-level credit ({edition_count} in the survey's edition).
  view: living
  where: {credit_granularity: message}
  op: "<="
  value: 5
"""


def _add_living_claim(root: Path) -> None:
    path = root / "data" / "claims.yaml"
    path.write_text(path.read_text().replace("\nnot_checkable:\n", "\n" + LIVING_CLAIM + "not_checkable:\n", 1))


def test_survey_claims_keep_holding_when_the_list_grows(survey: Path) -> None:
    _add_living_claim(survey)
    _add_record(survey, "brand-new-work", "A Brand New Orchestration Study", credit_granularity="message")
    report = _report(survey)
    # the survey's claims are evaluated on its edition: unchanged
    assert report.result("retained-total").status == "holds"
    assert report.result("retained-total").count == 84
    r = report.result("message-credit")
    assert r.status == "holds"
    assert (r.count, r.compared_with, r.other_count, r.moved_in) == (2, "living", 3, ("brand-new-work",))
    assert (r.edition_count, r.living_count) == (2, 3)
    # a claim about the living list shows the change
    living = report.result("living-message-credit")
    assert (living.status, living.count, living.other_count) == ("changed", 3, 2)
    assert living.moved_in == ("brand-new-work",)
    assert living.statement == "The living list holds 3 works with message-level credit (2 in the survey's edition)."


def test_a_changed_tag_is_reported_and_gated_only_on_request(survey: Path) -> None:
    path = survey / "corpus" / "hera.yaml"
    path.write_text(path.read_text().replace("credit_granularity: orchestrator", "credit_granularity: message"))
    result = CliRunner().invoke(cli, ["--root", str(survey), "claims"])
    assert result.exit_code == 0, result.output
    assert "FAIL message-credit: 2 retained entries carry a message-level credit tag." in result.output
    total = _report(survey).counts()
    assert (
        f"{total['holds'] + total['changed'] + total['contradicted']} claims: {total['holds']} hold, 0 changed since the edition, {total['contradicted']} contradicted, "
        "6 not checkable" in result.output
    )
    result = CliRunner().invoke(cli, ["--root", str(survey), "claims", "--fail-on", "contradicted"])
    assert result.exit_code == 1
    line = _line_of(survey, "message-credit")
    assert (
        f"data/claims.yaml:{line}: claim message-credit: contradicted on 2605.02801v1 (count == 2, count 3)"
        in result.output
    )
    # the build reports and writes
    result = CliRunner().invoke(cli, ["--root", str(survey), "build"])
    assert result.exit_code == 0, result.output
    claims_md = (survey / "reports" / "CLAIMS.md").read_text(encoding="utf-8")
    assert "- **message-credit** (Survey v1): \"2 retained entries carry a message-level credit tag.\" The records give **3**" in claims_md


def test_claims_md_shows_paper_edition_living_and_corrections(survey: Path) -> None:
    _add_record(survey, "brand-new-work", "A Brand New Orchestration Study", credit_granularity="message")
    result = CliRunner().invoke(cli, ["--root", str(survey), "build"])
    assert result.exit_code == 0, result.output
    md = (survey / "reports" / "CLAIMS.md").read_text(encoding="utf-8")
    assert "| id | claim | section | paper | condition | Survey v1 | Living list | with corrections | status |" in md
    row = next(line for line in md.splitlines() if line.startswith("| orchestrator-credit-strict |"))
    assert row.endswith("| 5 | `count == 5` | 5 | 5 | **2** ✗ | holds |")
    row = next(line for line in md.splitlines() if line.startswith("| message-credit |"))
    assert row.endswith("| 2 | `count == 2` | 2 | **3** Δ | 2 | holds |")
    row = next(line for line in md.splitlines() if line.startswith("| o5-learned |"))
    assert row.endswith("| 0 | `count == 0` | **1** ✗ | 1 | **1** ✗ | **contradicted** |")
    # grouped by the paper's document; the statements it cannot check listed with their reason
    assert "## docs/STATS.md" in md and "## assets/orchestration_subdecisions.svg" in md
    section = md.split("## Not checkable from the records", 1)[1]
    for n in _claims_file(survey)["not_checkable"]:
        assert f"| {n['id']} |" in section
    claims_json = json.loads((survey / "reports" / "claims.json").read_text(encoding="utf-8"))
    assert next(r for r in claims_json["results"] if r["id"] == "orchestrator-credit-strict")["with_corrections"] == 2


def test_audit_claims_follow_the_audit_file(survey: Path) -> None:
    path = survey / "data" / "audit" / "spotcheck.csv"
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    cells = lines[1].split(",")
    assert cells[0] == "c3" and cells[6] == "rl_method"  # ann_category of the first row
    cells[6] = "benchmark"
    lines[1] = ",".join(cells)
    path.write_text("".join(lines), encoding="utf-8")
    report = _report(survey)
    r = report.result("spotcheck-category")
    assert (r.count, r.status) == (31, "contradicted") and "c3" not in r.matches
    # a claim naming a column the audit file lacks is an error naming the claim
    claims = survey / "data" / "claims.yaml"
    claims.write_text(claims.read_text().replace("strict_explicit_credit: 'yes'", "strict_credit: 'yes'", 1))
    with pytest.raises(InvalidInput) as info:
        _report(survey)
    (p,) = info.value.problems
    assert p.format().startswith("data/claims.yaml:") and "claim spotcheck-strict-orchestrator: audit" in p.format()
    assert "has no column 'strict_credit'" in p.format()
    # no audit file: the claims that count it say so
    path.unlink()
    with pytest.raises(InvalidInput) as info:
        _report(survey)
    assert any("counts the audit file (files.audit), which this survey does not have" in x.format() for x in info.value.problems)


def test_gate_in_the_claims_file(survey: Path) -> None:
    _add_living_claim(survey)
    path = survey / "data" / "claims.yaml"
    path.write_text(path.read_text().replace("view: 2605.02801v1\n", "view: 2605.02801v1\ngate: [retained-total, living-message-credit]\n", 1))
    assert CliRunner().invoke(cli, ["--root", str(survey), "claims"]).exit_code == 0
    _add_record(survey, "brand-new-work", "A Brand New Orchestration Study", credit_granularity="message")
    result = CliRunner().invoke(cli, ["--root", str(survey), "claims"])
    assert result.exit_code == 1
    assert "claim living-message-credit: changed on living (count <= 5, count 3); since the edition, in: brand-new-work; out: none" in result.output


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_bad_claims_files(survey: Path, case: dict) -> None:  # type: ignore[type-arg]
    (survey / "data" / "claims.yaml").write_text(case["claims"], encoding="utf-8")
    with pytest.raises(InvalidInput) as info:
        load_claims(load_taxonomy(survey))
    assert [p.format() for p in info.value.problems] == case["problems"]


def test_claims_json_equals_library(survey_ro: Path) -> None:
    result = CliRunner().invoke(cli, ["--root", str(survey_ro), "claims", "--format", "json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout) == json.loads(json.dumps(_report(survey_ro).to_dict()))
