"""The tests of test_fileio.py that build the whole real survey or run the `survey` command end to end."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers.fileio_cases import mode
from helpers.fileio_cases import umask_022 as umask_022  # a fixture, found by name

from survey_tools.build import build


def test_the_build_writes_readable_outputs(corpus_copy: Path, umask_022: None) -> None:
    build(corpus_copy)
    site = corpus_copy / "reports" / "site" / "index.html"
    assert mode(site) == 0o644


def test_a_build_syncs_the_outputs_it_replaces_and_not_the_ones_it_creates(
    corpus_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same rule through a whole build: the paper pages it finds missing are created without
    # an fsync, the pages an edited record changes are synced before they replace the old ones.
    import shutil

    import yaml

    build(corpus_copy)
    papers = corpus_copy / "reports" / "site" / "papers"
    shutil.rmtree(papers)
    record = corpus_copy / "corpus" / "c3.yaml"
    data = yaml.safe_load(record.read_text(encoding="utf-8"))
    data["summary"] = data["summary"] + " Edited for the test."
    record.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    monkeypatch.setenv("SURVEY_NO_CACHE", "1")  # every output compared with the disk, none trusted
    synced: set[int] = set()
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.add(os.fstat(fd).st_ino)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    before = {
        p: p.stat().st_ino
        for p in (corpus_copy / "README.md", corpus_copy / "reports" / "site" / "index.html")
    }
    result = build(corpus_copy)
    created = {p.name: p.stat().st_ino for p in papers.iterdir()}
    assert len(created) > 80 and "c3.html" in created
    assert not set(created.values()) & synced  # nothing stood there: nothing to lose
    for path, old in before.items():  # the edited summary shows in both: replaced, and synced
        assert path.stat().st_ino != old and path.stat().st_ino in synced, path
    assert "reports/site/papers/c3.html" in result.written
