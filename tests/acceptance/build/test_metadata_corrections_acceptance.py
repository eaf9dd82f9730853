"""The tests of test_metadata_corrections.py that build the whole real survey or run the `survey` command end to end."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from click.testing import CliRunner
from helpers.support import REPO

from survey_tools.cli import cli


def _entry_line(readme: str, key: str) -> str:
    """The README's detail line of record ``key`` (after the anchors the tables link to)."""
    pattern = re.compile(rf"^  <br>(<a id=\"[^\"]+\"></a>)*`{re.escape(key)}` ")
    return next(x for x in readme.splitlines() if pattern.match(x))


def test_readme_page_and_bibtex_show_the_corrected_metadata(built: Path) -> None:
    readme = (built / "README.md").read_text(encoding="utf-8")
    line = _entry_line(readme, "magrpo")
    assert "Year: 2026 · Venue: AAAI 2026" in line
    assert "[DOI](https://doi.org/10.1609/aaai.v40i38.40487)" in line
    assert "[OpenReview](https://openreview.net/forum?id=6oaLBJ6CcN)" in line
    for key, arxiv in (("comas2026", "2510.08529"), ("multiagent-finetuning2025", "2501.05707"),
                       ("sirius2025", "2502.04780"), ("spiral2026", "2506.24119")):
        line = _entry_line(readme, key)
        assert f"[arXiv](https://arxiv.org/abs/{arxiv})" in line
        page = (built / "reports" / "site" / "papers" / f"{key}.html").read_text(encoding="utf-8")
        assert f"arxiv: {arxiv}" in page
    bib = (built / "reports" / "papers.bib").read_text(encoding="utf-8")
    entry = bib.split("@inproceedings{magrpo,", 1)[1].split("\n}\n", 1)[0]
    assert "author = {Liu, Shuo and Liang, Zeyu and Lyu, Xueguang and Amato, Christopher}" in entry
    assert "booktitle = {AAAI 2026}" in entry and "doi = {10.1609/aaai.v40i38.40487}" in entry
    page = (built / "reports" / "site" / "papers" / "magrpo.html").read_text(encoding="utf-8")
    assert '<p class="authors">Liu, Shuo; Liang, Zeyu; Lyu, Xueguang; Amato, Christopher</p>' in page
    corrections = (built / "reports" / "CORRECTIONS.md").read_text(encoding="utf-8")
    assert "Metadata: shown in the README, the page and the BibTeX" in corrections.split("### C027", 1)[1].split("###", 1)[0]
    # Round 3: Puppeteer's full author list (C033/C034), SAGE's named authors and arXiv id (C035,
    # C020), DeepSeek-R1's DOI and journal (C037/C038), all read on the works' pages.
    entry = bib.split("@inproceedings{puppeteer,", 1)[1].split("\n}\n", 1)[0]
    assert "author = {Dang, Yufan and Qian, Chen and" in entry and "Sun, Maosong}" in entry and "others" not in entry
    entry = bib.split("@inproceedings{sage2026,", 1)[1].split("\n}\n", 1)[0]
    assert "author = {Peng, Yulin and Zhu, Xinxin and" in entry and "eprint = {2603.15255}" in entry
    entry = bib.split("{deepseek-r12025,", 1)[1].split("\n}\n", 1)[0]
    assert "journal = {Nature}" in entry and "doi = {10.1038/s41586-025-09422-z}" in entry


def test_the_edition_export_keeps_the_surveys_metadata(built: Path, tmp_path: Path) -> None:
    args = ["--root", str(built), "export", "csv", str(tmp_path), "--edition", "2605.02801v1"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    with (tmp_path / "papers.csv").open(encoding="utf-8", newline="") as fh:
        rows = {r["key"]: r for r in csv.DictReader(fh)}
    with (REPO / "tests" / "fixtures" / "survey-artifact" / "papers.csv").open(encoding="utf-8", newline="") as fh:
        theirs = {r["key"]: r for r in csv.DictReader(fh)}
    for key in ("magrpo", "comas2026", "sirius2025", "spiral2026", "multiagent-finetuning2025"):
        assert {k: v for k, v in rows[key].items() if k not in ("one_liner", "notes")} == {
            k: v for k, v in theirs[key].items() if k not in ("one_liner", "notes")
        }


def test_the_edition_export_carries_no_later_curation_notes(built: Path, tmp_path: Path) -> None:
    """The edition's CSV is the survey's: notes written by later curation rounds stay out of it."""
    args = ["--root", str(built), "export", "csv", str(tmp_path), "--edition", "2605.02801v1"]
    assert CliRunner().invoke(cli, args).exit_code == 0
    with (tmp_path / "papers.csv").open(encoding="utf-8", newline="") as fh:
        notes = {r["key"]: r["notes"] for r in csv.DictReader(fh)}
    assert notes["kimi-k2-6"].startswith("Blog post only")
    assert not [k for k, n in notes.items() if "curation round" in n.lower() or "2026-11" in n]


