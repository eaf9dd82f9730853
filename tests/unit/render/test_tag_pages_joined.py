"""A tag page whose items go through tag.html.j2 as one joined piece of markup is the page the
template writes looping over them one by one, byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.render_support import Built, build_inputs

from survey_tools.render import site as site_module
from survey_tools.render.bibtex import bibtex_entry
from survey_tools.render.site import _Site


def _tag_pages(b: Built, joined: bool, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setattr(site_module, "JOIN_TAG_ITEMS", joined)
    s = _Site(b.tax, b.corpus, b.stats, bibtex_entry)
    return {rel: render() for rel, render in s.tag_pages().items()}


def _same_both_ways(b: Built, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    joined = _tag_pages(b, True, monkeypatch)
    looped = _tag_pages(b, False, monkeypatch)
    assert list(joined) == list(looped)
    for rel in looped:
        assert joined[rel] == looped[rel], rel
    return looped


def test_the_fixture_and_the_hostile_survey(real: Built, hostile: Built, monkeypatch: pytest.MonkeyPatch) -> None:
    for b in (real, hostile):
        pages = _same_both_ways(b, monkeypatch)
        # pages of one paper and of several are among them
        counts = {text.count('<li><a href="../../papers/') for text in pages.values()}
        assert 1 in counts and max(counts) >= 2, counts


def test_a_synthetic_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks.bench_validate import make_corpus

    root = make_corpus(300, tmp_path)
    for rec in (root / "corpus").glob("*.yaml"):  # an edition each, as the benchmarks add
        rec.write_text(rec.read_text(encoding="utf-8") + "edition: 2605.02801v1\n", encoding="utf-8")
    pages = _same_both_ways(build_inputs(root), monkeypatch)
    assert max(text.count('<li><a href="../../papers/') for text in pages.values()) > 100


def test_a_template_that_writes_items_otherwise_loops(real: Built, monkeypatch: pytest.MonkeyPatch) -> None:
    # markers that do not come back as two (a template numbering its items, say) make every
    # page loop over its items as before
    monkeypatch.setattr(site_module, "_ITEM_MARKS", (site_module._ITEM_MARKS[0], site_module._ITEM_MARKS[0]))
    joined = _tag_pages(real, True, monkeypatch)
    assert joined == _tag_pages(real, False, monkeypatch)
