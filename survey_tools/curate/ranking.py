"""Relevance scores for screening candidates: the survey's decisions plus the search results as background.

The first model (kept as :class:`DecisionRanker` / :func:`fit`, to compare) learned only retained
versus excluded. The exclusion log holds near misses, so that model learned "retained versus
nearly retained", never "relevant versus unrelated", and ranked an unrelated systematic review
above ToolOrchestra (issue 25). :class:`Ranker` reads three kinds of text:

* **positives**: every retained record (title and prose fields), and the search protocol's own
  words (its query families' terms and its inclusion rules) as one more positive text;
* **negatives**: every exclusion (the near misses a reader turned down on a detail);
* **background**: the candidates being scored themselves, the unlabelled search results
  (positive-unlabelled learning). Most of what a broad query returns is unrelated, so the
  background shows what unrelated papers look like.

Texts become TF-IDF vectors (single words, sublinear term frequency, English stop words) over the
decided records' vocabulary. A candidate's likeness is Rocchio's relevance-feedback score: its
cosine with the positives' centroid, minus :data:`NEGATIVE_WEIGHT` times its cosine with the
negatives' centroid and :data:`BACKGROUND_WEIGHT` times its cosine with the background's
centroid (the candidate itself left out), shrunk towards 0 for texts with few of the survey's
terms (a title without its abstract). A logistic regression trained positive-unlabelled on so few
records learned how abstracts are phrased rather than what they are about; the centroids do not.

The likeness becomes a probability by Platt scaling: a logistic regression on the standardised
score, classes balanced, of retained records held out in :data:`FOLDS` folds (each scored
against the other folds' centroid) against the exclusions and the search results. A score is
thus the probability that a candidate is one of the survey's papers rather than background, on
even odds: 0.5 is where it looks as much like either. Scores are rounded so that reruns write
identical files. ``benchmarks/bench_screening.py`` compares both models on real search results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from survey_tools.corpus.protocol import has_protocol, load_protocol
from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.extras import require_extra

# Scores are stored with this many decimals (byte-identical reruns, readable files).
DECIMALS = 4
# Cross-fitting folds over the background and the positives.
FOLDS = 5
# Rocchio weights: how much likeness to the background (the search results being scored) and to
# the exclusion log (near misses) takes off likeness to the retained records. Chosen on the
# benchmark (benchmarks/bench_screening.py), where 0.25 each ranks best; 1.0 already hides
# relevant papers that share words with their unrelated neighbours.
BACKGROUND_WEIGHT = 0.25
NEGATIVE_WEIGHT = 0.25
# How many of the survey's terms make a text half-trusted (see Ranker.raw).
EVIDENCE = 5.0
# Single words: word pairs rank the benchmark no better and cost twice the time to score.
NGRAMS = (1, 1)


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


def protocol_text(tax: Taxonomy) -> str:
    """The search protocol's terms and inclusion rules as one text ("" without a protocol)."""
    if not has_protocol(tax):
        return ""
    proto = load_protocol(tax)
    return " ".join([*(t for f in proto.families for t in f.terms), *proto.inclusion])


# --- the first model: retained versus excluded only (kept to compare against) -----------------


@dataclass
class DecisionRanker:
    """Retained versus excluded, nothing else: the model before issue 25 (benchmarks compare)."""

    pipeline: Any  # sklearn Pipeline, or None when the decisions have only one class
    constant: float = 0.5

    def score(self, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        if self.pipeline is None:
            return [round(self.constant, DECIMALS)] * len(texts)
        probs = self.pipeline.predict_proba(list(texts))[:, 1]
        return [round(float(p), DECIMALS) for p in probs]


def _sklearn() -> Any:
    # scikit-learn (and the SciPy it loads) is the [screening] extra and costs about a second
    # to import: only the commands that score candidates load it, never `survey validate`.
    return require_extra("screening", "sklearn", "sklearn.feature_extraction.text",
                         "sklearn.linear_model", "sklearn.pipeline")


def make_pipeline() -> Any:
    sk = _sklearn()
    return sk.pipeline.make_pipeline(
        sk.feature_extraction.text.TfidfVectorizer(ngram_range=(1, 1), sublinear_tf=True, min_df=1, strip_accents="unicode"),
        sk.linear_model.LogisticRegression(C=10.0, class_weight="balanced", max_iter=1000,
                                           solver="liblinear"),
    )


def fit(texts: Sequence[str], labels: Sequence[int]) -> DecisionRanker:
    """The first model, fitted on decisions alone."""
    if len(set(labels)) < 2:
        # Nothing to tell apart yet: every candidate gets the share of retained decisions.
        share = sum(labels) / len(labels) if labels else 0.5
        return DecisionRanker(None, share)
    pipe = make_pipeline()
    pipe.fit(list(texts), list(labels))
    return DecisionRanker(pipe)


# --- the model: decisions, protocol and background --------------------------------------------


def _vectorizer() -> Any:
    return _sklearn().feature_extraction.text.TfidfVectorizer(ngram_range=NGRAMS, sublinear_tf=True, min_df=1, stop_words="english",
                           strip_accents="unicode")


def _centroid(X: Any) -> Any:
    return np.asarray(X.mean(axis=0)).ravel()


@dataclass
class Ranker:
    """The survey's positives and negatives; :meth:`score` ranks candidates against them."""

    positives: tuple[str, ...]
    negatives: tuple[str, ...] = ()
    folds: int = FOLDS
    background_weight: float = BACKGROUND_WEIGHT
    negative_weight: float = NEGATIVE_WEIGHT
    evidence: float = EVIDENCE
    # The mean score of the held-out retained records in the last scoring: what a relevant
    # paper typically scores (printed by the benchmark).
    held_out_mean: float = field(default=0.0, compare=False)

    def raw(self, texts: Sequence[str]) -> tuple[Any, Any, Any]:
        """Similarity scores: of the candidates, of every positive held out, of the negatives."""
        pos, neg, cand = list(self.positives), list(self.negatives), list(texts)
        # The vocabulary is the decided records' own: fitted on the background as well, it would
        # also learn how abstracts are written, which our summaries are not ("we propose",
        # "experiments show" would then mark a text as background).
        vec = _vectorizer().fit(pos + neg)
        P, U = vec.transform(pos), vec.transform(cand)
        N = vec.transform(neg) if neg else None
        n_u = len(cand)
        cu = _centroid(U) if n_u else np.zeros(P.shape[1])
        cn = _centroid(N) if N is not None else np.zeros(P.shape[1])

        def score(X: Any, cp: Any, self_in_background: bool) -> Any:
            s = X @ cp - self.negative_weight * (X @ cn)
            if self.evidence:
                # A text with few of the survey's terms (a title without its abstract) is weak
                # evidence: its likeness is shrunk towards 0 by n / (n + EVIDENCE).
                n = np.asarray((X > 0).sum(axis=1)).ravel()
                s = np.asarray(s).ravel() * n / (n + self.evidence)
            if n_u > 1:
                bg = X @ cu
                if self_in_background:
                    # Leave the candidate itself out of the background it is compared with
                    # (rows are unit vectors: its own share of the centroid is 1 / n).
                    norms = np.asarray(X.multiply(X).sum(axis=1)).ravel()
                    bg = (n_u * bg - norms) / (n_u - 1)
                s = s - self.background_weight * bg
            return np.asarray(s).ravel()

        s_u = score(U, _centroid(P), True)
        # Each positive scored against a centroid of the other folds (cross-fitting), for the
        # calibration below.
        k = max(2, min(self.folds, len(pos)))
        fold = np.arange(len(pos)) % k
        s_p = np.zeros(len(pos))
        for f in range(k):
            held = fold == f
            s_p[held] = score(P[held], _centroid(P[~held]), False)
        s_n = score(N, _centroid(P), False) if N is not None else np.zeros(0)
        return s_u, s_p, s_n

    def score(self, texts: Sequence[str]) -> list[float]:
        """Each candidate's estimated probability of being relevant, the candidates as background."""
        texts = list(texts)
        if not texts:
            return []
        if len(self.positives) < 2:
            return [0.0] * len(texts)
        LogisticRegression = _sklearn().linear_model.LogisticRegression

        s_u, s_p, s_n = self.raw(texts)
        # Platt scaling (a logistic regression on the one similarity score, standardised) of
        # held-out retained records (1) against the search results and the exclusions (0),
        # classes balanced: the probability that a text is one of the survey's papers rather
        # than a search result, on even odds. 0.5 is where a candidate is as like the retained
        # records as like the background; the benchmark reads how the scores spread.
        x = np.concatenate([s_p, s_n, s_u])
        mu, sd = float(x.mean()), float(x.std()) or 1.0
        y = np.concatenate([np.ones(len(s_p)), np.zeros(len(s_n) + len(s_u))])
        platt = LogisticRegression(C=1.0, class_weight="balanced", solver="liblinear")
        platt.fit(((x - mu) / sd).reshape(-1, 1), y)
        probs = platt.predict_proba(((s_u - mu) / sd).reshape(-1, 1))[:, 1]
        self.held_out_mean = float(platt.predict_proba(((s_p - mu) / sd).reshape(-1, 1))[:, 1].mean())
        return [round(float(v), DECIMALS) for v in probs]


def train(corpus: Corpus, extra_positive: str | None = None) -> Ranker:
    """The ranker of ``corpus``: its retained records and the protocol's words as positives,
    its exclusions as negatives; the candidates become the background when they are scored."""
    tax = corpus.taxonomy
    texts, labels = training_set(corpus)
    anchor = protocol_text(tax) if extra_positive is None else extra_positive
    pos = tuple([t for t, lab in zip(texts, labels, strict=True) if lab == 1] + ([anchor] if anchor else []))
    neg = tuple(t for t, lab in zip(texts, labels, strict=True) if lab == 0)
    return Ranker(pos, neg)


__all__ = ["DECIMALS", "DecisionRanker", "FOLDS", "Ranker", "fit", "make_pipeline", "protocol_text",
           "record_text", "train", "training_set"]
