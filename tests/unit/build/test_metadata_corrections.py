"""Metadata corrections (``kind: metadata``): shown in the README, the page and the BibTeX, while
counts, claims and the survey's CSV export keep the records' own values."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from helpers.support import REPO
from helpers.survey_copy import SURVEY

from survey_tools.build import make_context
from survey_tools.corpus.records import Record
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.errors import InvalidInput
from survey_tools.render import model
from survey_tools.reports.corrections import load_corrections


def _metadata_corrections() -> list[dict]:  # type: ignore[type-arg]
    data = yaml.safe_load((SURVEY / "data" / "corrections.yaml").read_text(encoding="utf-8"))
    return [c for c in data["corrections"] if c.get("kind") == "metadata"]


def _get(data: dict, dotted: str):  # type: ignore[no-untyped-def,type-arg]
    for part in dotted.split("."):
        data = (data or {}).get(part)
    return data


def test_metadata_corrections_are_marked_and_never_touch_a_tag() -> None:
    tax = load_taxonomy(SURVEY)
    marked = _metadata_corrections()
    # C020 (SAGE's arXiv id) and C033-C038 (round 3: authors, DOI, journal) join C023-C032;
    # C041-C042 (round 4: a documentation link moved, a summary that described another survey);
    # C043-C044 (round 5: puppeteer's full author list)
    assert {c["id"] for c in marked} == {
        f"C0{n}" for n in (20, *range(23, 33), *range(33, 39), 41, 42, 43, 44)
    }
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
            assert _get(dict(shown[c["record"]].data), c["field"]) == _get(
                dict(kept[c["record"]].data), c["field"]
            )
    # statistics come from the records as they are: the same without any correction
    (survey / "data" / "corrections.yaml").unlink()
    plain = make_context(survey)
    assert plain.display is plain.corpus
    assert ctx.stats.to_dict() == plain.stats.to_dict()


def test_identifier_links_are_added_once() -> None:
    tax = load_taxonomy(SURVEY)
    rec = Record(
        id="x",
        collection=tax.retained.name,
        path="corpus/x.yaml",
        data={
            "key": "x",
            "links": [
                "https://openreview.net/forum?id=abcdefg",
                "https://arxiv.org/abs/2501.00001v2",
            ],
            "identifiers": {"arxiv": "2501.00001", "openreview": "abcdefg", "doi": "10.1/xyz"},
        },
    )
    assert model.secondary_links(rec) == [
        {"url": "https://arxiv.org/abs/2501.00001v2", "label": "arXiv"}
    ]
    assert model.secondary_links(rec, tax) == [
        {"url": "https://arxiv.org/abs/2501.00001v2", "label": "arXiv"},
        {"url": "https://doi.org/10.1/xyz", "label": "DOI"},
    ]


CASES = yaml.safe_load(
    (REPO / "tests" / "data" / "corrections" / "cases.yaml").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_bad_corrections_files(survey_dir: Path, case: dict) -> None:  # type: ignore[type-arg]
    """Shape mistakes read as every configuration file's (the schema's), the rest names its correction."""
    (survey_dir / "data").mkdir()
    (survey_dir / "data" / "corrections.yaml").write_text(case["corrections"], encoding="utf-8")
    with pytest.raises(InvalidInput) as info:
        load_corrections(load_taxonomy(survey_dir))
    assert [p.format() for p in info.value.problems] == case["problems"]
