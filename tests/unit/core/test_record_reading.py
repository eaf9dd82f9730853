"""How a record file's bytes are read: one os.read of the size fstat gives, and the whole file
even when it grew between the fstat and the read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from survey_tools.corpus import loading
from survey_tools.corpus.yamlio import MAX_FILE_BYTES
from survey_tools.errors import Problem


def test_a_record_is_read_whole(tmp_path: Path) -> None:
    body = b"id: x\nsummary: " + b"w" * 200_000 + b"\n"
    (tmp_path / "x.yaml").write_bytes(body)
    assert loading._read(tmp_path, "x.yaml") == body
    (tmp_path / "empty.yaml").write_bytes(b"")
    assert loading._read(tmp_path, "empty.yaml") == b""


def test_a_file_that_grew_after_its_fstat_is_read_to_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The race (a file appended to between fstat and read) cannot be timed from a test: fstat
    # is made to report the size the file had before it grew.
    body = b"id: x\nsummary: " + b"w" * 200_000 + b"\n"
    (tmp_path / "x.yaml").write_bytes(body)
    real = os.fstat

    def earlier(fd: int) -> os.stat_result:
        st = real(fd)
        fields = list(st)
        fields[6] = 10  # st_size
        return os.stat_result(fields)

    monkeypatch.setattr(loading.os, "fstat", earlier)
    assert loading._read(tmp_path, "x.yaml") == body


def test_a_file_over_the_limit_is_refused_unread(tmp_path: Path) -> None:
    with (tmp_path / "big.yaml").open("wb") as fh:
        fh.truncate(MAX_FILE_BYTES + 1)
    got = loading._read(tmp_path, "big.yaml")
    assert isinstance(got, Problem) and "the limit is" in got.message
