"""The Markdown list reader on the item styles real lists use (tests/data/markdown-lists/*.md):
each file's entries, title and prose parts, one line each, must equal its ``.expected`` file.
Regenerate an expected file only after reading the difference: ``python3 -m
tests.init.test_markdown_lists FILE.md > FILE.expected``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from survey_tools.adopt.markdown_list import read_markdown
from survey_tools.cli import cli

CASES = Path(__file__).resolve().parents[2] / "data" / "markdown-lists"


def describe(text: str) -> str:
    found = read_markdown(text)
    lines = [
        f"title: {found.title}",
        f"description: {found.description}",
        f"sections: {' / '.join(found.sections)}",
        f"prose: {' / '.join(h or '(intro)' for h, _ in found.prose)}",
    ]
    for e in found.entries:
        lines.append(
            " | ".join(
                [
                    str(e.line),
                    e.title,
                    " ".join(e.links),
                    e.code,
                    e.project,
                    e.date,
                    e.year,
                    e.venue,
                    "; ".join(e.authors),
                    " / ".join(e.sections),
                    " ".join(e.description),
                ]
            )
        )
    lines += [f"merged: {m}" for m in found.merged]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("case", sorted(CASES.glob("*.md")), ids=lambda p: p.stem)
def test_entries_as_expected(case: Path) -> None:
    assert describe(case.read_text(encoding="utf-8")) == case.with_suffix(".expected").read_text(
        encoding="utf-8"
    )


def test_a_work_under_two_headings_is_one_entry_with_both_sections() -> None:
    found = read_markdown(
        "# L\n\n## A\n\n- **Synthetic: one work** [[paper](https://example.org/1)]\n\n"
        "## B\n\n- [Synthetic: one work](https://example.org/1)\n"
    )
    assert [(e.title, e.sections) for e in found.entries] == [("Synthetic: one work", ["A", "B"])]


def test_prose_is_kept_as_written() -> None:
    text = "# L\n\nOur *own* words.\n\n## A\n\n- [Synthetic: w](https://example.org/w)\n\n## How to cite\n\n```\n@misc{x}\n```\n"
    found = read_markdown(text)
    assert found.prose == [("", "Our *own* words."), ("How to cite", "```\n@misc{x}\n```")]


if __name__ == "__main__":
    sys.stdout.write(describe(Path(sys.argv[1]).read_text(encoding="utf-8")))


def test_loose_items_under_an_emoji_heading_are_all_adopted(tmp_path: Path) -> None:
    # A heading's emoji joined by U+200D: the import removes the invisible joiner from the rows,
    # so the section value the taxonomy infers must be the same text, or every row is left out.
    out = tmp_path / "list"
    args = ["init", str(out), "--from", str(CASES / "loose-items.md"), "--title", "Loose"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "left out" not in result.output
    assert len(list((out / "corpus").glob("*.yaml"))) == 4
    check = CliRunner().invoke(cli, ["--root", str(out), "validate"])
    assert check.exit_code == 0, check.output
