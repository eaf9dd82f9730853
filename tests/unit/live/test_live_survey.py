"""The live survey itself (this repository's corpus/, exclusions/, taxonomy/): what its
maintainers must keep true as they curate it. Every other test of the toolkit reads the frozen
copy under tests/fixtures/survey-snapshot/ (tests/helpers/survey_copy.py), so that a record added,
removed or corrected here never breaks a test of the code; a test that does belong to the live
list (it names a live record, counts it, or checks a file generated from it) goes here.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from survey_tools.build import make_context
from survey_tools.cli import cli
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.render.bibtex import papers_bib
from survey_tools.render.generators import config_reference

REPO = Path(__file__).resolve().parents[3]


def test_validate_real_corpus_is_clean(repo: Path) -> None:
    result = CliRunner().invoke(cli, ["--root", str(repo), "validate", "--require", "subdecisions"])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    records = sum(1 for name in ("corpus", "exclusions") for _ in (repo / name).glob("*.yaml"))
    assert f"{records} files checked, 0 problems" in result.stderr


def test_taxonomy_schema_is_fresh(repo: Path) -> None:
    result = CliRunner().invoke(cli, ["--root", str(repo), "taxonomy", "schema", "--check"])
    assert result.exit_code == 0, (
        f"taxonomy/schema/ is stale; run `survey taxonomy schema`:\n{result.output}"
    )


def test_taxonomy_readme_is_fresh() -> None:
    """taxonomy/README.md is generated from the schemas; a stale copy fails here and in build --check."""
    assert (REPO / "taxonomy" / "README.md").read_text(encoding="utf-8") == config_reference(
        load_taxonomy(REPO)
    )


def test_committed_papers_bib_is_current() -> None:
    # the BibTeX shows the records as displayed: metadata corrections applied (docs/claims.md)
    shown = make_context(REPO).display
    assert (REPO / "reports/papers.bib").read_text(encoding="utf-8") == papers_bib(shown)


def test_the_sites_figures_are_the_committed_figures() -> None:
    """The site's folder (what Pages publishes) holds copies of reports/figures/, the same bytes."""
    figures = sorted((REPO / "reports" / "figures").glob("*.svg"))
    assert figures
    for svg in figures:
        copy = REPO / "reports" / "site" / "figures" / svg.name
        assert copy.read_bytes() == svg.read_bytes(), svg.name
