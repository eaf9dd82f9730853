"""Helpers shared by every test module (fixtures are in tests/conftest.py).

- :func:`run` invokes the ``survey`` command in-process, the one CLI runner of the suite: the
  result unpacks as ``code, out, err`` and also has click's ``exit_code``, ``stdout``,
  ``stderr``, ``output`` and ``exception``; a traceback fails the test (``clean=False`` allows it) and
  ``ok=True`` on any non-zero exit.
- :func:`snapshot` is every file under a folder (matching ``pattern``) with its bytes, to show
  that a refused command changed nothing.
- :func:`probe` runs a piece of Python in a process of its own and returns the JSON it prints
  (for what the test process cannot show, e.g. the collector of a process that froze nothing).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from survey_tools.cli import cli

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Ran:
    exit_code: int
    stdout: str
    stderr: str
    output: str
    exception: BaseException | None
    result: Any  # click's Result, for anything else

    def __iter__(self) -> Iterator[Any]:
        return iter((self.exit_code, self.stdout, self.stderr))

    def __getitem__(self, i: int) -> Any:  # run(...)[2] is the error output, as in a tuple
        return (self.exit_code, self.stdout, self.stderr)[i]


def run(root: Path | None, *args: str, input: str | None = None, clean: bool = True, ok: bool = False,
        env: dict[str, str] | None = None) -> Ran:
    """``survey --root ROOT ARGS...`` (no ``--root`` when ``root`` is None)."""
    argv = (["--root", str(root)] if root is not None else []) + list(args)
    res = CliRunner().invoke(cli, argv, input=input, env=env)
    if clean or ok:
        assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    if ok:
        assert res.exit_code == 0, res.output
    return Ran(res.exit_code, res.stdout, res.stderr, res.output, res.exception, res)


def snapshot(root: Path, pattern: str = "*") -> dict[str, bytes]:
    """Every file under ``root`` matching ``pattern`` (relative POSIX path -> bytes)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob(pattern)) if p.is_file()}


def probe(code: str, *args: str, env: dict[str, str] | None = None, timeout: float = 300) -> Any:
    """What ``code`` prints as JSON, run by this interpreter in a new process with the
    repository's package importable (``env`` adds to the environment)."""
    full = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    res = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         env=full, timeout=timeout)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)
