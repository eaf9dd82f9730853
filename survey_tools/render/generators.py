"""Every output of ``survey build``: the generators (the registry is :mod:`.registry`, the
checks of what they need :mod:`.requirements`).

A generator is a function ``(BuildContext) -> {relative path: str | bytes}`` registered with
:func:`register`. ``BuildContext`` is the computed :class:`~survey_tools.reports.compute.Survey`
(taxonomy, corpus, statistics, gaps, claims, corrections, agreement); a generator is a pure
function of it: it returns file contents and never reads or writes a file.
:mod:`survey_tools.build` computes the survey once, runs every generator in memory and writes
(or, with ``--check``, compares).

To add an output, write a function here (or in a module this one imports) and register it::

    @register("site")
    def site(ctx: BuildContext) -> dict[str, str | bytes]:
        return {"reports/site/index.html": render(ctx)}
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import partial

from survey_tools.corpus.examples import example_reference
from survey_tools.corpus.record_schema import schema_files
from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.render import model
from survey_tools.render.bibtex import OUTPUT, Bibliography, bibliography, papers_bib
from survey_tools.render.citation import OUTPUT as CITATION
from survey_tools.render.citation import citation_cff
from survey_tools.render.issue_form import ISSUE_FORM, issue_form
from survey_tools.render.markdown import (
    environment,
    gap_tables,
    markdown_reference,
    render_contributing,
    render_readme,
)
from survey_tools.render.registry import (
    ALWAYS,
    CONFIG_DOCS,
    GENERATORS,
    REPORTS,
    BuildContext,
    Generator,
    Lazy,
    Output,
    Part,
    Parts,
    register,
    selected,
)
from survey_tools.render.site import CARD_FILE, FIGURES_DIR, site_files
from survey_tools.reports.agreement import agreement_outputs
from survey_tools.reports.claims_output import claims_markdown
from survey_tools.reports.corrections import corrections_outputs
from survey_tools.reports.gaps import gaps_outputs
from survey_tools.reports.plots import Card, figure_paths, figures
from survey_tools.reports.stats_output import stats_outputs


@register("schemas")
def _schemas(ctx: BuildContext) -> Mapping[str, Output]:
    return schema_files(ctx.taxonomy)


@register("config-docs")
def _config_docs(ctx: BuildContext) -> Mapping[str, Output]:
    return {CONFIG_DOCS: config_reference(ctx.taxonomy)}


def config_reference(tax: Taxonomy | None = None) -> str:
    """taxonomy/README.md: how the configuration works, then every key from the schemas; with
    ``tax``, only the optional files (claims, corrections, the protocol) the survey has (the
    taxonomy knows which from its load: nothing here looks at the disk)."""
    has_protocol = tax is None or tax.has_config("protocol")
    intro = environment().get_template("taxonomy/README.md.j2").render(has_protocol=has_protocol)
    return intro.rstrip("\n") + "\n\n" + markdown_reference(tax)


@register("stats")
def _stats(ctx: BuildContext) -> Mapping[str, Output]:
    # The latest published edition beside the living list, where their counts differ.
    ed = ctx.taxonomy.editions
    latest = ed.latest.id if ed is not None and ed.latest is not None else ""
    beside = (latest, ctx.stats_of(latest)) if latest else None
    return stats_outputs(ctx.taxonomy, ctx.stats, REPORTS, beside)


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


@register("figures")
def _plots(ctx: BuildContext) -> Parts:
    # One part a figure, keyed by what it shows: an edit that changes no figure's numbers or
    # labels (a summary, a link, a tag no figure counts) draws nothing again.
    site = _site_folder(ctx.taxonomy) if "site" in selected(ctx.taxonomy) else None
    parts = {}
    for f in figures(ctx.corpus, ctx.stats, ctx.config):
        paths = figure_paths(f, f"{REPORTS}/figures")
        if site is None:
            parts[f.name] = Part(paths, f.inputs(), f.draw)
        else:
            # The statistics page shows the SVG from the site's own folder: Pages publishes that
            # folder alone, so a figure outside it is a broken image there.
            copy = f"{site}{FIGURES_DIR}/{f.name}.svg"
            parts[f.name] = Part((*paths, copy), f.inputs(), partial(_with_site_copy, f.draw))
    if site is not None:
        c = _card(ctx)
        parts["card"] = Part((f"{site}{CARD_FILE}",), c.inputs(), c.draw)
    return Parts(parts)


def _card(ctx: BuildContext) -> Card:
    """The site's social card: the list's title, its description's first sentence, the headline."""
    tax = ctx.taxonomy
    survey = tax.survey
    description = str(survey.get("description", ""))
    first = description.split(". ", 1)[0].rstrip(".") + "." if description else ""
    ret, ex = tax.retained, tax.excluded
    counts = [f"{len(ctx.corpus.retained)} {ret.label.lower()}"]
    if ex is not None:  # worded as the README's first paragraph words it
        counts.append(f"{len(ctx.corpus.excluded)} records in the {ex.label.lower()}")
    return Card(str(survey.get("list_title") or survey.get("title", "")), first, tuple(counts))


def _with_site_copy(draw: Callable[[], Sequence[Output]]) -> tuple[Output, ...]:
    svg, *rest = draw()
    return (svg, *rest, svg)


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
    on = selected(ctx.taxonomy)
    gaps = gap_tables(ctx.gaps) if "gaps" in on else []
    figures = _figures(ctx) if "figures" in on else []
    site_path = _site_path(ctx.taxonomy) if "site" in on else ""
    text = render_readme(ctx.taxonomy, ctx.display, ctx.stats, gaps, figures, site_path)
    return {"README.md": text}


@register("contributing")
def contributing(ctx: BuildContext) -> Mapping[str, Output]:
    return {"CONTRIBUTING.md": render_contributing(ctx.taxonomy, ctx.corpus.retained, ctx.stats.protocol)}


def _site_path(tax: Taxonomy) -> str:
    return str(model.presentation(tax, "site").get("path") or "reports/site/index.html")


def _site_folder(tax: Taxonomy) -> str:
    """The site's folder with a trailing slash ("" when its index is at the survey's root)."""
    path = _site_path(tax)
    return path.rsplit("/", 1)[0] + "/" if "/" in path else ""


@register("site")
def site(ctx: BuildContext) -> Mapping[str, Output]:
    """The index page, one page per paper, their stylesheet and the BibTeX the index loads
    (rendered one by one as the build writes them)."""
    folder = _site_folder(ctx.taxonomy)
    on = selected(ctx.taxonomy)
    bib = (lambda rec, _tax: _bibliography(ctx).texts[rec.id]) if "bib" in on else None
    figures = _figures(ctx) if "figures" in on else []
    claims = [r.claim.where for r in ctx.claims.results]
    files = site_files(ctx.taxonomy, ctx.display, ctx.stats, bib, ctx.corrections, figures, claims=claims,
                       card="figures" in on)
    return Lazy({folder + rel: files.renderer(rel) for rel in files})


def _bibliography(ctx: BuildContext) -> Bibliography:
    return ctx.derived("bibliography", lambda: bibliography(ctx.display))


@register("bib")
def _papers_bib(ctx: BuildContext) -> Mapping[str, Output]:
    return {OUTPUT: papers_bib(ctx.display, _bibliography(ctx))}


@register("citation")
def _citation(ctx: BuildContext) -> Mapping[str, Output]:
    text = citation_cff(ctx.taxonomy)
    return {CITATION: text} if text is not None else {}


@register("github")
def _github(ctx: BuildContext) -> Mapping[str, Output]:
    # The placeholder is the survey's own example reference (commands.yaml add.example or a record's).
    example = example_reference(ctx.taxonomy, ctx.corpus.retained)
    return {ISSUE_FORM: issue_form(ctx.taxonomy, example)}


# The registry's names, importable from here as before the split (build and tests use them).
__all__ = ["ALWAYS", "CONFIG_DOCS", "GENERATORS", "REPORTS", "BuildContext", "Generator",
           "Lazy", "Output", "Part", "Parts", "config_reference", "issue_form", "register", "selected"]
