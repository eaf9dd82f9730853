"""Benchmark: trace validation and metrics at 10k, 100k and 1M events, side by side
with our reconstruction of a structure-only stdlib validator (traces_baseline.py), or
with the survey's own reference validator (--reference PATH/TO/validate_trace.py).

Each measurement is a fresh process (the real CLI, start-up included); wall time is
the median of --repeat runs, interleaved so that load from other processes hits all
contenders alike; peak memory is the child's maximum resident set as wait4 reports it
(on Linux the largest of the process and the children it reaped, so the validation's
helper process is included).

    python benchmarks/bench_traces.py                      # 10k, 100k, 1M
    python benchmarks/bench_traces.py --sizes 10000 --repeat 1
    python benchmarks/bench_traces.py --otlp 1000000       # issue 7: OTLP import
    python benchmarks/bench_traces.py --sizes 1000000 --reference /tmp/ref/validate_trace.py

The reference validator (trace-schema/validate_trace.py in xxzcc/awesome-llm-mas-rl)
takes one argument, the trace file, and reads no schema file. It does not know the
``stop`` event type, so with --reference every contender runs on a variant of the
synthetic trace without its final ``stop`` event (``synthetic-N-nostop.json``), which
is valid for it and for us; the reference must exit 0 ("valid trace") on it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The generators live in benchmarks/ (test data, not the package): the children that
# run them import them as ``benchmarks.*`` from the repository root.
GEN = f"import sys; sys.path.insert(0, {str(HERE.parent)!r}); "
SURVEY = [sys.executable, "-c", "from survey_tools.cli import main; main()"]


def run(cmd: list[str]) -> tuple[float, float, int]:
    """(wall seconds, peak RSS MiB, exit code) of one child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0,):
        print(f"  ! {' '.join(cmd[-3:])} exited {proc.returncode}: {err[-400:]}", file=sys.stderr)
    return wall, usage.ru_maxrss / 1024, proc.returncode


def _generate(code: str) -> None:
    # In a child process: a peak RSS reached here would otherwise be inherited by
    # every process this script starts (Linux keeps the high-water mark across exec).
    subprocess.run([sys.executable, "-c", code], check=True)


def ensure_trace(data_dir: Path, n: int, *, stop: bool = True) -> Path:
    path = data_dir / f"synthetic-{n}{'' if stop else '-nostop'}.json"
    if not path.exists():
        t0 = time.perf_counter()
        _generate(
            GEN + "from benchmarks.synthetic_traces import SynthParams, write; "
            f"write({str(path)!r}, SynthParams(n_events={n}, n_agents=300, seed=0, stop={stop}))"
        )
        print(f"  generated {path} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return path


def ensure_otlp(data_dir: Path, n: int) -> Path:
    path = data_dir / f"otlp-{n}.json"
    if not path.exists():
        t0 = time.perf_counter()
        _generate(
            GEN + "from benchmarks.otel_synth import write_otlp; "
            f"write_otlp({str(path)!r}, n_spans={n}, seed=0)"
        )
        print(f"  generated {path} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return path


def measure(contenders: dict[str, list[str]], repeat: int) -> dict[str, tuple[float, float, int]]:
    times: dict[str, list[float]] = {k: [] for k in contenders}
    mem: dict[str, float] = dict.fromkeys(contenders, 0.0)
    codes: dict[str, int] = dict.fromkeys(contenders, 0)
    for _ in range(repeat):
        for name, cmd in contenders.items():
            wall, rss, code = run(cmd)
            times[name].append(wall)
            mem[name] = max(mem[name], rss)
            codes[name] = code or codes[name]
    return {k: (statistics.median(times[k]), mem[k], codes[k]) for k in contenders}


def compare_reference(ref: Path, sizes: list[int], data_dir: Path, out: Path, repeat: int) -> None:
    """Ours against the survey's validator, on one file that is valid for both."""
    print(f"ours vs the reference validator {ref}, median of {repeat} (wall s / peak MiB)")
    header = (
        f"{'events':>9} {'MB':>6} | {'reference':>15} | {'validate':>15} | {'metrics':>15} | "
        f"{'validate/ref':>12} | {'metrics/ref':>11} | {'peak/ref':>8}"
    )
    print(header)
    print("-" * len(header))
    for n in sizes:
        path = ensure_trace(data_dir, n, stop=False)
        contenders = {
            "reference": [sys.executable, str(ref), str(path)],
            "validate": [*SURVEY, "trace", "validate", str(path)],
            "metrics": [
                *SURVEY,
                "trace",
                "metrics",
                "--format",
                "json",
                "-o",
                str(out / "m.json"),
                str(path),
            ],
        }
        res = measure(contenders, repeat)
        r, v, m = res["reference"], res["validate"], res["metrics"]
        if r[2] != 0:
            print(f"  ! the reference rejected {path}: its figures do not count", file=sys.stderr)
        mb = path.stat().st_size / 1e6
        print(
            f"{n:>9} {mb:>6.0f} | {r[0]:>5.2f} s {r[1]:>5.0f} M | {v[0]:>5.2f} s {v[1]:>5.0f} M | "
            f"{m[0]:>5.2f} s {m[1]:>5.0f} M | {v[0] / r[0]:>11.2f}x | {m[0] / r[0]:>10.2f}x | "
            f"{max(v[1], m[1]) / r[1]:>7.2f}x"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--otlp", type=int, nargs="*", default=[], help="OTLP span counts to import")
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/survey-bench-traces"))
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    ap.add_argument(
        "--reference",
        type=Path,
        help="the survey's validate_trace.py: time it instead of our stdlib baseline",
    )
    args = ap.parse_args()
    args.data_dir.mkdir(parents=True, exist_ok=True)
    out = args.data_dir / "out"
    out.mkdir(exist_ok=True)

    if args.sizes and args.reference is not None:
        compare_reference(args.reference, args.sizes, args.data_dir, out, args.repeat)
    elif args.sizes:
        print(f"validate and metrics, median of {args.repeat} (wall s / peak MiB)")
        header = (
            f"{'events':>9} {'edges':>9} {'MB':>6} | {'baseline (stdlib)':>17} | "
            f"{'validate':>15} | {'validate+metrics':>16} | {'vs baseline':>11}"
        )
        print(header)
        print("-" * len(header))
        for n in args.sizes:
            path = ensure_trace(args.data_dir, n)
            contenders = {
                "baseline": [sys.executable, str(HERE / "traces_baseline.py"), str(path)],
                "validate": [*SURVEY, "trace", "validate", str(path)],
                "metrics": [
                    *SURVEY,
                    "trace",
                    "metrics",
                    "--format",
                    "json",
                    "-o",
                    str(out / "m.json"),
                    str(path),
                ],
            }
            res = measure(contenders, args.repeat)
            m = json.loads((out / "m.json").read_text())
            mb = path.stat().st_size / 1e6
            b, v, mm = res["baseline"], res["validate"], res["metrics"]
            print(
                f"{m['events']:>9} {m['edges']:>9} {mb:>6.0f} | "
                f"{b[0]:>7.2f} s {b[1]:>5.0f} M | {v[0]:>5.2f} s {v[1]:>5.0f} M | "
                f"{mm[0]:>6.2f} s {mm[1]:>5.0f} M | {b[0] / mm[0]:>9.2f}x"
            )

    if args.otlp:
        print(f"\nOTLP import, median of {args.repeat} (wall s / peak MiB)")
        header = f"{'spans':>9} {'MB':>6} | {'import':>15} | {'validate':>15}"
        print(header)
        print("-" * len(header))
        for n in args.otlp:
            path = ensure_otlp(args.data_dir, n)
            target = out / f"otlp-{n}.trace.json"
            contenders = {
                "import": [*SURVEY, "trace", "import", "otel", str(path), "-o", str(target)],
            }
            res = measure(contenders, args.repeat)
            val = measure({"validate": [*SURVEY, "trace", "validate", str(target)]}, 1)
            mb = path.stat().st_size / 1e6
            i, v = res["import"], val["validate"]
            print(
                f"{n:>9} {mb:>6.0f} | {i[0]:>5.2f} s {i[1]:>5.0f} M | {v[0]:>5.2f} s {v[1]:>5.0f} M"
                f"{'' if v[2] == 0 else '  (INVALID)'}"
            )

    if not args.keep:
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
