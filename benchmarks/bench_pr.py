"""Time the pull-request job as CI runs it, step by step, on a record-only branch.

A clone of this repository gets one new record on a branch (what a web-editor contributor
commits); then the job's steps run as `.github/workflows/pull-request.yml` runs them:
`tools/ci.sh install-survey` (the core alone, no extra) into a fresh virtual environment with
pip's cache warm, as setup-python's pip cache leaves it on GitHub (one untimed install fills
the cache first; ``--cache-dir`` keeps it between invocations), then `tools/ci.sh validate`,
`pr-build` and `pr-report` (the `pull-request` group). Targets: the install step under 30 s,
the whole job under 3 minutes (the runner's checkout and Python set-up, about 10-20 s on
GitHub, are not included). The install reaches the package registry when the cache misses.
The step installs with uv, which it keeps with uv's cache in pip's cache folder (``--cache-dir``
here, what setup-python's ``cache: pip`` restores on GitHub).

Measured 2026-11-26 on the shared 2-core machine, ``--runs 2`` (best, worst), wall seconds:

| install-survey | load average | install | job total |
| --- | --- | ---: | ---: |
| pip (``--no-compile``), before | 2.5-2.9 | 19.8, 27.9 | 22.7, 37.0 |
| pip (``--no-compile``), before | 4.2-4.5 | 23.1, 27.2 | 30.4, 31.1 |
| uv 0.13.9 | 3.9-4.7 | 4.1, 4.4 | 8.9, 10.3 |
| uv 0.13.9 | 2.5-2.7 | 3.6, 5.4 | 6.4, 11.1 |

Where pip's time went (one timestamped ``pip install --log``, fresh venv, load 6-8, 39.9 s):
24.5 s finding the 43 distributions (each project's whole index page read and every file it
ever published weighed: 43,822 links skipped, 19 s of CPU), 5.6 s on the isolated build
environment of the editable wheel, 0.7 s building it, 3.5 s unpacking; bytecode was already
off. ``pip install --no-deps --no-compile -r`` a full pin list took 17.0 s plus 3.9 s for the
editable: the finder stays. On this machine pip's HTTP cache stays empty (the registry's
answers carry no cache headers), so its "warm" runs download again; the registry is fast here,
and the time is CPU, which uv does not spend.

    python3 benchmarks/bench_pr.py [--runs N] [--no-install] [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RECORD = (REPO / "tests" / "data" / "records" / "valid" / "demo-paper.yaml").read_text(encoding="utf-8")


def _clone(tmp: Path) -> tuple[Path, dict[str, str], str]:
    root = tmp / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(root)], check=True)
    env = {**os.environ, "PYTHONPATH": str(root), "SURVEY_PR_OUT": str(tmp / "out"),
           "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.org",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.org"}
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    (bin_dir / "survey").write_text(f'#!/bin/sh\nexec "{sys.executable}" -c "from survey_tools.cli import main; main()" "$@"\n')
    (bin_dir / "survey").chmod(0o755)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run(["git", "checkout", "-q", "-b", "one-record"], cwd=root, check=True)
    text = RECORD.replace("key: demo-paper", "key: bench-paper").replace(
        "title: A Demonstration Paper on Orchestration", "title: A Benchmark Record for the Pull-Request Job")
    text = text.replace("2501.00001", "2606.09009").replace("year: 2025", "year: 2026")
    (root / "corpus" / "bench-paper.yaml").write_text(text, encoding="utf-8")
    subprocess.run(["git", "add", "corpus/bench-paper.yaml"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "one record"], cwd=root, env=env, check=True)
    env["BASE_SHA"] = base
    return root, env, base


def _step(root: Path, env: dict[str, str], step: str) -> float:
    t = time.perf_counter()
    res = subprocess.run(["bash", "tools/ci.sh", step], cwd=root, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t
    if res.returncode != 0:
        raise SystemExit(f"tools/ci.sh {step} failed:\n{res.stdout}\n{res.stderr}")
    return elapsed


def _fresh_venv(where: Path) -> dict[str, str]:
    """A virtual environment of its own (no system site-packages), first on PATH."""
    if where.exists():
        shutil.rmtree(where)
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    return {"PATH": f"{where / 'bin'}{os.pathsep}{os.environ['PATH']}", "VIRTUAL_ENV": str(where)}


def _install(root: Path, env: dict[str, str], tmp: Path, cache: Path) -> float:
    """The install step into a fresh venv with a warm cache; the first fills the cache."""
    cache.mkdir(parents=True, exist_ok=True)
    base = {**env, "PIP_CACHE_DIR": str(cache)}
    base.pop("PYTHONPATH", None)  # the venv's own install, not the checkout on the path
    if not any(cache.iterdir()):
        _step(root, {**base, **_fresh_venv(tmp / "warm-venv")}, "install-survey")
    return _step(root, {**base, **_fresh_venv(tmp / "venv")}, "install-survey")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--no-install", action="store_true", help="skip the install step")
    ap.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "survey-bench-pr-pip",
                    help="pip's cache for the install step (warmed by an untimed install first)")
    args = ap.parse_args()
    steps = (["install-survey"] if not args.no_install else []) + ["validate", "pr-build", "pr-report"]
    rows: dict[str, list[float]] = {s: [] for s in steps}
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            root, env, _ = _clone(Path(tmp))
            if "install-survey" in rows:
                rows["install-survey"].append(_install(root, env, Path(tmp), args.cache_dir))
            for s in ("validate", "pr-build", "pr-report"):
                rows[s].append(_step(root, env, s))
            shutil.rmtree(root, ignore_errors=True)
    total = [sum(r[i] for r in rows.values()) for i in range(args.runs)]
    print(f"{'step':<16}{'best s':>10}{'worst s':>10}")
    for s, times in rows.items():
        print(f"{s:<16}{min(times):>10.1f}{max(times):>10.1f}"
              + ("   target < 30 s (core only, warm cache)" if s == "install-survey" else ""))
    print(f"{'job total':<16}{min(total):>10.1f}{max(total):>10.1f}   target < 180 s")


if __name__ == "__main__":
    main()
