"""Does the corpus side's speed machinery pay? Prints a table (a benchmark, not a test).

Two mechanisms are measured on synthetic corpora (benchmarks/bench_validate.py's records, no
parse cache), each on its own and with a second CPU-bound process running:

- the process pool ``corpus/loading.py`` starts above PARALLEL_THRESHOLD files
  (``load_corpus(jobs=1)`` against the default number of jobs);
- the jsonschema-rs validator that answers "valid?" before the pure-Python jsonschema explains
  an invalid record (against jsonschema answering both).

A mechanism is kept only with at least a 25% gain in both conditions.

    python3 benchmarks/bench_speed_machinery.py [--sizes 2000,10000] [--runs 3]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.bench_validate import make_corpus  # noqa: E402
from survey_tools.corpus import checks  # noqa: E402
from survey_tools.corpus.loading import default_jobs, load_corpus  # noqa: E402
from survey_tools.corpus.taxonomy import load_taxonomy  # noqa: E402


def _spin(stop: float) -> None:
    while time.time() < stop:
        pass


def best(fn: Callable[[], object], runs: int) -> float:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return min(out)


class _PurePython:
    """jsonschema alone: the twin removed."""

    def __init__(self, full: object) -> None:
        self.full = full

    def is_valid(self, data: object) -> bool:
        return bool(self.full.is_valid(data))  # type: ignore[attr-defined]


def measure(root: Path, runs: int) -> dict[str, float]:
    tax = load_taxonomy(root)
    out: dict[str, float] = {}
    out["pool"] = best(lambda: load_corpus(root, tax, jobs=default_jobs(), use_cache=False), runs)
    out["serial"] = best(lambda: load_corpus(root, tax, jobs=1, use_cache=False), runs)
    checks._VALIDATORS.clear()
    out["rs"] = best(lambda: load_corpus(root, tax, jobs=1, use_cache=False), runs)
    for vals in list(checks._VALIDATORS.values()):
        vals.fast = _PurePython(vals.full)
    out["py"] = best(lambda: load_corpus(root, tax, jobs=1, use_cache=False), runs)
    checks._VALIDATORS.clear()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="2000,10000")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, default jobs {default_jobs()}, "
          f"best of {args.runs}\n")
    print("| records | condition | serial s | pool s | pool gain | jsonschema s | jsonschema-rs s | rs gain |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",") if s):
            root = make_corpus(n, Path(tmp))
            for condition in ("as is", "+1 CPU-bound process"):
                hog = None
                if condition != "as is":
                    hog = multiprocessing.Process(target=_spin, args=(time.time() + 3600,), daemon=True)
                    hog.start()
                try:
                    m = measure(root, args.runs)
                finally:
                    if hog is not None:
                        hog.terminate()
                        hog.join()
                pool_gain = 1 - m["pool"] / m["serial"]
                rs_gain = 1 - m["rs"] / m["py"]
                print(f"| {n:,} | {condition} | {m['serial']:.2f} | {m['pool']:.2f} | {pool_gain:+.0%} | "
                      f"{m['py']:.2f} | {m['rs']:.2f} | {rs_gain:+.0%} |")


if __name__ == "__main__":
    main()
