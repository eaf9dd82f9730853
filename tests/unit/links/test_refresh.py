"""`survey refresh` against a loopback arXiv replaying answers in the real Atom format."""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from helpers.survey_copy import SURVEY

from survey_tools.cli import cli
from survey_tools.curate import refresh
from survey_tools.scholarly import arxiv_client

REPO = Path(__file__).resolve().parents[3]
BASE = yaml.safe_load((SURVEY / "corpus" / "agent-lightning.yaml").read_text())


def record(key: str, arxiv_id: str, title: str, authors: list[str], **extra: Any) -> dict:
    # a deep copy: each record's sub-decision evidence is its own (a shallow one shared them)
    rec = {**copy.deepcopy(BASE), "key": key, "title": title, "authors": authors, "authors_complete": True,
           "year": 2025, "venue": "arXiv", "identifiers": {"arxiv": arxiv_id},
           "links": [f"https://arxiv.org/abs/{arxiv_id}"],
           "summary": f"{title}. {title}."}  # each its own summary (a copied one is reported)
    for sub in rec["subdecisions"].values():
        sub["evidence"] = f"https://arxiv.org/abs/{arxiv_id}"
    rec.update(extra)
    return rec


SURVEY_EDITION = "2605.02801v1"  # taxonomy/survey.yaml: the survey's published edition


@pytest.fixture
def survey(tmp_path: Path) -> Path:
    root = tmp_path / "survey"
    shutil.copytree(SURVEY / "taxonomy", root / "taxonomy")
    (root / "corpus").mkdir()
    (root / "exclusions").mkdir()
    (root / "data").mkdir()
    recs = [
        # The survey's edition: title, authors, DOI and venue changed.
        record("revisited", "2501.00001", "Credit Assignment for Example Agents",
               ["Example, Alice"], edition=SURVEY_EDITION),
        # The living list: the comment states an acceptance; authors listed in part.
        record("routing", "2501.00002", "Routing Example Agents with Learned Orchestrators",
               ["Example, Carol"], authors_complete=False, edition="living", added="2026-06-01"),
        record("steady", "2501.00003", "A steady example paper", ["Example, Frank"],
               edition=SURVEY_EDITION),
        record("vanished", "2501.09999", "A Paper arXiv Does Not Know", ["Nobody, Ann"],
               edition="living", added="2026-06-01"),
    ]
    for r in recs:
        (root / "corpus" / f"{r['key']}.yaml").write_text(
            "# kept by the round trip\n" + yaml.safe_dump(r, sort_keys=False, allow_unicode=True))
    (root / "data" / "corrections.yaml").write_text(
        "# Hand-written corrections.\ncorrections:\n"
        "- id: C007\n  record: steady\n  field: venue\n  current: arXiv\n  proposed: Workshop\n"
        "  evidence: https://example.org/steady\n  reason: Our own reading.\n")
    res = CliRunner().invoke(cli, ["--root", str(root), "validate"])
    assert res.exit_code == 0, res.stdout + res.stderr
    return root


def run(root: Path, *args: str) -> Any:
    return CliRunner().invoke(cli, ["--root", str(root), "refresh", *args])


def test_diff_by_default_writes_nothing(survey: Path, arxiv: Any) -> None:
    before = {p.name: p.read_text() for p in (survey / "corpus").iterdir()}
    res = run(survey)
    assert res.exit_code == 0, res.stderr
    assert {p.name: p.read_text() for p in (survey / "corpus").iterdir()} == before
    # One request for all four ids (a batch holds up to 100).
    assert arxiv.requests == [["2501.00001", "2501.00002", "2501.00003", "2501.09999"]]
    out = res.stdout
    assert "revisited (corpus/revisited.yaml, survey edition) arXiv 2501.00001v3, updated 2025-09-30" in out
    assert ("  title:\n    - Credit Assignment for Example Agents\n"
            "    + Credit Assignment for Example Agents, Revisited\n") in out
    assert "    - Example, Alice\n    + Example, Alice; Sample, Bob\n" in out
    assert "  identifiers.doi:\n    - (none)\n    + 10.5555/example.0001\n" in out
    assert "    + Transactions on Machine Learning Research, 09/2025\n" in out
    assert "  venue:\n    - arXiv\n    + ICLR 2026\n" in out
    assert "Accepted at ICLR 2026. 12 pages" in out
    assert "steady" not in out  # nothing changed (the title differs only in case)
    assert "vanished" in out and "arXiv returned no paper" in out
    assert out.rstrip().endswith("4 records asked, 2 with 5 change(s), 1 not found on arXiv")


def test_json_names_every_change(survey: Path, arxiv: Any) -> None:
    res = run(survey, "--format", "json")
    doc = json.loads(res.stdout)
    got = {r["record"]: r for r in doc["records"]}
    assert [c["field"] for c in got["revisited"]["changes"]] == [
        "title", "authors", "identifiers.doi", "venue"]
    assert got["revisited"]["version"] == 3 and got["revisited"]["edition"] == "survey"
    assert got["routing"]["changes"] == [{
        "field": "venue", "current": "arXiv", "proposed": "ICLR 2026",
        "why": "the authors' arXiv comment says 'Accepted at ICLR 2026. 12 pages'"}]
    assert got["routing"]["edition"] == "living"
    assert got["steady"]["changes"] == [] and got["steady"]["notes"] == ["latest version v1 (2025-01-04)"]
    assert got["vanished"]["found"] is False


def test_write_applies_living_and_proposes_survey(survey: Path, arxiv: Any) -> None:
    res = run(survey, "--write")
    assert res.exit_code == 0, res.stderr
    routing = (survey / "corpus" / "routing.yaml").read_text()
    assert routing.startswith("# kept by the round trip\n")
    assert yaml.safe_load(routing)["venue"] == "ICLR 2026"
    # The survey's edition is left as it is; its changes become corrections.
    revisited = yaml.safe_load((survey / "corpus" / "revisited.yaml").read_text())
    assert revisited["title"] == "Credit Assignment for Example Agents"
    text = (survey / "data" / "corrections.yaml").read_text()
    assert text.startswith("# Hand-written corrections.\n")
    corr = yaml.safe_load(text)["corrections"]
    assert [(c["id"], c["record"], c["field"]) for c in corr] == [
        ("C007", "steady", "venue"), ("C008", "revisited", "title"),
        ("C009", "revisited", "authors"), ("C010", "revisited", "identifiers.doi"),
        ("C011", "revisited", "venue")]
    assert corr[3]["current"] is None and corr[3]["proposed"] == "10.5555/example.0001"
    assert {c["evidence"] for c in corr[1:]} == {"https://arxiv.org/abs/2501.00001"}
    assert corr[4]["reason"].startswith("Metadata refresh: arXiv's journal reference is")
    # The proposals are valid corrections, and the corpus still validates.
    for cmd in (["validate"], ["corrections", "--format", "json"]):
        r = CliRunner().invoke(cli, ["--root", str(survey), *cmd])
        assert r.exit_code == 0, r.stdout + r.stderr
    # A re-run proposes nothing new and changes no file.
    snapshot = {p: p.read_text() for p in survey.rglob("*.yaml")}
    res = run(survey, "--write")
    assert res.exit_code == 0
    assert {p: p.read_text() for p in survey.rglob("*.yaml")} == snapshot


def test_batches_of_at_most_batch_ids(survey: Path, arxiv: Any,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arxiv_client, "BATCH", 3)
    res = run(survey, "--format", "json")
    assert res.exit_code == 0
    assert [len(r) for r in arxiv.requests] == [3, 1]


def test_keys_select_records(survey: Path, arxiv: Any) -> None:
    res = run(survey, "steady", "routing")
    assert res.exit_code == 0
    assert arxiv.requests == [["2501.00003", "2501.00002"]]
    res = run(survey, "stedy")
    assert res.exit_code == 2 and "no retained record with the key stedy" in res.stderr


def test_unreachable_arxiv(survey: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    monkeypatch.setenv("SURVEY_ARXIV_DELAY", "0")
    monkeypatch.setenv("SURVEY_NET_ALLOW", "127.0.0.1")
    res = run(survey, "--arxiv-url", f"http://127.0.0.1:{port}/api/query", "--timeout", "2")
    assert res.exit_code == 1
    assert "cannot reach arXiv" in res.stderr and "connection refused" in res.stderr


@pytest.mark.parametrize("comment,venue", [
    ("Accepted at ICLR 2026. 12 pages", "ICLR 2026"),
    ("To appear in Transactions on Machine Learning Research", "Transactions on Machine Learning Research"),
    ("Published as a conference paper at COLM 2025", "COLM 2025"),
    ("accepted for publication in Nature Machine Intelligence; 20 pages", "Nature Machine Intelligence"),
    ("Under review. 12 pages", None),
    ("We accepted the reviewers' comments", None),
    (None, None),
])
def test_accepted_venue(comment: str | None, venue: str | None) -> None:
    assert refresh.accepted_venue(comment) == venue


def test_which_records_are_the_surveys_edition(frozen_survey: Path) -> None:
    from survey_tools.corpus.records import Record
    from survey_tools.corpus.taxonomy import load_taxonomy

    tax = load_taxonomy(frozen_survey)
    assert tax.editions is not None
    own = tax.editions.published[0].id

    def rec(**data: Any) -> Record:
        return Record("retained", "x", "corpus/x.yaml", data)

    assert refresh.in_survey_edition(tax, rec(edition=own))
    assert not refresh.in_survey_edition(tax, rec(edition="living"))


ROUTING = (REPO / "tests/fixtures/arxiv-refresh/entry-2501.00002.xml").read_text(encoding="utf-8")


def test_hostile_metadata_is_checked_before_anything_is_written(survey: Path, arxiv: Any) -> None:
    """arXiv's values pass the record checks a contributor's record passes: one author item
    holding two names is refused, with the record and the field, and no file changes."""
    arxiv.entries["2501.00002"] = ROUTING.replace("Carol Example", "Doe, Jane; Roe, Richard")
    snapshot = {p: p.read_bytes() for p in survey.rglob("*.yaml")}
    res = run(survey, "--write")
    assert res.exit_code == 1
    assert "corpus/routing.yaml" in res.stderr and "authors.0: 'Doe, Jane; Roe, Richard' holds 2 " \
        "authors in one item: write each on its own line: - Doe, Jane, then - Roe, Richard" in res.stderr
    assert "(the value the refresh proposes)" in res.stderr
    assert "nothing was written" in res.stderr and "Traceback" not in res.output
    assert {p: p.read_bytes() for p in survey.rglob("*.yaml")} == snapshot


def test_hostile_identifiers_are_one_clear_error(survey: Path, arxiv: Any) -> None:
    arxiv.entries["2501.00002"] = ROUTING.replace(
        "<arxiv:primary_category", '<arxiv:doi>10.1234/x}}@preamble{"\\input{/etc/hostname}"}'
        "@comment{</arxiv:doi>\n    <arxiv:primary_category")
    res = run(survey, "--write")
    assert res.exit_code == 1
    assert res.stderr.startswith("error: arXiv's answer for 4 ids (2501.00001...), entry 2 is unusable: "
                                 "the DOI '10.1234/x}}@preamble")
    assert len(res.stderr.strip().splitlines()) == 1


def test_pull_request_body_is_inert(survey: Path, arxiv: Any) -> None:
    from markdown_it import MarkdownIt

    arxiv.entries["2501.00002"] = ROUTING.replace(
        "Accepted at ICLR 2026. 12 pages",
        "Accepted at ICLR 2026 @octocat ![t](https://tracker.example/p.png) "
        "[Click](https://evil.example/x) www.evil.example")
    res = run(survey, "--format", "md")
    assert res.exit_code == 0, res.stderr
    html = MarkdownIt("commonmark").enable("table").render(res.stdout)
    assert "<img" not in html
    assert all(h.startswith("https://arxiv.org/abs/") for h in re.findall(r'href="([^"]*)"', html))
    text = re.sub(r"<a href=[^>]*>.*?</a>", "", html)
    for bad in ("@octocat", "https://evil", "https://tracker", "www.evil"):
        assert bad not in text
