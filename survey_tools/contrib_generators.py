"""Outputs of ``survey build`` for contributors: the BibTeX database and the GitHub issue form."""

from __future__ import annotations

from collections.abc import Mapping

from survey_tools.build import BuildContext, Output, register


@register("bibtex")
def _papers_bib(ctx: BuildContext) -> Mapping[str, Output]:
    from survey_tools.bibtex import OUTPUT, papers_bib

    return {OUTPUT: papers_bib(ctx.corpus)}
