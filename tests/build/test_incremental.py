"""The incremental build: unchanged inputs are not computed again, unchanged figures are not
drawn again, and the files on disk are always byte for byte those of a full build."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from survey_tools.build import build, plan_build
from survey_tools.buildcache import MANIFEST, outputs_folder
from survey_tools.cachedir import cache_dir


@pytest.fixture
def cached(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("SURVEY_NO_CACHE", "0")
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def _full_build_equals_disk(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every output of a build with no cache at all is the file on disk."""
    with monkeypatch.context() as m:
        m.setenv("SURVEY_NO_CACHE", "1")
        outputs = plan_build(root).outputs
    differ = [rel for rel, data in outputs.items() if (root / rel).read_bytes() != data]
    assert differ == []


def _edit(path: Path, pattern: str, repl: str) -> None:
    text = path.read_text(encoding="utf-8")
    new, n = re.subn(pattern, repl, text, count=1, flags=re.M)
    assert n == 1, pattern
    path.write_text(new, encoding="utf-8")


@pytest.mark.slow
def test_incremental_builds_write_what_a_full_build_writes(
    survey: Path, cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = build(survey)
    assert first.context is not None and first.written
    assert (cache_dir(survey) / MANIFEST).is_file()
    figures = sorted(outputs_folder().glob("figures-*.json"))
    assert len(figures) == 1

    # Unchanged: validated, then nothing computed (no survey value) and nothing written.
    again = build(survey, check=True)
    assert again.ok and again.context is None and again.outputs == first.outputs

    # A summary changes: the README and the page change, the figures come from the cache.
    record = sorted((survey / "corpus").glob("*.yaml"))[0]
    _edit(record, r"^summary: .*$", "summary: A sentence written for the incremental build test.")
    edited = build(survey)
    assert "README.md" in edited.written
    assert not any(rel.startswith("reports/figures/") for rel in edited.written)
    assert sorted(outputs_folder().glob("figures-*.json")) == figures
    _full_build_equals_disk(survey, monkeypatch)

    # A tag changes: the figures are drawn again, and still equal a full build's.
    _edit(record, r"^verified: .*$", "verified: partial")
    retagged = build(survey)
    assert retagged.context is not None
    assert sorted(outputs_folder().glob("figures-*.json")) != figures
    _full_build_equals_disk(survey, monkeypatch)
    assert build(survey, check=True).ok


@pytest.mark.slow
def test_a_damaged_cache_is_ignored(survey: Path, cached: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build(survey)
    for entry in outputs_folder().glob("*.json"):
        entry.write_text('{"reports/figures/x.svg": {"hash": "0", "data": "AAAA"}}', encoding="utf-8")
    (cache_dir(survey) / MANIFEST).write_text("not json", encoding="utf-8")
    (survey / "README.md").write_text("stale\n", encoding="utf-8")
    result = build(survey)
    assert result.written == ("README.md",)
    _full_build_equals_disk(survey, monkeypatch)


@pytest.mark.slow
def test_an_output_edited_by_hand_is_found_stale(survey: Path, cached: Path) -> None:
    build(survey)
    (survey / "reports" / "STATS.md").write_text("edited by hand\n", encoding="utf-8")
    result = build(survey, check=True)
    assert [s.path for s in result.stale] == ["reports/STATS.md"]


def test_toolkit_digest_covers_every_shipped_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An edit to any file of the package (a page module .mjs included) makes cached outputs
    stale; compiled bytecode does not."""
    import survey_tools.buildcache as buildcache

    pkg = tmp_path / "pkg"
    (pkg / "render" / "js").mkdir(parents=True)
    (pkg / "__pycache__").mkdir()
    (pkg / "mod.py").write_text("X = 1\n")
    module = pkg / "render" / "js" / "list.mjs"
    module.write_text("export const a = 1;\n")
    (pkg / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"one")
    monkeypatch.setattr(buildcache, "PACKAGE", pkg)

    def digest() -> str:  # computed once per process otherwise
        buildcache.toolkit_digest.cache_clear()
        return buildcache.toolkit_digest()

    before = digest()
    (pkg / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"two")
    assert digest() == before
    module.write_text("export const a = 2;\n")
    assert digest() != before
    buildcache.toolkit_digest.cache_clear()
