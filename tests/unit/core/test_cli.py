"""The survey command through click's CliRunner: exit codes, text and JSON output."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from survey_tools.cli import cli
from survey_tools.corpus.validation import validate_corpus

DATA = Path(__file__).resolve().parents[2] / "data"


def test_validate_invalid_exits_1_with_lines(survey_dir: Path) -> None:
    shutil.copy(DATA / "records/invalid/typo-tags.yaml", survey_dir / "corpus")
    result = CliRunner().invoke(cli, ["--root", str(survey_dir), "validate"])
    assert result.exit_code == 1
    expected = (DATA / "records/invalid/typo-tags.expected").read_text().splitlines()
    assert result.stdout.splitlines() == expected


def test_validate_json_equals_library(survey_dir: Path) -> None:
    shutil.copy(DATA / "records/invalid/missing-fields.yaml", survey_dir / "corpus")
    result = CliRunner().invoke(cli, ["--root", str(survey_dir), "validate", "--format", "json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout) == validate_corpus(survey_dir).to_dict()


def test_validate_given_paths_reports_only_them(survey_dir: Path) -> None:
    shutil.copy(DATA / "records/invalid/typo-tags.yaml", survey_dir / "corpus")
    shutil.copy(DATA / "records/valid/demo-paper.yaml", survey_dir / "corpus")
    runner = CliRunner()
    ok = runner.invoke(
        cli, ["--root", str(survey_dir), "validate", str(survey_dir / "corpus/demo-paper.yaml")]
    )
    assert ok.exit_code == 0, ok.output
    bad = runner.invoke(
        cli, ["--root", str(survey_dir), "validate", str(survey_dir / "corpus/typo-tags.yaml")]
    )
    assert bad.exit_code == 1


def test_usage_errors_exit_2(survey_dir: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(
        cli, ["--root", str(survey_dir), "validate", str(survey_dir / "corpus/nope.yaml")]
    )
    assert missing.exit_code == 2
    assert "does not exist" in missing.stderr
    outside = runner.invoke(cli, ["--root", str(survey_dir), "validate", str(tmp_path)])
    assert outside.exit_code == 2
    unknown = runner.invoke(cli, ["--root", str(survey_dir), "validate", "--require", "colour"])
    assert unknown.exit_code == 2
    assert "no such controlled field" in unknown.stderr


def test_not_a_survey_folder(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--root", str(tmp_path), "validate"])
    assert result.exit_code == 1
    assert "taxonomy/survey.yaml: missing: is --root a survey folder?" in result.stderr
    assert "Traceback" not in result.output


def test_require_subdecisions_fails_on_untagged(survey_dir: Path) -> None:
    text = (
        (DATA / "records/valid/minimal-na.yaml")
        .read_text()
        .replace("subdecisions: NA", "subdecisions: untagged")
    )
    (survey_dir / "corpus/minimal-na.yaml").write_text(text)
    runner = CliRunner()
    assert runner.invoke(cli, ["--root", str(survey_dir), "validate"]).exit_code == 0
    result = runner.invoke(
        cli, ["--root", str(survey_dir), "validate", "--require", "subdecisions"]
    )
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "corpus/minimal-na.yaml:16:15: subdecisions: not yet tagged (required by --require subdecisions)"
    ]


def test_taxonomy_schema_check_detects_stale(survey_dir: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["--root", str(survey_dir), "taxonomy", "schema"]).exit_code == 0
    fields = survey_dir / "taxonomy/fields/scenario.yaml"
    fields.write_text(
        fields.read_text().replace(
            "  - {id: general,",
            "  - {id: robotics, label: Robotics, description: Robots.}\n  - {id: general,",
        )
    )
    result = runner.invoke(cli, ["--root", str(survey_dir), "taxonomy", "schema", "--check"])
    assert result.exit_code == 1
    assert "stale: taxonomy/schema/retained.schema.json" in result.output


def test_tiny_survey_with_another_taxonomy(tmp_path: Path) -> None:
    root = tmp_path / "tiny"
    shutil.copytree(DATA / "tiny-survey", root)
    runner = CliRunner()
    assert runner.invoke(cli, ["--root", str(root), "validate"]).exit_code == 0
    shutil.copy(DATA / "tiny-survey-invalid.yaml", root / "entries/broken.yaml")
    result = runner.invoke(cli, ["--root", str(root), "validate"])
    assert result.exit_code == 1
    assert (
        result.stdout.splitlines()
        == (DATA / "tiny-survey-invalid.expected").read_text().splitlines()
    )


def test_the_command_walks_long_lived_objects_less_often(monkeypatch: pytest.MonkeyPatch) -> None:
    # `survey` is one short process whose records live until it ends: a full collection after
    # every 100 younger ones rather than 10 (benchmarks/build-scale.md); young cycles as before.
    import gc
    import sys

    from survey_tools.cli import main

    before = gc.get_threshold()
    monkeypatch.setattr(sys, "argv", ["survey", "--version"])
    try:
        with pytest.raises(SystemExit) as done:
            main()
        assert done.value.code == 0
        assert gc.get_threshold() == (before[0], before[1], 100)
    finally:
        gc.set_threshold(*before)
