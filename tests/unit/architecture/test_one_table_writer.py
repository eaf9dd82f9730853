"""One Markdown table writer: only ``survey_tools/reports/tables.py`` writes table syntax.

Every other module builds its rows as data and hands them to ``md_table`` (templates call the
``table`` global), so escaping and the rule line live in one place. The check reads each module's
string literals (f-strings with their placeholders as ``{}``; docstrings are prose and skipped)
and flags a table rule (``| --- |``, ``---:``), a row written as text (``"| a | b |"``,
``f"| {x} | {y} |"``) and a row joined by hand (``" | ".join(...)``), naming file and line.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[3] / "survey_tools"
WRITER = PACKAGE / "reports" / "tables.py"
TEMPLATES = PACKAGE / "render" / "templates"

RULE = re.compile(r"(^|\|)\s*:?-{3,}:?\s*\|")  # "| --- |", "|---:|", "--- |" continuing a rule
ROW = re.compile(r"^\s*\|\s.*\s\|")  # "| a | b |", "| {} | " (a row, or the start of one)
TEMPLATE_RULE = re.compile(r"^\s*\|\s*:?-{3,}")


def _docstrings(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _literals(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, text) of every string literal outside docstrings; f-string placeholders as ``{}``."""
    skip = _docstrings(tree)
    inside_fstring: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                inside_fstring.add(id(v))
                parts.append(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}")
            yield node.lineno, "".join(parts)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in skip and id(node) not in inside_fstring):
            yield node.lineno, node.value


def hand_written_tables(source: str) -> list[tuple[int, str]]:
    """(line, what) for every piece of Markdown table syntax written by hand in ``source``."""
    tree = ast.parse(source)
    found: list[tuple[int, str]] = []
    for line, text in _literals(tree):
        if RULE.search(text):
            found.append((line, f"table rule {text!r}"))
        elif ROW.search(text):
            found.append((line, f"table row {text!r}"))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join"
                and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)):
            sep = node.func.value.value
            if sep.strip() == "|" and sep != "|":  # "|".join is a regex alternation, " | " a row
                found.append((node.lineno, f"cells joined with {sep!r}"))
    return sorted(set(found))


def hand_written_template_tables(text: str) -> list[int]:
    """Lines of a jinja2 template that write a table rule instead of calling ``table(...)``."""
    return [i for i, line in enumerate(text.splitlines(), 1) if TEMPLATE_RULE.match(line)]


def violations(package: Path, writer: Path | None = None) -> list[str]:
    """``file:line: what`` for every hand-written table in the package's modules and templates."""
    out: list[str] = []
    for path in sorted(package.rglob("*.py")):
        if writer is not None and path == writer:
            continue
        rel = path.relative_to(package.parent)
        out += [f"{rel}:{line}: {what}" for line, what in hand_written_tables(path.read_text(encoding="utf-8"))]
    for path in sorted(package.rglob("*.j2")):
        rel = path.relative_to(package.parent)
        out += [f"{rel}:{line}: table rule (use the table global)"
                for line in hand_written_template_tables(path.read_text(encoding="utf-8"))]
    return out


def test_only_the_table_writer_writes_markdown_tables() -> None:
    found = violations(PACKAGE, WRITER)
    assert not found, "Markdown tables written by hand (use reports.tables.md_table):\n" + "\n".join(found)


def test_the_writer_itself_is_what_the_check_recognises() -> None:
    # The check is not vacuous: the one writer does write rules and joined rows.
    whats = [what for _, what in hand_written_tables(WRITER.read_text(encoding="utf-8"))]
    assert any("joined with ' | '" in w for w in whats), whats


def test_the_check_flags_hand_written_tables() -> None:
    source = '''
def report(rows, label, n):
    """A docstring may show a table:

    | a | b |
    | --- | --- |
    """
    out = ["| name | count |",
           "| --- | ---: |"]
    out.append(f"| {label} | {n} |")
    out.append("| " + " | ".join(rows) + " |")
    pattern = "|".join(["a", "b"])
    text = "a | b"
    return md_table(["name", "count"], rows, "lr", pad=False)
'''
    found = hand_written_tables(source)
    assert [line for line, _ in found] == [8, 9, 10, 11], found
    assert "table rule '| --- | ---: |'" in dict(found)[9]
    assert "table row '| {} | {} |'" in dict(found)[10]
    assert dict(found)[11] == "cells joined with ' | '"


def test_the_check_names_file_and_line(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "templates").mkdir()
    (package / "sub" / "clean.py").write_text('x = md_table(["a"], [["1"]])\n', encoding="utf-8")
    (package / "sub" / "bad.py").write_text('x = 1\nrule = "| --- |"\n', encoding="utf-8")
    (package / "templates" / "page.md.j2").write_text("# T\n\n| a |\n|---|\n", encoding="utf-8")
    assert violations(package) == [
        "pkg/sub/bad.py:2: table rule '| --- |'",
        "pkg/templates/page.md.j2:4: table rule (use the table global)",
    ]
    assert hand_written_template_tables('{{ table(["a"], rows, pad=False) }}\n') == []
