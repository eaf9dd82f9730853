"""The ten checks of every framework run in some folders, as a table.

    python3 benchmarks/bench_frameworks.py [DIR ...] [--leave-one-out] [--why] [--json]

Each DIR is a folder of runs with EXPECTED.yaml (tests/fixtures/traces-frameworks/README.md
says what one holds), or a folder of such folders at any depth; without one, every fixture
folder of tests/fixtures/traces-frameworks/. Every file of every run is imported with this
checkout's ``survey trace import auto`` and checked ten ways (benchmarks/framework_checks.py):
one line a file, ``+`` a check that holds, ``-`` one that fails, then the totals: checks that
hold, and runs right in every respect.

``--absent KEY=CHECK,...`` (repeatable) records what a framework's tracing does not write
at all, as framework_checks.NOT_WRITTEN does for the fixtures (KEY: the folder's name, or
folder/file): those checks then hold when the trace has none of it (nothing invented). Use
it only after reading the file: ``--why`` shows the import's own "the file has no ..." lines.

``--leave-one-out`` imports each folder without the rows of rules.yaml that name its own
framework (:data:`OWN`; the other frameworks' rows and the structural rule stay): what the
general rule reads of a framework nobody wrote rows for. ``--why`` says why each failed
check failed.

``--needed`` tries, for each row of rules.yaml naming one framework, that framework's
folders without that one row: a row that decides spans there (``--explain`` names it) but
without which they import to the very same traces is covered by the structural rule or by
other rows (exit 1;
tests/unit/traces/test_frameworks.py keeps that list empty); rows without which the ten
checks still hold but the traces differ (the application's name, a span folded rather
than kept generic) are listed apart.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.framework_checks import CHECKS, NOT_WRITTEN, Result, cases, check  # noqa: E402
from survey_tools.traces.importers import frameworks  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "traces-frameworks"
# The rules.yaml families naming one framework folder's framework, where the folder's name
# is not the family (a folder "a-b" also drops family "a": crewai-openllmetry drops crewai).
# Rows of an instrumentor or a convention many frameworks share (genai, openinference,
# openllmetry, messaging, handoff-tools, agent-state) are never dropped.
OWN = {
    "google-adk": ("adk",),
    "mlflow": ("smolagents",),
    "smolagents": ("smolagents",),
    "pydantic-ai": (),
    "openai-agents-js": (),
    "crewai-openllmetry": ("crewai",),
    "llamaindex-openllmetry": ("llamaindex",),
    "langgraph-openllmetry": ("langgraph", "langgraph-openllmetry"),
}
_SHORT = {
    "imports": "imp",
    "traces": "trc",
    "agents": "agt",
    "delegations": "del",
    "returns": "ret",
    "tool_calls": "tcl",
    "tools": "tls",
    "model_calls": "mdl",
    "tokens": "tok",
    "speedup": "spd",
}


def own_families(key: str) -> frozenset[str]:
    """The families of rules.yaml that name the framework of folder ``key``."""
    name = key.rsplit("/", 1)[-1]
    if name in OWN:
        return frozenset(OWN[name])
    return frozenset({name, name.split("-", 1)[0]})


# Families whose rows no single fixture folder is named after (a tracer's own habits with no
# file of it here, or rows every framework shares): --needed does not try them.
SHARED = frozenset(
    {"genai", "openinference", "openllmetry", "messaging", "handoff-tools", "agent-state"}
)


def unneeded(
    root: Path = FIXTURES, also: tuple[Path, ...] | None = None
) -> tuple[list[str], list[str]]:
    """The rows of rules.yaml naming one framework that decide spans of their framework's
    folders (``--explain`` names them) but without which those folders import to the very
    same traces: covered (the structural rule or other rows do their work); and those
    without which the checks hold but the traces differ (kept). A row ``root``'s folders
    call covered is tried on its framework's folders in ``also`` too (by default the
    held-out sets beside ``root``): one whose files it changes there is kept (round 14:
    DSPy's ``finish``, which the structure reads where two ReActs end with it, but not
    where one alone runs)."""
    if also is None:
        also = tuple(sorted(root.parent.glob("traces-heldout*")))
    folders: dict[str, list[tuple[Path, str, dict[str, Any], str]]] = {}
    for case in cases(root):
        for fam in own_families(case[1]):
            folders.setdefault(fam, []).append(case)
    full = {id(c): check(*c, "--explain") for cs in folders.values() for c in cs}
    covered, kept = [], []
    for rule in frameworks.RULES:
        mine = folders.get(rule.family)
        if rule.family in SHARED or not mine:
            continue
        with frameworks.using(drop=frozenset({rule.where})):
            got = [check(*case) for case in mine]
        if any(g.score < len(CHECKS) for g in got):
            continue  # needed
        line = f"{rule.where} ({rule.family}): {rule.why}"
        if not any(f"({rule.where})" in full[id(c)].summary for c in mine):
            continue  # no span of these folders is decided by it (a habit not shown here)
        same = all(g.digest == full[id(c)].digest for g, c in zip(got, mine, strict=True))
        if same and _changes_elsewhere(rule, also):
            same = False
        (covered if same else kept).append(line)
    return covered, kept


def _changes_elsewhere(rule: frameworks.Rule, dirs: tuple[Path, ...]) -> bool:
    """Whether dropping ``rule`` changes the import of any file of its framework's folders
    in ``dirs``."""
    theirs = [c for d in dirs for c in cases(d) if rule.family in own_families(c[1])]
    if not theirs:
        return False
    with_it = [check(*c).digest for c in theirs]
    with frameworks.using(drop=frozenset({rule.where})):
        without = [check(*c).digest for c in theirs]
    return with_it != without


def measure(dirs: list[Path], leave_one_out: bool) -> list[Result]:
    out = []
    for d in dirs:
        for folder, key, run_, name in cases(d):
            drop = own_families(key) if leave_one_out else frozenset()
            with frameworks.using(drop=drop) if drop else nullcontext():
                out.append(check(folder, key, run_, name))
    return out


def table(results: list[Result], why: bool) -> str:
    head = f"{'run':<52} " + " ".join(_SHORT[c] for c in CHECKS) + "  score"
    lines = [head, "-" * len(head)]
    for r in results:
        label = f"{r.folder}/{r.name}"[:52]
        if r.skipped:
            lines.append(f"{label:<52} skipped: {r.skipped}")
            continue
        marks = " ".join(f"{'+' if r.passed.get(c) else '-':^3}" for c in CHECKS)
        lines.append(f"{label:<52} {marks}  {r.score}/{len(CHECKS)}")
        if why:
            failed = [c for c in CHECKS if not r.passed.get(c)]
            if "imports" in failed:
                failed = ["imports", "traces"]  # the rest were not read
            lines.extend(f"    {c}: {r.why[c]}" for c in failed)
            lines.extend(
                f"    (import: {n.split(': ', 1)[-1]})"
                for n in r.summary.splitlines()
                if failed and "the file has no" in n
            )
    scored = [r for r in results if not r.skipped]
    total = sum(r.score for r in scored)
    whole = sum(r.score == len(CHECKS) for r in scored)
    lines.append(
        f"checks: {total} of {len(CHECKS) * len(scored)}; "
        f"runs right in every respect: {whole} of {len(scored)}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="*", type=Path, help="folders of runs with EXPECTED.yaml")
    ap.add_argument("--leave-one-out", action="store_true", help="without the folder's own rows")
    ap.add_argument("--why", action="store_true", help="say why each failed check failed")
    ap.add_argument("--json", action="store_true", help="the checks as JSON")
    ap.add_argument("--needed", action="store_true", help="list rows their folders do not need")
    ap.add_argument(
        "--absent",
        action="append",
        default=[],
        metavar="KEY=CHECK,...",
        help="what a framework's files do not hold (KEY: folder or folder/file)",
    )
    args = ap.parse_args(argv)
    for spec in args.absent:
        key, _, checks = spec.partition("=")
        unknown = sorted(set(checks.split(",")) - set(CHECKS[2:]))
        if not key or unknown:
            ap.error(f"--absent {spec}: KEY=CHECK,... with checks among {', '.join(CHECKS[2:])}")
        NOT_WRITTEN[key] = tuple(checks.split(","))
    if args.needed:
        covered, kept = unneeded()
        print("covered (their folders import to the same traces without them):")
        print("\n".join(f"  {r}" for r in covered) or "  none")
        print("checks hold without them, the traces differ (a name, a folded span):")
        print("\n".join(f"  {r}" for r in kept) or "  none")
        return 1 if covered else 0
    dirs = args.dirs or [FIXTURES]
    for d in dirs:
        if not any(d.rglob("EXPECTED.yaml")):
            ap.error(f"{d}: no EXPECTED.yaml in it or below it")
    results = measure(dirs, args.leave_one_out)
    if args.json:
        print(json.dumps([{**vars(r), "score": r.score} for r in results], indent=1))
    else:
        print(table(results, args.why))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
