"""ASReview LAB both ways, proven with LAB itself: its exports in every format become decisions,
and its own reader reads our export.

`tests/fixtures/asreview/` holds files ASReview LAB 3.0.8 wrote from our export of the `queued`
survey (made by `asreview_lab.py label`, see SOURCES.md): two candidates labelled relevant, two
irrelevant, two left unseen, from a project made from our CSV and one made from our RIS. The
tests that take `lab_runs` run LAB again (its web API, in-process, one LAB process for all of
them) when it is installed.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import rispy
import yaml
from click.testing import CliRunner
from helpers.search_server import SearchServer, search_service
from helpers.survey_copy import copy_edition
from lab_python import find_asreview_python

from survey_tools.cli import cli

FAST = ["--delay", "0", "--backoff", "0", "--timeout", "2"]
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "asreview"
LAB = Path(__file__).with_name("asreview_lab.py")
RELEVANT = ["arXiv:2507.90002", "arXiv:2507.90001"]
IRRELEVANT = ["arXiv:2507.90004", "arXiv:2507.90007"]
LAB_FILES = sorted(p.name for p in FIXTURES.glob("lab-from-*"))


def run(root: Path, *args: str) -> object:
    return CliRunner().invoke(cli, ["--root", str(root), *args])


@pytest.fixture
def queued(living: Path, search_server: SearchServer) -> Path:
    r = run(living, "search", "--since", "2025-01-01", "--arxiv-url", search_server.url, *FAST)
    assert r.exit_code == 0, r.output
    return living


def queue_ids(root: Path) -> list[str]:
    return sorted(p.stem for p in (root / "screening/queue").glob("*.yaml"))


def decided(root: Path) -> dict[str, str]:
    log = yaml.safe_load((root / "screening/decisions.yaml").read_text())
    return {x["id"]: x["decision"] for x in log}


def test_eight_lab_exports_are_committed() -> None:
    want = [f"lab-from-{src}.{fmt}" for src in ("csv", "ris") for fmt in ("csv", "ris", "tsv", "xlsx")]
    assert sorted(LAB_FILES) == want


@pytest.mark.parametrize("name", LAB_FILES)
def test_every_lab_export_becomes_decisions(queued: Path, name: str) -> None:
    r = run(queued, "screen", "import-labels", str(FIXTURES / name), "--date", "2026-05-12")
    assert r.exit_code == 0, r.output
    column = "N1" if name.endswith(".ris") else "asreview_label"
    assert r.stdout.startswith(f"retained 2, excluded 2; 2 unlabelled stay in the queue (labels from {column};")
    assert decided(queued) == {"2507.90001": "retained", "2507.90002": "retained",
                               "2507.90004": "excluded", "2507.90007": "excluded"}
    assert queue_ids(queued) == ["2507.90003", "2507.90006"]


def test_lab_label_column_wins_over_the_input_included_column() -> None:
    # What made LAB's exports read as "0 imported": its CSV keeps our `included` column (empty on
    # the queue rows) beside its own decisions.
    rows = list(csv.DictReader(io.StringIO((FIXTURES / "lab-from-csv.csv").read_text())))
    queue_rows = [x for x in rows if x["record_id"].startswith("arXiv:2507.9000")]
    assert {x["included"] for x in queue_rows} == {""}
    assert sorted(x["asreview_label"] for x in queue_rows) == ["", "", "0", "0", "1", "1"]


def test_labels_matching_nothing_are_an_error(queued: Path, tmp_path: Path) -> None:
    other = tmp_path / "other-review.csv"
    other.write_text("record_id,title,asreview_label\n1,Some paper,1\n2,Another paper,0\n3,Third,\n")
    r = run(queued, "screen", "import-labels", str(other))
    assert r.exit_code == 1
    assert (f"{other}:2:1: asreview_label: 2 labelled rows (line 2, 3) match no candidate of the "
            "screening queue (6 candidates; matched by record_id arXiv:ID, url or DOI); nothing imported") in r.stderr
    assert "Traceback" not in r.output
    assert len(queue_ids(queued)) == 6


def test_a_cell_over_128_kib_is_a_clear_error(queued: Path, tmp_path: Path) -> None:
    big = tmp_path / "big.csv"
    big.write_text("record_id,title,abstract,asreview_label\n"
                   f"arXiv:2507.90001,x,{'a' * 140_000},1\n")
    r = run(queued, "screen", "import-labels", str(big))
    assert r.exit_code == 1
    assert f"{big}:2:1: a cell is over 128 KiB; is this an ASReview export?" in r.stderr
    assert "Traceback" not in r.output
    # (An Excel cell cannot hold more than 32,767 characters: openpyxl reads no more.)
    ris = tmp_path / "big.ris"
    ris.write_text(f"TY  - GEN\nN1  - ASReview_relevant\nTI  - x\nAB  - {'c' * 140_000}\nER  - \n")
    r = run(queued, "screen", "import-labels", str(ris))
    assert r.exit_code == 1 and f"{ris}:4:1: a cell is over 128 KiB" in r.stderr
    assert len(queue_ids(queued)) == 6


def test_a_broken_workbook_is_a_clear_error(queued: Path, tmp_path: Path) -> None:
    bad = tmp_path / "labels.xlsx"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    r = run(queued, "screen", "import-labels", str(bad))
    assert r.exit_code == 1 and f"{bad}:1: not an Excel workbook" in r.stderr
    assert "Traceback" not in r.output


def test_formula_cells_are_neutralised_and_read_back(queued: Path, tmp_path: Path) -> None:
    path = queued / "screening/queue/2507.90001.yaml"
    data = yaml.safe_load(path.read_text())
    data["title"] = "=HYPERLINK(\"http://example.org\") and a title"
    path.write_text(yaml.safe_dump(data))
    out = tmp_path / "asreview.csv"
    assert run(queued, "screen", "export", "--format", "asreview", str(out)).exit_code == 0
    rows = {x["record_id"]: x for x in csv.DictReader(io.StringIO(out.read_text()))}
    assert rows["arXiv:2507.90001"]["title"] == "'=HYPERLINK(\"http://example.org\") and a title"
    # LAB keeps the cell as written; our import reads the row by its id and imports its label.
    rows["arXiv:2507.90001"]["included"] = "1"
    rows["arXiv:2507.90001"]["doi"] = "-"  # a neutralised cell that is not a DOI: ignored
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(next(iter(rows.values()))))
    w.writeheader()
    w.writerows(rows.values())
    back = tmp_path / "labelled.csv"
    back.write_text(buf.getvalue())
    r = run(queued, "screen", "import-labels", str(back), "--date", "2026-05-12")
    assert r.exit_code == 0, r.output
    assert decided(queued) == {"2507.90001": "retained"}


def test_our_export_decodes_tex_and_joins_authors_for_lab(queued: Path, tmp_path: Path) -> None:
    out = tmp_path / "asreview.csv"
    assert run(queued, "screen", "export", "--format", "asreview", str(out)).exit_code == 0
    text = out.read_text()
    assert "\\'{c}" not in text and "Balunović, Mislav" in text
    row = next(x for x in csv.DictReader(io.StringIO(text)) if x["record_id"] == "agentdojo2024")
    assert row["authors"].startswith("Debenedetti, Edoardo;Zhang, Jie;Balunović, Mislav;")


def test_ris_journal_articles_name_their_journal(queued: Path, tmp_path: Path) -> None:
    path = queued / "screening/queue/2507.90006.yaml"
    data = yaml.safe_load(path.read_text())
    data["journal_ref"] = "Journal of Synthetic Tests 12 (2025) 1-9"
    path.write_text(yaml.safe_dump(data))
    out = tmp_path / "queue.ris"
    assert run(queued, "screen", "export", "--format", "ris", str(out)).exit_code == 0
    text = out.read_text()
    entry = next(e for e in rispy.loads(text) if "arXiv:2507.90006" in e["notes"])
    assert entry["type_of_reference"] == "JOUR"
    assert entry["journal_name"] == entry["secondary_title"] == "Journal of Synthetic Tests 12 (2025) 1-9"
    assert "JO  - Journal of Synthetic Tests" in text and "T2  - Journal of Synthetic Tests" in text
    others = [e for e in rispy.loads(text) if "arXiv:2507.90006" not in e["notes"]]
    assert {e["type_of_reference"] for e in others} == {"GEN"}


# --- with ASReview LAB itself ----------------------------------------------------------------


def lab(python: str, jobs: list[list[str]], cwd: Path) -> list[dict]:
    """LAB's results for ``jobs`` (asreview_lab.py commands), all run in one LAB process."""
    spec = cwd / "jobs.json"
    spec.write_text(json.dumps(jobs), encoding="utf-8")
    # LAB's dataset plugins leave a cache file in the working folder: run it in a temporary one.
    res = subprocess.run([python, str(LAB), "batch", str(spec)], capture_output=True, text=True, timeout=600, cwd=cwd)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout)


@pytest.fixture(scope="module")
def lab_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """What LAB made of our exports of one queued survey: how its reader sees our CSV, and the
    files it exported after a screener labelled a project made from our CSV and one made from
    our RIS. One LAB process for the three (its start-up is most of each run's time)."""
    python = find_asreview_python()
    work = tmp_path_factory.mktemp("lab")
    with pytest.MonkeyPatch.context() as mp, search_service() as server:
        mp.setenv("SURVEY_NET_ALLOW", "127.0.0.1")
        mp.setenv("SURVEY_ARXIV_DELAY", "0")
        mp.delenv("SURVEY_ARXIV_URL", raising=False)
        queued = copy_edition(work / "survey")
        r = run(queued, "search", "--since", "2025-01-01", "--arxiv-url", server.url, *FAST)
        assert r.exit_code == 0, r.output
    ours = {"csv": work / "ours.csv", "ris": work / "ours.ris"}
    for source, fmt in (("csv", "asreview"), ("ris", "ris")):
        assert run(queued, "screen", "export", "--format", fmt, str(ours[source])).exit_code == 0
    labels = [",".join(RELEVANT), ",".join(IRRELEVANT)]
    read, *made = lab(python, [["read", str(ours["csv"])],
                               *(["label", str(ours[s]), str(work / f"lab-{s}"), *labels] for s in ("csv", "ris"))],
                      cwd=work)
    return {"queued": queued, "read": read, "made": {s: (work / f"lab-{s}", m) for s, m in zip(("csv", "ris"), made, strict=True)}}


def test_lab_reads_our_export(lab_runs: dict[str, Any]) -> None:
    seen = lab_runs["read"]
    rows = seen["rows"]
    assert seen["n"] == len(rows) >= 122
    assert sum(r["included"] == 1 for r in rows) >= 84 and sum(r["included"] is None for r in rows) == 6
    dojo = next(r for r in rows if r["title"].startswith("AgentDojo"))
    assert dojo["authors"][:3] == ["Debenedetti, Edoardo", "Zhang, Jie", "Balunović, Mislav"]
    assert not any(a != a.strip() for r in rows for a in r["authors"] or [])


@pytest.mark.parametrize("source", ["csv", "ris"])
def test_lab_labels_and_exports_every_format(lab_runs: dict[str, Any], tmp_path: Path, source: str) -> None:
    folder, made = lab_runs["made"][source]
    assert made["files"] == [f"asreview-export.{x}" for x in ("csv", "tsv", "xlsx", "ris")]
    for name in made["files"]:
        root = tmp_path / f"survey-{name}"
        shutil.copytree(lab_runs["queued"], root)
        r = run(root, "screen", "import-labels", str(folder / name), "--date", "2026-05-12")
        assert r.exit_code == 0, (name, r.output)
        assert r.stdout.startswith("retained 2, excluded 2; 2 unlabelled stay in the queue"), (name, r.stdout)
        assert queue_ids(root) == ["2507.90003", "2507.90006"], name


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__]))
