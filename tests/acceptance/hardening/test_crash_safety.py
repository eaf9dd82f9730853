"""A killed, concurrent or refused ``survey build`` never leaves a truncated or mixed-up file.

Real subprocesses and real signals: the build is started as ``python -m``-style CLI process,
killed at seeded random moments (biased towards the end, where files are written), and every
output is then compared with the tree before the change and the tree a complete build makes.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from survey_tools.build import build as run_build
from survey_tools.build import plan_build

REPO = Path(__file__).resolve().parents[3]
SEED = int(os.environ.get("HARDENING_SEED", "20260521"))
KILLS = int(os.environ.get("HARDENING_KILLS", "6"))
SURVEY = [sys.executable, "-c", "from survey_tools.cli import main; main()"]


def _copy(dest: Path) -> Path:
    for name in ("taxonomy", "corpus", "exclusions", "data", "reports", ".github"):
        if (REPO / name).exists():
            shutil.copytree(REPO / name, dest / name)
    for name in ("README.md", "CONTRIBUTING.md", "CITATION.cff"):
        shutil.copy2(REPO / name, dest / name)
    return dest


def _files(root: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and not p.name.endswith(".tmp"):
            out[rel] = p.read_bytes()
    return out


def _change(root: Path) -> None:
    """An edit that moves many outputs: a summary (README, page, BibTeX) and a year (stats)."""
    rec = root / "corpus" / "c3.yaml"
    text = rec.read_text(encoding="utf-8")
    text = text.replace("summary: Gives each message", "summary: Hardening test, gives each message")
    rec.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes], dict[str, bytes]]:
    """A survey built before the change (old), and the files a full build after it makes (new)."""
    old_root = _copy(tmp_path_factory.mktemp("old") / "survey")
    run_build(old_root)
    old = _files(old_root)
    new_root = tmp_path_factory.mktemp("new") / "survey"
    shutil.copytree(old_root, new_root)
    _change(new_root)
    run_build(new_root)
    new = _files(new_root)
    return old_root, old, new


def _assert_old_or_new(root: Path, old: dict[str, bytes], new: dict[str, bytes]) -> int:
    """Every file is byte-for-byte its old or its new version; returns how many are new."""
    now = _files(root)
    assert set(now) <= set(old) | set(new), f"unexpected files: {set(now) - set(old) - set(new)}"
    fresh = 0
    for rel, data in now.items():
        if data == new.get(rel) and data != old.get(rel):
            fresh += 1
        elif data != old.get(rel):
            raise AssertionError(f"{rel}: neither the old nor the new version ({len(data)} bytes)")
    for rel in set(old) & set(new):
        assert rel in now, f"{rel} went missing"
    return fresh


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["SURVEY_NO_CACHE"] = "0"  # the parse cache (outside the tree) is written too: it must survive kills
    return env


def test_killed_build_leaves_old_or_new_files(
    trees: tuple[Path, dict[str, bytes], dict[str, bytes]], tmp_path: Path
) -> None:
    old_root, old, new = trees
    moved = [rel for rel in new if old.get(rel) != new[rel]]
    assert len(moved) >= 3, moved  # the change must move several outputs to be a real test
    root = tmp_path / "survey"
    shutil.copytree(old_root, root)
    _change(root)
    start = time.monotonic()
    subprocess.run([*SURVEY, "--root", str(root), "build", "--check"], env=_env(),
                   capture_output=True, check=False)
    duration = time.monotonic() - start  # about how long a build takes here
    rng = random.Random(SEED)
    sigs = [signal.SIGKILL, signal.SIGTERM, signal.SIGINT]
    for i in range(KILLS):
        # a fresh old tree each round, except that kills may also land on a half-new tree
        if i % 2 == 0:
            shutil.rmtree(root)
            shutil.copytree(old_root, root)
            _change(root)
        proc = subprocess.Popen([*SURVEY, "--root", str(root), "build"], env=_env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        delay = duration * (0.3 + 0.9 * rng.random())
        time.sleep(delay)
        sig = sigs[i % len(sigs)]
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        assert b"Traceback" not in err or sig == signal.SIGINT, err.decode()
        # the record itself was changed by the test, not by the build
        _assert_old_or_new(root, {**old, "corpus/c3.yaml": new["corpus/c3.yaml"]}, new)
    # a later complete build always repairs the tree
    res = subprocess.run([*SURVEY, "--root", str(root), "build"], env=_env(),
                         capture_output=True, check=False)
    assert res.returncode == 0, res.stderr.decode()
    assert _files(root) == new


def test_two_builds_at_once_leave_a_consistent_tree(
    trees: tuple[Path, dict[str, bytes], dict[str, bytes]], tmp_path: Path
) -> None:
    old_root, _, new = trees
    root = tmp_path / "survey"
    shutil.copytree(old_root, root)
    _change(root)
    procs = [
        subprocess.Popen([*SURVEY, "--root", str(root), "build"], env=_env(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (_, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err.decode()
    assert _files(root) == new
    check = subprocess.run([*SURVEY, "--root", str(root), "build", "--check"], env=_env(),
                           capture_output=True, check=False)
    assert check.returncode == 0, check.stdout.decode()


def _set_immutable(paths: list[Path], on: bool) -> bool:
    flag = "+i" if on else "-i"
    res = subprocess.run(["chattr", flag, *map(str, paths)], capture_output=True, check=False)
    return res.returncode == 0


def test_read_only_reports_give_a_clear_error(
    trees: tuple[Path, dict[str, bytes], dict[str, bytes]], tmp_path: Path
) -> None:
    old_root, old, _ = trees
    root = tmp_path / "survey"
    shutil.copytree(old_root, root)
    _change(root)
    before = _files(root)
    dirs = [root / "reports", *(p for p in (root / "reports").rglob("*") if p.is_dir())]
    if os.geteuid() == 0:
        # root ignores permission bits: the immutable attribute refuses writes to root too
        if shutil.which("chattr") is None or not _set_immutable(dirs, True):
            pytest.skip("running as root on a file system without chattr +i")
    else:
        for d in dirs:
            d.chmod(0o555)
    try:
        res = subprocess.run([*SURVEY, "--root", str(root), "build"], env=_env(),
                             capture_output=True, text=True, check=False)
    finally:
        if os.geteuid() == 0:
            _set_immutable(dirs, False)
        else:
            for d in dirs:
                d.chmod(0o755)
    assert "Traceback" not in res.stderr, res.stderr
    assert res.returncode == 1, res.stdout + res.stderr
    assert "error: cannot write reports/" in res.stderr, res.stderr
    assert "nothing was changed" in res.stderr, res.stderr
    assert _files(root) == before  # the files written before the refusal were put back


def test_plan_is_deterministic(trees: tuple[Path, dict[str, bytes], dict[str, bytes]]) -> None:
    old_root, _, _ = trees
    assert plan_build(old_root).outputs == plan_build(old_root).outputs
