"""Relevance scores for screening candidates, learned from the survey's own decisions.

Retained records are the relevant class, exclusions the irrelevant one. Each record's text is
its title plus its prose fields (a retained record's summary and notes, an exclusion's note);
a candidate's text is its title and abstract. The model is scikit-learn's TF-IDF (single words,
sublinear term frequency) followed by a logistic regression with balanced class
weights, the same family of model as ASReview's default (TF-IDF with naive Bayes). The score
is the predicted probability of "retained", rounded so that reruns write identical files.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import Taxonomy

# Scores are stored with this many decimals (byte-identical reruns, readable files).
DECIMALS = 4


def record_text(tax: Taxonomy, rec: Record) -> str:
    """The words of a record a screener reads: its title and its prose (text) fields."""
    coll = tax.collection(rec.collection)
    parts = [rec.title]
    for f in coll.fields:
        if f.type == "text":
            v = rec.get(f.name)
            if isinstance(v, str) and v != tax.untagged:
                parts.append(v)
    return " ".join(parts)


def training_set(corpus: Corpus) -> tuple[list[str], list[int]]:
    """Texts and labels (1 retained, 0 excluded) of every decided record, in corpus order."""
    tax = corpus.taxonomy
    texts, labels = [], []
    for rec in corpus:
        texts.append(record_text(tax, rec))
        labels.append(1 if rec.collection == tax.retained.name else 0)
    return texts, labels


@dataclass
class Ranker:
    """A fitted model; :meth:`score` gives each text its probability of being retained."""

    pipeline: Any  # sklearn Pipeline, or None when the decisions have only one class
    constant: float = 0.5

    def score(self, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        if self.pipeline is None:
            return [round(self.constant, DECIMALS)] * len(texts)
        probs = self.pipeline.predict_proba(list(texts))[:, 1]
        return [round(float(p), DECIMALS) for p in probs]


def make_pipeline() -> Any:
    # scikit-learn (and the SciPy it loads) costs about a second to import: only the commands
    # that score candidates import it, never `survey validate` or `survey build`.
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline as sk_pipeline

    return sk_pipeline(
        TfidfVectorizer(ngram_range=(1, 1), sublinear_tf=True, min_df=1, strip_accents="unicode"),
        LogisticRegression(C=10.0, class_weight="balanced", max_iter=1000, solver="liblinear"),
    )


def fit(texts: Sequence[str], labels: Sequence[int]) -> Ranker:
    if len(set(labels)) < 2:
        # Nothing to tell apart yet: every candidate gets the share of retained decisions.
        share = sum(labels) / len(labels) if labels else 0.5
        return Ranker(None, share)
    pipe = make_pipeline()
    pipe.fit(list(texts), list(labels))
    return Ranker(pipe)


def train(corpus: Corpus) -> Ranker:
    """The ranker trained on every retained record and exclusion of ``corpus``."""
    texts, labels = training_set(corpus)
    return fit(texts, labels)


__all__ = ["DECIMALS", "Ranker", "fit", "make_pipeline", "record_text", "train", "training_set"]
