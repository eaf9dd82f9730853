"""survey init's import is total and loses nothing (issue 52), on the synthetic lists of
tests/data/total-import/: every entry a record or a skip named with its line, every value a
field cannot hold kept in the record's private import_notes, colliding keys told apart, only the
allowlist published, roles read from the values, RIS, several .bib files at once, the paragraph
style, year headings, a bold name inside a link, labelled lines under a work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers.init_support import REPO, run

DATA = REPO / "tests" / "data" / "total-import"


def _adopt(tmp_path: Path, *sources: str) -> tuple[Path, str]:
    root = tmp_path / "survey"
    args = [a for s in sources for a in ("--from", str(DATA / s))]
    res = run(tmp_path, "init", str(root), *args, "--title", "Synthetic Adoption")
    assert res.exit_code == 0, res.output
    assert run(root, "validate").exit_code == 0
    return root, res.output


def _record(root: Path, key: str) -> dict[str, Any]:
    return dict(yaml.safe_load((root / "corpus" / f"{key}.yaml").read_text(encoding="utf-8")))


def _published(root: Path, tmp_path: Path) -> str:
    out = tmp_path / "exported"
    assert run(root, "export", "csv", str(out)).exit_code == 0
    files = [
        root / "README.md",
        root / "reports" / "papers.bib",
        *(root / "reports").rglob("*.html"),
    ]
    files += sorted(out.glob("*.csv"))
    return "\n".join(p.read_text(encoding="utf-8") for p in files if p.is_file())


def test_two_bib_files_read_as_one(tmp_path: Path) -> None:
    root, out = _adopt(tmp_path, "strings.bib", "entries.bib")
    book = _record(root, "aarts-korst")
    # @string macros joined with #, in the other file
    assert book["authors"] == ["Aarts, Emile", "Korst, Jan"]
    assert book["title"] == "Synthetic: Simulated Annealing and Boltzmann Machines"
    assert book["journal"] == "Synthetic Journal of Annealing"
    # a year span: the year it starts, the span kept privately
    assert book["year"] == 2018 and book["year_as_written"] == "2018-2019"
    # crossref into the other file: the parent's title as booktitle, its year and publisher
    talk = _record(root, "workshop-talk")
    assert talk["booktitle"] == "Synthetic: Proceedings of the Annealing Workshop"
    assert (talk["year"], talk["publisher"]) == (2019, "Synthetic Press")
    # warnings name each file's own lines
    assert (
        "entries.bib:23: key: 'ieee-cec' differs from an earlier key only by case; imported as 'ieee-cec-2'"
        in out
    )


def test_nothing_is_refused_nothing_lost(tmp_path: Path) -> None:
    root, out = _adopt(tmp_path, "strings.bib", "entries.bib")
    keys = sorted(p.stem for p in (root / "corpus").glob("*.yaml"))
    assert keys == [
        "IEEE-CEC",
        "aarts-korst",
        "historic",
        "ieee-cec-2",
        "synthconf",
        "workshop-talk",
    ]
    # the entry without a title is the one skip, named with its line
    assert (
        "warning: entries.bib:30: left out (corpus/untitled.yaml cannot be made valid: title:"
        in out
    )
    # a year outside 1900-2100: the record is kept, the value in its private import_notes
    historic = _record(root, "historic")
    assert "year" not in historic and historic["import_notes"] == "year: 1877"
    assert (
        "entries.bib:35: year: year 1877 is not plausible (1900-2100); moved to import_notes" in out
    )
    assert (
        "values moved to import_notes (kept, private; the warnings name each row): year (1)" in out
    )


def test_only_the_allowlist_is_published(tmp_path: Path) -> None:
    root, out = _adopt(tmp_path, "strings.bib", "entries.bib")
    survey = yaml.safe_load((root / "taxonomy" / "survey.yaml").read_text(encoding="utf-8"))
    fields = survey["collections"]["entries"]["fields"]
    assert {n for n, f in fields.items() if f.get("private")} == {
        "interet",
        "year_as_written",
        "crossref",
        "import_notes",
    }
    text = _published(root, tmp_path)
    assert "private remark" not in text and "1877" not in text
    assert (
        "private fields (kept in the records, out of every output; --public-field NAME publishes one): "
        "interet, year_as_written, crossref" in out
    )


def test_public_field_opens_one(tmp_path: Path) -> None:
    root = tmp_path / "survey"
    res = run(
        tmp_path,
        "init",
        str(root),
        "--from",
        str(DATA / "entries.bib"),
        "--title",
        "Synthetic Adoption",
        "--public-field",
        "Interet",
    )
    assert res.exit_code == 0, res.output
    fields = yaml.safe_load((root / "taxonomy" / "survey.yaml").read_text(encoding="utf-8"))[
        "collections"
    ]
    assert not fields["entries"]["fields"]["interet"].get("private")


def test_ris(tmp_path: Path) -> None:
    root, out = _adopt(tmp_path, "refs.ris")
    article = _record(root, "synthetic-ris-record-journal-article")
    assert article["authors"] == ["Doe, Jane", "Roe, John"]
    assert (article["year"], article["date"], article["venue"]) == (
        2023,
        "2023-05-12",
        "Synthetic Journal",
    )
    assert article["links"] == [
        "https://doi.org/10.5555/synthetic.ris.1",
        "https://example.org/synthetic/ris-1",
    ]
    assert article["identifiers"] == {"doi": "10.5555/synthetic.ris.1"}
    assert _record(root, "synthetic-ris-record-conference-paper")["year"] == 2024  # PY 2024///
    text = _published(root, tmp_path)
    assert "an abstract the publisher wrote" not in text and "a personal note" not in text
    assert (
        "private fields (kept in the records, out of every output; --public-field NAME publishes one): "
        "abstract, n1_notes" in out
    )


def test_a_sheet_with_grouped_header_booleans_and_an_address_column(tmp_path: Path) -> None:
    root, out = _adopt(tmp_path, "sheet.xlsx")
    assert "sheet.xlsx: row 1 groups the columns (Study, Coding); the header is row 2" in out
    first = _record(root, "synthetic-first-sheet-study")
    second = _record(root, "synthetic-second-sheet-study")
    # authors split cell by cell
    assert first["authors"] == ["Jane Doe", "John Roe", "Ann Poe"]
    assert second["authors"] == ["Doe, J.", "Roe, K."]
    # a column of DOIs and URLs, whatever its name, is the links
    assert first["links"] == ["https://doi.org/10.5555/synthetic.x1"]
    assert second["links"] == ["https://example.org/synthetic/x2"]
    assert (first["included"], second["included"]) == (True, False)
    assert "private remark" not in _published(root, tmp_path)


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (
            "synthetic-work-written-as-paragraph",
            {
                "title": "Synthetic: A Work Written as a Paragraph",
                "authors": ["Jane Doe", "John Roe"],
                "year": 2024,
                "date": "2024-01-03",
                "venue": "arXiv 2024",
                "links": ["https://arxiv.org/abs/2401.00001"],
            },
        ),
        (
            "synthetic-byline-one-name-code-beside",
            {"authors": ["Edgar Poe"], "year": 2024, "code": "https://github.com/example/p2"},
        ),
        (
            "syn-synthetic-full-title-around-bold",
            {"title": "SYN — Synthetic: A Full Title Around a Bold Name", "year": 2023},
        ),
        (
            "synthetic-title-written-before-short-link",
            {
                "title": "Synthetic: A Title Written Before a Short Link, Doe et al",
                "links": ["https://example.org/synthetic/blog"],
            },
        ),
        (
            "synthetic-work-labelled-lines-under-it",
            {
                "links": [
                    "https://example.org/synthetic/parent",
                    "https://github.com/example/parent",
                    "https://example.org/synthetic/data",
                ]
            },
        ),
    ],
)
def test_markdown_round_five(tmp_path: Path, key: str, expected: dict[str, Any]) -> None:
    root, _ = _adopt(tmp_path, "paragraphs.md")
    assert len(list((root / "corpus").glob("*.yaml"))) == 5  # the labelled lines made no work
    record = _record(root, key)
    assert {k: record.get(k) for k in expected} == expected


def test_values_whose_page_names_collide_are_told_apart(tmp_path: Path) -> None:
    root = tmp_path / "survey"
    res = run(
        tmp_path,
        "init",
        str(root),
        "--from",
        str(DATA / "venues.csv"),
        "--title",
        "Synthetic Adoption",
        "--controlled",
        "venue",
    )
    assert res.exit_code == 0, res.output
    values = yaml.safe_load(
        (root / "taxonomy" / "fields" / "venue.yaml").read_text(encoding="utf-8")
    )["values"]
    assert [v["id"] for v in values] == [
        "naacl_2025_system_demonstrations",
        "naacl_2025_system_demonstrations_2",
    ]
    assert run(root, "validate").exit_code == 0


def test_a_link_the_validator_rejects_is_moved_not_refused(tmp_path: Path) -> None:
    root, out = _adopt(tmp_path, "two-arxiv.md")
    record = _record(root, "synthetic-work-linking-two-arxiv-papers")
    assert record["links"] == ["https://arxiv.org/abs/2401.00011"]
    assert record["import_notes"] == "links[1]: https://arxiv.org/abs/2402.00022"
    assert (
        "two-arxiv.md:5: links[1] moved to import_notes (the validator: links to arxiv 2402.00022"
        in out
    )


def test_a_table_maps_its_columns_by_content(tmp_path: Path) -> None:
    root, _ = _adopt(tmp_path, "table.md")
    record = _record(root, "synthetic-tabled-work-things")
    assert (record["venue"], record["date"], record["year"]) == ("ICLR 2024", "2024-01", 2024)
    assert record["links"] == [
        "https://example.org/synthetic/t1",
        "https://example.org/synthetic/note1",
    ]
    assert _record(root, "synthetic-another-tabled-work")["venue"] == "NeurIPS'23"


def test_relative_links_of_the_introduction(tmp_path: Path) -> None:
    root, out = _adopt(tmp_path, "relative-links.md")
    assert (
        "relative-links.md: the introduction links 'docs/guide.md', a path in the list's own repository"
        in out
    )
    assert "'assets/fig.png'" in out and "'https://example.org'" not in out
    again = tmp_path / "again"
    res = run(
        tmp_path,
        "init",
        str(again),
        "--from",
        str(DATA / "relative-links.md"),
        "--title",
        "Synthetic",
        "--list-repository",
        "https://github.com/example/synthetic-list",
    )
    assert res.exit_code == 0 and "resolves nowhere" not in res.output
    intro = (again / "taxonomy" / "readme" / "intro.md").read_text(encoding="utf-8")
    assert "(https://github.com/example/synthetic-list/blob/HEAD/docs/guide.md)" in intro
    assert "(https://github.com/example/synthetic-list/raw/HEAD/assets/fig.png)" in intro
