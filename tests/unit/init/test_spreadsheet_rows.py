"""Spreadsheets as people write them: line breaks in one-line cells, free text that keeps its
lines, rows that share a title (merged when they agree, linked when they differ), an identifier
on two different titles; and author lists typed with `survey add --set`, checked by validate."""

from __future__ import annotations

from pathlib import Path

import yaml
from helpers.init_support import run


def _init(tmp_path: Path, text: str, *args: str) -> tuple[Path, str]:
    source = tmp_path / "sheet.csv"
    source.write_text(text, encoding="utf-8")
    root = tmp_path / "survey"
    res = run(
        tmp_path, "init", str(root), "--from", str(source), "--title", "Synthetic Sheet", *args
    )
    assert res.exit_code == 0, res.output
    assert run(root, "validate").exit_code == 0
    return root, res.output


def _record(root: Path, key: str) -> dict[str, object]:
    return dict(yaml.safe_load((root / "corpus" / f"{key}.yaml").read_text(encoding="utf-8")))


SHEET = (
    "title,year,url,detailed\n"
    '"Synthetic: a title\nbroken over two lines",2021,https://example.org/s/1,"First line.\nSecond line of free text, '
    'long enough to be prose rather than a label of a few words."\n'
    "Synthetic: one study of two,2020,https://example.org/s/2,Study one.\n"
    "Synthetic: one study of two,2020,https://example.org/s/3,Study two.\n"
    "Synthetic: listed twice,2019,https://example.org/s/4,\n"
    "Synthetic: listed twice,2019,https://example.org/s/4,Its note.\n"
)


def test_line_breaks_rows_sharing_a_title_and_repeats(tmp_path: Path) -> None:
    root, out = _init(tmp_path, SHEET)  # lines are the file's: the first row spans lines 2 and 3
    assert "sheet.csv:2: title: line breaks in a one-line field became spaces" in out
    first = _record(root, "synthetic-title-broken-over-two-lines")
    assert first["title"] == "Synthetic: a title broken over two lines"
    assert "First line.\nSecond line" in str(first["detailed"])  # free text keeps its lines
    # one work reporting two studies: two records, each naming the other
    assert (
        "sheet.csv:6: the same title as synthetic-one-study-two (line 5): kept as separate records"
        in out
    )
    assert list(_record(root, "synthetic-one-study-two")["not_duplicate_of"]) == [
        "synthetic-one-study-two-2"
    ]
    assert list(_record(root, "synthetic-one-study-two-2")["not_duplicate_of"]) == [
        "synthetic-one-study-two"
    ]
    # the same row twice: merged into the first, which says so
    assert (
        "sheet.csv:8: the same title as synthetic-listed-twice (line 7): one work listed twice; merged"
        in out
    )
    merged = _record(root, "synthetic-listed-twice")
    assert merged["detailed"] == "Its note." and "line 8 of sheet.csv is the same work" in str(
        merged["notes"]
    )
    assert not (root / "corpus" / "synthetic-listed-twice-2.yaml").exists()


def test_an_arxiv_id_on_two_titles_stays_with_the_first(tmp_path: Path) -> None:
    root, out = _init(
        tmp_path,
        "title,links\n"
        '"Synthetic: the right paper","https://arxiv.org/abs/2401.00001"\n'
        '"Synthetic: another paper","https://example.org/other ; https://arxiv.org/abs/2401.00001"\n',
        "--list",
        "links=;",
    )
    assert (
        "the same arXiv id 2401.00001 as synthetic-right-paper (line 2) on another title; kept on"
        in out
    )
    other = _record(root, "synthetic-another-paper")
    assert other["links"] == ["https://example.org/other"] and "identifiers" not in other
    assert "2401.00001" in str(other["notes"]) and "synthetic-right-paper" in str(other["notes"])


def test_set_authors_stores_one_name_each_or_refuses(tmp_path: Path) -> None:
    root, _ = _init(
        tmp_path,
        "title,authors,url\nSynthetic: seed,Jane Doe and John Roe,https://example.org/s/9\n",
    )
    res = run(
        root,
        "add",
        "--set",
        "title=Synthetic: typed by hand",
        "--set",
        "authors=Doe, Jane; Roe, John",
        "--set",
        "links=https://example.org/s/10",
        "--key",
        "typed",
    )
    assert res.exit_code == 0, res.output
    assert _record(root, "typed")["authors"] == ["Doe, Jane", "Roe, John"]
    res = run(
        root,
        "add",
        "--set",
        "title=Synthetic: ambiguous",
        "--set",
        "authors=Doe, Jane, Roe, John",
        "--set",
        "links=https://example.org/s/11",
        "--key",
        "ambiguous",
    )
    assert res.exit_code != 0 and "separate names with ';'" in res.output
    assert not (root / "corpus" / "ambiguous.yaml").exists()


def test_validate_flags_author_lists_that_cannot_be_right(tmp_path: Path) -> None:
    root, _ = _init(
        tmp_path,
        "title,authors,url\nSynthetic: seed,Jane Doe and John Roe,https://example.org/s/9\n",
    )
    path = root / "corpus" / "synthetic-seed.yaml"
    text = path.read_text(encoding="utf-8").replace(
        "- Jane Doe\n- John Roe\n", "- Doe\n- Jane\n- Roe\n- John\n"
    )
    path.write_text(text, encoding="utf-8")
    res = run(root, "validate")
    assert (
        res.exit_code == 1
        and "4 one-word names look like 'Last, First' names split at their commas" in res.output
    )
    path.write_text(
        text.replace("- Doe\n- Jane\n- Roe\n- John\n", "- Jane Doe; John Roe\n"), encoding="utf-8"
    )
    res = run(root, "validate")
    assert res.exit_code == 1 and "holds several names joined by ';'" in res.output


def test_an_excel_workbook_is_read_as_its_first_sheet(tmp_path: Path) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Study", "Title", "Year", "DOI"])
    ws.append([1, "Synthetic: a title\nwith a break", 2021, "10.5555/synthetic.1"])
    ws.append([2, "Synthetic: one work, two studies", 2020, "https://doi.org/10.5555/synthetic.2"])
    ws.append([3, "Synthetic: one work, two studies", 2020, "10.5555/synthetic.2"])
    source = tmp_path / "review.xlsx"
    wb.save(source)
    root = tmp_path / "survey"
    res = run(tmp_path, "init", str(root), "--from", str(source), "--title", "Synthetic Review")
    assert res.exit_code == 0, res.output
    assert "review.xlsx:2: Title: line breaks in a one-line field became spaces" in res.output
    assert run(root, "validate").exit_code == 0
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert (
        "- [Synthetic: a title with a break](https://doi.org/10.5555/synthetic.1)" in readme
    )  # its DOI links it
    assert _record(root, "synthetic-one-work-two-studies")["year"] == 2020


def test_a_bibtex_key_given_twice_is_read_twice_then_settled(tmp_path: Path) -> None:
    source = tmp_path / "refs.bib"
    source.write_text(
        "@article{doe2020, title = {Synthetic: the first work}, year = 2020, doi = {10.5555/syn.1}}\n"
        "@inproceedings{doe2020, title = {Synthetic: another work}, year = 2021}\n"
        "@article{roe2019, title = {Synthetic: the first work}, year = 2020, doi = {10.5555/syn.1}}\n",
        encoding="utf-8",
    )
    root = tmp_path / "survey"
    res = run(tmp_path, "init", str(root), "--from", str(source), "--title", "Synthetic Refs")
    assert res.exit_code == 0, res.output
    assert (
        "refs.bib:2: key 'doe2020' appears twice; read under the key with -2 after it" in res.output
    )
    assert "one work listed twice; merged into doe2020" in res.output  # roe2019 repeats doe2020
    assert sorted(p.stem for p in (root / "corpus").glob("*.yaml")) == ["doe2020", "doe2020-2"]
    assert _record(root, "doe2020-2")["entry_type"] == "inproceedings"
    assert run(root, "validate").exit_code == 0
