"""Timings of `survey add` (network excluded) and `survey diff` on the real corpus.

`survey add`: the paper is fetched once from a local server replaying a recorded arXiv answer;
what is timed is everything else the command does (taxonomy, corpus, duplicate checks, key,
record checks, atomic write) in a fresh process-like run on a copy of the survey.
`survey diff`: the whole command, in a subprocess, against HEAD.

    python3 benchmarks/bench_contrib.py
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def bench_add(runs: int = 5) -> list[float]:
    from survey_tools.corpus.loading import load_corpus
    from survey_tools.curate.adding import plan_add, write_plan
    from survey_tools.scholarly.arxiv_client import ArxivPaper

    paper = ArxivPaper("1605.08386", 1, "Heat-bath random walks with Markov bases",
                       ("Caprice Stanley", "Tobias Windisch"), "abstract", "2016-05-26",
                       "2016-05-26", "math.CO", ("math.CO",), None, None, None,
                       "https://arxiv.org/abs/1605.08386", "https://arxiv.org/pdf/1605.08386")
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            for name in ("taxonomy", "corpus", "exclusions"):
                shutil.copytree(REPO / name, root / name)
            t = time.perf_counter()
            corpus = load_corpus(root, use_cache=False)
            plan = plan_add(root, corpus, "1605.08386", lambda _id: paper, {"category": "survey"})
            write_plan(plan)
            times.append(time.perf_counter() - t)
    return times


def bench_diff(runs: int = 3) -> list[float]:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "from survey_tools.cli import main; main()",
                        "diff", "--base", "HEAD"], cwd=REPO, check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    return times


def main() -> None:
    rows = [("survey add, one paper, no network (in process)", bench_add(), 1.0),
            ("survey diff on the real corpus (whole command)", bench_diff(), 3.0)]
    print(f"| {'what':<48} | median s | max s | target s |")
    print(f"| {'-' * 48} | -------- | ----- | -------- |")
    for name, t, target in rows:
        print(f"| {name:<48} | {statistics.median(t):8.3f} | {max(t):5.3f} | {target:8.1f} |")


if __name__ == "__main__":
    main()
