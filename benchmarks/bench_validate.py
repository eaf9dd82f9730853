"""Benchmark `survey validate` on the real corpus and on synthetic corpora of 1k, 10k, 100k records.

Prints a table: records, wall time (cold: no parse cache; warm: cache filled), records/second,
and the peak resident memory of the largest process. Run from the repository root:

    python3 benchmarks/bench_validate.py [--sizes 1000,10000,100000]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from survey_tools.corpus.taxonomy import load_taxonomy  # noqa: E402
from survey_tools.corpus.yamlio import dump_yaml  # noqa: E402

# Titles and summaries are random draws from a vocabulary, as distinct as real ones are:
# near-identical titles would (rightly) be reported as duplicates, and equal or near-equal
# summaries as copied.
_SYLLABLES = [
    "ra",
    "ko",
    "mi",
    "tel",
    "quo",
    "sar",
    "vin",
    "len",
    "dor",
    "pha",
    "gru",
    "zet",
    "nim",
    "bo",
    "cus",
]
WORDS = sorted({a + b + c for a in _SYLLABLES for b in _SYLLABLES for c in _SYLLABLES[:6]})


def synthetic_record(i: int, rng: random.Random, tax) -> dict:  # type: ignore[no-untyped-def]
    coll = tax.retained
    rec: dict = {
        "key": f"paper-{i:06d}",
        "title": " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 11))).capitalize(),
        "authors": [f"Author{j}, {WORDS[i % 97].capitalize()}" for j in range(rng.randint(1, 6))],
        "authors_complete": True,
        "affiliation": "Synthetic University",
        "year": 2017 + (i % 10),  # from the survey's earliest year to this one
        "venue": "arXiv",
        "identifiers": {"arxiv": f"{(i % 25):02d}{(i % 12) + 1:02d}.{i:05d}"[-10:]},
        "links": [f"https://example.org/papers/{i}"],
        "summary": "A synthetic record about "
        + " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 11)))
        + ".",
        "notes": "generated",
    }
    del rec["identifiers"]  # synthetic ids would collide with the year check; links carry no id
    for cf in coll.controlled:
        if cf.name == "readings":  # optional; a record that places one reading must place every tag
            continue
        if cf.kind == "mapping":
            picks = rng.sample(list(cf.ids), rng.randint(0, 3))
            rec[cf.name] = {
                p: {
                    "how": rng.choice(cf.mode_ids),
                    "evidence": f"https://example.org/e/{i}",
                    "reason": "synthetic",
                }
                for p in sorted(picks)
            }
        elif cf.kind == "multi":
            rec[cf.name] = rng.sample(list(cf.ids), 1)
        else:
            rec[cf.name] = rng.choice(list(cf.ids))
    return rec


def make_corpus(n: int, where: Path) -> Path:
    tax = load_taxonomy(REPO)
    root = where / f"synthetic-{n}"
    shutil.copytree(REPO / "taxonomy", root / "taxonomy")
    (root / "corpus").mkdir(parents=True)
    rng = random.Random(n)
    for i in range(n):
        (root / "corpus" / f"paper-{i:06d}.yaml").write_text(
            dump_yaml(synthetic_record(i, rng, tax))
        )
    return root


def run(root: Path, cached: bool) -> tuple[float, float, int]:
    env = dict(os.environ)
    if not cached:
        env["SURVEY_NO_CACHE"] = "1"
    else:
        env.pop("SURVEY_NO_CACHE", None)
    cmd = [
        sys.executable,
        "-c",
        "import sys; from survey_tools.cli import main; sys.argv=['survey','--root',sys.argv[1],'validate']; main()",
        str(root),
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode != 0:
        sys.exit(f"validate failed on {root}:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return wall, max(peak_kib, before) / 1024, proc.returncode


def imports_heavy() -> list[str]:
    code = "import sys; from survey_tools.corpus.validation import validate_corpus; validate_corpus(sys.argv[1]); print(' '.join(m for m in ('pandas','matplotlib','numpy') if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code, str(REPO)],
        capture_output=True,
        text=True,
        env={**os.environ, "SURVEY_NO_CACHE": "1"},
    )
    return out.stdout.split()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    args = ap.parse_args()
    rows = []
    real_n = len(list((REPO / "corpus").glob("*.yaml"))) + len(
        list((REPO / "exclusions").glob("*.yaml"))
    )
    with tempfile.TemporaryDirectory() as tmp:
        real = Path(tmp) / "real"
        for name in ("taxonomy", "corpus", "exclusions"):
            shutil.copytree(REPO / name, real / name)
        cold_runs = [run(real, False) for _ in range(5)]
        cold = min(r[0] for r in cold_runs)
        run(real, True)
        warm = min(run(real, True)[0] for _ in range(5))
        rows.append(("real corpus", real_n, cold, warm, max(r[1] for r in cold_runs)))
        for n in [int(s) for s in args.sizes.split(",") if s]:
            t0 = time.perf_counter()
            root = make_corpus(n, Path(tmp))
            gen = time.perf_counter() - t0
            cold, peak, _ = run(root, False)
            run(root, True)
            warm, peak2, _ = run(root, True)
            rows.append((f"synthetic (generated in {gen:.0f} s)", n, cold, warm, max(peak, peak2)))
            shutil.rmtree(root)
    print(f"{'corpus':34} {'records':>8} {'cold s':>8} {'rec/s':>9} {'warm s':>8} {'peak MiB':>9}")
    for name, n, cold, warm, peak in rows:
        print(f"{name:34} {n:>8} {cold:>8.2f} {n / cold:>9.0f} {warm:>8.2f} {peak:>9.0f}")
    print(
        f"cold = no parse cache (SURVEY_NO_CACHE=1), best of 5 for the real corpus; warm = cache filled; {os.cpu_count()} cores"
    )
    print(f"heavy modules imported by validation: {imports_heavy() or 'none'}")


if __name__ == "__main__":
    main()
