"""Fuzzy duplicate titles are found through word blocking; it must find what all pairs would."""

from __future__ import annotations

import random
from pathlib import Path

from rapidfuzz import fuzz, process

from survey_tools.corpus.duplicates import FUZZY_THRESHOLD, _candidate_groups, near_pairs
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.titles import normalize_title
from survey_tools.corpus.validation import SUMMARY_SIMILARITY


def _mutate(title: str, rng: random.Random) -> str:
    words = title.split()
    choice = rng.randrange(4)
    if choice == 0 and len(words) > 3:  # drop a word
        del words[rng.randrange(len(words))]
    elif choice == 1:  # add a word in front (as a renamed preprint would)
        words.insert(0, "revisiting")
    elif choice == 2:  # a typo in one word
        i = rng.randrange(len(words))
        w = words[i]
        words[i] = w[:-1] + "x" if len(w) > 2 else w + "s"
    else:  # swap two neighbouring words
        i = rng.randrange(max(1, len(words) - 1))
        words[i : i + 2] = words[i : i + 2][::-1]
    return " ".join(words)


def _pairs_by_blocking(titles: list[str]) -> set[tuple[int, int]]:
    found = set()
    for group in _candidate_groups(titles):
        for x, i in enumerate(group):
            for j in group[x + 1 :]:
                if titles[i] != titles[j] and fuzz.ratio(titles[i], titles[j]) >= FUZZY_THRESHOLD:
                    found.add((min(i, j), max(i, j)))
    return found


def _pairs_by_brute_force(titles: list[str]) -> set[tuple[int, int]]:
    scores = process.cdist(titles, titles, scorer=fuzz.ratio, score_cutoff=FUZZY_THRESHOLD)
    return {
        (int(i), int(j))
        for i, j in zip(*scores.nonzero(), strict=True)
        if i < j and titles[i] != titles[j]
    }


def test_blocking_finds_every_near_duplicate_pair(repo: Path) -> None:
    corpus = load_corpus(repo, use_cache=False)
    titles = [normalize_title(r.title) for r in corpus if r.title]
    rng = random.Random(7)
    titles += [_mutate(t, rng) for t in titles]
    expected = _pairs_by_brute_force(titles)
    assert len(expected) > 50  # the mutations do create near-duplicates
    assert _pairs_by_blocking(titles) == expected


def test_summaries_near_pairs_are_every_pair_all_pairs_would_find(repo: Path) -> None:
    # The summary check (copied summaries) pairs its texts through the same blocking; equal
    # summaries are pairs too. Each real summary, a mutated copy and an exact copy of a few.
    corpus = load_corpus(repo, use_cache=False)
    texts = [
        " ".join(str(r.get("summary")).lower().split()) for r in corpus.retained if r.get("summary")
    ]
    rng = random.Random(11)
    texts += [_mutate(t, rng) for t in texts] + texts[:5]
    scores = process.cdist(texts, texts, scorer=fuzz.ratio, score_cutoff=SUMMARY_SIMILARITY)
    expected = {(int(i), int(j)) for i, j in zip(*scores.nonzero(), strict=True) if i < j}
    assert len(expected) > 50
    found = near_pairs(texts, SUMMARY_SIMILARITY)
    assert set(found) == expected
    assert all(found[p] == fuzz.ratio(texts[p[0]], texts[p[1]]) for p in found)
