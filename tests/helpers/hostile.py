"""Running one hostile-input case: put the file in a throw-away survey, run a command, compare.

A case is ``tests/data/hostile/<kind>/<name>.<ext>`` (the input, byte for byte) and
``<name>.expected``. Lines of the ``.expected`` file are exact lines the command must print
(stdout and stderr together), in any order, with ``{base}`` standing for the number of record
files the copied survey had before the input went in; lines starting with ``%`` are directives:

    % target PATH       where the input goes in the survey (default: by kind, see KINDS)
    % run ARGS...       the survey command ({input} is the input's path, {tmp} the case folder)
    % exit N            the expected exit code (default 1)
    % base empty        start from taxonomy/ only instead of a copy of the survey's edition
    % pad N             append N bytes of 'a' to the input at test time (huge scalars)
    % suffix TEXT       then append TEXT (backslash escapes allowed)
    % writes PREFIX     the command may change files under PREFIX (repeatable; default none)
    % in FILE           later lines are looked for in FILE instead of the output
    % not TEXT          TEXT must not appear (in the output, or in FILE after ``% in``)
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import traceback
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

import bibtexparser
import pytest
from click.testing import CliRunner

from helpers.survey_copy import SURVEY
from survey_tools.cli import cli

REPO = Path(__file__).resolve().parents[2]
HOSTILE = REPO / "tests" / "data" / "hostile"
CASE_SECONDS = 20

# kind -> (default target, default command)
KINDS: dict[str, tuple[str, str]] = {
    "records": ("corpus/{name}.yaml", "validate"),
    "exclusions": ("exclusions/{name}.yaml", "validate"),
    "taxonomy": ("taxonomy/fields/reward_type.yaml", "validate"),
    "claims": ("data/claims.yaml", "claims"),
    "audit": ("data/audit/spotcheck.csv", "agreement"),
    "csv": ("in/{file}", "import csv {input}"),
    "traces": ("in/{file}", "trace validate {input}"),
    "importers": ("in/{file}", "trace import otel {input} -o {tmp}/out/trace.json"),
    "render": ("corpus/{name}.yaml", "build"),
    "lists": ("in/{file}", "init new --from {input} --dry-run"),
}


@dataclass
class Case:
    kind: str
    name: str
    input: Path
    target: str
    command: list[str]
    exit: int = 1
    base: str = "full"
    pad: int = 0
    suffix: bytes = b""
    writes: list[str] = field(default_factory=list)
    # (file or "" for the output, text, must appear)
    checks: list[tuple[str, str, bool]] = field(default_factory=list)


# A case padded to this many bytes or more is a stress test (tests/stress/hardening): 100 MiB
# written, then parsed or refused, takes seconds; the smaller ones are in the quick loop.
HUGE = 1 << 20


def cases(huge: bool | None = None) -> list[Path]:
    """The cases, all of them or only the huge (``True``) or the other (``False``) ones."""
    found = sorted(p for p in HOSTILE.glob("*/*.expected"))
    if huge is None:
        return found
    return [p for p in found if (parse_case(p).pad >= HUGE) == huge]


def case_id(expected: Path) -> str:
    return f"{expected.parent.name}/{expected.stem}"


def parse_case(expected: Path) -> Case:
    kind = expected.parent.name
    name = expected.name[: -len(".expected")]
    inputs = [p for p in expected.parent.glob(name + ".*") if p.suffix != ".expected"]
    if len(inputs) != 1:
        raise AssertionError(f"{expected}: expected exactly one input file, found {inputs}")
    inp = inputs[0]
    target, command = KINDS[kind]
    case = Case(kind, name, inp, target.format(name=name, file=inp.name), [])
    if kind == "csv":  # imports start from an empty survey, so that every row is checked
        case.base = "empty"
    scope = ""
    for line in expected.read_text(encoding="utf-8").splitlines():
        if not line.startswith("%"):
            if line.strip():
                case.checks.append((scope, line, True))
            continue
        word, _, rest = line[1:].strip().partition(" ")
        if word == "target":
            case.target = rest
        elif word == "run":
            command = rest
        elif word == "exit":
            case.exit = int(rest)
        elif word == "base":
            case.base = rest
        elif word == "pad":
            case.pad = int(rest)
        elif word == "suffix":
            case.suffix = rest.encode("utf-8").decode("unicode_escape").encode("latin-1")
        elif word == "writes":
            case.writes.append(rest)
        elif word == "in":
            scope = rest
        elif word == "not":
            case.checks.append((scope, rest, False))
        else:
            raise AssertionError(f"{expected}: unknown directive {word!r}")
    case.command = shlex.split(command)
    return case


def make_survey(root: Path, base: str, builds: bool = False) -> None:
    """A throw-away survey; the generated outputs (README, reports/) only for a case that
    builds (copying their couple of hundred files was a third of a validate case's time)."""
    names = ("taxonomy",) if base == "empty" else ("taxonomy", "corpus", "exclusions", "data")
    for name in names:
        shutil.copytree(SURVEY / name, root / name)
    for name in ("corpus", "exclusions"):
        (root / name).mkdir(exist_ok=True)
    if base != "empty":
        # Only the survey's edition: the living list grows, and the cases' expected lines
        # (every record using a value, say) must not change with it.
        for name in ("corpus", "exclusions"):
            for rec in (root / name).glob("*.yaml"):
                if re.search(r"^edition: living$", rec.read_text(encoding="utf-8"), re.M):
                    rec.unlink()
    if base != "empty" and builds:
        for name in ("README.md", "CONTRIBUTING.md", "CITATION.cff"):
            shutil.copy2(REPO / name, root / name)
        shutil.copytree(REPO / "reports", root / "reports")


def snapshot(root: Path) -> dict[str, str]:
    """Every file with its size, modification time and inode: a command that writes a file in
    place changes its time, one that replaces it (write and rename) its inode. (Hashing every
    file before and after was a fifth of a case's time.)"""
    out: dict[str, str] = {}
    for dirpath, _dirnames, filenames in os.walk(root):
        for f in filenames:
            p = Path(dirpath) / f
            st = p.stat()
            out[p.relative_to(root).as_posix()] = f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"
    return out


class CaseTimeout(Exception):
    pass


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`CaseTimeout` in the main thread after ``seconds`` (a hang is a failure)."""

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        raise CaseTimeout(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@dataclass
class Outcome:
    exit_code: int
    output: str
    exception: BaseException | None
    changed: list[str]
    root: Path
    # Record files of the copied survey before the input went in: expected lines write the
    # "N files checked" summary as {base} or {base+1}, so that the list can grow.
    base_files: int = 0


def run_case(case: Case, tmp: Path) -> Outcome:
    root = tmp / "survey"
    make_survey(root, case.base, builds="build" in case.command)
    base_files = sum(1 for name in ("corpus", "exclusions") for _ in (root / name).glob("*.yaml"))
    dest = root / case.target
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(case.input, dest)
    if case.pad or case.suffix:
        with open(dest, "ab") as fh:
            chunk = b"a" * (1 << 20)
            left = case.pad
            while left > 0:
                fh.write(chunk[: min(left, len(chunk))])
                left -= len(chunk)
            fh.write(case.suffix)
    # The command runs inside the survey folder: messages name paths relative to it.
    subst = {"input": case.target, "tmp": "."}
    args = ["--root", str(root), *(a.format(**subst) for a in case.command)]
    before = snapshot(root)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        with time_limit(CASE_SECONDS):
            res = CliRunner().invoke(cli, args, catch_exceptions=True)
    finally:
        os.chdir(cwd)
    after = snapshot(root)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    exc = res.exception if not isinstance(res.exception, SystemExit) else None
    return Outcome(res.exit_code, res.output, exc, changed, root, base_files)


def check_case(expected: Path, tmp: Path) -> None:
    """Run one case and hold it to its ``.expected`` file: the exact message, the exit code, no
    traceback, nothing written outside what the command owns, and outputs every reader parses."""
    case = parse_case(expected)
    out = run_case(case, tmp)
    if out.exception is not None:
        tb = "".join(traceback.format_exception(out.exception))
        pytest.fail(f"traceback instead of a message:\n{tb}")
    assert "Traceback" not in out.output
    assert out.exit_code == case.exit, out.output
    assert out.output.strip(), "no message"
    allowed = [case.target, *case.writes]
    stray = [c for c in out.changed if not any(c.startswith(a) for a in allowed)]
    assert not stray, f"wrote outside what the command owns: {stray}"
    lines = set(out.output.splitlines())
    for scope, text, present in case.checks:
        text = text.replace("{base+1}", str(out.base_files + 1)).replace(
            "{base}", str(out.base_files)
        )
        if scope:
            content = (out.root / scope).read_text(encoding="utf-8")
            assert (text in content) == present, (
                f"{scope}: {'missing' if present else 'found'} {text!r}"
            )
        elif present:
            assert text in lines, f"missing line {text!r} in:\n{out.output}"
        else:
            assert text not in out.output, f"found {text!r} in:\n{out.output}"
    readers_parse_the_outputs(out.root)


def readers_parse_the_outputs(root: Path) -> None:
    """Whatever a case left built, every reader parses: papers.bib in pybtex (strict, BibTeX's
    own brace counting) and bibtexparser with the same number of entries, feed.xml in a strict
    XML parser (issue 46)."""
    bib = root / "reports" / "papers.bib"
    if bib.is_file():
        text = bib.read_text(encoding="utf-8")
        n = len(bibtexparser.parse_string(text).entries)
        try:
            import pybtex.errors
            from pybtex.database import parse_string
        except ImportError:  # pybtex is a test extra; without it bibtexparser alone checks
            pass
        else:
            pybtex.errors.set_strict_mode(True)
            try:
                assert len(parse_string(text, "bibtex").entries) == n
            finally:
                pybtex.errors.set_strict_mode(False)
    for feed in (root / "reports").rglob("feed.xml") if (root / "reports").is_dir() else ():
        ET.fromstring(feed.read_bytes())
