"""Timing of the build stage; prints a table (a benchmark, not a test).

1. `survey build` and `survey build --check` on the real corpus, as subprocesses (wall time,
   warm parse cache, as in CI after the first run).
2. Statistics over N synthetic records (default 100 000): valid records drawn from the taxonomy's
   values, built in memory as :class:`Record` objects, so the time is that of the statistics
   beyond loading.

    python benchmarks/bench_build.py [--n 100000]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import time
from pathlib import Path
from typing import Any

from bench_incremental import survey_command  # the script beside this one

from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import Taxonomy, load_taxonomy
from survey_tools.reports.report_config import load_config
from survey_tools.reports.stats import compute_stats

ROOT = Path(__file__).resolve().parents[1]


def wall(cmd: list[str], runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, check=False, capture_output=True)
        best = min(best, time.perf_counter() - t)
    return best


def synthetic(tax: Taxonomy, n: int, seed: int = 7) -> Corpus:
    rng = random.Random(seed)
    recs: dict[str, list[Record]] = {}
    for coll in tax.collections.values():
        out = []
        count = n if coll is tax.retained else n // 3
        for i in range(count):
            data: dict[str, Any] = {"year": rng.randint(2015, 2026), "strict_credit": rng.random() < 0.3}
            for cf in coll.controlled:
                if cf.kind == "mapping":
                    keys = rng.sample(list(cf.ids), rng.randint(0, len(cf.ids)))
                    data[cf.name] = {k: rng.choice(cf.mode_ids) for k in sorted(keys)}
                elif cf.not_applicable and rng.random() < 0.1:
                    data[cf.name] = tax.na
                else:
                    data[cf.name] = rng.choice(cf.ids)
            out.append(Record(coll.name, f"r{i:06d}", f"{coll.folder}/r{i:06d}.yaml", data))
        recs[coll.name] = out
    return Corpus(tax, {k: tuple(v) for k, v in recs.items()}, files=sum(map(len, recs.values())))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    args = ap.parse_args()
    survey = survey_command()
    subprocess.run([*survey, "build"], cwd=ROOT, check=True, capture_output=True)  # warm the cache
    rows = [
        ("survey build (real corpus, warm cache)", wall([*survey, "build"]), "< 4 s"),
        ("survey build --check (real corpus)", wall([*survey, "build", "--check"]), "< 4 s"),
    ]
    tax = load_taxonomy(ROOT)
    config = load_config(tax)
    t = time.perf_counter()
    corpus = synthetic(tax, args.n)
    gen = time.perf_counter() - t
    t = time.perf_counter()
    compute_stats(corpus, config)
    rows.append((f"statistics, {args.n:,} synthetic records (+{args.n // 3:,} excluded)", time.perf_counter() - t, "< 10 s"))
    rows.append(("  (building those records in memory, not counted)", gen, ""))
    print(f"| {'what':<58} | {'seconds':>8} | target |")
    print(f"| {'-' * 58} | {'-' * 8}: | ------ |")
    for what, secs, target in rows:
        print(f"| {what:<58} | {secs:>8.2f} | {target} |")


if __name__ == "__main__":
    main()
