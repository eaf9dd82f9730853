"""`survey screen import-found`: candidates found by hand leave the trail a search leaves.

Data-driven: every list under tests/data/found/valid is queued and prints exactly its
``.expected`` lines; every list under tests/data/found/invalid is refused with exactly its
``.expected`` lines and writes nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from helpers.support import REPO, run, snapshot

from survey_tools.corpus.inputs import Reads
from survey_tools.corpus.loading import load_corpus
from survey_tools.reports.living import living_flow, living_markdown

DATA = REPO / "tests" / "data" / "found"
VALID = sorted(p for p in (DATA / "valid").iterdir() if p.suffix != ".expected")
INVALID = sorted(p for p in (DATA / "invalid").iterdir() if p.suffix != ".expected")


def _expected(path: Path) -> list[str]:
    return path.with_suffix(".expected").read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_lists_are_queued(living: Path, path: Path) -> None:
    r = run(living, "screen", "import-found", str(path), "--date", "2026-11-26")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == _expected(path)
    runs = yaml.safe_load((living / "screening/runs.yaml").read_text())
    assert len(runs) == 1 and runs[0]["kind"] == "hand" and runs[0]["date"] == "2026-11-26"
    assert runs[0]["file"] == path.name


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_invalid_lists_are_refused_whole(
    living: Path, tmp_path: Path, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Copied beside a folder named "invalid" so the messages name a stable path.
    where = tmp_path / "invalid"
    where.mkdir()
    shutil.copy(path, where / path.name)
    monkeypatch.chdir(tmp_path)
    before = snapshot(living)
    r = run(living, "screen", "import-found", f"invalid/{path.name}")
    assert r.exit_code != 0
    assert r.stderr.splitlines() == _expected(path)
    assert snapshot(living) == before


def test_queue_files_carry_the_page_and_no_abstract(living: Path) -> None:
    run(living, "screen", "import-found", str(DATA / "valid/mixed.yaml"), "--date", "2026-11-26")
    cand = yaml.safe_load((living / "screening/queue/2607.90001.yaml").read_text())
    assert cand["found_at"] == "https://example.org/tracker/2607.90001"
    assert cand["families"] == ["orchestration"] and cand["queries"] == [cand["found_at"]]
    assert cand["authors"] == ["Ada Lovelace", "Alan Turing"] and cand["published"] == "2026-07-03"
    assert "abstract" not in cand and cand["note"].startswith("Tracker entry read")
    other = yaml.safe_load((living / "screening/queue/2609.90002.yaml").read_text())
    assert (
        other["id"] == "2609.90002"
        and other["published"] == "2026-09"
        and other["families"] == other["queries"] == []
    )
    # The already-retained WideSeek-R1 is counted as a duplicate, not queued.
    assert not (living / "screening/queue/2602.04634.yaml").exists()


def test_a_second_import_of_the_same_list_queues_nothing(living: Path) -> None:
    path = str(DATA / "valid/plain.csv")
    run(living, "screen", "import-found", path, "--date", "2026-11-26")
    r = run(living, "screen", "import-found", path, "--date", "2026-11-27")
    assert r.stdout.splitlines()[-1] == "1 distinct paper; already known: 1 queue; 0 new candidates"
    assert len(yaml.safe_load((living / "screening/runs.yaml").read_text())) == 2


def test_decisions_on_hand_found_candidates_and_the_flow(living: Path) -> None:
    run(living, "screen", "import-found", str(DATA / "valid/mixed.yaml"), "--date", "2026-11-26")
    r = run(
        living,
        "screen",
        "2607.90001",
        "--retain",
        "--category",
        "rl_method",
        "--date",
        "2026-11-26",
    )
    assert r.exit_code == 0, r.output
    rec = yaml.safe_load((living / "corpus/synthetic-orchestrator-trained.yaml").read_text())
    assert rec["identifiers"] == {"arxiv": "2607.90001"} and rec["year"] == 2026
    assert rec["authors"] == ["Lovelace, Ada", "Turing, Alan"]
    assert "found by Orchestration on 2026-11-26" in rec["notes"]
    r = run(
        living,
        "screen",
        "2609.90002",
        "--exclude",
        "--stage",
        "abstract_screen",
        "--reason",
        "prompted_only",
        "--query-family",
        "orchestration",
        "--note",
        "Prompted only.",
        "--date",
        "2026-11-26",
    )
    assert r.exit_code == 0, r.output
    decisions = yaml.safe_load((living / "screening/decisions.yaml").read_text())
    assert [d["decision"] for d in decisions] == ["retained", "excluded"]
    flow = living_flow(Reads(living))
    assert flow is not None
    assert (flow.identified, flow.duplicates, flow.screened, flow.included, flow.awaiting) == (
        3,
        1,
        2,
        1,
        0,
    )
    assert flow.unaccounted == 0 and flow.source == "paper trackers (synthetic test list)"
    # One day of hand runs reads as that day, not "2026-11-26 to 2026-11-26".
    tax = load_corpus(living).taxonomy
    text = "\n".join(living_markdown(flow, tax, "stage", "reason", {}))
    assert "of paper trackers (synthetic test list) (2026-11-26) and" in text
    run(living, "screen", "import-found", str(DATA / "valid/plain.csv"), "--date", "2026-11-28")
    later = living_flow(Reads(living))
    assert later is not None and later.runs == 2
    assert "(2026-11-26 to 2026-11-28)" in "\n".join(
        living_markdown(later, tax, "stage", "reason", {})
    )


def test_a_cell_over_the_csv_limit_is_a_problem_at_its_row(
    living: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the csv module's own error once ended the command with a traceback
    (tmp_path / "big.csv").write_text(
        "id,title,url\n2608.90003," + "x" * 140_000 + ",https://example.org/x\n"
    )
    monkeypatch.chdir(tmp_path)
    before = snapshot(living)
    r = run(living, "screen", "import-found", "big.csv")
    assert r.exit_code == 1
    assert r.stderr.splitlines() == [
        "big.csv:2: malformed CSV: field larger than field limit (131072)",
        "error: big.csv has 1 problem; nothing written",
    ]
    assert snapshot(living) == before
