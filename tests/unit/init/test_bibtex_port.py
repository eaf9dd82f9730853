"""A ported list's BibTeX: venue labels (not value ids), entry types by venue, 'Last, First' kept."""

from __future__ import annotations

from pathlib import Path

import bibtexparser
from click.testing import CliRunner

from survey_tools.cli import cli

ROWS = (
    "title,authors,year,venue,url\n"
    'Robots That Listen,"Doe, Jane",2023,RO-MAN 2023,https://example.org/a\n'
    'Grasping in Clutter,"Roe, Richard",2022,IEEE Transactions on Robotics,https://example.org/b\n'
    'A Blog on Arms,"Poe, Edgar",2024,Tech Blog,https://example.org/c\n'
)


def test_ported_bibtex_uses_labels_and_entry_types(tmp_path: Path) -> None:
    src = tmp_path / "list.csv"
    src.write_text(ROWS, encoding="utf-8")
    out = tmp_path / "out"
    args = ["init", str(out), "--from", str(src), "--title", "Robot Papers", "--controlled", "venue"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output + result.stderr
    lib = bibtexparser.parse_string((out / "reports" / "papers.bib").read_text(encoding="utf-8"))
    by_title = {e.fields_dict["title"].value.strip("{}"): e for e in lib.entries}
    robots = by_title["Robots That Listen"]
    assert robots.entry_type == "inproceedings"
    assert robots.fields_dict["booktitle"].value == "RO-MAN 2023"  # the label, not ro_man_2023
    assert robots.fields_dict["author"].value == "Doe, Jane"  # one author, not two
    grasp = by_title["Grasping in Clutter"]
    assert (grasp.entry_type, grasp.fields_dict["journal"].value) == ("article", "IEEE Transactions on Robotics")
    assert by_title["A Blog on Arms"].entry_type == "misc"
