"""The ten checks of every framework run in some folders, as a table.

    python3 benchmarks/bench_frameworks.py [DIR ...] [--leave-one-out] [--why] [--json]

Each DIR is a folder of runs with EXPECTED.yaml (tests/fixtures/traces-frameworks/README.md
says what one holds), or a folder of such folders at any depth; without one, every fixture
folder of tests/fixtures/traces-frameworks/. Every file of every run is imported with this
checkout's ``survey trace import auto`` and checked ten ways (benchmarks/framework_checks.py):
one line a file, ``+`` a check that holds, ``-`` one that fails, then the totals: checks that
hold, and runs right in every respect.

``--leave-one-out`` imports each folder without the rows of rules.yaml that name its own
framework (:data:`OWN`; the other frameworks' rows and the structural rule stay): what the
general rule reads of a framework nobody wrote rows for. ``--why`` says why each failed
check failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import nullcontext
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.framework_checks import CHECKS, Result, cases, check  # noqa: E402
from survey_tools.traces.importers import frameworks  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "traces-frameworks"
# The rules.yaml families naming one framework folder's framework, where the folder's name
# is not the family (a folder "a-b" also drops family "a": crewai-openllmetry drops crewai).
# Rows of an instrumentor or a convention many frameworks share (genai, openinference,
# openllmetry, messaging, handoff-tools) are never dropped.
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
    args = ap.parse_args(argv)
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
