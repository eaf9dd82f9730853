"""papers.bib read by BibTeX's own brace counting (pybtex, strict) as well as bibtexparser: every
hostile value the writer is given, in any field, yields exactly one entry per record and the
text it was given (issue 46: a venue ``x}, note={...`` gave pybtex an extra entry)."""

from __future__ import annotations

from pathlib import Path

import bibtexparser
import pytest
from helpers.survey_copy import SURVEY

from survey_tools.corpus.checks import unbalanced_brace
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.records import Record
from survey_tools.render.bibtex import bibtex_entry, brace_balanced, papers_bib, unescape

pybtex_database = pytest.importorskip("pybtex.database", reason="pip install -e '.[test]'")
import pybtex.errors  # noqa: E402

REPO = Path(__file__).resolve().parents[3]

HOSTILE = [
    "Proc. X}, note={x}}\n@misc{injected, title={Injected}",
    "Proc. X\\}, note=\\{x",
    "}}}}",
    "{{{{",
    "a } b { c",
    '@comment{ x } @preamble{"\\input{/etc/passwd}"}',
    "50% of {TeX} # & $ _ ~ ^ \\",
]


def strict_entries(text: str) -> dict[str, object]:
    """The entries pybtex reads, in strict mode (any error raises, as BibTeX's own warnings would)."""
    pybtex.errors.set_strict_mode(True)
    try:
        return dict(pybtex_database.parse_string(text, "bibtex").entries)
    finally:
        pybtex.errors.set_strict_mode(False)


@pytest.fixture(scope="module")
def corpus():  # type: ignore[no-untyped-def]
    return load_corpus(SURVEY)


def test_the_real_papers_bib_reads_in_pybtex_strict_and_bibtexparser(corpus) -> None:  # type: ignore[no-untyped-def]
    text = papers_bib(corpus)
    n = len(corpus.retained)
    assert len(strict_entries(text)) == n
    assert len(bibtexparser.parse_string(text).entries) == n


@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize("field", ["venue", "title", "affiliation", "authors"])
def test_a_hostile_value_in_any_field_is_one_entry_in_every_reader(
    corpus, field: str, value: str
) -> None:  # type: ignore[no-untyped-def]
    # validate refuses unbalanced braces first; the writer must be safe without being asked.
    data = dict(corpus.by_id("retained")["c3"].data)
    # (a name with two commas is refused at validate and is not a BibTeX name: none here)
    data[field] = [f"Doe, {value.replace(',', ' ')}"] if field == "authors" else value
    if field == "affiliation":
        data["venue"] = "Technical report"
    rec = Record("retained", "hostile", "corpus/hostile.yaml", data)
    text = bibtex_entry(rec, corpus.taxonomy)
    entries = strict_entries(text)
    assert list(entries) == ["hostile"], text
    lib = bibtexparser.parse_string(text)
    assert [type(b).__name__ for b in lib.blocks] == ["Entry"], text
    for f in lib.entries[0].fields:
        assert unbalanced_brace(f.value) is None, (f.key, f.value)
    if field == "title":
        assert unescape(lib.entries[0].fields_dict["title"].value[1:-1]) == value


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("plain", "plain"),
        ("{TeX} kept", "{TeX} kept"),
        ("x\\}, y", "x\\textbraceright{}, y"),
        ("a } b { c", "a \\textbraceright{} b \\textbraceleft{} c"),
        ("{{open", "\\textbraceleft{}\\textbraceleft{}open"),
    ],
)
def test_brace_balanced_writes_only_the_braces_bibtex_would_mispair(
    value: str, written: str
) -> None:
    assert brace_balanced(value) == written
    assert unbalanced_brace(brace_balanced(value)) is None


@pytest.mark.parametrize(
    ("value", "at"), [("ok", None), ("{a}", None), ("a}", 1), ("{a", 0), ("}{", 0), ("\\}", 1)]
)
def test_unbalanced_brace_finds_the_first_mispaired_brace(value: str, at: int | None) -> None:
    assert unbalanced_brace(value) == at
