"""The parse cache is keyed by file content: it speeds up a second run and never serves stale data."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from survey_tools.corpus.loading import load_corpus

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture(autouse=True)
def own_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # The parse cache is shared by every survey on the machine (keyed by taxonomy, path and
    # bytes), so another test of this process may already have parsed these records: these
    # tests count hits, so they start from a cache of their own.
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))


def test_cache_hits_and_never_stale(survey_dir: Path) -> None:
    shutil.copy(DATA / "records/valid/demo-paper.yaml", survey_dir / "corpus")
    shutil.copy(DATA / "records/valid/minimal-na.yaml", survey_dir / "corpus")
    first = load_corpus(survey_dir, use_cache=True)
    assert first.cache_hits == 0 and not first.problems
    second = load_corpus(survey_dir, use_cache=True)
    assert second.cache_hits == 2
    assert second.records == first.records
    path = survey_dir / "corpus/minimal-na.yaml"
    path.write_text(path.read_text().replace("scenario: web", "scenario: webb"))
    third = load_corpus(survey_dir, use_cache=True)
    assert third.cache_hits == 1
    assert [p.format() for p in third.problems] == [
        "corpus/minimal-na.yaml:13:11: scenario: 'webb' is not a scenario (did you mean 'web'?)"
    ]


def test_taxonomy_change_invalidates_cache(survey_dir: Path) -> None:
    shutil.copy(DATA / "records/valid/minimal-na.yaml", survey_dir / "corpus")
    load_corpus(survey_dir, use_cache=True)
    f = survey_dir / "taxonomy/fields/scenario.yaml"
    f.write_text(f.read_text().replace("  - {id: web,", "  - {id: www,"))
    again = load_corpus(survey_dir, use_cache=True)
    assert again.cache_hits == 0
    assert [p.field for p in again.problems] == ["scenario"]


def test_source_digest_follows_content_not_times(tmp_path: Path) -> None:
    """The toolkit's source digest changes with a file's bytes, even when its size and times are
    put back as they were; compiled bytecode does not count."""
    import os

    from survey_tools.hashing import PACKAGE, source_digest

    pkg = tmp_path / "pkg"
    shutil.copytree(PACKAGE, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    checks = pkg / "corpus" / "checks.py"
    (pkg / "__pycache__").mkdir()
    (pkg / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"one")
    before = source_digest(pkg)
    assert before == source_digest.__wrapped__(pkg)  # once per process, the same on a second read
    (pkg / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"two")
    assert source_digest.__wrapped__(pkg) == before
    stat = checks.stat()
    text = checks.read_text(encoding="utf-8")
    assert "is not a" in text
    checks.write_text(text.replace("is not a", "is NOT a", 1), encoding="utf-8")  # same size
    os.utime(checks, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert checks.stat().st_size == stat.st_size
    assert source_digest.__wrapped__(pkg) != before


def test_an_edit_to_the_toolkit_drops_the_parse_cache(
    survey_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A message edited in corpus/checks.py shows at once: the cache written by the code before
    the edit is not read by the code after it (the digest of a copy of the package stands in
    for the package being edited)."""
    import functools

    import survey_tools.corpus.loading as loading
    from survey_tools.hashing import PACKAGE, source_digest

    pkg = tmp_path / "pkg"
    shutil.copytree(PACKAGE, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(loading, "source_digest", functools.partial(source_digest.__wrapped__, pkg))
    shutil.copy(DATA / "records/valid/minimal-na.yaml", survey_dir / "corpus")
    assert load_corpus(survey_dir, use_cache=True).cache_hits == 0
    assert load_corpus(survey_dir, use_cache=True).cache_hits == 1
    checks = pkg / "corpus" / "checks.py"
    checks.write_text(
        checks.read_text(encoding="utf-8") + "\n# a message reworded\n", encoding="utf-8"
    )
    assert load_corpus(survey_dir, use_cache=True).cache_hits == 0
    assert load_corpus(survey_dir, use_cache=True).cache_hits == 1
