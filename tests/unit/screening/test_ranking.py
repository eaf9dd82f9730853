"""The screening ranker finds relevant papers among unrelated search results (issue 25).

The feed is real: tests/fixtures/screening-feed/feed.yaml holds three papers that meet the
survey's inclusion rule (ToolOrchestra, MasRouter, CORY) and unrelated results of the same
searches, titles and abstracts as arXiv lists them (see SOURCES.md). The ranker is trained on
this repository's survey without those three papers, as if they were new.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from helpers.survey_copy import SURVEY

from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.records import Corpus
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.curate import ranking

REPO = Path(__file__).resolve().parents[3]
FEED = yaml.safe_load((REPO / "tests/fixtures/screening-feed/feed.yaml").read_text(encoding="utf-8"))


def text(x: dict) -> str:
    return f"{x['title']} {' '.join(str(x.get('abstract', '')).split())}".strip()


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return load_corpus(SURVEY, load_taxonomy(SURVEY))


def without(corpus: Corpus, ids: set[str]) -> ranking.Ranker:
    """The survey's ranker, trained as if the works ``ids`` had never been decided."""
    tax = corpus.taxonomy
    pos, neg = [], []
    for rec in corpus:
        idents = rec.get("identifiers") if isinstance(rec.get("identifiers"), dict) else {}
        if str(idents.get("arxiv", "")) in ids:
            continue
        (pos if rec.collection == tax.retained.name else neg).append(ranking.record_text(tax, rec))
    return ranking.Ranker(tuple([*pos, ranking.protocol_text(tax)]), tuple(neg))


def test_three_relevant_papers_among_twenty_unrelated_reach_the_top_five(corpus: Corpus) -> None:
    relevant, unrelated = FEED["relevant"], FEED["unrelated"][:20]
    assert len(relevant) == 3 and len(unrelated) == 20
    feed = unrelated[:10] + relevant + unrelated[10:]  # not first: ties must not help them
    scores = without(corpus, {str(x["id"]) for x in relevant}).score([text(x) for x in feed])
    top5 = {feed[i]["id"] for i in sorted(range(len(feed)), key=lambda i: (-scores[i], i))[:5]}
    assert {x["id"] for x in relevant} <= top5
    # The systematic review the first model put above ToolOrchestra now scores below it.
    by_id = {x["id"]: s for x, s in zip(feed, scores, strict=True)}
    assert by_id["2401.02033"] < by_id["2511.21689"]


def test_scores_are_probabilities_that_spread(corpus: Corpus) -> None:
    relevant, unrelated = FEED["relevant"], FEED["unrelated"]
    model = without(corpus, {str(x["id"]) for x in relevant})
    scores = model.score([text(x) for x in relevant + unrelated])
    assert all(0.0 <= s <= 1.0 for s in scores)
    rel, unr = sorted(scores[:3]), sorted(scores[3:])
    # Relevant papers score like the survey's own held-out papers; most unrelated ones far below.
    assert min(rel) > 0.5 > unr[len(unr) // 2]
    assert 0.5 < model.held_out_mean < 1.0
    assert max(scores) - min(scores) > 0.5  # not a narrow band


def test_the_first_model_failed_on_this_feed(corpus: Corpus) -> None:
    # What issue 25 saw: retained-versus-excluded alone puts only one of the three in the top five.
    relevant, unrelated = FEED["relevant"], FEED["unrelated"][:20]
    ids = {str(x["id"]) for x in relevant}
    texts, labels = [], []
    tax = corpus.taxonomy
    for rec in corpus:
        idents = rec.get("identifiers") if isinstance(rec.get("identifiers"), dict) else {}
        if str(idents.get("arxiv", "")) not in ids:
            texts.append(ranking.record_text(tax, rec))
            labels.append(1 if rec.collection == tax.retained.name else 0)
    feed = relevant + unrelated
    scores = ranking.fit(texts, labels).score([text(x) for x in feed])
    top5 = [feed[i]["id"] for i in sorted(range(len(feed)), key=lambda i: (-scores[i], i))[:5]]
    assert len(ids & set(top5)) < 3


def test_scoring_is_deterministic_and_handles_small_inputs(corpus: Corpus) -> None:
    model = ranking.train(corpus)
    texts = [text(x) for x in FEED["relevant"] + FEED["unrelated"][:5]]
    assert model.score(texts) == ranking.train(corpus).score(texts)
    assert model.score([]) == []
    one = model.score(texts[:1])
    assert len(one) == 1 and 0.0 <= one[0] <= 1.0
    assert ranking.Ranker(()).score(["x"]) == [0.0]
