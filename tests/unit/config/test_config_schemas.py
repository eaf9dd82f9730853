"""Every configuration file is checked by its schema: one ``file:line:col: key: message`` line
per mistake, never a traceback (the mistakes issue 16 reported each crashed the loader)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers.survey_copy import SURVEY

from survey_tools.cli import cli
from survey_tools.corpus.configs import config_schemas
from survey_tools.corpus.taxonomy import TaxonomyError, load_taxonomy
from survey_tools.render.markdown import markdown_reference

REPO = Path(__file__).resolve().parents[3]
TINY = REPO / "tests" / "data" / "tiny-survey"


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    dst = tmp_path / "tiny"
    shutil.copytree(TINY, dst)
    return dst


def _mutate(root: Path, rel: str, old: str, new: str) -> None:
    p = root / rel
    text = p.read_text(encoding="utf-8")
    assert old in text, old
    p.write_text(text.replace(old, new, 1), encoding="utf-8")


def _problems(root: Path) -> list[str]:
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy(root)
    return [p.format() for p in info.value.problems]


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("first_release: {type: year}", "first_release: year",
     "taxonomy/survey.yaml:20:22: collections.tools.fields.first_release: expected a mapping or empty, got a string"),
    ("sentinels:\n  not_applicable: n/a\n  untagged: todo", "sentinels: oops",
     "taxonomy/survey.yaml:5:12: sentinels: expected a mapping, got a string"),
    ("    fields:\n      slug", "    fields: [a]\n    fieldz:\n      slug",
     "taxonomy/survey.yaml:16:13: collections.tools.fields: expected a mapping, got a list"),
    ("controlled: [language, licence]", "controlled: language",
     "taxonomy/survey.yaml:15:17: collections.tools.controlled: expected a list, got a string"),
    ("  short_title: Review tools", "  short_titel: Review tools",
     "taxonomy/survey.yaml:4:3: survey.short_titel: unknown key (did you mean 'short_title'?)"),
    ("      homepage: {type: url, required: true}", "      homepage: {type: link, required: true}",
     "taxonomy/survey.yaml:19:24: collections.tools.fields.homepage.type: 'link' is not one of"),
])
def test_issue_mistakes_are_one_line_each(tiny: Path, old: str, new: str, expected: str) -> None:
    _mutate(tiny, "taxonomy/survey.yaml", old, new)
    problems = _problems(tiny)
    assert any(p.startswith(expected) for p in problems), problems


def test_the_cli_prints_problems_not_tracebacks(tiny: Path) -> None:
    _mutate(tiny, "taxonomy/survey.yaml", "controlled: [language, licence]", "controlled: language")
    res = CliRunner().invoke(cli, ["--root", str(tiny), "validate"])
    assert res.exit_code == 1
    assert "Traceback" not in res.output + res.stderr
    assert "collections.tools.controlled: expected a list, got a string" in res.stderr + res.output


def test_field_file_typo_suggests_the_key(tiny: Path) -> None:
    _mutate(tiny, "taxonomy/fields/language.yaml", "kind: multi", "knid: multi")
    assert "taxonomy/fields/language.yaml:7:1: knid: unknown key (did you mean 'kind'?)" in _problems(tiny)


def test_csv_layout_names_fields_and_values(tiny: Path) -> None:
    (tiny / "taxonomy" / "csv.yaml").write_text(
        "list_separator: ';'\n"
        "tools:\n"
        "  columns:\n"
        "    - {column: slug, field: slug}\n"
        "    - {column: name, field: nmae}\n"
        "    - {column: langs, field: language, values: {Py: pyhton}}\n"
        "    - {column: junk, ignore: true}\n"
        "toolz: {columns: [{column: a, field: b}]}\n", encoding="utf-8")
    problems = _problems(tiny)
    assert "taxonomy/csv.yaml:5:29: tools.columns.1.field: 'nmae' is not a field of tools (did you mean 'name'?)" in problems
    assert "taxonomy/csv.yaml:6:53: tools.columns.2.values.Py: 'pyhton' is not a language (did you mean 'python'?)" in problems
    assert any(p.startswith("taxonomy/csv.yaml:8:1: toolz: not a collection") and "did you mean 'tools'" in p
               for p in problems), problems


def test_csv_layout_typo_in_a_key(tiny: Path) -> None:
    (tiny / "taxonomy" / "csv.yaml").write_text(
        "tools:\n  columns:\n    - {column: slug, field: slug}\n    - {column: junk, ignroe: true}\n",
        encoding="utf-8")
    assert "taxonomy/csv.yaml:4:22: tools.columns.1.ignroe: unknown key (did you mean 'ignore'?)" in _problems(tiny)


def test_commands_flags_name_controlled_fields(tiny: Path) -> None:
    (tiny / "taxonomy" / "commands.yaml").write_text("flags: {lang: langauge}\nadd: {key: arxiv}\n", encoding="utf-8")
    problems = _problems(tiny)
    assert "taxonomy/commands.yaml:1:15: flags.lang: 'langauge' is not a controlled field (did you mean 'language'?)" in problems


def test_data_files_are_checked_by_validate_and_build(tiny: Path) -> None:
    (tiny / "data").mkdir()
    (tiny / "data" / "reports.yaml").write_text("gaps: {k: -1, tabels: []}\n", encoding="utf-8")
    runner = CliRunner()
    for args in (["validate"], ["build"]):
        res = runner.invoke(cli, ["--root", str(tiny), *args])
        out = res.output + res.stderr
        assert res.exit_code == 1, out
        assert "data/reports.yaml:1:11: gaps.k: -1 is below the minimum 0" in out
        assert "data/reports.yaml:1:15: gaps.tabels: unknown key (did you mean 'tables'?)" in out


def test_every_shipped_configuration_is_valid() -> None:
    load_taxonomy(SURVEY)
    load_taxonomy(TINY)


def test_every_schema_has_a_documented_file_and_descriptions() -> None:
    schemas = config_schemas()
    assert {"survey", "field", "csv", "commands", "reports", "claims", "corrections"} <= set(schemas)
    text = markdown_reference()
    for c in schemas.values():
        assert f"## `{c.file}`" in text
    # Every key of survey.readme is documented with its default.
    assert "| `survey.readme.sections.papers` | string |  | `Entries` |" in text
    # A key of several shapes (oneOf, anyOf) names each of them, never "any".
    assert "| `claims[].source` | mapping or list of mapping |" in text
    assert "| `claims[].paper_value` | integer or string |" in text
