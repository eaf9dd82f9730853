"""docs/new-survey.md runs as written: every line of its ```sh blocks, in order, on a small CSV."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

from tests.init.support import FIXTURES, REPO, run

DOC = REPO / "docs" / "new-survey.md"


def commands() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return [line.strip() for b in blocks for line in b.splitlines() if line.strip()]


def test_the_ten_minute_path_runs_exactly(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "small.csv", tmp_path / "small.csv")
    cwd = tmp_path
    ran = []
    for line in commands():
        m = re.fullmatch(r"mkdir (\S+) && cd \1", line)
        if m:
            cwd = cwd / m.group(1)
            cwd.mkdir()
            continue
        args = shlex.split(line)
        assert args[0] == "survey", f"docs/new-survey.md: not a survey command: {line}"
        # Paths in the doc are relative to the folder the reader stands in.
        args = [str((cwd / a).resolve()) if a.startswith("../") or a == "." else a for a in args[1:]]
        if args[:2] == ["export", "csv"]:
            args[2] = str(cwd / args[2])
        res = run(cwd, *args)
        assert res.exit_code == 0, f"{line}\n{res.output}"
        ran.append(args[0])
    assert ran[:1] == ["init"] and {"validate", "build", "add", "export"} <= set(ran)
    exported = (cwd / "exported" / "small.csv").read_text(encoding="utf-8").splitlines()
    original = (FIXTURES / "small.csv").read_text(encoding="utf-8").splitlines()
    assert exported[: len(original)] == original  # the list's own rows, as they were
    assert "Synthetic: a work typed in by hand" in exported[-1]
