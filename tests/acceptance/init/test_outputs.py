"""Outputs of a survey made by `survey init`: an output turned off is removed (and said to be);
a duplicate entry can be moved to the exclusion log as "duplicate of KEY"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.init_support import FIXTURES, run

SOURCE = FIXTURES / "ports" / "entries.yaml"
# entries.yaml repeats one title: the pair below, declared distinct at init
PAIR = ("synthetic-placeholder-pruning-inverted-indexes", "synthetic-placeholder-pruning-inverted-indexes-2")


@pytest.fixture
def survey(tmp_path: Path) -> Path:
    shutil.copy(SOURCE, tmp_path / SOURCE.name)
    root = tmp_path / "s"
    res = run(root, "init", str(root), "--from", str(tmp_path / SOURCE.name), "--controlled", "task", "--distinct-titles")
    assert res.exit_code == 0, res.output
    return root


def test_turned_off_outputs_are_removed_and_reported(survey: Path) -> None:
    assert (survey / "reports" / "site" / "index.html").is_file()
    assert (survey / "reports" / "figures" / "per-year.svg").is_file()
    conf = survey / "taxonomy" / "survey.yaml"
    text = conf.read_text(encoding="utf-8")
    conf.write_text(text.replace("- site\n", "").replace("- figures\n", ""), encoding="utf-8")
    res = run(survey, "build", "--check")
    assert res.exit_code == 1 and "extra: reports/site/index.html" in res.output
    res = run(survey, "build")
    assert res.exit_code == 0, res.output
    assert "removed reports/site/index.html" in res.output and "removed reports/figures/per-year.svg" in res.output
    assert "wrote reports/site/index.html" not in res.output
    assert not (survey / "reports" / "site" / "index.html").exists()
    assert not list((survey / "reports" / "figures").glob("*"))
    assert run(survey, "build", "--check").exit_code == 0


def test_a_duplicate_is_excluded_as_duplicate_of_its_twin(survey: Path) -> None:
    dup, kept = PAIR[1], PAIR[0]
    args = ["exclude", dup, "--reason", "duplicate", "--note", "The same work listed twice.", "--date", "2024-03-04"]
    res = run(survey, *args)
    assert res.exit_code == 1 and "is already in the survey" in res.output  # the likeness refuses it...
    res = run(survey, *args, "--duplicate-of", kept)  # ...unless it is the reason
    assert res.exit_code == 0, res.output
    # the exclusion's id is derived from the work (X-url-<hash> for a work known by its URL)
    (excl,) = (survey / "exclusions").glob("*.yaml")
    assert excl.stem.startswith("X-")
    text = excl.read_text(encoding="utf-8")
    assert f"duplicate_of:\n  {kept}: duplicate of {kept}\n" in text
    res = run(survey, "validate")
    assert res.exit_code == 0, res.output
    assert run(survey, "build").exit_code == 0
    res = run(survey, "exclude", kept, "--reason", "duplicate", "--note", "x.", "--duplicate-of", "nope")
    assert res.exit_code == 2 and "--duplicate-of 'nope': not another retained record's key" in res.output
