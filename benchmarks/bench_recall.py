"""The search's recall, measured against the papers retained since the survey's edition.

Systematic reviewers validate a search against studies known to be relevant. The known papers
here are the living list's records (``edition: living``):

* with their own abstract where one was read (tests/fixtures/recall/known-abstracts.yaml, and the
  three relevant papers of tests/fixtures/screening-feed/feed.yaml), the fair test: arXiv matches
  a query against the title and the abstract;
* the others with their title and our summary (``--summaries``), a weaker stand-in: our words
  are not the paper's, so a miss there may not be a miss on arXiv, and a hit may be luck.

For each paper: which of taxonomy/protocol.yaml's query families would retrieve it under arXiv's
query semantics (every group, any term, phrases of title or abstract: survey_tools/curate/recall.py)
and where the queue's ranker places it among the 30 unrelated results of the feed fixture, the
ranker trained on the corpus without the known papers (held out) and the protocol's words.

    python3 benchmarks/bench_recall.py [--summaries] [--protocol FILE] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from survey_tools.corpus.loading import load_corpus  # noqa: E402
from survey_tools.corpus.protocol import load_protocol  # noqa: E402
from survey_tools.corpus.records import Corpus  # noqa: E402
from survey_tools.corpus.taxonomy import load_taxonomy  # noqa: E402
from survey_tools.curate import ranking, recall  # noqa: E402

ABSTRACTS = REPO / "tests" / "fixtures" / "recall" / "known-abstracts.yaml"
FEED = REPO / "tests" / "fixtures" / "screening-feed" / "feed.yaml"


def known_papers(corpus: Corpus, summaries: bool) -> list[recall.KnownPaper]:
    """The living records as known papers: abstracts where read, else (with ``summaries``) ours."""
    feed = yaml.safe_load(FEED.read_text(encoding="utf-8"))
    read = recall.read_known(ABSTRACTS)
    read += [
        recall.KnownPaper(str(r["id"]), r["title"], " ".join(r["abstract"].split()), r["read"])
        for r in feed["relevant"]
    ]
    by_id = {p.id: p for p in read}
    out = []
    for rec in corpus.retained:
        if rec.data.get("edition") != "living":
            continue
        arxiv = str((rec.data.get("identifiers") or {}).get("arxiv") or "")
        if arxiv in by_id:
            out.append(by_id[arxiv])
        elif summaries:
            out.append(
                recall.KnownPaper(
                    arxiv or rec.id,
                    str(rec.data["title"]),
                    str(rec.data.get("summary", "")),
                    f"corpus/{rec.id}.yaml",
                    kind="summary",
                )
            )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--summaries",
        action="store_true",
        help="Also the living records with no abstract read (title and our summary).",
    )
    ap.add_argument(
        "--root", type=Path, default=REPO, help="The survey folder (default: this repository)."
    )
    ap.add_argument("--json", action="store_true", help="Print the report as JSON.")
    args = ap.parse_args(argv)
    tax = load_taxonomy(args.root)
    protocol = load_protocol(tax)
    corpus = load_corpus(args.root, tax)
    papers = known_papers(corpus, args.summaries)
    # The ranker never sees the known papers: trained on the other records (held out).
    ids = {p.id for p in papers}
    held = {
        name: tuple(
            r
            for r in recs
            if str((r.data.get("identifiers") or {}).get("arxiv") or r.id) not in ids
        )
        for name, recs in corpus.records.items()
    }
    ranker = ranking.train(Corpus(tax, held))
    feed = yaml.safe_load(FEED.read_text(encoding="utf-8"))
    background = [f"{u['title']}. {u.get('abstract', '')}" for u in feed["unrelated"]]
    report = recall.measure(protocol, papers, ranker.score, background)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(recall.recall_markdown(report), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
