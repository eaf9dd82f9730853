"""Every run's parallelism_speedup, as ``framework_checks`` reads it (a benchmark, not a test).

Imports each file of each run under the folders given (``survey trace import auto``),
measures it and prints one tab-separated line a file: the set and run file, the run's mode,
the speedup and whether it is within the bound of its mode. Two checkouts' outputs side by
side (``paste``) show what a change to the importer or the metrics moved:

    PYTHONPATH=$PWD python3 benchmarks/speedups.py tests/fixtures/traces-frameworks \\
        tests/fixtures/traces-heldout* > speedups.tsv
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks import framework_checks as fc  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", type=Path)
    args = ap.parse_args()
    for root in args.folders:
        for folder, key, run_, name in fc.cases(root):
            r = fc.check(folder, key, run_, name)
            mode = run_.get("mode", "sequential")
            verdict = "ok" if r.passed.get("speedup") else "FAIL"
            print(f"{root.name}/{key}/{name}\t{mode}\t{r.why.get('speedup', '')}\t{verdict}")


if __name__ == "__main__":
    main()
