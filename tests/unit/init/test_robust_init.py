"""`survey init --from` on real-world trouble: hostile files give one clear error and write
nothing; a list with bad rows is imported as far as it can be, every row's problems listed at
once and the result valid; --root is honoured; --dry-run prints the mapping and writes nothing;
a year that contradicts the arXiv id is a warning with a per-record waiver."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.init_support import FIXTURES, run

from survey_tools.adopt.init import parse_lists, short_title, title_case

PORTS = FIXTURES / "ports"


def _init(tmp_path: Path, source: Path, *args: str) -> tuple[Path, str, int]:
    root = tmp_path / "survey"
    res = run(tmp_path, "init", str(root), "--from", str(source), *args)
    return root, res.output, res.exit_code


def _nothing_written(tmp_path: Path, root: Path) -> None:
    assert not root.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".survey.init-")]  # no staging left


@pytest.mark.parametrize(("name", "content", "message"), [
    ("empty.csv", b"", "empty.csv:1: the file is empty"),
    ("blank.yaml", b"\n\n", "blank.yaml:1: the file is empty"),
    ("binary.csv", b"id,title\n\x00\x01\x02\xff", "binary.csv:2: contains NUL bytes: a binary file, not a list"),
    ("latin1.csv", "id,title\n1,caf\xe9\n".encode("latin-1"), "latin1.csv:2: not valid UTF-8 (byte 0xe9)"),
    ("mapping.yaml", b"title: one\nyear: 2020\n", "mapping.yaml:1: the YAML file is a mapping, not a list of entries"),
    ("scalar.yaml", b"just text\n", "scalar.yaml:1: the YAML file holds a str, not a list of entries"),
    ("strings.yaml", b"- one\n- two\n", "strings.yaml:1: entry 1 is a str, not a mapping of fields"),
    ("object.json", b'{"a": 1, "b": 2}', "object.json:1: the JSON file is a mapping, not a list of entries"),
    ("broken.json", b'[{"title": "x"},\n {"title": ]', "broken.json:2: not valid JSON: Expecting value"),
    ("broken.jsonl", b'{"title": "x"}\n{title}\n', "broken.jsonl:2: not valid JSON"),
    ("nothing.md", b"# A list\n\nJust prose.\n", "nothing.md:1: no entries"),
    ("broken.bib", b"@article{a,\n title = {x}\n\n", "broken.bib:1: no BibTeX entries"),
    ("list.txt", b"a,b\n", "list.txt: cannot tell the format from the file name"),
])
def test_hostile_files_write_nothing(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    source = tmp_path / name
    source.write_bytes(content)
    root, out, code = _init(tmp_path, source)
    assert code in (1, 2), out
    assert message in out, out
    _nothing_written(tmp_path, root)


def test_ten_thousand_columns(tmp_path: Path) -> None:
    source = tmp_path / "wide.csv"
    source.write_text(",".join(f"c{i}" for i in range(10_000)) + "\n" + ",".join("x" for _ in range(10_000)) + "\n")
    root, out, code = _init(tmp_path, source)
    assert code == 1 and "wide.csv:1: 10,000 columns; the limit is 500" in out
    _nothing_written(tmp_path, root)


def test_a_hundred_megabyte_cell_is_refused_by_size(tmp_path: Path) -> None:
    source = tmp_path / "huge.csv"
    with source.open("wb") as f:
        f.write(b"title,notes\nSynthetic: big,")
        f.seek(100 * 1024 * 1024)
        f.write(b"x\n")  # a sparse file: 100 MB on paper, nothing read
    root, out, code = _init(tmp_path, source)
    assert code == 1 and "huge.csv: file is 104,857,6" in out and "the limit is 52,428,800" in out
    _nothing_written(tmp_path, root)


def test_a_large_cell_under_the_file_limit(tmp_path: Path) -> None:
    source = tmp_path / "cell.csv"
    source.write_text("title,notes\nSynthetic: big," + "x" * 200_000 + "\n")
    root, out, code = _init(tmp_path, source)
    assert code == 1 and "cell.csv:2: notes: cell of 200,000 characters; the limit is 100,000" in out
    _nothing_written(tmp_path, root)


def test_a_five_thousand_digit_year(tmp_path: Path) -> None:
    source = tmp_path / "years.csv"
    source.write_text("title,year\nSynthetic: one,2020\nSynthetic: two,2021\nSynthetic: three," + "9" * 5000 + "\n")
    root, out, code = _init(tmp_path, source)
    assert code == 0, out
    line = next(ln for ln in out.splitlines() if ln.startswith("warning: years.csv:4:"))
    assert "year" in line and len(line) < 300  # named, not printed whole
    # the row is kept, its year moved to the record's private import_notes
    assert "moved to import_notes" in line
    assert len(list((root / "corpus").glob("*.yaml"))) == 3
    assert run(root, "validate").exit_code == 0


def test_every_problem_of_every_row_at_once(tmp_path: Path) -> None:
    source = tmp_path / "bad.csv"
    source.write_text("id,title,year,link\n"
                      "a1,Synthetic: first,2020,https://example.org/synthetic/a1\n"
                      "a 2,Synthetic: second,20x0,https://example.org/synthetic/a2\n"
                      "a3,Synthetic: third,1850,https://example.org/synthetic/a3\n"
                      "a1,Synthetic: fourth,2022,https://example.org/synthetic/a4\n")
    root, out, code = _init(tmp_path, source)
    assert code == 0, out  # init never refuses the list for its rows: it says what it left out
    assert "bad.csv:3: id: 'a 2' cannot name a file; imported as 'a-2'" in out
    assert "bad.csv:5: id: 'a1' appears twice (first on line 2); imported as 'a1-2'" in out
    assert "bad.csv:3: year:" in out and "bad.csv:4: year: year 1850 is not plausible" in out
    # every row a record: the years no field can hold are in import_notes, the repeated key renamed
    assert sorted(p.stem for p in (root / "corpus").glob("*.yaml")) == ["a-2", "a1", "a1-2", "a3"]
    assert run(root, "validate").exit_code == 0


def test_rows_alike_are_merged_or_linked_and_a_rerun_with_distinct_titles_declares_them(tmp_path: Path) -> None:
    source = tmp_path / "list.csv"
    source.write_text((PORTS / "messy.csv").read_text(encoding="utf-8"))
    root, out, code = _init(tmp_path, source, "--controlled", "HRI type")  # identical titles
    assert code == 0, out
    assert "kept as separate records, each naming the other in not_duplicate_of" in out
    text = (root / "corpus" / "synthetic-placeholder-study-shared-workspaces.yaml").read_text(encoding="utf-8")
    assert "not_duplicate_of:\n  synthetic-placeholder-study-shared-workspaces-2: another row of list.csv" in text
    assert run(root, "validate").exit_code == 0
    root2 = tmp_path / "again"
    res = run(tmp_path, "init", str(root2), "--from", str(source), "--controlled", "HRI type", "--distinct-titles")
    assert res.exit_code == 0, res.output
    assert len(list((root2 / "corpus").glob("*.yaml"))) == 12
    text = (root2 / "corpus" / "synthetic-placeholder-study-shared-workspaces.yaml").read_text(encoding="utf-8")
    assert "not_duplicate_of:\n  synthetic-placeholder-study-shared-workspaces-2: a separate entry" in text


def test_init_into_an_existing_folder_keeps_its_files(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "NOTES.txt").write_text("kept\n")
    (root / "CONTRIBUTING.md").write_text("mine\n")
    res = run(tmp_path, "init", str(root), "--from", str(PORTS / "entries.yaml"), "--distinct-titles")
    assert res.exit_code == 2 and "already has CONTRIBUTING.md" in res.output
    assert sorted(p.name for p in root.iterdir()) == ["CONTRIBUTING.md", "NOTES.txt"]
    (root / "CONTRIBUTING.md").unlink()
    res = run(tmp_path, "init", str(root), "--from", str(PORTS / "entries.yaml"), "--distinct-titles")
    assert res.exit_code == 0, res.output
    assert (root / "NOTES.txt").read_text() == "kept\n" and (root / "README.md").is_file()


def test_root_option_is_the_default_folder(tmp_path: Path) -> None:
    root = tmp_path / "elsewhere"
    res = run(root, "init", "--from", str(PORTS / "refs.bib"), "--title", "Graph Drawing")
    assert res.exit_code == 0, res.output
    assert (root / "taxonomy" / "survey.yaml").is_file()
    assert run(root, "validate").exit_code == 0


def test_dry_run_prints_the_mapping_and_writes_nothing(tmp_path: Path) -> None:
    root, out, code = _init(tmp_path, PORTS / "messy.csv", "--controlled", "Quantitative (separable conditions, Y/N)",
                            "--list", "Robot=, ", "--dry-run")
    assert code == 0, out
    assert "messy.csv: csv, 12 entries, 9 columns" in out
    assert "'column 1' -> column_1 (integer)" in out
    assert "'Authors' -> authors (string_list, list split on '; ')" in out
    assert "'Links' -> links (url_list, list split on '\\n')" in out
    assert "'Quantitative (separable conditions, Y/N)' -> quantitative_separable_conditions_y_n (controlled, 2 values" in out
    assert "'key' -> key (key, required) (made from the titles)" in out
    assert "warning: column 1 has no header: it is named 'column 1'" in out
    assert "messy.csv:11: the same title as synthetic-placeholder-study-shared-workspaces (line 9)" in out  # reported...
    assert "1 warning above; nothing written (--dry-run)" in out
    _nothing_written(tmp_path, root)  # ...and nothing is written
    root, out, code = _init(tmp_path, PORTS / "messy.csv", "--distinct-titles", "--dry-run")
    assert code == 0 and "12 entries" in out and "nothing written (--dry-run)" in out
    _nothing_written(tmp_path, root)


def test_unknown_column_names_the_nearest(tmp_path: Path) -> None:
    root, out, code = _init(tmp_path, PORTS / "messy.csv", "--controlled", "HRI typ")
    assert code == 2 and "no column 'HRI typ' (did you mean 'HRI type'?) in messy.csv" in out
    _nothing_written(tmp_path, root)


def test_a_year_that_contradicts_the_arxiv_id_is_kept_with_a_waiver(tmp_path: Path) -> None:
    source = tmp_path / "years.csv"
    # the arXiv-style ids here are made up for the test; only their year prefix matters
    source.write_text("title,year,url\n"
                      "Synthetic: a journal version,2024,https://arxiv.org/abs/1701.00001\n"
                      "Synthetic: a fitting year,2017,https://arxiv.org/abs/1702.00002\n")
    root, out, code = _init(tmp_path, source)
    assert code == 0, out
    assert "warning: years.csv:2: year: 2024 does not fit arXiv id 1701.00001 (issued 2017); kept, " \
           "with a waiver in the record's 'waive' field" in out
    text = (root / "corpus" / "synthetic-journal-version.yaml").read_text(encoding="utf-8")
    assert "waive:\n  year_fits_arxiv: the source list gives 2024; the arXiv id 1701.00001 was issued in 2017" in text
    assert run(root, "validate").exit_code == 0
    # without the waiver, validation names the disagreement
    p = root / "corpus" / "synthetic-journal-version.yaml"
    p.write_text("".join(ln for ln in text.splitlines(keepends=True) if "waive" not in ln and "year_fits" not in ln))
    res = run(root, "validate")
    assert res.exit_code == 1 and "2024 does not fit arXiv id 1701.00001" in res.output


def test_list_option_names_may_hold_commas_colons_and_equals() -> None:
    assert parse_lists(["Quantitative (separable conditions, Y/N)=;", "a:b=|", "Tags:; "]) == {
        "Quantitative (separable conditions, Y/N)": ";", "a:b": "|", "Tags": "; "}


def test_short_title_is_never_a_phrase_cut_off() -> None:
    assert short_title("Synthetic Hand-over Studies") == "Synthetic Hand-over Studies"
    assert short_title("Synthetic Agents: A Survey of Planning, Memory and Tool Use in the Wild") == "Synthetic Agents"
    long = "A Synthetic Survey of Large Language Model Based Autonomous Agents in the Wild"
    assert short_title(long) == long  # no short part: the whole title, never "... Autonomous"


def test_title_case_keeps_acronyms() -> None:
    assert title_case("HRI studies in the wild") == "HRI Studies in the Wild"
    assert title_case("hand-over studies") == "Hand-Over Studies"


def test_near_identical_titles_and_shared_links_are_reported_then_declarable(tmp_path: Path) -> None:
    source = tmp_path / "alike.csv"
    source.write_text("title,url\n"
                      "Synthetic: Learning to schedule jobs on clusters,https://example.org/synthetic/j1\n"
                      "Synthetic: Learning to schedule jobs on clusters II,https://example.org/synthetic/j2\n"
                      "Synthetic: an unrelated placeholder,https://arxiv.org/abs/1703.00003\n"
                      "Synthetic: another study of the same work,https://arxiv.org/abs/1703.00003\n")
    root, out, code = _init(tmp_path, source)
    assert code == 0, out
    assert "alike.csv:3: a title nearly the same as synthetic-learning-schedule-jobs-clusters (line 2): kept as " \
           "separate records" in out
    assert "alike.csv:5: the same arXiv id 1703.00003 as synthetic-unrelated-placeholder (line 4) on another title" in out
    assert run(root, "validate").exit_code == 0
    root2 = tmp_path / "declared"
    res = run(tmp_path, "init", str(root2), "--from", str(source), "--distinct-titles")
    assert res.exit_code == 0, res.output
    assert run(root2, "validate").exit_code == 0


def test_url_separator_does_not_depend_on_the_hash_seed() -> None:
    """A column separating URLs with a space in one cell and a comma in another gets one
    separator whatever PYTHONHASHSEED is."""
    import os
    import subprocess
    import sys

    code = (
        "from survey_tools.adopt.init import _url_separator\n"
        "print(repr(_url_separator(['https://a.org/1 https://b.org/2', 'https://c.org/3,https://d.org/4'])))\n"
    )
    seen = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout.strip()
        for seed in range(6)
    }
    assert seen == {"', '"}
