"""The cache (parsed records, the build lock) lives in the user's cache directory, never in the
survey folder: validate and build leave a clean tree behind."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from survey_tools.build import build
from survey_tools.cachedir import cache_dir
from survey_tools.corpus.loading import load_corpus

DATA = Path(__file__).resolve().parents[2] / "data"


def files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def test_xdg_cache_home_is_the_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("SURVEY_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    where = cache_dir(tmp_path / "my survey")
    assert where.parent == tmp_path / "xdg" / "survey-tools"
    assert where.name.startswith("my_survey-")


def test_the_environment_variable_overrides(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "ci-cache"))
    assert cache_dir(tmp_path / "a").parent == tmp_path / "ci-cache"


def test_each_survey_folder_has_its_own(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "c"))
    (tmp_path / "one" / "survey").mkdir(parents=True)
    (tmp_path / "two" / "survey").mkdir(parents=True)
    a, b = cache_dir(tmp_path / "one" / "survey"), cache_dir(tmp_path / "two" / "survey")
    assert a != b and a.name.startswith("survey-") and b.name.startswith("survey-")
    # the same folder by another spelling is the same cache
    assert cache_dir(tmp_path / "one" / ".." / "one" / "survey") == a


def test_validate_and_build_write_nothing_into_the_survey(
    corpus_copy: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SURVEY_NO_CACHE", "0")
    build(corpus_copy)  # writes the generated outputs (README, reports/...) the first time
    before = files(corpus_copy)
    first = load_corpus(corpus_copy, use_cache=True)
    second = load_corpus(corpus_copy, use_cache=True)
    assert second.cache_hits == first.files > 100
    build(corpus_copy)
    build(corpus_copy, check=True)
    assert files(corpus_copy) == before
    kept = {p.name for p in cache_dir(corpus_copy).iterdir()}
    # The folder's own: the lock and the incremental build's manifest; what is keyed by
    # content alone (parses, drawn figures) is shared by every folder.
    assert kept == {"build.lock", "build-manifest.json"}
    shared = {p.name for p in (tmp_path / "cache").iterdir()}
    assert {"records", "outputs", cache_dir(corpus_copy).name} <= shared


def test_a_second_clone_starts_warm(
    corpus_copy: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SURVEY_NO_CACHE", "0")
    first = load_corpus(corpus_copy, use_cache=True)
    clone = tmp_path / "elsewhere" / "survey"
    shutil.copytree(corpus_copy, clone)
    second = load_corpus(clone, use_cache=True)
    assert first.cache_hits == 0 and second.cache_hits == second.files == first.files > 100
    assert second.problems == first.problems
    # An edited file in the clone is read again; the first folder's entry of it stays.
    rec = sorted((clone / "corpus").glob("*.yaml"))[0]
    rec.write_text(rec.read_text(encoding="utf-8").replace("\nyear:", "\nyear: 1999\nyearx:", 1), encoding="utf-8")
    edited = load_corpus(clone, use_cache=True)
    assert edited.cache_hits == first.files - 1 and edited.problems
    assert load_corpus(corpus_copy, use_cache=True).cache_hits == first.files


def test_an_unwritable_cache_still_validates(
    survey_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(blocker))
    monkeypatch.setenv("SURVEY_NO_CACHE", "0")
    shutil.copy(DATA / "records/valid/minimal-na.yaml", survey_dir / "corpus")
    assert not load_corpus(survey_dir, use_cache=True).problems


def test_git_status_is_clean_after_validate_and_check(corpus_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SURVEY_NO_CACHE", "0")
    build(corpus_copy)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-C", str(corpus_copy)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "survey"], check=True)
    load_corpus(corpus_copy, use_cache=True)
    build(corpus_copy, check=True)
    status = subprocess.run([*git, "status", "--porcelain", "--ignored"], capture_output=True, text=True, check=True)
    assert status.stdout == ""
