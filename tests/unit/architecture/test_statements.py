"""ARCHITECTURE.md's statements that a program can check, each held here (the import layers,
function size and complexity have their own modules beside this one)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
PACKAGE = REPO / "survey_tools"


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_hash_is_made_in_hashing_py() -> None:
    """ "Every hash of the toolkit is made here" (hashing.py): no other module imports hashlib."""
    users = [
        p.relative_to(REPO).as_posix()
        for p in _modules()
        if p.name != "hashing.py" and "hashlib" in _imports(p)
    ]
    assert users == [], f"hash through survey_tools.hashing instead: {users}"


def test_commands_build_no_client_of_the_thin_flows() -> None:
    """`survey init`, `add`, `exclude`, `refresh`, `search` and `screen` call one library
    function each: their command modules import none of what those functions do the work with
    (the list readers, the import, the scholarly clients, the screening decisions' planners)."""
    forbidden = {
        "init.py": (
            "survey_tools.adopt.csvio",
            "survey_tools.adopt.repair",
            "survey_tools.adopt.sources.read_source",
            "survey_tools.corpus.taxonomy",
        ),
        "screening.py": (
            "survey_tools.curate.found",
            "survey_tools.fileio",
            "survey_tools.curate.adding",
            "survey_tools.corpus.taxonomy",  # (Protocol stays: the interactive walk's prompts)
        ),
    }
    for name, banned in forbidden.items():
        found = _imports(PACKAGE / "cli" / name)
        assert not [b for b in banned if b in found], (
            name,
            sorted(b for b in banned if b in found),
        )
    # survey add, exclude and refresh: the clients are built in curate.adding.add,
    # curate.exclusions.exclude and curate.refresh.refresh, not in the command
    tree = ast.parse((PACKAGE / "cli" / "contrib.py").read_text(encoding="utf-8"))
    for name in ("add", "exclude", "refresh_cmd"):
        command = next(
            n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name
        )
        called = {
            n.func.id
            for n in ast.walk(command)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        }
        assert not called & {"ArxivClient", "load_corpus", "load_taxonomy"}, (name, called)


def test_the_public_api_names_the_commands_library_functions() -> None:
    import survey_tools

    for name in (
        "run_build",
        "run_init",
        "run_search",
        "exclude",
        "refresh",
        "add",
        "decide",
        "import_labels",
        "import_found",
        "refresh_schema_files",
    ):
        assert name in survey_tools.__all__
        assert callable(getattr(survey_tools, name)), name


def test_the_taxonomy_commands_have_their_own_module() -> None:
    """validate's module holds validate alone: the taxonomy commands (ruamel.yaml) are in
    cli/taxonomy.py."""
    from survey_tools.cli import COMMAND_MODULES

    assert COMMAND_MODULES["survey_tools.cli.corpus"] == ("validate",)
    assert COMMAND_MODULES["survey_tools.cli.taxonomy"] == ("taxonomy",)
    assert not {
        m
        for m in _imports(PACKAGE / "cli" / "corpus.py")
        if m.startswith(("ruamel", "survey_tools.adopt"))
    }


def test_the_curation_logs_live_in_docs_curation() -> None:
    """docs/ holds guides; the curation logs are in docs/curation/ (docs/README.md says so)."""
    loose = sorted(p.name for p in (REPO / "docs").glob("curation*.md"))
    assert loose == [], f"move {loose} to docs/curation/"
    index = (REPO / "docs" / "README.md").read_text(encoding="utf-8")
    assert "docs/curation/" in (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    for log in sorted((REPO / "docs" / "curation").glob("*.md")):
        assert f"(curation/{log.name})" in index, f"docs/README.md: list {log.name}"
    for guide in sorted((REPO / "docs").glob("*.md")):
        if guide.name != "README.md":
            assert f"({guide.name})" in index, f"docs/README.md: list {guide.name}"


def _reads_a_schema_error(path: Path) -> list[str]:
    """Where ``path`` reads a JSON Schema error by its keyword: jsonschema's ``.validator`` /
    ``.validator_value``, or jsonschema-rs's ``type(err.kind)`` / ``err.kind.__class__``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in ("validator", "validator_value"):
            found.append(f"{path.name}:{node.lineno}: .{node.attr}")
        elif (
            isinstance(node, ast.Attribute)
            and node.attr == "__class__"
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "kind"
        ) or (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "type"
            and node.args
            and isinstance(node.args[0], ast.Attribute)
            and node.args[0].attr == "kind"
        ):
            found.append(f"{path.name}:{node.lineno}: the class of .kind")
    return found


def test_one_explainer_reads_schema_errors() -> None:
    """ "schema_words.py: the one explainer": no other module formats a JSON Schema error by
    its keyword; records, configuration files, traces and trace rules hand their errors to it."""
    readers = {
        p.relative_to(REPO).as_posix(): hits
        for p in _modules()
        if p.name != "schema_words.py" and (hits := _reads_a_schema_error(p))
    }
    assert readers == {}, f"explain schema errors through survey_tools.schema_words: {readers}"
    users = (
        "corpus/checks.py",
        "corpus/configs.py",
        "traces/validate.py",
        "traces/importers/frameworks.py",
    )
    for rel in users:
        assert "survey_tools.schema_words.explain_all" in _imports(PACKAGE / rel), rel
    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert "schema_words.py" in text and "KEYWORDS" in text
    assert "corpus/explain.py" not in text and "explain.py " not in text


_BUILD_NAMES = """
import inspect, sys
{first}
import survey_tools
from survey_tools import build, run_build
import survey_tools.build as module
from survey_tools.build import build as function
assert build is module and run_build is function, (build, run_build)
assert callable(build) and inspect.signature(build) == inspect.signature(function)
try:
    build("/nonexistent/survey")
except Exception as err:
    via_module = (type(err).__name__, str(err))
try:
    function("/nonexistent/survey")
except Exception as err:
    assert via_module == (type(err).__name__, str(err)), via_module
print("ok")
"""


@pytest.mark.parametrize(
    "first", ["", "import survey_tools.build", "from survey_tools import build as early"]
)
def test_the_public_build_is_the_same_in_any_import_order(first: str) -> None:
    """survey_tools' docstring: ``run_build`` is the build function and ``build`` the module
    ``survey_tools.build``, callable as the build, whichever was imported first."""
    code = _BUILD_NAMES.format(first=first)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
