"""Every output of ``survey build``: the generator registry and the generators themselves.

A generator is a function ``(BuildContext) -> {relative path: str | bytes}`` registered with
:func:`register`. It reads the shared context (taxonomy, corpus, statistics, gaps, claims,
corrections, agreement) and returns file contents; it never writes. :mod:`survey_tools.build`
computes the context, runs every generator in memory and writes (or, with ``--check``, compares).

To add an output, write a function here (or in a module this one imports) and register it::

    @register("site")
    def site(ctx: BuildContext) -> dict[str, str | bytes]:
        return {"reports/site/index.html": render(ctx)}
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from survey_tools.corpus.records import Corpus
from survey_tools.corpus.taxonomy import Taxonomy, schema_files
from survey_tools.corpus.yamlio import dump_yaml
from survey_tools.render import model
from survey_tools.render.bibtex import OUTPUT, bibtex_entry, papers_bib
from survey_tools.render.citation import OUTPUT as CITATION
from survey_tools.render.citation import citation_cff
from survey_tools.render.markdown import gap_tables, render_contributing, render_readme
from survey_tools.render.site import site_files
from survey_tools.reports.agreement import AgreementReport, agreement_outputs
from survey_tools.reports.claims import ClaimsReport, claims_markdown
from survey_tools.reports.corrections import CorrectionsReport, corrections_outputs
from survey_tools.reports.gaps import GapReport, gaps_outputs
from survey_tools.reports.plots import plot_outputs
from survey_tools.reports.stats import ReportConfig, Stats, stats_outputs

Output = str | bytes
Generator = Callable[["BuildContext"], Mapping[str, Output]]

REPORTS = "reports"
GENERATORS: dict[str, Generator] = {}


def register(name: str) -> Callable[[Generator], Generator]:
    """Register ``fn`` as the generator ``name`` (a later registration under a name replaces it)."""

    def deco(fn: Generator) -> Generator:
        GENERATORS[name] = fn
        return fn

    return deco


@dataclass(frozen=True)
class BuildContext:
    """Everything computed once per build and shared by every generator."""

    root: Path
    taxonomy: Taxonomy
    corpus: Corpus
    config: ReportConfig
    stats: Stats
    gaps: GapReport
    claims: ClaimsReport
    corrections: CorrectionsReport | None
    agreement: AgreementReport | None


# --- reports ---------------------------------------------------------------------------------


@register("schemas")
def _schemas(ctx: BuildContext) -> Mapping[str, Output]:
    return schema_files(ctx.taxonomy)


@register("stats")
def _stats(ctx: BuildContext) -> Mapping[str, Output]:
    return stats_outputs(ctx.taxonomy, ctx.stats, REPORTS)


@register("gaps")
def _gaps(ctx: BuildContext) -> Mapping[str, Output]:
    return gaps_outputs(ctx.gaps, REPORTS)


@register("claims")
def _claims(ctx: BuildContext) -> Mapping[str, Output]:
    return {
        f"{REPORTS}/CLAIMS.md": claims_markdown(ctx.claims, ctx.taxonomy),
        f"{REPORTS}/claims.json": json.dumps(ctx.claims.to_dict(), indent=2, ensure_ascii=False) + "\n",
    }


@register("corrections")
def _corrections_out(ctx: BuildContext) -> Mapping[str, Output]:
    return corrections_outputs(ctx.corrections, REPORTS) if ctx.corrections is not None else {}


@register("agreement")
def _agreement_out(ctx: BuildContext) -> Mapping[str, Output]:
    return agreement_outputs(ctx.agreement, REPORTS) if ctx.agreement is not None else {}


@register("plots")
def _plots(ctx: BuildContext) -> Mapping[str, Output]:
    return plot_outputs(ctx.corpus, ctx.stats, ctx.config, f"{REPORTS}/figures")


# --- the published views ---------------------------------------------------------------------


def _figures(ctx: BuildContext) -> list[dict[str, str]]:
    """Figures the plots generator writes, named from the report configuration.

    Taken from the configuration rather than the disk so that the README does not depend on
    whether a previous build already wrote them (byte-identical output on every run).
    """
    out = []
    for p in ctx.config.plots:
        name = str(p.get("name", ""))
        if name:
            title = str(p.get("title") or name.replace("-", " ").capitalize())
            out.append({"title": title, "path": f"reports/figures/{name}.svg"})
    return out


@register("readme")
def readme(ctx: BuildContext) -> Mapping[str, Output]:
    text = render_readme(ctx.taxonomy, ctx.corpus, ctx.stats, gap_tables(ctx.gaps), _figures(ctx))
    return {"README.md": text, "CONTRIBUTING.md": render_contributing(ctx.taxonomy)}


@register("site")
def site(ctx: BuildContext) -> Mapping[str, Output]:
    """The index page, one page per paper, their stylesheet and the BibTeX the index loads."""
    path = str(model.presentation(ctx.taxonomy, "site").get("path", "reports/site/index.html"))
    folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
    files = site_files(ctx.taxonomy, ctx.corpus, ctx.stats, bibtex_entry)
    return {folder + rel: text for rel, text in files.items()}


@register("bibtex")
def _papers_bib(ctx: BuildContext) -> Mapping[str, Output]:
    return {OUTPUT: papers_bib(ctx.corpus)}


ISSUE_FORM = ".github/ISSUE_TEMPLATE/add-paper.yml"


def issue_form(ctx: BuildContext) -> str:
    """The 'add a paper' issue form; its dropdowns list exactly the taxonomy's values."""
    tax = ctx.taxonomy
    coll = tax.retained
    body: list[dict[str, object]] = [
        {"type": "markdown", "attributes": {"value": (
            f"Propose a work for {coll.label.lower()}. A maintainer runs `survey add` with "
            "your answers; this form is generated from `taxonomy/` by `survey build`.")}},
        {"type": "input", "id": "arxiv",
         "attributes": {"label": "arXiv id or URL", "placeholder": "2505.19591"},
         "validations": {"required": True}},
        {"type": "textarea", "id": "summary",
         "attributes": {"label": "Summary", "description": "One sentence in your own words."},
         "validations": {"required": True}},
    ]
    for cf in coll.controlled:
        specials = [tax.na] if cf.not_applicable else []
        if cf.kind == "mapping":
            for v in cf.values:
                body.append({"type": "dropdown", "id": f"{cf.name}-{v.id}", "attributes": {
                    "label": f"{cf.label}: {v.label}", "description": v.description,
                    "options": list(cf.mode_ids)}, "validations": {"required": False}})
            continue
        body.append({"type": "dropdown", "id": cf.name, "attributes": {
            "label": cf.label, "description": cf.description,
            "multiple": cf.kind == "multi", "options": [*cf.ids, *specials]},
            "validations": {"required": cf.required}})
    form = {
        "name": "Add a paper",
        "description": f"Propose a paper for {tax.survey.get('short_title', 'the survey')}.",
        "title": "Add: ",
        "labels": ["add-paper"],
        "body": body,
    }
    return "# Generated by `survey build` from taxonomy/; do not edit.\n" + dump_yaml(form)


@register("citation")
def _citation(ctx: BuildContext) -> Mapping[str, Output]:
    text = citation_cff(ctx.taxonomy)
    return {CITATION: text} if text is not None else {}


@register("github")
def _github(ctx: BuildContext) -> Mapping[str, Output]:
    return {ISSUE_FORM: issue_form(ctx)}
