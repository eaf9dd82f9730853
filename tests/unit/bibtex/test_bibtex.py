"""reports/papers.bib: entries read back as the records, TeX specials escaped, sensible types."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import bibtexparser
import pytest
from bibtexparser.model import Entry, Field
from helpers.render_support import build_inputs, make_hostile_survey
from helpers.survey_copy import SURVEY
from hypothesis import given
from hypothesis import strategies as st

from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.records import Record
from survey_tools.render.bibtex import (
    _entry,
    _no_author,
    _rules,
    _write,
    _written,
    bibliography,
    bibtex_entry,
    brace_balanced,
    check_bib,
    check_fields,
    detex,
    escape,
    needs_reading_back,
    papers_bib,
    unescape,
)

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def corpus():  # type: ignore[no-untyped-def]
    return load_corpus(SURVEY)


def test_real_corpus_reads_back(corpus) -> None:  # type: ignore[no-untyped-def]
    text = papers_bib(corpus)
    lib = bibtexparser.parse_string(text)
    assert not lib.failed_blocks
    assert [e.key for e in lib.entries] == sorted(r.id for r in corpus.retained)
    assert check_bib(text, corpus.retained) == []
    assert text == papers_bib(corpus)  # deterministic


def test_each_entry_written_alone_is_its_text_in_the_file(corpus) -> None:  # type: ignore[no-untyped-def]
    # papers.bib is the entries written one by one and joined (each is written once, for the
    # file and the site's pages): the same text as the writer gives for all of them at once.
    tax = corpus.taxonomy
    bib = bibliography(corpus)
    together = _write([_entry(r, _rules(tax), _no_author(tax), tax) for r in bib.records])
    assert together == "\n".join(bib.texts[r.id] for r in bib.records)
    assert papers_bib(corpus).endswith(together)
    assert all(bib.texts[r.id] == bibtex_entry(r, tax) for r in corpus.retained)


@pytest.mark.parametrize(
    ("key", "entry_type", "field", "value"),
    [
        ("c3", "misc", "eprint", "2603.06859"),
        ("agentdojo2024", "inproceedings", "booktitle", "NeurIPS 2024 D\\&B"),
        ("dec-pomdp2002", "article", "journal", "Mathematics of Operations Research"),
        ("greshake2023", "inproceedings", "booktitle", "ACM AISec 2023"),
    ],
)
def test_entry_types(corpus, key: str, entry_type: str, field: str, value: str) -> None:  # type: ignore[no-untyped-def]
    rec = corpus.by_id("retained")[key]
    entry = bibtexparser.parse_string(bibtex_entry(rec, corpus.taxonomy)).entries[0]
    assert (entry.entry_type, entry.fields_dict[field].value) == (entry_type, value)


def test_blogs_and_docs_are_misc(corpus) -> None:  # type: ignore[no-untyped-def]
    lib = bibtexparser.parse_string(papers_bib(corpus))
    by_key = {e.key: e for e in lib.entries}
    for rec in corpus.retained:
        if rec.get("venue") in ("Blog Post", "Documentation", "Engineering Blog", "Tech Blog"):
            e = by_key[rec.id]
            assert e.entry_type == "misc"
            assert e.fields_dict["howpublished"].value == rec.get("venue")


def test_special_characters_survive(corpus) -> None:  # type: ignore[no-untyped-def]
    data = dict(corpus.by_id("retained")["c3"].data)
    data["title"] = "R&D at 100% for $5: #1 {LLM} agents_v2 ~ ^ \\ done"
    data["authors"] = ["Tram\\`{e}r, Florian", "Barnes and Noble, Team", "Müller, Jörg"]
    data["authors_complete"] = True
    rec = Record("retained", "special", "corpus/special.yaml", data)
    text = bibtex_entry(rec, corpus.taxonomy)
    assert "title = {{R\\&D at 100\\% for \\$5: \\#1 \\{LLM\\} agents\\_v2 " in text
    assert "author = {Tramèr, Florian and {Barnes and Noble, Team} and Müller, Jörg}" in text
    assert check_bib(text, [rec]) == []


@pytest.mark.parametrize("s", ["plain", "a&b", "{x}_y", "\\", "~^%$#", "100% & more"])
def test_escape_round_trip(s: str) -> None:
    assert unescape(escape(s)) == s


def test_detex() -> None:
    assert detex("Balunovi\\'{c}, Mislav") == "Balunović, Mislav"
    assert detex('G\\"odel') == "Gödel"
    assert detex("no accents") == "no accents"


@pytest.mark.parametrize(
    ("where", "value"),
    [
        ("doi", '10.1234/x}}@preamble{"\\input{/etc/hostname}"}@comment{'),
        ("link", "https://example.org/x},note={x},addendum={\\input{/etc/passwd}"),
        ("arxiv", "2501.00001}@string{a={b}"),
    ],
)
def test_no_field_can_break_out_of_its_braces(corpus, where: str, value: str) -> None:  # type: ignore[no-untyped-def]
    # Validation refuses these values; the writer must be safe even when it is not asked first.
    data = dict(corpus.by_id("retained")["c3"].data)
    if where == "link":
        data["links"] = [value]
    else:
        data["identifiers"] = {where: value}
    rec = Record("retained", "hostile", "corpus/hostile.yaml", data)
    text = bibtex_entry(rec, corpus.taxonomy)
    lib = bibtexparser.parse_string(text)
    assert [type(b).__name__ for b in lib.blocks] == ["Entry"]
    fields = lib.entries[0].fields_dict
    assert set(fields) <= {"title", "author", "year", "booktitle", "howpublished", "eprint",
                           "archiveprefix", "doi", "url", "journal"}
    written = {"doi": "doi", "link": "url", "arxiv": "eprint"}[where]
    assert "{" not in fields[written].value and "}" not in fields[written].value
    assert "\\" not in fields[written].value


def test_read_back_compares_every_field() -> None:
    want = [Entry("misc", "k", [Field("title", "{T}"), Field("doi", "10.1/x")])]
    tampered = "@misc{k,\n  title = {{T}},\n  doi = {10.1/y}\n}\n@preamble{\"\\input{x}\"}\n"
    problems = check_fields(tampered, want)
    assert any("unexpected @preamble" in p for p in problems)
    assert any("k: fields read back differently" in p for p in problems)


def test_an_escaping_mistake_fails_the_build(corpus, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    # papers_bib's read-back is the guard: with TeX escaping broken, a title holding a brace
    # must stop the build rather than reach a reader's bibliography.
    import survey_tools.render.bibtex as bibtex

    monkeypatch.setattr(bibtex, "escape", lambda text: text)
    # and brace_balanced too, which would otherwise write the lone brace as \textbraceleft{}
    monkeypatch.setattr(bibtex, "brace_balanced", lambda text: text)
    data = dict(corpus.by_id("retained")["c3"].data)
    data["title"] = "Half {open title"
    hostile = Record("retained", "c3", "corpus/c3.yaml", data)
    retained = tuple(hostile if r.id == "c3" else r for r in corpus.retained)
    shown = dataclasses.replace(corpus, records={**corpus.records, corpus.taxonomy.retained.name: retained})
    with pytest.raises(bibtex.BibtexError, match="does not read back as the records: c3"):
        bibtex.papers_bib(shown)


@pytest.mark.parametrize(
    ("field", "value"),
    [("title", "{A {braced} word}"), ("title", "{Half \\{open}"), ("author", "Doe, Jane and {Team}"),
     ("doi", '10.1/"q"'), ("url", "https://example.org/@x"), ("year", "20\n25"), ("booktitle", "A\\&B")],
)
def test_an_entry_with_structure_is_read_back(field: str, value: str) -> None:
    plain = [Field("title", "{Plain Title: v2 (draft)}"), Field("author", "Doe, Jane and Roe, R."),
             Field("year", "2025"), Field("url", "https://example.org/a%20b?x=1")]
    assert not needs_reading_back(Entry("misc", "plain-key2025", plain))
    changed = [Field(f.key, value) if f.key == field else f for f in plain]
    if field not in {f.key for f in plain}:
        changed.append(Field(field, value))
    assert needs_reading_back(Entry("misc", "plain-key2025", changed))
    assert needs_reading_back(Entry("misc", "key,with}comma", plain))
    assert needs_reading_back(Entry("misc{", "plain-key2025", plain))


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


@given(title=_TEXT, authors=st.lists(_TEXT, max_size=4), complete=st.booleans(), doi=_TEXT,
       year=st.one_of(st.none(), st.integers(-5, 3000)), venue=_TEXT)
def test_what_is_not_read_back_reads_back_as_built(  # type: ignore[no-untyped-def]
    corpus, title: str, authors: list[str], complete: bool, doi: str, year: int | None, venue: str
) -> None:
    # The entries papers_bib does not parse again are exactly the ones a parser cannot read
    # otherwise: whatever the record holds (validation would refuse much of it), such an
    # entry's text parses to its fields, title, names and year.
    data = dict(corpus.by_id("retained")["c3"].data)
    data.update(title=title or "t", authors=authors, authors_complete=complete, year=year, venue=venue,
                identifiers={"doi": doi} if doi else {})
    rec = Record("retained", "c3", "corpus/c3.yaml", data)
    tax = corpus.taxonomy
    entry = _entry(rec, _rules(tax), _no_author(tax), tax)
    assert _written(entry) == _write([entry])  # the text as bibtexparser's writer gives it
    if not needs_reading_back(entry):
        assert check_fields(_write([entry]), [entry]) == []
        assert check_bib(_write([entry]), [rec]) == []


def test_a_name_bibtex_would_trim_is_read_back() -> None:
    # found by the test above: a name ending in a space reads back trimmed
    for author in ("0 ", " Doe, J", "Doe, J and  Roe, R", "Doe, J and "):
        assert needs_reading_back(Entry("misc", "k", [Field("title", "{T}"), Field("author", author)])), author


def _entries_of(root: Path) -> list[Entry]:
    b = build_inputs(root)
    return list(bibliography(b.corpus).entries)


def test_each_entry_is_the_text_the_writer_gives(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # papers.bib and the site's entries are put together by _written, not by bibtexparser's
    # writer: the same text for every entry of the fixture, of the hostile survey and of a
    # synthetic corpus, and for entries of any shape (no fields, a hostile value in each).
    from benchmarks.bench_validate import make_corpus

    entries = list(bibliography(corpus).entries)
    entries += _entries_of(make_hostile_survey(tmp_path / "hostile"))
    synthetic = make_corpus(300, tmp_path / "synthetic")
    for rec in (synthetic / "corpus").glob("*.yaml"):  # an edition each, as the benchmarks add
        rec.write_text(rec.read_text(encoding="utf-8") + "edition: 2605.02801v1\n", encoding="utf-8")
    entries += _entries_of(synthetic)
    assert len(entries) > 300
    odd = ["", "{", "}", "a}b{c", "x,\ny = {z", "12", '"q"', "é \\& %"]
    entries += [Entry("misc", "k", [])]
    entries += [Entry("article", "k2", [Field("title", v), Field("year", v)]) for v in odd]
    for e in entries:
        assert _written(e) == _write([e]), e.key


def _balanced_by_walk(value: str) -> str:
    """brace_balanced without its shortcuts: every character walked."""
    unmatched: set[int] = set()
    opened: list[int] = []
    for i, c in enumerate(value):
        if c == "{":
            opened.append(i)
        elif c == "}":
            if opened:
                opened.pop()
            else:
                unmatched.add(i)
    unmatched.update(opened)
    out: list[str] = []
    for i, c in enumerate(value):
        if i in unmatched:
            if out and out[-1] == "\\":
                out.pop()
            out.append({"{": r"\textbraceleft{}", "}": r"\textbraceright{}"}[c])
        else:
            out.append(c)
    return "".join(out)


@given(st.text(st.sampled_from("{}\\ab"), max_size=12))
def test_brace_balanced_is_the_walk(value: str) -> None:
    # the shortcuts (no brace at all; one pair around a text holding none) answer as the walk
    for v in (value, "{" + value + "}", "{" + value.replace("{", "").replace("}", "") + "}"):
        assert brace_balanced(v) == _balanced_by_walk(v), v
