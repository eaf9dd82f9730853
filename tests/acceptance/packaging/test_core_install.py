"""`pip install survey-corpus-tools` without extras is the core, and the core does the core job.

Offline (a test never downloads): a fresh virtual environment, which does not see the test
environment's packages, gets exactly the distributions the checkout's core requirements
resolve to (pyproject.toml ``dependencies``, followed through each distribution's own
requirements, markers evaluated without extras), copied file by file from the test environment
as its RECORD lists them; then the checkout's wheel with ``--no-index --no-deps``, and ``pip
check`` proves that nothing the core needs is missing. It holds at most 45 distributions and
none of the libraries only the extras bring. With that environment alone, ``survey validate``
and ``survey build --check`` pass on a copy of the survey, and a command that needs an extra
stops with one line naming the install command (no traceback).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[3]
MAX_DISTRIBUTIONS = 45
# What only an extra may bring: screening (scikit-learn and its SciPy, openpyxl), spreadsheets
# (openpyxl), analysis (pandas), scale (pyarrow, ray), interop (OpenTelemetry). RIS (rispy) is
# core: survey init reads RIS lists.
NOT_IN_CORE = (
    "scikit-learn",
    "scipy",
    "openpyxl",
    "pandas",
    "pyarrow",
    "ray",
    "opentelemetry-sdk",
    "opentelemetry-api",
)
# Installed by the venv itself, not by the package.
VENV_OWN = {"pip", "setuptools"}
# What the copy of the survey leaves out: the repository's own machinery and bulky caches.
NOT_COPIED = shutil.ignore_patterns(
    ".git",
    "node_modules",
    "__pycache__",
    "*.egg-info",
    "build",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".venv",
)


def core_closure() -> dict[str, metadata.Distribution]:
    """The distributions the core requirements resolve to in this environment, by name."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    todo = [Requirement(r) for r in project["dependencies"]]
    found: dict[str, metadata.Distribution] = {}
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = canonicalize_name(req.name)
        if name in found:
            continue
        dist = metadata.distribution(req.name)
        assert dist.version in req.specifier or not req.specifier, (req, dist.version)
        found[name] = dist
        todo += [Requirement(r) for r in dist.requires or ()]
    return found


def _copy_distribution(dist: metadata.Distribution, site: Path) -> None:
    """The files of an installed distribution (its RECORD) into another site-packages."""
    base = Path(str(dist.locate_file(""))).resolve()
    assert dist.files is not None, f"{dist.metadata['Name']} has no RECORD"
    for f in dist.files:
        src = Path(str(dist.locate_file(f))).resolve()
        if not src.is_relative_to(base) or not src.is_file() or "__pycache__" in src.parts:
            continue  # scripts in bin/ and compiled caches: not needed to import it
        dest = site / src.relative_to(base)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)


@pytest.fixture(scope="module")
def core(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    base = tmp_path_factory.mktemp("core")
    survey = base / "survey"
    shutil.copytree(REPO, survey, ignore=NOT_COPIED, symlinks=True)
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    for dist in core_closure().values():
        _copy_distribution(dist, site)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["SURVEY_CACHE_DIR"] = str(base / "cache")
    wheels = base / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-index",
            "--no-build-isolation",
            "-w",
            str(wheels),
            str(survey),
        ],
        check=True,
        env=env,
        capture_output=True,
    )
    (wheel,) = wheels.glob("*.whl")
    for cmd in (["install", "--quiet", "--no-index", "--no-deps", str(wheel)], ["check"]):
        res = subprocess.run(
            [python, "-m", "pip", *cmd],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
            check=False,
        )
        assert res.returncode == 0, res.stdout + res.stderr
    return venv, survey, env


def _distributions(venv: Path) -> set[str]:
    out = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "list", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {d["name"].lower().replace("_", "-") for d in json.loads(out)}


def test_the_core_is_small_and_has_no_extra(core: tuple[Path, Path, dict[str, str]]) -> None:
    venv, _, _ = core
    dists = _distributions(venv) - VENV_OWN
    assert len(dists) <= MAX_DISTRIBUTIONS, sorted(dists)
    assert "survey-corpus-tools" in dists
    assert not dists & set(NOT_IN_CORE), sorted(dists & set(NOT_IN_CORE))
    assert not any(d.startswith("opentelemetry") for d in dists)


def test_the_core_validates_and_checks_the_build(core: tuple[Path, Path, dict[str, str]]) -> None:
    venv, survey, env = core
    for args in (["validate"], ["build", "--check"]):
        res = subprocess.run(
            [str(venv / "bin" / "survey"), *args],
            cwd=survey,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert res.returncode == 0, f"survey {' '.join(args)}:\n{res.stdout}\n{res.stderr}"


def test_a_command_needing_an_extra_says_how_to_install_it(
    core: tuple[Path, Path, dict[str, str]],
) -> None:
    """An Excel list on the core install: one line naming the extra that reads it."""
    venv, survey, env = core
    res = subprocess.run(
        [
            str(venv / "bin" / "survey"),
            "init",
            str(survey.parent / "from-excel"),
            "--from",
            str(REPO / "tests" / "fixtures" / "lists" / "asreview-baseline.xlsx"),
            "--title",
            "Synthetic Adoption",
        ],
        cwd=survey.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert res.returncode != 0
    assert res.stdout == ""
    assert res.stderr.splitlines()[-1:] == [
        "error: openpyxl is not installed: Excel workbooks as lists (survey init --from, survey "
        "import) needs the [spreadsheets] extra: pip install 'survey-corpus-tools[spreadsheets]'"
    ]
    assert not (survey.parent / "from-excel").exists()


@pytest.mark.parametrize(
    ("name", "records"), [("asreview-zotero.ris", 10), ("zotero-csl.json", 26)], ids=["ris", "csl-json"]
)
def test_a_ris_or_csl_json_list_is_adopted_on_the_core(
    core: tuple[Path, Path, dict[str, str]], name: str, records: int
) -> None:
    """RIS (rispy, core) and CSL-JSON (the json module) on the install the docs name: no extra."""
    venv, survey, env = core
    target = survey.parent / f"from-{Path(name).suffix[1:]}"
    res = subprocess.run(
        [
            str(venv / "bin" / "survey"),
            "init",
            str(target),
            "--from",
            str(REPO / "tests" / "fixtures" / "lists" / name),
            "--title",
            "Synthetic Adoption",
        ],
        cwd=survey.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    assert len(list((target / "corpus").glob("*.yaml"))) == records
