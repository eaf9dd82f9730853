"""CONTRIBUTING.md as a contributor reads it on GitHub: parsed with markdown-it-py (the
CommonMark parser), here and in the one `survey init` scaffolds. The web-editor steps are three
separate list items (they once ran together: "...claims it.3. Choose..."), no regular expression
is shown, headings read as English for any survey, and the blank record is YAML that the checks
accept once filled in, with its "may stay empty" lines left as they are."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers.support import run
from markdown_it import MarkdownIt
from markdown_it.token import Token

from survey_tools.corpus.validation import validate_corpus
from survey_tools.corpus.yamlio import parse_yaml

REPO = Path(__file__).resolve().parents[3]


def _tokens(text: str) -> list[Token]:
    return MarkdownIt("commonmark").parse(text)


def _section_items(tokens: list[Token], heading: str) -> list[str]:
    """The inline text of each item of the first ordered list after ``heading``."""
    start = next(
        i
        for i, t in enumerate(tokens)
        if t.type == "inline"
        and t.content.startswith(heading)
        and tokens[i - 1].type == "heading_open"
    )
    open_at = next(i for i in range(start, len(tokens)) if tokens[i].type == "ordered_list_open")
    items: list[str] = []
    depth = 0
    for t in tokens[open_at:]:
        depth += t.nesting if t.type in ("ordered_list_open", "ordered_list_close") else 0
        if t.type == "inline" and t.level == 3:  # list > item > paragraph > inline
            items.append(t.content)
        if depth == 0:
            break
    return items


def _yaml_fences(tokens: list[Token]) -> list[str]:
    return [t.content for t in tokens if t.type == "fence" and t.info.strip() == "yaml"]


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("init") / "code-search"
    res = run(None, "init", str(root), "--title", "Code Search Papers")
    assert res.exit_code == 0, res.output
    return root


def _contributing(which: str, scaffolded: Path) -> str:
    root = REPO if which == "this survey" else scaffolded
    return (root / "CONTRIBUTING.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("which", ["this survey", "survey init"])
def test_the_web_editor_steps_are_three_items(which: str, scaffolded: Path) -> None:
    tokens = _tokens(_contributing(which, scaffolded))
    items = _section_items(tokens, "1. In the browser")
    assert len(items) == 3, items
    assert (
        items[0].startswith("Open ")
        and items[1].startswith("Paste ")
        and items[2].startswith("Choose ")
    )
    for item in items:  # no step swallowed the next one
        assert not re.search(r"\.\s*\d\.\s+[A-Z]", item), item
    # nor anywhere else in the document ("...claims it.3. Choose...")
    run_on = [
        t.content
        for t in tokens
        if t.type == "inline" and re.search(r"[a-z)]\.\d\. [A-Z]", t.content)
    ]
    assert run_on == []


@pytest.mark.parametrize("which", ["this survey", "survey init"])
def test_no_regular_expression_and_headings_read_as_english(which: str, scaffolded: Path) -> None:
    text = _contributing(which, scaffolded)
    tokens = _tokens(text)
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert "The fields of a record in `corpus/`" in headings, headings
    assert not any(h.startswith("Fields of a ") for h in headings)  # "Fields of a entries record"
    # the key's rule in words, not as a pattern (the exclusion ids' pattern is not shown either)
    assert "^[" not in text and "{0,79}" not in text and "{0,99}" not in text


@pytest.mark.parametrize("which", ["this survey", "survey init"])
def test_the_blank_record_is_yaml_with_its_text_quoted(which: str, scaffolded: Path) -> None:
    fences = _yaml_fences(_tokens(_contributing(which, scaffolded)))
    template = fences[0]
    doc = parse_yaml(template, "template.yaml")
    assert doc.problems == [] and isinstance(doc.data, dict)
    assert doc.data["title"] == "" and "may stay empty" in template
    assert re.search(r'(?m)^title: ""', template)  # quoted: a title with ': ' is read as written


def _filled(template: str, key: str) -> str:
    """The template filled in as a contributor would, the "may stay empty" lines left as they are."""
    values = {
        "key": key,
        "title": '"Relay Credit: Passing Team Rewards Along Tool Calls"',
        "year": "2026",
        "venue": '"arXiv"',
        "summary": '"Passes a share of the team reward along the tool calls."',
        "added": '"2026-06-01"',
        "category": "rl_method",
        "is_rl": "'yes'",
        "reward_type": "shared",
        "credit_granularity": "tool",
        "orchestration_form": "centralized",
        "scenario": "coding",
        "is_core": "supporting",
        "verified": "partial",
        "subdecisions": "{}",
    }
    out = []
    for line in template.splitlines():
        name = line.split(":", 1)[0]
        if name in values and not line.startswith((" ", "-", "#")):
            comment = line[line.index("  #") :] if "  #" in line else ""
            line = f"{name}: {values[name]}{comment}"
        line = line.replace("- Last, First", "- Doe, Jane").replace(
            "- https://", "- https://example.org/relay"
        )
        out.append(line)
    # as the template's comment asks: where each tag set was read, one entry per tag (the
    # template shows two; the contributor adds the others the same way)
    for tag in ("reward_type", "credit_granularity", "orchestration_form", "scenario"):
        out += [f"  {tag}:", "    how: paper", '    where: "Section 3.2"']
    return "\n".join(out) + "\n"


def test_the_filled_template_validates_with_its_blank_identifier(survey_dir: Path) -> None:
    template = _yaml_fences(_tokens((REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")))[0]
    assert '  arxiv: ""  # may stay empty' in template
    (survey_dir / "corpus" / "relay-credit.yaml").write_text(
        _filled(template, "relay-credit"), encoding="utf-8"
    )
    problems = [p.format() for p in validate_corpus(survey_dir)]
    assert problems == []


def test_the_template_left_as_it_is_fails_only_on_lines_to_fill(survey_dir: Path) -> None:
    template = _yaml_fences(_tokens((REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")))[0]
    (survey_dir / "corpus" / "blank.yaml").write_text(template, encoding="utf-8")
    lines = template.splitlines()
    problems = [p for p in validate_corpus(survey_dir) if p.file == "corpus/blank.yaml"]
    assert problems
    for p in problems:
        # never a line the comments say may stay empty, and never "expected a list"-style words
        assert "may stay empty" not in lines[p.line - 1], p.format()
        assert "expected a" not in p.message and "must match" not in p.message, p.format()
