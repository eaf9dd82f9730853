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
