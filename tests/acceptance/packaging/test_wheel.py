"""The wheel works on its own: built, checked, installed into a fresh venv outside the repository.

Offline: the wheel is built without build isolation (the build backend is in the test extra)
and installed with ``--no-index --no-deps``; the venv sees the already-installed dependencies
(``--system-site-packages``), but survey_tools itself comes from the wheel, which the test
proves (its ``__file__`` is inside the venv) before running the ``survey`` script it installed
on a survey folder outside the repository: templates, schemas and configuration all load from
the installed package.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.survey_copy import SURVEY

REPO = Path(__file__).resolve().parents[3]
DATA = REPO / "tests" / "data"


@dataclass(frozen=True)
class Installed:
    wheel: Path
    sdist: Path
    venv: Path
    work: Path  # a folder outside the repository

    @property
    def bin(self) -> Path:
        return self.venv / ("Scripts" if os.name == "nt" else "bin")

    def env(self) -> dict[str, str]:
        # Nothing may point back at the repository: no PYTHONPATH, a cwd outside it.
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        env["PATH"] = f"{self.bin}{os.pathsep}{env.get('PATH', '')}"
        env["SURVEY_CACHE_DIR"] = str(self.work / "cache")
        return env

    def run(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(self.bin / "survey"), *args], cwd=cwd or self.work,
                              env=self.env(), capture_output=True, text=True, timeout=300)


def _copy_sources(dest: Path) -> None:
    """What the sdist is built from (a copy: the build leaves nothing in the repository)."""
    dest.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", "docs/TOOLKIT.md"):
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, dest / name)
    shutil.copytree(REPO / "survey_tools", dest / "survey_tools",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def _see_outer_venv(venv: Path) -> None:
    """When the tests themselves run in a virtual environment, ``--system-site-packages`` shows
    the base interpreter's packages, not that environment's, where the dependencies are: list its
    site-packages in a .pth file of the new venv, after the venv's own (plain paths only: the
    outer environment's .pth files, an editable survey_tools among them, are not run)."""
    if sys.prefix == sys.base_prefix:
        return
    import site

    inner = subprocess.run([str(venv / ("Scripts" if os.name == "nt" else "bin") / "python"), "-c",
                            "import site; print(site.getsitepackages()[0])"],
                           capture_output=True, text=True, check=True).stdout.strip()
    outer = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (Path(inner) / "_outer_venv.pth").write_text("".join(f"{p}\n" for p in outer), encoding="utf-8")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    base = tmp_path_factory.mktemp("wheel")
    src, dist = base / "src", base / "dist"
    _copy_sources(src)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    res = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist),
                          str(src)], capture_output=True, text=True, env=env, timeout=600)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    wheel = next(dist.glob("survey_corpus_tools-*.whl"))
    sdist = next(dist.glob("survey_corpus_tools-*.tar.gz"))
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, timeout=300)
    _see_outer_venv(venv)
    inst = Installed(wheel, sdist, venv, base / "work")
    inst.work.mkdir()
    res = subprocess.run([str(inst.bin / "python"), "-m", "pip", "install", "--no-index",
                          "--no-deps", "--quiet", str(wheel)], capture_output=True, text=True,
                         env=inst.env(), timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    yield inst


def test_twine_check_passes(installed: Installed) -> None:
    res = subprocess.run([sys.executable, "-m", "twine", "check", "--strict",
                          str(installed.wheel), str(installed.sdist)],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.count("PASSED") == 2


def test_wheel_holds_every_package_file(installed: Installed) -> None:
    """Every file of the package (templates, schemas, styles) is in the wheel: a new kind of
    file that pyproject's package-data globs miss fails here."""
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    pkg = REPO / "survey_tools"
    files = [p.relative_to(REPO).as_posix() for p in pkg.rglob("*")
             if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]
    missing = sorted(f for f in files if f not in names)
    assert not missing
    assert any(n.endswith(".j2") for n in names) and any(n.endswith(".schema.json") for n in names)


def test_package_comes_from_the_wheel(installed: Installed) -> None:
    res = subprocess.run(
        [str(installed.bin / "python"), "-c",
         "import survey_tools, importlib.metadata as m; print(survey_tools.__file__); "
         "print(m.distribution('survey-corpus-tools').read_text('INSTALLER').strip())"],
        cwd=installed.work, env=installed.env(), capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    where, installer = res.stdout.splitlines()
    assert Path(where).resolve().is_relative_to(installed.venv.resolve())
    assert not Path(where).resolve().is_relative_to(REPO)
    assert installer == "pip"


def test_survey_help(installed: Installed) -> None:
    res = installed.run("--help")
    assert res.returncode == 0, res.stderr
    for cmd in ("validate", "build", "links", "refresh", "trace"):
        assert cmd in res.stdout
    res = installed.run("--version")
    assert res.returncode == 0 and "0.1.0" in res.stdout


def test_validate_and_build_a_small_survey(installed: Installed) -> None:
    # A survey of another taxonomy validates...
    tiny = installed.work / "tiny"
    shutil.copytree(DATA / "tiny-survey", tiny)
    res = installed.run("--root", str(tiny), "validate")
    assert res.returncode == 0, res.stdout + res.stderr
    # ...and a small survey of this taxonomy builds: README and CONTRIBUTING from the
    # package's templates, the page with its styles, the schemas, the statistics.
    small = installed.work / "small"
    shutil.copytree(SURVEY / "taxonomy", small / "taxonomy")
    (small / "corpus").mkdir()
    (small / "exclusions").mkdir()
    # Valid records of distinct works (the other valid examples restate demo-paper's title).
    for name in ("demo-paper", "minimal-na", "yes-unquoted"):
        rec = DATA / "records" / "valid" / f"{name}.yaml"
        shutil.copy2(rec, small / "corpus" / rec.name)
    res = installed.run("--root", str(small), "validate")
    assert res.returncode == 0, res.stdout + res.stderr
    res = installed.run("--root", str(small), "build")
    assert res.returncode == 0, res.stdout + res.stderr
    readme = (small / "README.md").read_text(encoding="utf-8")
    assert readme.startswith("<!-- Generated by `survey build`")
    assert "Demo" in readme or "demo" in readme
    page = (small / "reports" / "site" / "index.html").read_text(encoding="utf-8")
    assert "<style>" in page and "<script" in page
    assert (small / "taxonomy" / "schema" / "retained.schema.json").is_file()
    assert (small / "CITATION.cff").is_file()
    res = installed.run("--root", str(small), "build", "--check")
    assert res.returncode == 0, res.stdout + res.stderr
    # The trace schema is package data too.
    res = installed.run("trace", "schema")
    assert res.returncode == 0, res.stderr
    assert '"$schema": "https://json-schema.org/draft/2020-12/schema"' in res.stdout


def test_the_wheel_names_its_licence(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as whl:
        names = whl.namelist()
        meta = whl.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        assert "License-Expression: MIT" in meta.splitlines()
        # the package's description is the toolkit's page, not the survey's generated list
        assert "## A two-minute start" in meta and "Generated by `survey build`" not in meta
        licence = next(n for n in names if n.endswith(".dist-info/licenses/LICENSE"))
        assert whl.read(licence).decode().startswith("MIT License")
    data = (REPO / "LICENSE-DATA").read_text(encoding="utf-8")
    assert "CC0 1.0 Universal" in data and "the MIT License in LICENSE" in data
    assert "`LICENSE`" in (REPO / "README.md").read_text(encoding="utf-8")


def test_a_release_pinned_by_hash_installs_those_bytes_only(installed: Installed, tmp_path: Path) -> None:
    # The requirements file survey init writes for a published version, read by the real pip
    # in --require-hashes mode against the sdist and wheel built here (as release.yml builds them).
    import hashlib

    from survey_tools._version import __version__
    from survey_tools.adopt.pins import release_pin

    files = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in (installed.wheel, installed.sdist)}

    def pip(pin_files: dict[str, str]) -> subprocess.CompletedProcess[str]:
        req = tmp_path / "survey-toolkit.txt"
        req.write_text(release_pin(__version__, pin_files).requirements, encoding="utf-8")
        return subprocess.run([str(installed.bin / "python"), "-m", "pip", "install", "--dry-run",
                               "--ignore-installed", "--no-index", "--find-links", str(installed.wheel.parent),
                               "--require-hashes", "--no-deps", "-r", str(req)],
                              capture_output=True, text=True, env=installed.env(), timeout=300)

    ok = pip(files)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert f"Would install survey-corpus-tools-{__version__}" in ok.stdout
    forged = pip({name: "0" * 64 for name in files})
    assert forged.returncode != 0 and "DO NOT MATCH THE HASHES" in forged.stderr
