"""atomic_write gives files ordinary permissions: the umask's for a new file, the old mode kept."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from survey_tools.build import build
from survey_tools.fileio import atomic_write
from survey_tools.traces.importers.convert import import_to


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_gets_the_umask_mode(tmp_path: Path, umask_022: None) -> None:
    atomic_write(tmp_path / "new.yaml", "key: x\n")
    assert mode(tmp_path / "new.yaml") == 0o644
    assert (tmp_path / "new.yaml").read_text() == "key: x\n"


def test_another_umask_is_honoured(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        atomic_write(tmp_path / "private.yaml", b"key: x\n")
    finally:
        os.umask(old)
    assert mode(tmp_path / "private.yaml") == 0o640


def test_replacing_a_file_keeps_its_mode(tmp_path: Path, umask_022: None) -> None:
    target = tmp_path / "script.sh"
    target.write_text("old\n")
    target.chmod(0o755)
    atomic_write(target, [b"new", b"\n"])
    assert mode(target) == 0o755 and target.read_text() == "new\n"
    target.chmod(0o600)
    atomic_write(target, "newer\n")
    assert mode(target) == 0o600 and target.read_text() == "newer\n"


def test_the_build_writes_readable_outputs(corpus_copy: Path, umask_022: None) -> None:
    build(corpus_copy)
    site = corpus_copy / "reports" / "site" / "index.html"
    assert mode(site) == 0o644


def test_an_imported_trace_is_readable(tmp_path: Path, umask_022: None) -> None:
    # The importer validates in a mkstemp file (0600) before the rename: the target still gets 0644.
    src = Path(__file__).resolve().parents[1] / "fixtures" / "who-and-when" / "hand-crafted-24.json"
    import_to("who-and-when", src, tmp_path / "run.trace.json")
    assert mode(tmp_path / "run.trace.json") == 0o644
