"""`survey screen`: listing, decisions that become records, the interactive walk, ASReview and RIS."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import rispy
import yaml
from helpers.search_server import SearchServer
from helpers.support import run

from survey_tools.corpus.validation import validate_corpus

FAST = ["--delay", "0", "--backoff", "0", "--timeout", "2"]


@pytest.fixture
def queued(living: Path, search_server: SearchServer) -> Path:
    r = run(living, "search", "--since", "2025-01-01", "--arxiv-url", search_server.url, *FAST)
    assert r.exit_code == 0, r.output
    return living


def queue_ids(root: Path) -> list[str]:
    return [i["id"] for i in json.loads(run(root, "screen", "--format", "json").stdout)]


def decisions(root: Path) -> list[dict]:
    return yaml.safe_load((root / "screening/decisions.yaml").read_text())


def test_table_listing(queued: Path) -> None:
    r = run(queued, "screen")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0].split()[:3] == ["score", "id", "first"]
    assert len(lines) == 7


def test_retain_writes_a_record_from_stored_metadata(queued: Path, search_server: SearchServer) -> None:
    n_requests = len(search_server.requests)
    r = run(queued, "screen", "2507.90001v1", "--retain", "--category", "rl_method", "--is-rl", "yes",
            "--date", "2026-05-12")
    assert r.exit_code == 0, r.output
    assert len(search_server.requests) == n_requests  # no second fetch
    rec = yaml.safe_load((queued / "corpus/synthetic-test-paper.yaml").read_text())
    assert rec["identifiers"] == {"arxiv": "2507.90001"}
    assert rec["category"] == "rl_method" and rec["reward_type"] == "untagged"
    assert "retained on 2026-05-12 at full_text_screen" in rec["notes"]
    assert "2507.90001" not in queue_ids(queued)
    assert decisions(queued)[-1] | {"families": []} == {
        "id": "2507.90001", "title": rec["title"], "decision": "retained", "stage": "full_text_screen",
        "date": "2026-05-12", "record": "corpus/synthetic-test-paper.yaml", "families": []}
    # Validated as `survey add` validates: only the untagged fields fail.
    report = validate_corpus(queued)
    assert report.problems and all("not yet tagged" in p.message for p in report.problems)


def test_exclude_writes_the_next_exclusion(queued: Path) -> None:
    r = run(queued, "screen", "2507.90003", "--exclude", "--stage", "abstract_screen", "--reason",
            "prompted_only", "--note", "Prompted debate with no training.", "--date", "2026-05-12")
    assert r.exit_code == 0, r.output
    ex = yaml.safe_load((queued / "exclusions/E-arxiv-2507-90003.yaml").read_text())
    assert ex["identifier"] == "arXiv:2507.90003" and ex["date_screened"] == "2026-05-12"
    assert ex["source"] == "arXiv" and ex["stage"] == "abstract_screen"
    assert ex["query_family"] == "multi-agent LLM"  # the first family's exclusion-log value
    assert "2507.90003" not in queue_ids(queued)
    assert decisions(queued)[-1]["reason"] == "prompted_only"
    assert validate_corpus(queued).ok


def test_bad_decisions_one_line_nothing_written(queued: Path) -> None:
    before = {p: p.read_bytes() for p in queued.rglob("*") if p.is_file()}
    cases = [
        (["screen", "2599.00001", "--retain"], 2, "error: '2599.00001' is not in the screening queue (6 candidates); did you mean 2507.90001?"),
        (["screen", "2507.90003", "--exclude", "--stage", "abstract_screen", "--reason", "prompted_only"], 2,
         "error: --note is required: say in your own words why the work is excluded"),
        (["screen", "2507.90003", "--exclude", "--stage", "abstract", "--reason", "prompted_only", "--note", "x"], 2,
         "error: --stage 'abstract' is not a screening stage; did you mean 'abstract_screen'?"),
        (["screen", "2507.90003", "--exclude", "--stage", "abstract_screen", "--reason", "prompted", "--note", "x"], 2,
         "error: --reason prompted: 'prompted' is not a exclusion reason; did you mean 'prompted_only'?"),
        (["screen", "2507.90001", "--retain", "--date", "2026-13-01"], 2,
         "error: --date '2026-13-01' is not an ISO date (YYYY-MM-DD)"),
    ]
    for args, code, line in cases:
        r = run(queued, *args)
        assert r.exit_code == code, (args, r.output)
        assert r.stderr.strip().splitlines() == [line], args
    assert {p: p.read_bytes() for p in queued.rglob("*") if p.is_file()} == before


def test_interactive_session(queued: Path) -> None:
    order = queue_ids(queued)
    # retain the best (with a summary), exclude the second, skip the third, quit.
    answers = "\n".join([
        "r", "Trains an orchestrator with RL over worker models.",
        "e", "no_rl_component", "", "Attack benchmark without any learning.",
        "s", "q",
    ]) + "\n"
    r = run(queued, "screen", "--interactive", "--date", "2026-05-12", input=answers)
    assert r.exit_code == 0, r.output
    assert "[1/6]" in r.stdout and "score " in r.stdout and "found by" in r.stdout
    assert "2 decisions recorded; 4 candidates left in the queue" in r.stdout
    left = queue_ids(queued)
    assert order[0] not in left and order[1] not in left and order[2] in left
    d = decisions(queued)
    assert [x["decision"] for x in d] == ["retained", "excluded"]
    assert d[1]["stage"] == "abstract_screen" and d[0]["stage"] == "full_text_screen"


def test_asreview_export_and_import(queued: Path, tmp_path: Path) -> None:
    out = tmp_path / "asreview.csv"
    r = run(queued, "screen", "export", "--format", "asreview", str(out))
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert list(rows[0]) == ["record_id", "title", "abstract", "authors", "keywords", "doi", "url", "included"]
    labelled = [x for x in rows if x["included"]]
    assert len(labelled) == 116 and sum(x["included"] == "1" for x in labelled) == 84
    unl = [x for x in rows if not x["included"]]
    assert len(unl) == 6 and unl[0]["record_id"].startswith("arXiv:2507.9000")
    # ASReview's export: the same rows, our queue rows now labelled (one each way, one left).
    ids = [x["record_id"] for x in unl]
    for x in rows:
        if x["record_id"] == ids[0]:
            x["included"] = "1"
        elif x["record_id"] == ids[1]:
            x["included"] = "0"
    back = tmp_path / "labelled.csv"
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    back.write_text(buf.getvalue())
    r = run(queued, "screen", "import-labels", str(back), "--date", "2026-05-12")
    assert r.exit_code == 0, r.output
    assert "retained 1, excluded 1; 4 unlabelled stay in the queue" in r.stdout
    left = queue_ids(queued)
    assert ids[0].split(":")[1] not in left and ids[1].split(":")[1] not in left and len(left) == 4


def test_import_labels_rejects_unknown_label_values(queued: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("record_id,title,included\narXiv:2507.90001,x,maybe\n")
    r = run(queued, "screen", "import-labels", str(bad))
    assert r.exit_code == 1
    assert f"{bad}:2:1: included: 'maybe' is not a label" in r.stderr
    assert len(queue_ids(queued)) == 6


@pytest.mark.parametrize(
    ("name", "text", "what", "line"),
    [
        ("many.csv", "record_id,title,included\n" + "".join(f"arXiv:2507.9{i:04d},x,1\n" for i in range(4)), "rows", 5),
        ("many.tsv", "record_id\ttitle\tincluded\n" + "".join(f"arXiv:2507.9{i:04d}\tx\t1\n" for i in range(4)), "rows", 5),
        ("many.ris", "".join(f"TY  - JOUR\nTI  - x{i}\nN1  - ASReview_relevant\nER  - \n" for i in range(4)), "records", 13),
    ],
)
def test_import_labels_holds_the_export_to_max_entries(
    queued: Path, tmp_path: Path, name: str, text: str, what: str, line: int
) -> None:
    big = tmp_path / name
    big.write_text(text)
    r = run(queued, "screen", "import-labels", str(big), "--max-entries", "3")
    assert r.exit_code == 1
    assert f"{big}:{line}: more than 3 {what}; the limit is 3 (--max-entries raises it)" in r.stderr
    assert len(queue_ids(queued)) == 6
    ok = run(queued, "screen", "import-labels", str(big), "--max-entries", "4")
    assert "--max-entries" not in ok.output


def test_ris_export(queued: Path, tmp_path: Path) -> None:
    out = tmp_path / "queue.ris"
    r = run(queued, "screen", "export", "--format", "ris", str(out))
    assert r.exit_code == 0, r.output
    entries = rispy.loads(out.read_text())
    assert len(entries) == 6
    assert entries[0]["urls"][0].startswith("https://arxiv.org/abs/2507.9000")
    assert any(e.get("doi") == "10.5555/synthetic.90002" for e in entries)
