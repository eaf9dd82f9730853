"""Benchmark of the trace tools, as tables (results and the commands: benchmarks/TRACES.md).

Sections (``--section``, default all):

* ``reference``: ``survey trace validate`` and ``metrics`` against the survey's own
  validator (``--reference PATH/TO/validate_trace.py``, from xxzcc/awesome-llm-mas-rl),
  wall and CPU time, idle and with a second CPU-bound process running; the ratios
  should stay below 0.8x. ``--before DIR`` adds ``validate`` and ``metrics`` of another
  checkout (``PYTHONPATH=DIR``, e.g. a ``git archive`` of the branch point) to the same
  loop, and each round then runs the contenders in a random order: on a shared machine
  the same command drifts by 10-20 % within minutes, so two separate tables cannot show
  a change of a few per cent. Every other contender runs the checkout this script is in
  (its root as PYTHONPATH, and ``python -P``, so the working directory cannot win: before
  round 9 of issue 51 it did, and a ``--before`` contender started from a checkout ran that
  checkout's code, not DIR's).
* ``mechanisms``: each speed mechanism on and off, idle and loaded: the forked
  decode helper (survey trace validate of a large trace) and the numpy edge builder
  of span imports (survey trace import otel). A mechanism stays only with a gain of
  at least 25 % in both.
* ``otlp``: the import time of N OTel spans (``--otlp``, default 100,000).
* ``linked``: the import time of N AutoGen-style spans (``--linked``, default 100,000):
  one small trace per delivered message (five spans each), joined by span links into
  one trace (benchmarks/otel_synth.py ``iter_linked``), with ``survey trace import auto``.
* ``parquet``: a folder of ``--folder`` synthetic traces (default 10,000) to Parquet,
  in one process and on a local Ray cluster (``--ray-cpus``), with peak memory.

Every measurement is a fresh process (the real CLI, start-up included): wall time is
the median of ``--repeat`` runs (default 5), interleaved, and ``reference`` prints the median
and the spread (lowest-highest) of the per-round ratios to the reference; CPU time is user + system of the child
and the children it reaped (``wait4``), so a helper process counts; peak memory is the
largest resident set. The load average is printed with each table: the machine is
shared, so say what it was doing.

    python benchmarks/bench_traces.py --reference /tmp/ref/validate_trace.py --sizes 1000000
    python benchmarks/bench_traces.py --section mechanisms --repeat 3
    python benchmarks/bench_traces.py --section otlp --otlp 100000
    python benchmarks/bench_traces.py --section linked --linked 100000
    python benchmarks/bench_traces.py --section parquet --folder 10000 --ray-cpus 2

The reference validator does not know the ``stop`` event type, so every contender of
``reference`` runs on a variant of the synthetic trace without it (valid for both).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The generators live in benchmarks/ (test data, not the package): the children that
# run them import them as ``benchmarks.*`` from the repository root.
GEN = f"import sys; sys.path.insert(0, {str(HERE.parent)!r}); "
CLI = "from survey_tools.cli import main; main()"
# -P: without it `python -c` puts the working directory first on sys.path, and a run started
# from another checkout (or from this one, for a `--before` contender) imported the package
# from there, whatever PYTHONPATH said. Every child instead gets this checkout's root as
# PYTHONPATH (run()), a `--before` contender the other checkout's.
SURVEY = [sys.executable, "-P", "-c", CLI]
# The reference section's traces hold over a million edges: above the default limit.
MAX_EVENTS = ["--max-events", "2000000"]
# The mechanisms switched off from outside the package (no switch in the library).
NO_FORK = [
    sys.executable,
    "-P",
    "-c",
    "import survey_tools.traces.decode as d; d.PARALLEL_MIN_BYTES = 1 << 62; " + CLI,
]
NO_NUMPY = [
    sys.executable,
    "-P",
    "-c",
    "from survey_tools.traces.importers.spans import SpanBuilder as B; "
    "B._edges_numpy = lambda self, index: self._edges_plain(); " + CLI,
]


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float
    rss_mib: float
    code: int


def run(cmd: list[str], env: dict[str, str] | None = None) -> Run:
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(HERE.parent), **(env or {})},
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        print(f"  ! {' '.join(cmd[-4:])} exited {code}: {err[-300:]}", file=sys.stderr)
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, code)


def measure_runs(
    contenders: dict[str, list[str]],
    repeat: int,
    envs: dict[str, dict[str, str]] | None = None,
    shuffle: bool = False,
) -> dict[str, list[Run]]:
    """Every run of every contender, ``repeat`` rounds, each round running every contender once
    (in a random order when ``shuffle``): round i of two contenders ran side by side in time."""
    runs: dict[str, list[Run]] = {k: [] for k in contenders}
    order = random.Random(0)
    for _ in range(repeat):
        names = list(contenders)
        if shuffle:
            order.shuffle(names)
        for name in names:
            runs[name].append(run(contenders[name], (envs or {}).get(name)))
    return runs


def summary(rs: list[Run]) -> Run:
    """The median wall and CPU time of the runs, the largest peak and exit code."""
    return Run(
        statistics.median(r.wall for r in rs),
        statistics.median(r.cpu for r in rs),
        max(r.rss_mib for r in rs),
        max(r.code for r in rs),
    )


def measure(
    contenders: dict[str, list[str]],
    repeat: int,
    envs: dict[str, dict[str, str]] | None = None,
    shuffle: bool = False,
) -> dict[str, Run]:
    runs = measure_runs(contenders, repeat, envs, shuffle)
    return {k: summary(rs) for k, rs in runs.items()}


def ratios(runs: list[Run], ref: list[Run], attr: str) -> tuple[float, float, float]:
    """Median, lowest and highest of the per-round ratios contender/reference: each round's pair
    ran minutes apart at most, so the machine's drift over the whole loop cancels out of each
    ratio (the spread then is what is left of the noise)."""
    per_round = sorted(getattr(a, attr) / getattr(b, attr) for a, b in zip(runs, ref, strict=True))
    return statistics.median(per_round), per_round[0], per_round[-1]


@contextmanager
def busy(on: bool) -> Iterator[None]:
    """A second CPU-bound process for the duration (the 'loaded' condition)."""
    if not on:
        yield
        return
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)
        yield
    finally:
        hog.kill()
        hog.wait()


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} / {five:.1f} (1 / 5 min), {os.cpu_count()} CPUs"


def _generate(code: str) -> None:
    # In a child process: a peak RSS reached here would otherwise be inherited by
    # every process this script starts (Linux keeps the high-water mark across exec).
    subprocess.run([sys.executable, "-c", code], check=True)


def ensure_trace(data_dir: Path, n: int, *, stop: bool = True) -> Path:
    path = data_dir / f"synthetic-{n}{'' if stop else '-nostop'}.json"
    if not path.exists():
        _generate(
            GEN + "from benchmarks.synthetic_traces import SynthParams, write; "
            f"write({str(path)!r}, SynthParams(n_events={n}, n_agents=300, seed=0, stop={stop}))"
        )
    return path


def ensure_otlp(data_dir: Path, n: int) -> Path:
    path = data_dir / f"otlp-{n}.json"
    if not path.exists():
        _generate(
            GEN + "from benchmarks.otel_synth import write_otlp; "
            f"write_otlp({str(path)!r}, n_spans={n}, seed=0)"
        )
    return path


def ensure_linked(data_dir: Path, n: int) -> Path:
    path = data_dir / f"linked-{n}.jsonl"
    if not path.exists():
        _generate(
            GEN + "from benchmarks.otel_synth import write_linked; "
            f"write_linked({str(path)!r}, n_spans={n}, seed=0)"
        )
    return path


def ensure_folder(data_dir: Path, n: int) -> Path:
    folder = data_dir / f"folder-{n}"
    if not folder.exists():
        tmp = data_dir / f".folder-{n}"
        tmp.mkdir(exist_ok=True)
        _generate(
            GEN + "from benchmarks.synthetic_traces import SynthParams, write\n"
            f"for s in range({n}):\n"
            f"    write({str(tmp)!r} + f'/run-{{s:06d}}.json', "
            "SynthParams(n_events=60, n_agents=5, seed=s))"
        )
        tmp.rename(folder)
    return folder


def _row(label: str, r: Run) -> str:
    return f"{label:<28} {r.wall:>8.2f} s {r.cpu:>8.2f} s {r.rss_mib:>7.0f} MiB"


def section_reference(
    ref: Path, sizes: list[int], data_dir: Path, repeat: int, before: Path | None = None
) -> None:
    out = data_dir / "m.json"
    for n in sizes:
        path = ensure_trace(data_dir, n, stop=False)
        mb = path.stat().st_size / 1e6
        contenders = {
            "reference": [sys.executable, str(ref), str(path)],
            # The default --max-events (1,000,000) refuses this trace (1,094,157 edges), and a
            # refusal would be timed as if it were a validation: raised, as a user would.
            "validate": [*SURVEY, "trace", "validate", *MAX_EVENTS, str(path)],
            "metrics": [
                *SURVEY,
                "trace",
                "metrics",
                *MAX_EVENTS,
                "--format",
                "json",
                "-o",
                str(out),
                str(path),
            ],
        }
        envs: dict[str, dict[str, str]] = {}
        if before is not None:
            contenders["validate@before"] = contenders["validate"]
            contenders["metrics@before"] = contenders["metrics"]
            envs = {k: {"PYTHONPATH": str(before)} for k in contenders if k.endswith("@before")}
        print(
            f"\n## {n:,} events ({mb:.0f} MB) against the survey's validator: median of {repeat}"
            " interleaved rounds (each in a random order), ratios per round"
        )
        print(
            f"{'condition':<10} {'contender':<15} {'wall':>8} {'cpu':>8} {'peak':>9} "
            f"{'wall/ref':>9} {'(spread)':>13} {'cpu/ref':>8} {'(spread)':>13}"
        )
        for loaded in (False, True):
            cond = "loaded" if loaded else "idle"
            with busy(loaded):
                print(f"# {cond}: {load()}")
                runs = measure_runs(contenders, repeat, envs, shuffle=True)
            ref_runs = runs["reference"]
            if summary(ref_runs).code != 0:
                print("  ! the reference rejected the trace: its figures do not count")
            for name, rs in runs.items():
                x = summary(rs)
                w, wlo, whi = ratios(rs, ref_runs, "wall")
                c, clo, chi = ratios(rs, ref_runs, "cpu")
                print(
                    f"{cond:<10} {name:<15} {x.wall:>6.2f} s {x.cpu:>6.2f} s {x.rss_mib:>5.0f} MiB "
                    f"{w:>8.2f}x {f'{wlo:.2f}-{whi:.2f}':>13} {c:>7.2f}x {f'{clo:.2f}-{chi:.2f}':>13}"
                )


def section_mechanisms(data_dir: Path, size: int, spans: int, repeat: int) -> None:
    trace = ensure_trace(data_dir, size)
    otlp = ensure_otlp(data_dir, spans)
    target = data_dir / "mech.trace.json"
    cases = {
        f"forked helper (validate {size:,} events)": (
            [*SURVEY, "trace", "validate", str(trace)],
            [*NO_FORK, "trace", "validate", str(trace)],
        ),
        f"numpy edges (import {spans:,} spans)": (
            [*SURVEY, "trace", "import", "otel", str(otlp), "-o", str(target), "--no-check"],
            [*NO_NUMPY, "trace", "import", "otel", str(otlp), "-o", str(target), "--no-check"],
        ),
    }
    print(f"\n## speed mechanisms on and off, median of {repeat}; gain = 1 - on/off")
    print(
        f"{'mechanism':<40} {'condition':<8} {'on wall':>8} {'off wall':>9} {'on cpu':>7} "
        f"{'off cpu':>8} {'wall gain':>9} {'cpu gain':>8}"
    )
    for label, (on, off) in cases.items():
        for loaded in (False, True):
            cond = "loaded" if loaded else "idle"
            with busy(loaded):
                print(f"# {cond}: {load()}")
                res = measure({"on": on, "off": off}, repeat)
            a, b = res["on"], res["off"]
            print(
                f"{label:<40} {cond:<8} {a.wall:>6.2f} s {b.wall:>7.2f} s {a.cpu:>5.2f} s "
                f"{b.cpu:>6.2f} s {1 - a.wall / b.wall:>8.0%} {1 - a.cpu / b.cpu:>8.0%}"
            )


def section_otlp(data_dir: Path, counts: list[int], repeat: int) -> None:
    print(f"\n## OTLP import, median of {repeat}; {load()}")
    print(f"{'spans':>9} {'MB':>6} {'wall':>10} {'cpu':>10} {'peak':>11}")
    for n in counts:
        path = ensure_otlp(data_dir, n)
        target = data_dir / f"otlp-{n}.trace.json"
        res = measure(
            {"import": [*SURVEY, "trace", "import", "otel", str(path), "-o", str(target)]}, repeat
        )
        i = res["import"]
        print(
            f"{n:>9} {path.stat().st_size / 1e6:>6.0f} {i.wall:>8.2f} s {i.cpu:>8.2f} s "
            f"{i.rss_mib:>7.0f} MiB"
        )


def section_linked(data_dir: Path, counts: list[int], repeat: int) -> None:
    print(f"\n## AutoGen-style linked spans, import auto, median of {repeat}; {load()}")
    print(f"{'spans':>9} {'traces':>7} {'MB':>6} {'wall':>10} {'cpu':>10} {'peak':>11}")
    for n in counts:
        path = ensure_linked(data_dir, n)
        target = data_dir / f"linked-{n}.trace.json"
        res = measure(
            {"import": [*SURVEY, "trace", "import", "auto", str(path), "-o", str(target)]}, repeat
        )
        i = res["import"]
        print(
            f"{n:>9} {n // 5:>7} {path.stat().st_size / 1e6:>6.0f} {i.wall:>8.2f} s "
            f"{i.cpu:>8.2f} s {i.rss_mib:>7.0f} MiB"
        )


def section_parquet(data_dir: Path, n: int, ray_cpus: int, repeat: int) -> None:
    folder = ensure_folder(data_dir, n)
    out = data_dir / "metrics.parquet"
    base = [*SURVEY, "trace", "metrics", str(folder), "--format", "parquet", "-o", str(out)]
    contenders = {
        "one process": base,
        f"ray, local cluster ({ray_cpus} CPUs)": [
            *base,
            "--engine",
            "ray",
            "--ray-cpus",
            str(ray_cpus),
        ],
    }
    print(f"\n## {n:,} traces (60 events each) to Parquet, median of {repeat}; {load()}")
    print(f"{'engine':<28} {'wall':>10} {'cpu':>10} {'peak':>11}")
    res = measure(contenders, repeat)
    for name, r in res.items():
        print(
            _row(name, r)
            + ("  (peak: the driver only; Ray's workers are apart)" if "ray" in name else "")
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--section",
        choices=["all", "reference", "mechanisms", "otlp", "linked", "parquet"],
        default="all",
    )
    ap.add_argument("--sizes", type=int, nargs="*", default=[1_000_000])
    ap.add_argument("--repeat", type=int, default=5, help="rounds (at least 5 for the targets)")
    ap.add_argument("--otlp", type=int, nargs="*", default=[100_000])
    ap.add_argument("--linked", type=int, nargs="*", default=[100_000])
    ap.add_argument("--folder", type=int, default=10_000)
    ap.add_argument("--ray-cpus", type=int, default=2)
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/survey-bench-traces"))
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    ap.add_argument("--reference", type=Path, help="the survey's validate_trace.py")
    ap.add_argument(
        "--before", type=Path, help="reference section: also time this checkout (PYTHONPATH)"
    )
    args = ap.parse_args()
    args.data_dir.mkdir(parents=True, exist_ok=True)
    print(f"# {load()}")
    try:
        if args.section in ("all", "reference"):
            if args.reference is None:
                print("reference: skipped (--reference PATH/TO/validate_trace.py)")
            else:
                section_reference(
                    args.reference, args.sizes, args.data_dir, args.repeat, args.before
                )
        if args.section in ("all", "mechanisms"):
            section_mechanisms(args.data_dir, max(args.sizes), max(args.otlp), args.repeat)
        if args.section in ("all", "otlp"):
            section_otlp(args.data_dir, args.otlp, args.repeat)
        if args.section in ("all", "linked"):
            section_linked(args.data_dir, args.linked, args.repeat)
        if args.section in ("all", "parquet"):
            section_parquet(args.data_dir, args.folder, args.ray_cpus, args.repeat)
    finally:
        if not args.keep:
            shutil.rmtree(args.data_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
