"""The incremental build against `survey validate`; prints a table (a benchmark, not a test).

On a copy of this repository's survey (its own cache folder, warmed by one build):

- `survey validate` (warm parse cache): the reference;
- `survey build --check` with nothing changed (target: at most 2.5x validate);
- `survey build` after editing one record's summary (target: at most 4x validate);
- `survey build` after changing a tag no figure counts (no figure drawn; no target);
- `survey build` after changing a record's category (one figure drawn again; no target).

With ``--sizes`` it also builds synthetic corpora from scratch (benchmarks/bench_validate.py's
records) and reports wall time, CPU time (and the system's share of it) and peak memory
(targets since issue 51: 10k < 8 s and 100k < 75 s, memory no higher than before; earlier 10k
< 15 s and 500 MB, 100k < 3 min and 1.5 GB; measurements and what stands in the way:
benchmarks/build-scale.md), each beside two references of the moment: the CPU's (a fixed
loop's CPU seconds) and the file system's (seconds to create 10,000 empty files, which moves
even more). Each figure is the best of ``--runs`` runs; run from the repository root:

    python3 benchmarks/bench_incremental.py [--runs 3] [--sizes 10000]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.bench_validate import make_corpus  # noqa: E402

COPY = ("taxonomy", "corpus", "exclusions", "data", "screening", "reports", "docs", ".github",
        "README.md", "CONTRIBUTING.md", "CITATION.cff")


def survey_command() -> list[str]:
    """The ``survey`` console script of this interpreter (its venv's, or pyenv's version folder),
    not the first on PATH: a pyenv shim there is a chain of shell scripts that added 0.08-0.17 s
    to every run (up to a third of ``survey validate``), which is not the toolkit's time."""
    script = Path(sys.executable).with_name("survey.exe" if os.name == "nt" else "survey")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from survey_tools.cli import main; main()"]


SURVEY = survey_command()


def survey_copy(dest: Path) -> Path:
    for name in COPY:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, dest / name)
        elif src.is_file():
            shutil.copy2(src, dest / name)
    return dest


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Wall seconds and the peak resident memory (KB) of the command's process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t
    if proc.returncode not in (0,):
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return wall, max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)


def best(cmd: list[str], env: dict[str, str], runs: int, before: object = None) -> float:
    out = []
    for _ in range(runs):
        if callable(before):
            before()
        out.append(timed(cmd, env)[0])
    return min(out)


def edit(path: Path, pattern: str, values: tuple[str, ...]) -> object:
    state = {"i": 0}

    def step() -> None:  # the next value at every run, so that every run changes the record
        state["i"] += 1
        text = path.read_text(encoding="utf-8")
        path.write_text(re.sub(pattern, values[state["i"] % len(values)], text, count=1, flags=re.M),
                        encoding="utf-8")

    return step


def real_corpus(runs: int) -> list[tuple[str, float, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        root = survey_copy(Path(tmp) / "survey")
        env = {**os.environ, "SURVEY_CACHE_DIR": str(Path(tmp) / "cache"), "SURVEY_NO_CACHE": "0",
               "PYTHONPATH": str(REPO)}
        base = [*SURVEY, "--root", str(root)]
        timed([*base, "build"], env)  # warm: parse cache, manifest, figures
        validate = best([*base, "validate"], env, runs)
        check = best([*base, "build", "--check"], env, runs)
        record = sorted((root / "corpus").glob("*.yaml"))[0]
        summary = edit(record, r"^summary: .*$", ("summary: One sentence written for the incremental build benchmark.",
                                                  "summary: Another sentence written for the incremental build benchmark."))
        one = best([*base, "build"], env, runs, summary)
        tag = edit(record, r"^verified: .*$", ("verified: partial", "verified: 'no'"))
        retag = best([*base, "build"], env, runs, tag)
        # A category no run has used yet (the record's own is framework): the records-per-year-by-
        # category figure shows new numbers at every run, so it is drawn again every time (the
        # other five come from the cache). Four values: up to four runs draw.
        category = edit(record, r"^category: .*$",
                        tuple(f"category: {c}" for c in ("classical_marl", "benchmark", "survey", "industry")))
        redrawn = best([*base, "build"], env, runs, category)
    return [
        ("survey validate (warm)", validate, "1.00x"),
        ("survey build --check, unchanged", check, f"{check / validate:.2f}x (target <= 2.5x)"),
        ("survey build, one summary edited", one, f"{one / validate:.2f}x (target <= 4x)"),
        ("survey build, a tag no figure counts edited", retag, f"{retag / validate:.2f}x"),
        ("survey build, a category edited (1 figure drawn)", redrawn, f"{redrawn / validate:.2f}x"),
    ]


def cpu_reference() -> float:
    """CPU seconds of a fixed pure-Python loop: how fast this host's CPU is right now.

    On the shared 2-core host the same loop takes 2.0 s at one moment and 2.9 s the next, and
    a build's time moves with it; printed beside each build so that runs can be compared."""
    t = time.process_time()
    s = 0
    for i in range(20_000_000):
        s += i & 7
    return time.process_time() - t


def creation_reference(folder: Path, n: int = 10_000) -> float:
    """Seconds to create ``n`` empty files in a new folder: what the file system charges for the
    files a build creates, right now.

    On this host's ext4 the same loop took 0.4 s at one moment and 5.5 s a minute later (kernel
    CPU: inode allocation, slower after many files were deleted); a cold 10k build creates
    10,102 files. The files are kept until the benchmark ends (deleting them would slow the
    next creations down)."""
    folder.mkdir(parents=True)
    t = time.perf_counter()
    for i in range(n):
        os.close(os.open(folder / f"f{i}", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    return time.perf_counter() - t


def synthetic(n: int, runs: int) -> tuple[float, float, float, int, float, float]:
    """Cold builds (no parse cache, no manifest) of ``n`` synthetic records, each in a corpus of
    its own: the best wall s, that run's CPU s (user + system) and system CPU s, the peak KB,
    and the CPU and file-creation references measured before it.

    Every corpus is kept until the last run: this host's root file system is ext4 without a
    journal, which skips the inodes freed in the last seconds (minutes, while their table block
    is unwritten) when it allocates new ones, so deleting one run's 20,000 files made the next
    run's file creations several times slower (benchmarks/build-scale.md)."""
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            root = make_corpus(n, Path(tmp) / f"survey-{i}")
            for rec in (root / "corpus").glob("*.yaml"):  # bench_validate's records name no edition
                rec.write_text(rec.read_text(encoding="utf-8") + "edition: 2605.02801v1\n", encoding="utf-8")
            env = {**os.environ, "SURVEY_CACHE_DIR": str(Path(tmp) / f"cache-{i}"), "SURVEY_NO_CACHE": "0",
                   "PYTHONPATH": str(REPO)}
            # The records on the disk first, as in a checkout: otherwise the build's fsyncs wait for
            # the writeback of the 10,000 files written just now, and the figure measures the disk.
            os.sync()
            ref = cpu_reference()
            files = creation_reference(Path(tmp) / f"creation-{i}")
            used = resource.getrusage(resource.RUSAGE_CHILDREN)
            wall, kb = timed([*SURVEY, "--root", str(root), "build"], env)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            sys_cpu = after.ru_stime - used.ru_stime
            cpu = (after.ru_utime - used.ru_utime) + sys_cpu
            results.append((wall, cpu, sys_cpu, kb, ref, files))
    wall, cpu, sys_cpu, _, ref, files = min(results)
    return wall, cpu, sys_cpu, max(r[3] for r in results), ref, files


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="", help="synthetic corpus sizes to build, e.g. 10000,100000")
    ap.add_argument("--no-real", action="store_true", help="only the synthetic corpora")
    args = ap.parse_args()
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} CPUs; best of {args.runs} runs\n")
    print(f"| {'what':<48} | {'wall s':>7} | ratio to validate |")
    print(f"| {'-' * 48} | {'-' * 7}: | --- |")
    for what, secs, ratio in ([] if args.no_real else real_corpus(args.runs)):
        print(f"| {what:<48} | {secs:7.2f} | {ratio} |")
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if sizes:
        print(f"\n| {'synthetic records':>17} | {'build s':>8} | {'its CPU s':>9} | {'of it system':>12} | "
              f"{'peak MB':>8} | {'CPU reference s':>15} | {'10k files created in s':>22} |")
        print(f"| {'-' * 17}: | {'-' * 8}: | {'-' * 9}: | {'-' * 12}: | {'-' * 8}: | {'-' * 15}: | {'-' * 22}: |")
        for n in sizes:
            secs, cpu, sys_cpu, kb, ref, files = synthetic(n, args.runs)
            print(f"| {n:>17,} | {secs:8.1f} | {cpu:9.1f} | {sys_cpu:12.1f} | {kb / 1024:8.0f} | {ref:15.2f} | {files:22.2f} |")


if __name__ == "__main__":
    main()
