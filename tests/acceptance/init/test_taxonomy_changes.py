"""Changing the taxonomy of a survey made by `survey init`: `taxonomy migrate` (multi <-> single,
list <-> string) and `taxonomy rename` rewrite every place a value lives (records, the exclusion
log's copies, taxonomy/csv.yaml); export and import still round-trip afterwards."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.init_support import FIXTURES, run

SOURCE = FIXTURES / "ports" / "entries.yaml"


@pytest.fixture
def survey(tmp_path: Path) -> Path:
    shutil.copy(SOURCE, tmp_path / SOURCE.name)
    root = tmp_path / "s"
    res = run(root, "init", str(root), "--from", str(tmp_path / SOURCE.name), "--controlled", "tags",
              "--controlled", "task", "--distinct-titles")
    assert res.exit_code == 0, res.output
    return root


def _round_trips(root: Path, tmp_path: Path) -> None:
    before = {p.name: p.read_bytes() for p in (root / "corpus").glob("*.yaml")}
    out = tmp_path / "exported"
    assert run(root, "export", "csv", str(out)).exit_code == 0
    res = run(root, "import", "csv", str(out / "entries.csv"), "--overwrite")
    assert res.exit_code == 0, res.output
    assert {p.name: p.read_bytes() for p in (root / "corpus").glob("*.yaml")} == before


def test_single_to_multi_and_back(survey: Path, tmp_path: Path) -> None:
    res = run(survey, "taxonomy", "migrate", "task", "--to", "multi")
    assert res.exit_code == 0, res.output
    assert "rewrote taxonomy/fields/task.yaml" in res.output and "rewrote taxonomy/csv.yaml" in res.output
    assert "kind: multi" in (survey / "taxonomy" / "fields" / "task.yaml").read_text(encoding="utf-8")
    rec = (survey / "corpus" / "synthetic-when-caches-go-stale.yaml").read_text(encoding="utf-8")
    assert "task:\n- search\n" in rec
    assert run(survey, "validate").exit_code == 0
    assert run(survey, "build").exit_code == 0
    _round_trips(survey, tmp_path)
    res = run(survey, "taxonomy", "migrate", "task", "--to", "single")
    assert res.exit_code == 0, res.output
    assert "task: search\n" in (survey / "corpus" / "synthetic-when-caches-go-stale.yaml").read_text(encoding="utf-8")
    assert run(survey, "validate").exit_code == 0


def test_multi_to_single_names_every_record_with_several_values(survey: Path) -> None:
    before = {p.name: p.read_bytes() for p in (survey / "corpus").glob("*.yaml")}
    res = run(survey, "taxonomy", "migrate", "tags", "--to", "single")
    assert res.exit_code == 1
    assert "corpus/synthetic-hard-negatives-sampled.yaml: tags: cannot rewrite: holds 2 values; keep one before making tags single-valued" in res.output
    assert res.output.count("holds 2 values") == 2
    assert {p.name: p.read_bytes() for p in (survey / "corpus").glob("*.yaml")} == before


def test_plain_list_to_string_and_back(survey: Path, tmp_path: Path) -> None:
    res = run(survey, "taxonomy", "migrate", "links", "--to", "string")
    assert res.exit_code == 0, res.output
    assert "type: url\n" in (survey / "taxonomy" / "survey.yaml").read_text(encoding="utf-8")
    assert "links: https://example.org/synthetic/w4\n" in (survey / "corpus" / "synthetic-when-caches-go-stale.yaml").read_text(encoding="utf-8")
    assert run(survey, "validate").exit_code == 0
    _round_trips(survey, tmp_path)
    res = run(survey, "taxonomy", "migrate", "links", "--to", "list")
    assert res.exit_code == 0, res.output
    assert "type: url_list" in (survey / "taxonomy" / "survey.yaml").read_text(encoding="utf-8")
    assert run(survey, "validate").exit_code == 0
    _round_trips(survey, tmp_path)


def test_rename_updates_records_exclusion_copies_and_the_csv_map(survey: Path, tmp_path: Path) -> None:
    rec = "reranking-snippets-synthetic-placeholder"
    res = run(survey, "exclude", rec, "--reason", "other", "--note", "Set aside in a test.", "--date", "2024-02-03")
    assert res.exit_code == 0, res.output
    # the exclusion's id is derived from the work (X-url-<hash> for a work known by its URL)
    (excl,) = (survey / "exclusions").glob("*.yaml")
    xid = excl.stem
    assert xid.startswith("X-")
    field = survey / "taxonomy" / "fields" / "tags.yaml"
    field.write_text(field.read_text(encoding="utf-8") + "- id: dense_retrieval\n  label: Dense retrieval\n",
                     encoding="utf-8")
    res = run(survey, "taxonomy", "rename", "tags", "dense", "dense_retrieval")
    assert res.exit_code == 0, res.output
    assert f"rewrote exclusions/{xid}.yaml" in res.output and "rewrote taxonomy/csv.yaml" in res.output
    assert "- dense_retrieval" in excl.read_text(encoding="utf-8")
    assert "dense: dense_retrieval" in (survey / "taxonomy" / "csv.yaml").read_text(encoding="utf-8")
    # the old value can go now: nothing uses it
    text = field.read_text(encoding="utf-8").replace("- id: dense\n  label: dense\n", "")
    field.write_text(text, encoding="utf-8")
    res = run(survey, "validate")
    assert res.exit_code == 0, res.output
    res = run(survey, "exclude", "--restore", xid)
    assert res.exit_code == 0, res.output
    assert "- dense_retrieval" in (survey / "corpus" / f"{rec}.yaml").read_text(encoding="utf-8")
    # the original list still imports: its "dense" maps to the new id
    res = run(survey, "import", "csv", str(tmp_path / SOURCE.name), "--overwrite")
    assert res.exit_code == 0, res.output
    assert run(survey, "validate").exit_code == 0
