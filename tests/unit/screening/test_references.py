"""TeX escapes in names and titles are decoded in every non-BibTeX output (issue 23 item 7)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.survey_copy import SURVEY

from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.latex import plain_text
from survey_tools.render import model

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(("tex", "text"), [
    ("Balunovi\\'{c}, Mislav", "Balunović, Mislav"),
    ("Tram\\`{e}r, Florian", "Tramèr, Florian"),
    ("Mialon, Gr\\'{e}goire", "Mialon, Grégoire"),
    ("R\\&D at 52% of cost", "R&D at 52% of cost"),  # a bare % is text, not a TeX comment
    ("A -- B: 50% faster, ~2x", "A -- B: 50% faster, ~2x"),  # no backslash: unchanged
    ("{GPT}-4 agents", "{GPT}-4 agents"),
])
def test_plain_text(tex: str, text: str) -> None:
    assert plain_text(tex) == text


def test_page_and_paper_pages_show_decoded_names() -> None:
    corpus = load_corpus(SURVEY, load_taxonomy(SURVEY))
    rec = next(r for r in corpus if r.id == "agentdojo2024")
    assert "Balunovi\\'{c}, Mislav" in rec.get("authors")  # the record keeps its source's TeX
    assert model.display_authors(rec)[2:3] == ["Balunović, Mislav"]
    page = (REPO / "reports/site/papers/agentdojo2024.html").read_text(encoding="utf-8")
    assert "Balunović, Mislav" in page and "Tramèr, Florian" in page
    index = (REPO / "reports/site/index.html").read_text(encoding="utf-8")
    for text in (page, index):
        assert "{c}" not in text and "{e}" not in text
    # papers.bib is written by bibtex.py in its own way (escaped and read back), untouched here.
    assert "Balunovi" in (REPO / "reports/papers.bib").read_text(encoding="utf-8")
