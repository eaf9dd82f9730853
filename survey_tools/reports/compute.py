"""The computed survey: everything the reports say about one survey folder, computed once.

:func:`compute_survey` reads the folder (the taxonomy loader opens each configuration file
once and holds the parsed documents), loads and validates the records, and computes the
statistics, gaps, agreement, claims and corrections, with the corrections' effect on the claims
applied. ``survey build``, ``stats``, ``gaps``, ``claims``, ``corrections``, ``diff`` and the
library API all start from this one value; renderers are pure functions of it.

Every report can be asked of a view: the living list (the default) or a published edition
(:meth:`Survey.view`), for which the same reports are computed on the records of that edition.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar, cast

from survey_tools.corpus.configs import data_config_problems
from survey_tools.corpus.inputs import Reads
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.records import Corpus
from survey_tools.corpus.taxonomy import Taxonomy, load_taxonomy
from survey_tools.corpus.validation import report_for
from survey_tools.corpus.views import corpus_view, living_id, view_ids
from survey_tools.errors import InvalidInput, Report, UsageError
from survey_tools.reports.agreement import AgreementReport, load_agreement
from survey_tools.reports.claims import ClaimsReport, evaluate_claims
from survey_tools.reports.claims_file import load_claims_file
from survey_tools.reports.corrections import (
    CorrectionsReport,
    corrected_claims,
    evaluate_corrections,
    load_corrections,
    metadata_applied,
)
from survey_tools.reports.gaps import GapReport, compute_gaps
from survey_tools.reports.report_config import ReportConfig, load_config
from survey_tools.reports.stats import Search, Stats, compute_stats, search_of

T = TypeVar("T")


@dataclass(frozen=True)
class Survey:
    """One survey folder, computed: configuration, records, their report, and every report on
    the records of ``edition`` ("" = the living list)."""

    root: Path
    corpus: Corpus  # every record of every collection (the living list)
    validation: Report
    config: ReportConfig
    stats: Stats
    gaps: GapReport
    claims: ClaimsReport  # with the proposed corrections' counts applied
    corrections: CorrectionsReport | None
    agreement: AgreementReport | None
    # The records as displayed (README, page, BibTeX): metadata corrections applied, tags as they are.
    display: Corpus
    edition: str = ""
    # Reports of other views, computed when first asked for.
    _views: dict[str, Survey] = field(default_factory=dict, compare=False, repr=False)
    _stats: dict[str, Stats] = field(default_factory=dict, compare=False, repr=False)
    _derived: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def taxonomy(self) -> Taxonomy:  # the taxonomy the corpus was read with
        return self.corpus.taxonomy

    @property
    def shown(self) -> Corpus:  # the name generators used before the computed survey
        return self.display

    @cached_property
    def views(self) -> dict[str, Corpus]:
        """The records of every view, by view id (each published edition and the living list)."""
        return {v: corpus_view(self.corpus, v) for v in view_ids(self.taxonomy)} or {"": self.corpus}

    def stats_of(self, edition: str) -> Stats:
        """The statistics alone of a published edition (STATS.md shows them beside the living
        list's): cheaper than :meth:`view`, which also computes gaps, claims and corrections."""
        if edition in self._views:
            return self._views[edition].stats
        key = f"stats:{edition}"
        if key not in self._stats:
            self._stats[key] = compute_stats(self.views[edition], self.config, self._search)
        return self._stats[key]

    def view(self, edition: str | None) -> Survey:
        """The same survey with statistics, gaps and claims computed on ``edition``'s records
        (None, "" or the living list's id: this survey)."""
        tax = self.taxonomy
        if not edition or edition == living_id(tax) or edition == self.edition:
            return self
        known = view_ids(tax)
        if edition not in known:
            listed = ", ".join(known) or "none: taxonomy/survey.yaml declares no editions"
            raise UsageError(f"unknown edition {edition!r} (known: {listed})")
        if edition not in self._views:
            self._views[edition] = _reports(self.root, self.corpus, self.validation, self.config, edition,
                                            self.agreement, self._search)
        return self._views[edition]

    def derived(self, key: str, compute: Callable[[], T]) -> T:
        """A value an output layer derives from this survey, computed when first asked for and
        then shared by every output showing it (``papers.bib`` and the site's pages show the
        same BibTeX entries). ``key`` names what ``compute`` computes."""
        if key not in self._derived:
            self._derived[key] = compute()
        return cast(T, self._derived[key])

    @property
    def _search(self) -> Search:
        """The protocol and living flow, the same for every view (read once, with this survey)."""
        return self.stats.protocol, self.stats.living


@dataclass(frozen=True)
class Inputs:
    """Everything a build draws on, read once (the input stage): the records with the
    taxonomy (configuration files and the survey's own texts), their validation, and every
    other file (the screening logs and queue, the audit file) read through ``reads`` and
    already parsed. ``buildcache.input_key`` hashes exactly what was read here."""

    corpus: Corpus
    validation: Report
    config: ReportConfig
    search: Search
    agreement: AgreementReport | None
    reads: Reads


def read_inputs(corpus: Corpus, validation: Report | None = None) -> Inputs:
    """The input stage for an already loaded corpus: each reader reads its files through one
    :class:`Reads`, so what they read is what the build's key covers."""
    tax = corpus.taxonomy
    reads = Reads(tax.root)
    config = load_config(tax)
    return Inputs(corpus, validation or Report(checked=corpus.files), config, search_of(tax, reads),
                  load_agreement(corpus, config.agreement_caveat, reads), reads)


def compute_survey(root: Path | str) -> Survey:
    """Validate the folder and compute every report on the living list; raise
    :class:`InvalidInput` (nothing computed) when a record or a configuration file is invalid."""
    return survey_of(*load_valid(root))


def load_valid(root: Path | str) -> tuple[Corpus, Report]:
    """The records and their validation report; :class:`InvalidInput` when a record or a
    configuration file is invalid (the first half of :func:`compute_survey`)."""
    root = Path(root)
    tax = load_taxonomy(root)
    corpus = load_corpus(root, tax)
    validation = report_for(corpus)
    if not validation.ok:
        raise InvalidInput(validation.problems, "the records are invalid; nothing was written")
    found = data_config_problems(tax.document, tax.files)
    if found:
        raise InvalidInput(found, "a configuration file is invalid; nothing was written")
    return corpus, validation


def survey_of(corpus: Corpus, validation: Report | None = None, inputs: Inputs | None = None) -> Survey:
    """The reports of an already loaded corpus (``survey diff`` computes two revisions), from
    its ``inputs`` when the input stage has read them (else read now)."""
    i = inputs or read_inputs(corpus, validation)
    return _reports(corpus.taxonomy.root, i.corpus, i.validation, i.config, "", i.agreement, i.search)


def _reports(root: Path, corpus: Corpus, validation: Report, config: ReportConfig, edition: str,
             agreement: AgreementReport | None, search: Search) -> Survey:
    # Claims are computed from the records alone (never from a previous build's outputs); the
    # audit file is compared once, with the records of every view as known keys, and the search
    # logs are read once: a view computed later (while rendering) reads no file.
    records = corpus_view(corpus, edition) if edition else corpus
    stats = compute_stats(records, config, search)
    gaps = compute_gaps(records, config)
    claims_file = load_claims_file(corpus.taxonomy)
    claim_list = claims_file.claims
    if edition:  # every claim asked of the chosen edition
        claim_list = tuple(replace(c, view=edition) for c in claim_list)
    claims = evaluate_claims(corpus, claim_list, claims_file.source, claims_file.gate, agreement,
                             claims_file.not_checkable)
    loaded = load_corrections(corpus.taxonomy)
    corrections = None
    if loaded is not None:
        corrections = evaluate_corrections(records, config, stats, claims, claim_list, loaded)
        claims = corrected_claims(claims, corrections)
    shown = metadata_applied(corpus, corrections)
    return Survey(root, corpus, validation, config, stats, gaps, claims, corrections, agreement,
                  shown, edition)


__all__ = ["Inputs", "Survey", "compute_survey", "load_valid", "read_inputs", "survey_of"]
