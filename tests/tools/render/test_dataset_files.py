"""Issue 56, the list as a dataset: the records' CSV published with the site, described by a
Frictionless Data Package and a Croissant JSON-LD document, each validated by its own package
(``frictionless``, ``mlcroissant``), and loaded by the very lines the README shows (pandas, and
Hugging Face ``datasets``, from its own environment) from the built files."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers.render_support import Built

from survey_tools.render.dataset import (
    CROISSANT_FILE,
    CSV_FILE,
    DATAPACKAGE_FILE,
    columns,
    dataset_files,
)

URL = "https://lists.example.org/rl-mas"


@pytest.fixture(scope="module")
def published(real: Built, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("dataset")
    for rel, text in dataset_files(real.tax, real.corpus.retained, URL).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    return folder


def _readme_lines(real: Built) -> list[str]:
    from dataclasses import replace

    from survey_tools.render.markdown import render_readme

    survey = real.tax.survey
    tax = replace(real.tax, survey={**survey, "site": {**survey["site"], "url": URL}})
    text = render_readme(tax, real.corpus, real.stats, site_path="reports/site/index.html")
    block = text.split("```python\n", 1)[1].split("```", 1)[0]
    return block.strip().splitlines()


def test_frictionless_validates_the_data_package(published: Path, real: Built) -> None:
    frictionless = pytest.importorskip("frictionless")
    report = frictionless.validate(str(published / DATAPACKAGE_FILE))
    assert report.valid, report.flatten(["rowNumber", "fieldName", "type", "message"])[:5]
    pkg = json.loads((published / DATAPACKAGE_FILE).read_text(encoding="utf-8"))
    resource = frictionless.Resource(
        str(published / CSV_FILE),
        schema=frictionless.Schema.from_descriptor(pkg["resources"][0]["schema"]),
    )
    rows = resource.read_rows()
    assert len(rows) == len(real.corpus.retained)
    assert pkg["licenses"][0]["name"] == real.tax.survey["data_license"]
    assert (
        pkg["resources"][0]["hash"]
        == "sha256:" + hashlib.sha256((published / CSV_FILE).read_bytes()).hexdigest()
    )


def test_mlcroissant_validates_the_description_and_reads_every_record(
    published: Path, real: Built
) -> None:
    mlc = pytest.importorskip("mlcroissant")
    ds = mlc.Dataset(jsonld=str(published / CROISSANT_FILE))  # raises on any error
    assert ds.metadata.ctx.issues.errors == set() and ds.metadata.ctx.issues.warnings == set()
    doc = json.loads((published / CROISSANT_FILE).read_text(encoding="utf-8"))
    assert doc["distribution"][0]["contentUrl"] == f"{URL}/{CSV_FILE}"
    # read from here: the same description with the file where this test wrote it
    doc["distribution"][0]["contentUrl"] = str(published / CSV_FILE)
    local = published / "local-croissant.json"
    local.write_text(json.dumps(doc), encoding="utf-8")
    records = list(mlc.Dataset(jsonld=str(local)).records("papers"))
    assert len(records) == len(real.corpus.retained)
    keys = sorted(r["papers/key"].decode("utf-8") for r in records)
    assert keys == sorted(r.id for r in real.corpus.retained)
    c3 = next(r for r in records if r["papers/key"] == b"c3")
    assert c3["papers/year"] == real.corpus.by_id("retained")["c3"].get("year")


def _run(line: str, path: Path) -> Any:
    """One line of the README with the published address replaced by the built file."""
    scope: dict[str, Any] = {}
    exec("import pandas\nimport datasets\n" if "datasets." in line else "import pandas\n", scope)  # noqa: S102
    exec(line.replace(f"{URL}/{CSV_FILE}", str(path)), scope)  # noqa: S102 (our README's own line)
    return scope["papers"]


def test_the_readmes_pandas_line_loads_the_list(published: Path, real: Built) -> None:
    pd_line = next(line for line in _readme_lines(real) if "pandas.read_csv" in line)
    assert f'"{URL}/{CSV_FILE}"' in pd_line
    papers = _run(pd_line, published / CSV_FILE)
    assert len(papers) == len(real.corpus.retained)
    assert list(papers.columns) == [c.name for c in columns(real.tax)]
    # "NA" (not applicable) is a value of the list, not a missing one
    assert (papers["orchestration_form"] == real.tax.na).any()
    assert set(papers["key"]) == {r.id for r in real.corpus.retained}


# Hugging Face datasets pins a click the toolkit's tests cannot share (it would move click in the
# test environment), so tools/ci.sh step_install gives it a virtual environment of its own.
DATASETS_PYTHON = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "survey-tools-ci" / "datasets" / "bin" / "python"
)


def test_the_readmes_datasets_line_loads_the_list(
    published: Path, real: Built, tmp_path: Path
) -> None:
    if not DATASETS_PYTHON.is_file():
        pytest.skip(f"Hugging Face datasets is not installed at {DATASETS_PYTHON}: run tools/ci.sh install")
    ds_line = next(line for line in _readme_lines(real) if "load_dataset" in line)
    assert f'"{URL}/{CSV_FILE}"' in ds_line
    # The README's own line, run by the datasets environment on the built file, offline.
    script = (
        "import json, datasets\n"
        + ds_line.replace(f"{URL}/{CSV_FILE}", str(published / CSV_FILE))
        + "\nprint(json.dumps({'rows': papers.num_rows, 'columns': papers.column_names,"
        " 'keys': sorted(papers['key'])}))\n"
    )
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
           "HF_HOME": str(tmp_path / "hf")}
    run = subprocess.run([str(DATASETS_PYTHON), "-c", script], capture_output=True, text=True,
                         env=env, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["rows"] == len(real.corpus.retained)
    assert got["columns"] == [c.name for c in columns(real.tax)]
    assert got["keys"] == sorted(r.id for r in real.corpus.retained)


def test_the_card_and_the_files_are_the_same_on_every_build(published: Path, real: Built) -> None:
    again = dataset_files(real.tax, real.corpus.retained, URL)
    for rel, text in again.items():
        assert (published / rel).read_text(encoding="utf-8") == text, rel
    card = (published / "data" / "README.md").read_text(encoding="utf-8")
    front = yaml.safe_load(card.split("---\n", 2)[1])
    assert front["configs"][0]["data_files"] == "papers.csv" and front["license"] == "cc0-1.0"
    assert re.search(r"^\| `subdecisions` \| string \| .+KEY:mode", card, re.M)
