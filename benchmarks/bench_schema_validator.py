"""jsonschema-rs answering "valid?" before jsonschema explains (corpus/schema_validator.py),
against jsonschema alone: CPU seconds of checking every record (no parse cache) and of loading
the taxonomy (its configuration files are checked too), idle and beside a second CPU-bound
process. Prints a table (a benchmark, not a test).

    python3 benchmarks/bench_schema_validator.py [--sizes 2000,10000] [--runs 3]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.bench_validate import make_corpus  # noqa: E402
from survey_tools.corpus import checks, configs  # noqa: E402
from survey_tools.corpus.loading import load_corpus  # noqa: E402
from survey_tools.corpus.schema_validator import SchemaValidator  # noqa: E402
from survey_tools.corpus.taxonomy import load_taxonomy  # noqa: E402


@contextmanager
def jsonschema_alone() -> Iterator[None]:
    """Every validator built meanwhile answers with jsonschema (as before the change)."""
    original = SchemaValidator.__init__

    def init(self: SchemaValidator, schema: object) -> None:
        original(self, schema)  # type: ignore[arg-type]
        self.answering = None

    SchemaValidator.__init__ = init  # type: ignore[method-assign]
    checks._VALIDATORS.clear()
    configs._validator.cache_clear()
    try:
        yield
    finally:
        SchemaValidator.__init__ = original  # type: ignore[method-assign]
        checks._VALIDATORS.clear()
        configs._validator.cache_clear()


def cpu(fn: Callable[[], object], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def _spin(stop: float) -> None:
    while time.monotonic() < stop:
        pass


def measure(label: str, fn: Callable[[], object], runs: int, rows: list[str]) -> None:
    for load in ("idle", "+1 CPU-bound process"):
        spinner = None
        if load != "idle":
            spinner = multiprocessing.Process(target=_spin, args=(time.monotonic() + 600,), daemon=True)
            spinner.start()
        try:
            fn()  # warm: validators compiled, files in the page cache
            both = cpu(fn, runs)
            with jsonschema_alone():
                fn()
                alone = cpu(fn, runs)
        finally:
            if spinner is not None:
                spinner.terminate()
        gain = 1 - both / alone
        rows.append(f"| {label} | {load} | {alone:.3f} | {both:.3f} | {gain:+.0%} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="2000,10000")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    rows: list[str] = []
    measure("real corpus: load_taxonomy", lambda: load_taxonomy(REPO), args.runs, rows)
    measure("real corpus: check every record", lambda: load_corpus(REPO, use_cache=False), args.runs, rows)
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",") if s.strip()):
            root = make_corpus(n, Path(tmp))
            # bench_validate's records name no edition, which the schema requires: left so, every
            # record is invalid and both validators end in jsonschema's error listing.
            for rec in (root / "corpus").glob("*.yaml"):
                rec.write_text(rec.read_text(encoding="utf-8") + "edition: 2605.02801v1\n", encoding="utf-8")
            tax = load_taxonomy(root)
            assert not load_corpus(root, tax, use_cache=False).problems
            measure(f"{n:,} synthetic records: check every record",
                    lambda root=root, tax=tax: load_corpus(root, tax, use_cache=False), args.runs, rows)
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; CPU seconds, best of {args.runs}\n")
    print("| what | load | jsonschema alone | jsonschema-rs answers | gain |")
    print("| --- | --- | ---: | ---: | ---: |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
