"""Metadata corrections (``kind: metadata``): shown in the README, the page and the BibTeX, while
counts, claims and the survey's CSV export keep the records' own values."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from survey_tools.build import make_context
from survey_tools.cli import cli
from survey_tools.corpus.records import Record
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.errors import InvalidInput
from survey_tools.render import model
from survey_tools.reports.corrections import load_corrections

REPO = Path(__file__).resolve().parents[2]


def _metadata_corrections() -> list[dict]:  # type: ignore[type-arg]
    data = yaml.safe_load((REPO / "data" / "corrections.yaml").read_text(encoding="utf-8"))
    return [c for c in data["corrections"] if c.get("kind") == "metadata"]


def _get(data: dict, dotted: str):  # type: ignore[no-untyped-def,type-arg]
    for part in dotted.split("."):
        data = (data or {}).get(part)
    return data


def test_metadata_corrections_are_marked_and_never_touch_a_tag() -> None:
    tax = load_taxonomy(REPO)
    marked = _metadata_corrections()
    # C020 (SAGE's arXiv id) and C033-C038 (round 3: authors, DOI, journal) join C023-C032;
    # C041-C042 (round 4: a documentation link moved, a summary that described another survey)
    assert {c["id"] for c in marked} == {f"C0{n}" for n in (20, *range(23, 33), *range(33, 39), 41, 42)}
    for c in marked:
        assert tax.find_field(c["field"].split(".", 1)[0]) is None, c["id"]
        assert c["evidence"].startswith("https://"), c["id"]


def test_display_applies_metadata_and_counts_keep_the_records(survey: Path) -> None:
    ctx = make_context(survey)
    shown = {r.id: r for r in ctx.display.retained}
    kept = {r.id: r for r in ctx.corpus.retained}
    for c in _metadata_corrections():
        assert _get(dict(shown[c["record"]].data), c["field"]) == c["proposed"], c["id"]
        assert _get(dict(kept[c["record"]].data), c["field"]) == c["current"], c["id"]
    # tag corrections are proposed only: the displayed records keep the survey's tags
    data = yaml.safe_load((survey / "data" / "corrections.yaml").read_text(encoding="utf-8"))
    for c in data["corrections"]:
        if c.get("kind", "tag") == "tag" and c["record"] in shown:
            assert _get(dict(shown[c["record"]].data), c["field"]) == _get(dict(kept[c["record"]].data), c["field"])
    # statistics come from the records as they are: the same without any correction
    (survey / "data" / "corrections.yaml").unlink()
    plain = make_context(survey)
    assert plain.display is plain.corpus
    assert ctx.stats.to_dict() == plain.stats.to_dict()


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


def test_identifier_links_are_added_once() -> None:
    tax = load_taxonomy(REPO)
    rec = Record(id="x", collection=tax.retained.name, path="corpus/x.yaml", data={
        "key": "x", "links": ["https://openreview.net/forum?id=abcdefg", "https://arxiv.org/abs/2501.00001v2"],
        "identifiers": {"arxiv": "2501.00001", "openreview": "abcdefg", "doi": "10.1/xyz"},
    })
    assert model.secondary_links(rec) == [{"url": "https://arxiv.org/abs/2501.00001v2", "label": "arXiv"}]
    assert model.secondary_links(rec, tax) == [
        {"url": "https://arxiv.org/abs/2501.00001v2", "label": "arXiv"},
        {"url": "https://doi.org/10.1/xyz", "label": "DOI"},
    ]


CASES = yaml.safe_load((REPO / "tests" / "data" / "corrections" / "cases.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_bad_corrections_files(survey_dir: Path, case: dict) -> None:  # type: ignore[type-arg]
    """Shape mistakes read as every configuration file's (the schema's), the rest names its correction."""
    (survey_dir / "data").mkdir()
    (survey_dir / "data" / "corrections.yaml").write_text(case["corrections"], encoding="utf-8")
    with pytest.raises(InvalidInput) as info:
        load_corrections(load_taxonomy(survey_dir))
    assert [p.format() for p in info.value.problems] == case["problems"]
