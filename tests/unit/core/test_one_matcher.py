"""One duplicate rule for every command: titles that differ in a number are never one work,
and validate (fuzzy_title_problems), add/exclude (find_matches) and search/screen (KnownIndex)
agree on every pair."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.survey_copy import SURVEY

from survey_tools.corpus.duplicates import (
    KnownIndex,
    find_matches,
    fuzzy_title_problems,
    title_similarity,
)
from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.corpus.titles import normalize_title

REPO = Path(__file__).resolve().parents[3]

PAIRS = [
    # (a, b, the same work?)
    ("Paper number 3 about agents", "Paper number 4 about agents", False),
    ("Llama 2: Open Foundation and Fine-Tuned Chat Models", "Llama 3: Open Foundation and Fine-Tuned Chat Models", False),
    ("Scaling Agents to 100 Tools", "Scaling Agents to 1000 Tools", False),
    ("Multi-Agent Credit Assignment with Verifiers", "Multi-Agent Credit Assignment with Verifier", True),
    ("Multi Agent Credit Assignment in 2 Stages", "Multi-Agent Credit Assignment in 2 Stages!", True),
    ("Multi-Agent Reinforcement Learning", "Graph Neural Networks for Molecules", False),
]


@pytest.mark.parametrize(("a", "b", "same"), PAIRS)
def test_title_similarity(a: str, b: str, same: bool) -> None:
    assert bool(title_similarity(normalize_title(a), normalize_title(b))) is same


def _corpus(titles: list[str]) -> Corpus:
    tax = load_taxonomy(SURVEY)
    coll = tax.retained
    recs = tuple(
        Record(coll.name, f"p{i:03d}", f"{coll.folder}/p{i:03d}.yaml", {"key": f"p{i:03d}", "title": t})
        for i, t in enumerate(titles)
    )
    return Corpus(tax, {coll.name: recs, **{c: () for c in tax.collections if c != coll.name}}, files=len(recs))


@pytest.mark.parametrize(("a", "b", "same"), PAIRS)
def test_every_command_uses_the_same_rule(a: str, b: str, same: bool) -> None:
    corpus = _corpus([a])
    by_add = find_matches(corpus, {"title": b})
    by_search = KnownIndex.of_corpus(corpus).match({"title": b})
    by_validate = fuzzy_title_problems(_corpus([a, b]))
    exact = normalize_title(a) == normalize_title(b)
    assert bool(by_add) is same
    assert (by_search is not None) is same
    assert bool(by_validate) is (same and not exact)


def test_a_hundred_numbered_titles_are_a_hundred_works() -> None:
    """Issue 27: 100 search hits titled "Paper number N about agents" were deduplicated to 1."""
    titles = [f"Paper number {n} about agents" for n in range(100)]
    assert fuzzy_title_problems(_corpus(titles)) == []
    index = KnownIndex.of_corpus(_corpus(titles[:1]))
    assert [t for t in titles[1:] if index.match({"title": t}) is not None] == []


def test_find_matches_lists_identifiers_then_titles() -> None:
    corpus = _corpus(["Multi-Agent Credit Assignment with Verifiers", "Something Else Entirely"])
    data = {"title": "Multi-Agent Credit Assignment with Verifier"}
    found = find_matches(corpus, data)
    assert [(m.record.id, m.reason.split(" (")[0]) for m in found] == [("p000", "a title 99% similar")]
    assert find_matches(corpus, data, ignore=["corpus/p000.yaml"]) == []
