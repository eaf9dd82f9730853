"""The screening ranker and the screening commands, measured.

1. Ranking quality on real search results: relevant papers mixed into unrelated ones, read best
   first as a screener reads the queue. Two benchmarks, each for the ranker before issue 25
   (retained versus excluded only, ``ranking.fit``) and the current one (``ranking.train``:
   retained records and the protocol's words against the search results as background):

   * **feed**: tests/fixtures/screening-feed/feed.yaml, three papers that meet the inclusion rule
     (ToolOrchestra, MasRouter, CORY) among 30 unrelated arXiv results, titles and abstracts as
     arXiv lists them; trained on the corpus without those three.
   * **held-out**: the retained records split into k folds; each fold's records (title and our
     summary) are mixed into the same 30 unrelated results, and the models are trained on the
     other folds and the exclusion log. Mean and spread over folds and repetitions.

   Printed: recall after reading the best 5, 10 and 20, and WSS@95 (work saved over reading in
   random order at 95% recall, Cohen et al. 2006).
2. Speed: deduplicating 10,000 candidates against a 10,000-record corpus plus log; scoring
   10,000 candidates; `survey screen --format json` on a 10,000-candidate queue (subprocess).

    python3 benchmarks/bench_screening.py [--folds 5] [--repeats 4] [--skip-speed]
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

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from survey_tools.corpus.duplicates import Known, KnownIndex  # noqa: E402
from survey_tools.corpus.loading import load_corpus  # noqa: E402
from survey_tools.corpus.records import Corpus  # noqa: E402
from survey_tools.corpus.yamlio import dump_yaml  # noqa: E402
from survey_tools.curate import ranking, screening  # noqa: E402

FEED = REPO / "tests" / "fixtures" / "screening-feed" / "feed.yaml"


def recall_at_n(order: list[int], n: int) -> float:
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


def load_feed() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(arXiv id, text) of the feed's relevant and unrelated papers."""
    data = yaml.safe_load(FEED.read_text(encoding="utf-8"))

    def text(x: dict) -> str:
        return f"{x['title']} {' '.join(str(x.get('abstract', '')).split())}".strip()

    return ([(str(x["id"]), text(x)) for x in data["relevant"]],
            [(str(x["id"]), text(x)) for x in data["unrelated"]])


def decided(corpus: Corpus, leave_out: set[str]) -> tuple[list[str], list[str]]:
    """Texts of the retained records and of the exclusions, without the works in ``leave_out``."""
    tax = corpus.taxonomy
    pos, neg = [], []
    for rec in corpus:
        ids = rec.get("identifiers") if isinstance(rec.get("identifiers"), dict) else {}
        if rec.id in leave_out or str(ids.get("arxiv", "")) in leave_out:
            continue
        (pos if rec.collection == tax.retained.name else neg).append(ranking.record_text(tax, rec))
    return pos, neg


def rankings(pos: list[str], neg: list[str], anchor: str, texts: list[str]) -> dict[str, list[float]]:
    """Each model's scores of ``texts``, trained on these positives and negatives."""
    before = ranking.fit(pos + neg, [1] * len(pos) + [0] * len(neg))
    now = ranking.Ranker(tuple(pos + ([anchor] if anchor else [])), tuple(neg))
    return {"before (retained vs excluded)": before.score(texts),
            "now (decisions + protocol + background)": now.score(texts)}


def order_of(scores: list[float], labels: list[int]) -> list[int]:
    # Ties in score keep the feed's order, as `survey screen` keeps the file order of ties.
    return [y for _s, _i, y in sorted(zip(scores, range(len(labels)), labels, strict=True),
                                      key=lambda x: (-x[0], x[1]))]


METRICS = ("recall@5", "recall@10", "recall@20", "WSS@95")


def metrics(order: list[int]) -> list[float]:
    return [recall_at_n(order, 5), recall_at_n(order, 10), recall_at_n(order, 20), wss_at(order)]


def table(rows: dict[str, list[list[float]]]) -> None:
    print(f"| ranking | {' | '.join(METRICS)} |")
    print("| --- |" + " ---: |" * len(METRICS))
    for name, runs in rows.items():
        cols = list(zip(*runs, strict=True))
        cells = [f"{statistics.mean(c):.3f}" + (f" ± {statistics.pstdev(c):.3f}" if len(c) > 1 else "")
                 for c in cols]
        print(f"| {name} | {' | '.join(cells)} |")


def evaluate(folds: int, repeats: int) -> None:
    corpus = load_corpus(REPO)
    anchor = ranking.protocol_text(corpus.taxonomy)
    relevant, unrelated = load_feed()
    # 1. the feed
    feed = relevant + unrelated
    labels = [1] * len(relevant) + [0] * len(unrelated)
    pos, neg = decided(corpus, {i for i, _t in relevant})
    texts = [t for _i, t in feed]
    scored = rankings(pos, neg, anchor, texts)
    print(f"Feed: {len(relevant)} relevant among {len(unrelated)} unrelated arXiv results "
          f"(trained on {len(pos)} retained, {len(neg)} excluded)")
    print()
    table({name: [metrics(order_of(s, labels))] for name, s in scored.items()})
    print()
    print("| ranking | the relevant papers' ranks (of 33) and scores |")
    print("| --- | --- |")
    for name, s in scored.items():
        order = sorted(range(len(s)), key=lambda i: (-s[i], i))
        ranks = [f"{feed[i][0]}: #{order.index(i) + 1} ({s[i]:.2f})" for i in range(len(relevant))]
        top = max(range(len(relevant), len(s)), key=lambda i: (s[i], -i))
        print(f"| {name} | {', '.join(ranks)}; best unrelated {s[top]:.2f} |")
    # 2. held-out retained records among the unrelated results
    tax = corpus.taxonomy
    retained = [r for r in corpus if r.collection == tax.retained.name]
    rows: dict[str, list[list[float]]] = {}
    for rep in range(repeats):
        rng = random.Random(rep)
        ids = [r.id for r in retained]
        rng.shuffle(ids)
        for f in range(folds):
            held = set(ids[f::folds])
            pos, neg = decided(corpus, held)
            test = [ranking.record_text(tax, r) for r in retained if r.id in held]
            texts = test + [t for _i, t in unrelated]
            labels = [1] * len(test) + [0] * len(unrelated)
            for name, s in rankings(pos, neg, anchor, texts).items():
                rows.setdefault(name, []).append(metrics(order_of(s, labels)))
    print()
    print(f"Held out: the retained records in {folds} folds x {repeats} repetitions, each fold's "
          f"~{len(retained) // folds} records mixed into the {len(unrelated)} unrelated results")
    print()
    table(rows)


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
    ap.add_argument("--repeats", type=int, default=4)
    ap.add_argument("--skip-speed", action="store_true")
    args = ap.parse_args()
    evaluate(args.folds, args.repeats)
    if not args.skip_speed:
        speed()


if __name__ == "__main__":
    main()
