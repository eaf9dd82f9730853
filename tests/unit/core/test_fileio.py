"""atomic_write gives files ordinary permissions: the umask's for a new file, the old mode kept;
Staged puts many files in place together, or (restored) none."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from helpers.fileio_cases import mode
from helpers.fileio_cases import umask_022 as umask_022  # a fixture, found by name

from survey_tools.fileio import (
    Staged,
    UnsafePath,
    _rel_parts,
    atomic_write,
    confined,
    confined_stat,
)
from survey_tools.traces.importers.convert import import_to


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


def test_an_imported_trace_is_readable(tmp_path: Path, umask_022: None) -> None:
    # The importer validates in a mkstemp file (0600) before the rename: the target still gets 0644.
    src = Path(__file__).resolve().parents[2] / "fixtures" / "who-and-when" / "hand-crafted-24.json"
    import_to("who-and-when", src, tmp_path / "run.trace.json")
    assert mode(tmp_path / "run.trace.json") == 0o644


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _only_visible(root: Path) -> dict[str, str]:
    return {k: v for k, v in _tree(root).items() if not k.rsplit("/", 1)[-1].startswith(".")}


def test_staged_files_appear_together_with_their_modes(tmp_path: Path, umask_022: None) -> None:
    (tmp_path / "old.txt").write_text("old\n")
    (tmp_path / "old.txt").chmod(0o600)
    (tmp_path / "gone.txt").write_text("gone\n")
    with Staged() as staged:
        staged.write(tmp_path / "old.txt", "new\n")
        staged.write(tmp_path / "a" / "b" / "page.html", b"<p>\n")
        staged.remove(tmp_path / "gone.txt")
        assert _only_visible(tmp_path) == {
            "gone.txt": "gone\n",
            "old.txt": "old\n",
        }  # nothing in place yet
        staged.commit()
    assert _tree(tmp_path) == {"a/b/page.html": "<p>\n", "old.txt": "new\n"}
    assert mode(tmp_path / "old.txt") == 0o600 and mode(tmp_path / "a" / "b" / "page.html") == 0o644


def test_staged_files_discarded_leave_nothing(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("keep\n")
    with pytest.raises(RuntimeError), Staged() as staged:
        staged.write(tmp_path / "keep.txt", "changed\n")
        staged.write(tmp_path / "new" / "page.html", "page\n")
        raise RuntimeError("a generator failed")
    assert _tree(tmp_path) == {"keep.txt": "keep\n"}
    assert not (tmp_path / "new").exists()


def test_a_failed_commit_restores_every_replaced_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp_path / name).write_text(f"old {name}\n")
    real = os.replace
    calls = {"n": 0}

    def failing(src: str, dst: str) -> None:
        calls["n"] += 1
        if calls["n"] == 3:  # the third file cannot be put in place (a full disk, say)
            raise OSError(28, "No space left on device", src, None, dst)
        real(src, dst)

    with Staged() as staged:
        for name in ("a.txt", "b.txt", "c.txt"):
            staged.write(tmp_path / name, f"new {name}\n")
        staged.write(tmp_path / "d.txt", "new d.txt\n")
        monkeypatch.setattr(os, "replace", failing)
        with pytest.raises(OSError):
            staged.commit()
        monkeypatch.setattr(os, "replace", real)
    assert _tree(tmp_path) == {name: f"old {name}\n" for name in ("a.txt", "b.txt", "c.txt")}


def test_every_replacing_file_is_synced_before_the_first_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Durability cannot be seen without pulling the plug: record the order of the calls instead.
    # A file that replaces one is synced before any rename (a cut must not lose both versions);
    # a file staged as new replaces nothing and is not synced (a cold build's 10,000 pages).
    (tmp_path / "pages").mkdir()
    for i in range(40):
        (tmp_path / "pages" / f"p{i}.html").write_text("old\n")
    synced: set[int] = set()
    seen: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        synced.add(os.fstat(fd).st_ino)
        real_fsync(fd)

    synced_at_first: set[int] = set()

    def replace(src: str, dst: str) -> None:
        if not seen:
            synced_at_first.update(synced)
        seen.append(src)
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    with Staged() as staged:
        for i in range(40):
            staged.write(tmp_path / "pages" / f"p{i}.html", f"page {i}\n")
        replacing = {os.stat(tmp).st_ino for _, tmp in staged._staged}
        for i in range(40, 80):
            staged.write(tmp_path / "pages" / f"p{i}.html", f"page {i}\n", new=True)
        new = {os.stat(tmp).st_ino for _, tmp in staged._staged} - replacing
        staged.commit()
    assert len(seen) == 80 and len(new) == 40
    assert replacing <= synced_at_first and not new & synced
    assert _tree(tmp_path) == {f"pages/p{i}.html": f"page {i}\n" for i in range(80)}


def test_confined_stat_gives_the_last_lstat_or_none(tmp_path: Path) -> None:
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "a.md").write_bytes(b"12345")
    path, st = confined_stat(tmp_path, "reports/a.md")
    assert path == tmp_path / "reports" / "a.md" and st is not None and st.st_size == 5
    assert confined_stat(tmp_path, "reports/missing.md") == (tmp_path / "reports" / "missing.md", None)
    # a folder not made yet: nothing below it exists either
    assert confined_stat(tmp_path, "new/deeper/b.md") == (tmp_path / "new" / "deeper" / "b.md", None)
    safe: set[str] = set()
    assert confined_stat(tmp_path, "reports/a.md", safe)[1] is not None
    assert safe == {str(tmp_path / "reports")}
    assert confined(tmp_path, "reports/a.md") == path


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="symbolic links")
@pytest.mark.parametrize("rel", ["linked/a.md", "reports/link.md", "../outside.md"])
def test_confined_stat_refuses_what_confined_refuses(tmp_path: Path, rel: str) -> None:
    (tmp_path / "reports").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "linked").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "reports" / "link.md").symlink_to(tmp_path / "elsewhere" / "x.md")
    with pytest.raises(UnsafePath):
        confined_stat(tmp_path, rel)
    with pytest.raises(UnsafePath):
        confined(tmp_path, rel)


def test_a_path_split_is_its_parts_as_pathlib_reads_them() -> None:
    # confined_stat splits a plain relative path instead of parsing it: the same parts and the
    # same answer to "absolute?" as pathlib gives, for any string of these characters
    rng = random.Random(53)
    drawn = ["".join(rng.choice(["a", "b.md", "/", ".", "..", " ", "\\", "~", "é"]) for _ in range(rng.randint(0, 8)))
             for _ in range(20_000)]
    for rel in [*drawn, "", "/", "//a", "a//b", "./a", "a/.", "a/./b", "a/", "../a", "a/..", ".a/b.", "..."]:
        assert _rel_parts(rel) == (Path(rel).parts, Path(rel).is_absolute()), rel
