"""Every text value has a length limit, checked before any pairwise work on titles."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner
from helpers.survey_copy import SURVEY

from survey_tools.cli import cli
from survey_tools.corpus.record_schema import MAX_STRING, MAX_TEXT, MAX_URL

REPO = Path(__file__).resolve().parents[3]
BASE = (REPO / "tests/data/records/valid/minimal-na.yaml").read_text(encoding="utf-8")


def record(key: str, **fields: str) -> str:
    text = BASE.replace("key: minimal-na", f"key: {key}").replace(
        "edition: 2605.02801v1", "edition: living\nadded: 2026-11-23"
    )
    for name, value in fields.items():
        lines = [ln for ln in text.splitlines() if not ln.startswith(f"{name}:")]
        text = "\n".join([*lines, f"{name}: {value}"]) + "\n"
    return text


def test_huge_titles_are_refused_without_pairwise_comparison(tmp_path: Path) -> None:
    root = tmp_path / "survey"
    shutil.copytree(SURVEY / "taxonomy", root / "taxonomy")
    (root / "corpus").mkdir()
    for i in range(3):
        # 900 kB each, differing only at the end: the pairwise title check must not run on them.
        title = "Agents " * 130_000 + str(i)
        (root / "corpus" / f"huge-{i}.yaml").write_text(record(f"huge-{i}", title=f'"{title}"'))
    result = CliRunner().invoke(cli, ["--root", str(root), "validate"])
    assert result.exit_code == 1
    lines = (result.output + result.stderr).splitlines()
    for i in range(3):
        assert f"corpus/huge-{i}.yaml:18:8: title: too long: 910,001 characters (at most {MAX_STRING})" in lines
    assert not any("same title" in ln or "similar" in ln for ln in lines)


def test_every_kind_of_text_has_a_limit(tmp_path: Path) -> None:
    root = tmp_path / "survey"
    shutil.copytree(SURVEY / "taxonomy", root / "taxonomy")
    (root / "corpus").mkdir()
    long_url = "https://example.org/" + "a" * MAX_URL
    (root / "corpus" / "long.yaml").write_text(
        record(
            "long",
            venue="V" * (MAX_STRING + 1),
            notes="n" * (MAX_TEXT + 1),
            links=f"[{long_url}]",
            authors="[" + ", ".join(["'Doe, Jane'"] * 5_001) + "]",
        )
    )
    result = CliRunner().invoke(cli, ["--root", str(root), "validate"])
    out = result.output + result.stderr
    assert result.exit_code == 1
    assert f"venue: too long: {MAX_STRING + 1:,} characters (at most {MAX_STRING})" in out
    assert f"notes: too long: {MAX_TEXT + 1:,} characters (at most {MAX_TEXT})" in out
    assert "links.0:" in out and "authors:" in out
