"""The CSV layout as data, an empty scaffold, and `survey exclude` refusing to lose a record."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers.init_support import FIXTURES, REPO, run


def _port(tmp_path: Path) -> Path:
    root = tmp_path / "s"
    root.mkdir()
    res = run(root, "init", str(root), "--from-csv", str(FIXTURES / "synthetic-list.csv"),
              "--controlled", "Granularity", "--controlled", "Methods", "--list", "Methods=|", "--list", "Tags=; ",
              "--ignore", "Internal notes", "--title", "Layout test")
    assert res.exit_code == 0, res.output
    return root


def test_one_bad_row_writes_nothing(tmp_path: Path) -> None:
    root = _port(tmp_path)
    shutil.rmtree(root / "corpus")
    (root / "corpus").mkdir()
    bad = tmp_path / "bad.csv"
    text = (FIXTURES / "synthetic-list.csv").read_text(encoding="utf-8")
    bad.write_text(text.replace("Integer programming|Local search", "Integer programming|Locl search", 1),
                   encoding="utf-8")
    res = run(root, "import", "csv", str(bad))
    assert res.exit_code == 1
    assert "bad.csv:2: Methods: 'Locl search' is not a methods (did you mean 'local_search'?); " \
           "or map it in taxonomy/csv.yaml: values: {Locl search: local_search}" in res.output
    assert list((root / "corpus").iterdir()) == []


def test_values_map_fixes_a_spelling(tmp_path: Path) -> None:
    root = _port(tmp_path)
    csv_yaml = root / "taxonomy" / "csv.yaml"
    csv_yaml.write_text(csv_yaml.read_text(encoding="utf-8").replace(
        "      Local search: local_search\n", "      Local search: local_search\n      Locl search: local_search\n"),
        encoding="utf-8")
    bad = tmp_path / "bad.csv"
    text = (FIXTURES / "synthetic-list.csv").read_text(encoding="utf-8")
    bad.write_text(text.replace("Integer programming|Local search", "Integer programming|Locl search", 1),
                   encoding="utf-8")
    res = run(root, "import", "csv", str(bad), "--overwrite")
    assert res.exit_code == 0, res.output
    assert "- local_search" in (root / "corpus" / "s01.yaml").read_text(encoding="utf-8")


def test_no_layout_is_a_clear_error(tmp_path: Path) -> None:
    root = _port(tmp_path)
    (root / "taxonomy" / "csv.yaml").unlink()
    res = run(root, "export", "csv", str(tmp_path / "out"))
    assert res.exit_code != 0
    assert "no CSV layout: taxonomy/csv.yaml is missing" in res.output
    assert not (tmp_path / "out").exists()


def test_empty_survey_from_flags(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    res = run(root, "init", str(root), "--controlled", "kind=Method,Benchmark", "--title", "Empty one")
    assert res.exit_code == 0, res.output
    assert run(root, "validate").exit_code == 0
    res = run(root, "add", "--set", "title=Synthetic: first entry", "--set", "year=2024",
              "--set", "links=https://example.org/synthetic/first", "--set", "summary=A placeholder.",
              "--kind", "method")
    assert res.exit_code == 0, res.output
    assert run(root, "validate").exit_code == 0
    assert run(root, "build").exit_code == 0
    assert "Synthetic: first entry" in (root / "README.md").read_text(encoding="utf-8")


def test_init_refuses_an_existing_survey(tmp_path: Path) -> None:
    root = _port(tmp_path)
    res = run(root, "init", str(root), "--title", "Again")
    assert res.exit_code != 0 and "survey init starts a new survey only" in res.output


def test_exclude_refuses_when_the_log_cannot_hold_the_record(tmp_path: Path) -> None:
    root = tmp_path / "main"
    for folder in ("taxonomy", "corpus", "exclusions", "data"):
        shutil.copytree(REPO / folder, root / folder)
    survey = root / "taxonomy" / "survey.yaml"
    lines = [ln for ln in survey.read_text(encoding="utf-8").splitlines(keepends=True)
             if not ln.lstrip().startswith("retained_record:")]
    survey.write_text("".join(lines), encoding="utf-8")
    before = sorted(p.name for p in (root / "exclusions").iterdir())
    res = run(root, "exclude", "c3", "--stage", "abstract_screen", "--reason", "no_rl_component",
              "--source", "arXiv", "--query-family", "multi-agent LLM", "--note", "Test.")
    assert res.exit_code == 2, res.output
    assert "declares no 'retained_record' field, so the record's" in res.output
    assert "summary" in res.output and "would be lost" in res.output
    assert (root / "corpus" / "c3.yaml").is_file()
    assert sorted(p.name for p in (root / "exclusions").iterdir()) == before
