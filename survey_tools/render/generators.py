"""``survey build`` generators for README.md, CONTRIBUTING.md and the browsing page.

Imported by the build (``GENERATOR_MODULES``); each generator only returns file contents.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from typing import Any

from survey_tools.build import GENERATORS, BuildContext, Output, register
from survey_tools.render import model
from survey_tools.render.markdown import gap_tables, render_contributing, render_readme
from survey_tools.render.site import BibtexFn, site_files


def _figures(ctx: BuildContext) -> list[dict[str, str]]:
    """Figures the plots generator writes, named from the report configuration.

    Taken from the configuration rather than the disk so that the README does not depend on
    whether a previous build already wrote them (byte-identical output on every run).
    """
    if "plots" not in GENERATORS:
        return []
    out = []
    for p in ctx.config.plots:
        name = str(p.get("name", ""))
        if name:
            title = str(p.get("title") or name.replace("-", " ").capitalize())
            out.append({"title": title, "path": f"reports/figures/{name}.svg"})
    return out


def _bibtex() -> BibtexFn | None:
    """The BibTeX export, once the package has one (the page leaves the button out before)."""
    if importlib.util.find_spec("survey_tools.bibtex") is None:
        return None
    fn: Any = getattr(importlib.import_module("survey_tools.bibtex"), "bibtex_entry", None)
    return fn if callable(fn) else None


@register("readme")
def readme(ctx: BuildContext) -> Mapping[str, Output]:
    text = render_readme(ctx.taxonomy, ctx.corpus, ctx.stats, gap_tables(ctx.gaps), _figures(ctx))
    return {"README.md": text, "CONTRIBUTING.md": render_contributing(ctx.taxonomy)}


@register("site")
def site(ctx: BuildContext) -> Mapping[str, Output]:
    """The index page, one page per paper, their stylesheet and the BibTeX the index loads."""
    path = str(model.presentation(ctx.taxonomy, "site").get("path", "reports/site/index.html"))
    folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
    return {folder + rel: text for rel, text in site_files(ctx.taxonomy, ctx.corpus, ctx.stats, _bibtex()).items()}
