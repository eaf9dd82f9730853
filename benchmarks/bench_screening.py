"""The screening ranker and the screening commands, measured.

1. Ranking quality, honestly: stratified k-fold cross-validation on the corpus's own decisions
   (retained = relevant, excluded = irrelevant). In each fold the model is trained on the other
   folds and ranks the held-out records; the held-out rankings are pooled per repetition, as if
   a screener read the queue best first. Printed: recall of the relevant records after reading
   10, 20 and 50% of the records, and WSS@95 (work saved over random reading at 95% recall,
   Cohen et al. 2006), with a random ranking as the baseline. Mean and spread over repetitions.
2. Speed: deduplicating 10,000 candidates against a 10,000-record corpus plus log; scoring
   10,000 candidates; `survey screen --format json` on a 10,000-candidate queue (subprocess).

    python3 benchmarks/bench_screening.py [--folds 5] [--repeats 10] [--skip-speed]
"""

from __future__ import annotations

import argparse
import math
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from survey_tools.contrib import ranking, screening  # noqa: E402
from survey_tools.corpus.duplicates import Known, KnownIndex  # noqa: E402
from survey_tools.corpus.loading import load_corpus  # noqa: E402
from survey_tools.corpus.yamlio import dump_yaml  # noqa: E402


def recall_at(order: list[int], fraction: float) -> float:
    n = max(1, math.ceil(len(order) * fraction))
    return sum(order[:n]) / max(1, sum(order))


def wss_at(order: list[int], target: float = 0.95) -> float:
    """Work saved over sampling at ``target`` recall: (N - n_read)/N - (1 - target)."""
    total = sum(order)
    need = math.ceil(target * total)
    found = 0
    for i, y in enumerate(order, start=1):
        found += y
        if found >= need:
            return (len(order) - i) / len(order) - (1 - target)
    return 0.0


def evaluate(folds: int, repeats: int) -> None:
    from sklearn.model_selection import StratifiedKFold

    texts, labels = ranking.training_set(load_corpus(REPO))
    rows: dict[str, dict[str, list[float]]] = {"model": {}, "random": {}}
    for rep in range(repeats):
        scored: list[tuple[float, int]] = []
        for train, test in StratifiedKFold(folds, shuffle=True, random_state=rep).split(texts, labels):
            model = ranking.fit([texts[i] for i in train], [labels[i] for i in train])
            scores = model.score([texts[i] for i in test])
            scored += [(s, labels[i]) for s, i in zip(scores, test, strict=True)]
        rng = random.Random(rep)
        order = [y for _s, y in sorted(scored, key=lambda x: (-x[0], rng.random()))]
        rand = [y for _s, y in scored]
        rng.shuffle(rand)
        for name, o in (("model", order), ("random", rand)):
            for k, v in (("recall@10%", recall_at(o, 0.1)), ("recall@20%", recall_at(o, 0.2)),
                         ("recall@50%", recall_at(o, 0.5)), ("WSS@95", wss_at(o))):
                rows[name].setdefault(k, []).append(v)
    n_rel = sum(labels)
    print(f"Ranking, {folds}-fold stratified cross-validation x {repeats} repetitions, "
          f"{len(labels)} decisions ({n_rel} retained, {len(labels) - n_rel} excluded)")
    print()
    print("| ranking | recall@10% | recall@20% | recall@50% | WSS@95 |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, r in rows.items():
        cells = [f"{statistics.mean(v):.3f} ± {statistics.pstdev(v):.3f}" for v in r.values()]
        print(f"| {name} | {' | '.join(cells)} |")
    perfect = sorted(labels, reverse=True)
    print(f"| perfect | {recall_at(perfect, 0.1):.3f} | {recall_at(perfect, 0.2):.3f} | "
          f"{recall_at(perfect, 0.5):.3f} | {wss_at(perfect):.3f} |")
    print(f"\n({n_rel / len(labels):.0%} of the records are relevant, so even a perfect ranking "
          "saves little work here.)")


def _title(rng: random.Random, words: list[str]) -> str:
    return " ".join(rng.choice(words) for _ in range(rng.randint(6, 12))).capitalize()


def speed() -> None:
    rng = random.Random(7)
    vocab = [f"w{i}" for i in range(3000)] + ["agent", "agents", "multi", "llm", "reinforcement", "learning", "credit", "orchestration"]
    known = KnownIndex({"arxiv": "arxiv", "doi": "lower", "openreview": "none"})
    t = time.perf_counter()
    for i in range(10_000):
        title = _title(rng, vocab)
        known.add(Known(f"corpus/r{i}.yaml", "retained" if i % 3 else "excluded", f"r{i}", title),
                  {"title": title, "identifiers": {"arxiv": f"2401.{i:05d}"}})
    build = time.perf_counter() - t
    cands = []
    for i in range(10_000):
        title = _title(rng, vocab)
        cands.append({"title": title, "identifiers": {"arxiv": f"2501.{i:05d}"}})
    for i in range(0, 10_000, 50):  # some real duplicates: same id (other version), near title
        cands[i]["identifiers"] = {"arxiv": f"2401.{i:05d}"}
        cands[i + 1]["title"] = known.works[i + 1].title + "s"
    t = time.perf_counter()
    dup = sum(known.match(c) is not None for c in cands)
    dedupe = time.perf_counter() - t

    corpus = load_corpus(REPO)
    model = ranking.train(corpus)
    texts = [f"{c['title']} " + " ".join(rng.choice(vocab) for _ in range(150)) for c in cands]
    t = time.perf_counter()
    model.score(texts)
    scoring = time.perf_counter() - t

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name in ("taxonomy", "corpus", "exclusions"):
            shutil.copytree(REPO / name, root / name)
        q = root / screening.QUEUE
        q.mkdir(parents=True)
        for i, text in enumerate(texts):
            aid = f"2501.{i:05d}"
            data = {"id": aid, "version": 1, "title": cands[i]["title"], "authors": ["Ada Example"],
                    "published": "2025-01-02", "updated": "2025-01-02", "abstract": text,
                    "primary_category": "cs.AI", "categories": ["cs.AI"],
                    "links": [f"https://arxiv.org/abs/{aid}"], "families": ["orchestration"],
                    "queries": ["q"], "first_seen": "2026-05-11", "score": round(rng.random(), 4)}
            (q / f"{aid}.yaml").write_text(dump_yaml(data), encoding="utf-8")
        cmd = [sys.executable, "-c", "from survey_tools.cli import main; main()", "--root", str(root),
               "screen", "--format", "json"]
        env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
        listing = []
        for _ in range(3):
            t = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, env=env)
            listing.append(time.perf_counter() - t)
    print()
    print("| operation | seconds | target |")
    print("| --- | ---: | ---: |")
    print(f"| index 10,000 known works (corpus + log) | {build:.2f} | |")
    print(f"| dedupe 10,000 candidates against them ({dup} duplicates found) | {dedupe:.2f} | < 2 |")
    print(f"| score 10,000 candidates (model trained on the corpus) | {scoring:.2f} | < 2 |")
    print(f"| `survey screen --format json`, 10,000-candidate queue, first run (parses every file) "
          f"| {listing[0]:.2f} | < 1.5 |")
    print(f"| `survey screen --format json`, 10,000-candidate queue, later runs (parse cache) "
          f"| {min(listing[1:]):.2f} | < 1.5 |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--skip-speed", action="store_true")
    args = ap.parse_args()
    evaluate(args.folds, args.repeats)
    if not args.skip_speed:
        speed()


if __name__ == "__main__":
    main()
