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
from typing import Any

from survey_tools.corpus.explain import hint
from survey_tools.corpus.records import Corpus
from survey_tools.corpus.taxonomy import Taxonomy, schema_files
from survey_tools.corpus.yamlio import dump_yaml, load_yaml_file
from survey_tools.errors import Problem
from survey_tools.render import model
from survey_tools.render.bibtex import OUTPUT, bibtex_entry, papers_bib
from survey_tools.render.citation import OUTPUT as CITATION
from survey_tools.render.citation import citation_cff
from survey_tools.render.markdown import (
    environment,
    gap_tables,
    markdown_reference,
    render_contributing,
    render_readme,
)
from survey_tools.render.site import site_files
from survey_tools.reports.agreement import AgreementReport, agreement_outputs
from survey_tools.reports.claims import ClaimsReport, claims_markdown
from survey_tools.reports.corrections import CorrectionsReport, corrections_outputs
from survey_tools.reports.gaps import GapReport, gaps_outputs
from survey_tools.reports.plots import plot_outputs
from survey_tools.reports.stats import ReportConfig, Stats, resolve_axis, stats_outputs

Output = str | bytes
Generator = Callable[["BuildContext"], Mapping[str, Output]]

REPORTS = "reports"
GENERATORS: dict[str, Generator] = {}
# Written whatever survey.yaml `outputs:` says: validation and the key reference depend on them.
ALWAYS = ("schemas", "config-docs")
CONFIG_DOCS = "taxonomy/README.md"


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
    # The records as displayed (README, page, BibTeX): metadata corrections applied, tags as they are.
    shown: Corpus | None = None

    @property
    def display(self) -> Corpus:
        return self.shown if self.shown is not None else self.corpus


# --- reports ---------------------------------------------------------------------------------


def selected(tax: Taxonomy) -> tuple[str, ...]:
    """The outputs this survey builds: survey.yaml `outputs:` (plus ALWAYS), or every one."""
    if tax.outputs is None:
        return tuple(GENERATORS)
    return tuple(n for n in GENERATORS if n in tax.outputs or n in ALWAYS)


def output_problems(tax: Taxonomy) -> list[Problem]:
    """Unknown output names, and every selected output's unmet requirement, before any is built."""
    doc = load_yaml_file(tax.root / "taxonomy" / "survey.yaml", "taxonomy/survey.yaml")
    out: list[Problem] = []

    def bad(path: tuple[Any, ...], msg: str) -> None:
        line, col = doc.position(path)
        out.append(Problem("taxonomy/survey.yaml", line, col, ".".join(map(str, path)), msg))

    for i, name in enumerate(tax.outputs or ()):
        if name not in GENERATORS:
            bad(("outputs", i), f"{name!r} is not an output (known: {', '.join(GENERATORS)})"
                + hint(name, list(GENERATORS)))
    on = selected(tax)
    if "readme" in on:
        readme_requirements(tax, bad)
    if "site" in on:
        site_requirements(tax, bad)
    return out


def _axis_ok(tax: Taxonomy, spec: str) -> str:
    try:
        resolve_axis(tax, spec)
    except KeyError as err:
        return str(err.args[0]) if err.args else f"unknown axis {spec!r}"
    return ""


def readme_requirements(tax: Taxonomy, bad: Callable[[tuple[Any, ...], str], None]) -> None:
    conf = model.presentation(tax, "readme")
    base = ("survey", "readme")
    controlled = [c.name for c in tax.retained.controlled if c.kind != "mapping"]
    group_by = str(conf.get("group_by") or "")
    if group_by and group_by not in controlled:
        bad((*base, "group_by"), f"{group_by!r} is not a single- or multi-valued controlled field "
            f"of {tax.retained.name}" + hint(group_by, controlled))
    for i, m in enumerate(conf.get("maps") or []):
        msg = _axis_ok(tax, str(m["axis"]))
        if msg:
            bad((*base, "maps", i, "axis"), msg)
        typical = m.get("typical")
        if typical and tax.find_field(str(typical["field"])) is None:
            bad((*base, "maps", i, "typical", "field"), f"{typical['field']!r} is not a controlled field")
    for i, t in enumerate(conf.get("tags") or []):
        msg = _axis_ok(tax, str(t))
        if msg:
            bad((*base, "tags", i), msg)
    rank_by = str(conf.get("rank_by") or "")
    if rank_by and rank_by not in tax.retained.field_names():
        bad((*base, "rank_by"), f"{rank_by!r} is not a field of {tax.retained.name}"
            + hint(rank_by, tax.retained.field_names()))
    ex = tax.excluded
    for i, c in enumerate(conf.get("exclusion_columns") or []):
        if ex is None:
            bad((*base, "exclusion_columns"), "the survey has no exclusion collection; leave this out")
            break
        if c not in ex.field_names():
            bad((*base, "exclusion_columns", i), f"{c!r} is not a field of {ex.name}" + hint(c, ex.field_names()))


def site_requirements(tax: Taxonomy, bad: Callable[[tuple[Any, ...], str], None]) -> None:
    conf = model.presentation(tax, "site")
    base = ("survey", "site")
    for key in ("facets", "columns"):
        for i, spec in enumerate(conf.get(key) or []):
            msg = _axis_ok(tax, str(spec))
            if msg:
                bad((*base, key, i), msg)
    rng = str(conf.get("range") or "")
    if rng:
        msg = _axis_ok(tax, rng)
        if msg:
            bad((*base, "range"), msg)
    names = tax.retained.field_names()
    for i, f in enumerate(conf.get("search") or []):
        if str(f) not in names:
            bad((*base, "search", i), f"{f!r} is not a field of {tax.retained.name}" + hint(str(f), names))


@register("schemas")
def _schemas(ctx: BuildContext) -> Mapping[str, Output]:
    return schema_files(ctx.taxonomy)


@register("config-docs")
def _config_docs(ctx: BuildContext) -> Mapping[str, Output]:
    return {CONFIG_DOCS: config_reference(ctx.taxonomy.root)}


def config_reference(root: Path | None = None) -> str:
    """taxonomy/README.md: how the configuration works, then every key from the schemas; with
    ``root``, only the optional files (claims, corrections, the protocol) the survey has."""
    has_protocol = root is None or (root / "taxonomy" / "protocol.yaml").is_file()
    intro = environment().get_template("taxonomy/README.md.j2").render(has_protocol=has_protocol)
    return intro.rstrip("\n") + "\n\n" + markdown_reference(root)


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


@register("figures")
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
    on = selected(ctx.taxonomy)
    gaps = gap_tables(ctx.gaps) if "gaps" in on else []
    figures = _figures(ctx) if "figures" in on else []
    site_path = _site_path(ctx.taxonomy) if "site" in on else ""
    text = render_readme(ctx.taxonomy, ctx.display, ctx.stats, gaps, figures, site_path)
    return {"README.md": text}


@register("contributing")
def contributing(ctx: BuildContext) -> Mapping[str, Output]:
    return {"CONTRIBUTING.md": render_contributing(ctx.taxonomy, ctx.corpus.retained)}


def _site_path(tax: Taxonomy) -> str:
    return str(model.presentation(tax, "site").get("path") or "reports/site/index.html")


@register("site")
def site(ctx: BuildContext) -> Mapping[str, Output]:
    """The index page, one page per paper, their stylesheet and the BibTeX the index loads."""
    path = _site_path(ctx.taxonomy)
    folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
    bib = bibtex_entry if "bib" in selected(ctx.taxonomy) else None
    files = site_files(ctx.taxonomy, ctx.display, ctx.stats, bib)
    return {folder + rel: text for rel, text in files.items()}


@register("bib")
def _papers_bib(ctx: BuildContext) -> Mapping[str, Output]:
    return {OUTPUT: papers_bib(ctx.display)}


ISSUE_FORM = ".github/ISSUE_TEMPLATE/add-paper.yml"


def _example_ref(ctx: BuildContext) -> str:
    """A link or identifier of the survey's own first entry, as the form's example."""
    for rec in sorted(ctx.corpus.retained, key=lambda r: r.id):
        ids = rec.get("identifiers")
        if isinstance(ids, dict) and ids:
            return str(next(iter(ids.values())))
        links = rec.get("links")
        if isinstance(links, list) and links:
            return str(links[0])
    return "https://"


def issue_form(ctx: BuildContext) -> str:
    """The 'add a paper' issue form; its dropdowns list exactly the taxonomy's values."""
    tax = ctx.taxonomy
    coll = tax.retained
    body: list[dict[str, object]] = [
        {"type": "markdown", "attributes": {"value": (
            f"Propose a work for {coll.label.lower()}. A maintainer runs `survey add` with "
            "your answers; this form is generated from `taxonomy/` by `survey build`.")}},
        {"type": "input", "id": "arxiv",
         "attributes": {"label": "Link or identifier (arXiv id, DOI or URL)", "placeholder": _example_ref(ctx)},
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
