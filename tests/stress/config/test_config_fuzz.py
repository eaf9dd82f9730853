"""No traceback from any one-line mutation of any configuration file.

Hypothesis picks a configuration file (of this survey and of the second, tiny one), a line and
a mutation (delete it, replace its value, misspell its key, duplicate it, shift its indent,
replace it with noise), then loads everything that reads configuration. The only allowed
outcomes are success or a SurveyError whose problems each name the file.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from survey_tools.adopt import csvio
from survey_tools.build import plan_build
from survey_tools.corpus.configs import data_config_problems
from survey_tools.corpus.taxonomy import commands_config, load_taxonomy
from survey_tools.errors import InvalidInput, SurveyError
from survey_tools.render import model
from survey_tools.render.requirements import output_problems
from survey_tools.reports.claims_file import load_claims
from survey_tools.reports.corrections import load_corrections
from survey_tools.reports.report_config import load_config

REPO = Path(__file__).resolve().parents[3]
TINY = REPO / "tests" / "data" / "tiny-survey"

_WORK = Path(tempfile.mkdtemp(prefix="config-fuzz-"))
MAIN = _WORK / "main"
SMALL = _WORK / "tiny"
for folder in ("taxonomy", "data"):
    shutil.copytree(REPO / folder, MAIN / folder, ignore=shutil.ignore_patterns("audit", "schema"))
shutil.copytree(TINY, SMALL)
(SMALL / "data").mkdir()
(SMALL / "data" / "reports.yaml").write_text(
    "crosstabs:\n  - {rows: language, cols: licence}\ngaps:\n  k: 1\n  tables:\n    - {rows: language, cols: licence}\n",
    encoding="utf-8")
(SMALL / "taxonomy" / "csv.yaml").write_text(
    "list_separator: ' ; '\ntools:\n  file: tools.csv\n  columns:\n    - {column: slug, field: slug}\n"
    "    - {column: name, field: name}\n    - {column: languages, field: language, separator: '|', values: {Py: python}}\n"
    "    - {column: notes, ignore: true}\n", encoding="utf-8")
(SMALL / "taxonomy" / "commands.yaml").write_text(
    "flags: {lang: language}\nadd: {key: template, key_template: '{title_words}'}\nbibtex: {no_author: Anonymous}\n",
    encoding="utf-8")

FILES = sorted(
    [(MAIN, p.relative_to(MAIN).as_posix()) for p in MAIN.rglob("*.yaml")]
    + [(SMALL, p.relative_to(SMALL).as_posix()) for p in SMALL.rglob("*.yaml")
       if not p.relative_to(SMALL).as_posix().startswith("entries/")],
    key=lambda x: (str(x[0]), x[1]),
)
ORIGINAL = {(root, rel): (root / rel).read_text(encoding="utf-8") for root, rel in FILES}

NOISE = ["oops", "[a]", "{}", "null", "1", "-1", "''", "yes", "[", "{a: [b, {c: d}]}", "' '", "2.5",
         "!!python/object:os.system", "*anchor", "&a x", "\"\\u0000\"", "year", "- x", "NA"]


def _mutate(text: str, line: int, kind: int, noise: str) -> str:
    lines = text.split("\n")
    i = line % max(len(lines), 1)
    cur = lines[i]
    head, sep, _ = cur.partition(":")
    if kind == 0:
        del lines[i]
    elif kind == 1 and sep:
        lines[i] = f"{head}: {noise}"
    elif kind == 2 and sep:
        key = head.strip().lstrip("- ")
        typo = key[1:] + key[:1] if len(key) > 1 else key + "x"
        lines[i] = cur.replace(key, typo, 1)
    elif kind == 3:
        lines.insert(i, cur)
    elif kind == 4:
        lines[i] = "  " + cur
    elif kind == 5:
        lines[i] = cur.lstrip()
    else:
        lines[i] = noise
    return "\n".join(lines)


def _load_everything(root: Path) -> None:
    tax = load_taxonomy(root)
    data_config_problems(tax.document, tax.files)
    load_config(tax)
    load_claims(tax)
    load_corrections(tax)
    output_problems(tax)
    commands_config(tax)
    model.presentation(tax, "readme")
    model.presentation(tax, "site")
    for name in tax.csv_layout:
        if name in tax.collections:
            csvio.layout(tax, name)
    if root == SMALL:
        plan_build(root)


@given(st.sampled_from(FILES), st.integers(0, 400), st.integers(0, 6), st.sampled_from(NOISE))
def test_one_line_mutation_never_crashes(target: tuple[Path, str], line: int, kind: int, noise: str) -> None:
    root, rel = target
    path = root / rel
    path.write_text(_mutate(ORIGINAL[target], line, kind, noise), encoding="utf-8")
    try:
        _load_everything(root)
    except InvalidInput as err:
        assert err.problems, err
        for p in err.problems:
            assert p.message, p
            assert "Traceback" not in p.format()
    except SurveyError as err:
        # A generator that raised anything but a SurveyError is a crash in disguise.
        assert str(err) and not str(err).startswith("generator "), err
    finally:
        path.write_text(ORIGINAL[target], encoding="utf-8")


def test_the_unmutated_copies_load() -> None:
    _load_everything(MAIN)
    _load_everything(SMALL)
