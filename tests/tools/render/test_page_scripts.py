"""The page scripts as modules: joined into one inline script per page, each helper written once,
linted by eslint and unit-tested under node's test runner (tests/js/)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from helpers.external_tools import node
from helpers.render_support import REPO

from survey_tools.render import scripts
from survey_tools.render.scripts import _order, bundle, exported_names, top_level_names

JS = REPO / "survey_tools" / "render" / "templates" / "site" / "js"


def test_each_page_gets_one_bundle_with_its_modules_in_dependency_order() -> None:
    assert _order("list.mjs") == [
        "text.mjs", "search.mjs", "hashstate.mjs", "dom.mjs", "data.mjs", "filter.mjs", "order.mjs", "listrow.mjs",
        "rowwindow.mjs", "draw.mjs", "facetview.mjs", "facets.mjs", "summary.mjs", "chips.mjs", "address.mjs",
        "bib.mjs", "bibdialog.mjs", "csv.mjs", "rows.mjs", "download.mjs", "sheet.mjs", "tabs.mjs", "controls.mjs",
        "list.mjs",
    ]
    assert _order("paper.mjs") == ["hashstate.mjs", "dom.mjs", "paper.mjs"]
    for entry in ("list.mjs", "paper.mjs"):
        code = bundle(entry)
        assert code.startswith("(function () {\n\"use strict\";") and code.endswith("})();\n")
        assert not re.search(r"^\s*(import|export)\b", code, re.M)


def test_no_helper_is_written_twice() -> None:
    names: dict[str, str] = {}
    for path in sorted(JS.glob("*.mjs")):
        for name in top_level_names(path.name):
            assert name not in names, f"{name} is declared in {names[name]} and {path.name}"
            names[name] = path.name
    # Every module is small: one job each (the list's entry module wires the others together).
    for path in sorted(JS.glob("*.mjs")):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 200, f"{path.name} has grown: split it"
    # The old single-file scripts are gone.
    assert not (JS.parent / "page.js").exists() and not (JS.parent / "paper.js").exists()


def _modules(monkeypatch: pytest.MonkeyPatch, sources: dict[str, str]) -> None:
    monkeypatch.setattr(scripts, "_source", lambda name: sources[name])


def test_every_name_of_a_declaration_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    _modules(monkeypatch, {"a.mjs": 'export const A = f(1, 2), B = "x, y = 1", C = [1, 2];\nlet d = 0, e = d === 1;\nexport function g() {}\n'})
    assert top_level_names("a.mjs") == ["A", "B", "C", "d", "e", "g"]
    assert exported_names("a.mjs") == {"A", "B", "C", "g"}


def test_the_joiner_refuses_a_name_declared_twice_or_imported_without_export(monkeypatch: pytest.MonkeyPatch) -> None:
    _modules(monkeypatch, {
        "a.mjs": "export const x = 1, y = 2;\nconst hidden = 3;\n",
        "twice.mjs": 'import { x } from "./a.mjs";\nconst z = 1, y = x;\n',
        "private.mjs": 'import { x, hidden } from "./a.mjs";\nexport const w = x + hidden;\n',
        "fine.mjs": 'import { x, y } from "./a.mjs";\nexport const w = x + y;\n',
    })
    with pytest.raises(ValueError, match="a.mjs and twice.mjs both declare 'y'"):
        scripts._join("twice.mjs")
    with pytest.raises(ValueError, match="private.mjs imports hidden from a.mjs, which does not export it"):
        scripts._join("private.mjs")
    assert "const w = x + y;" in scripts._join("fine.mjs")


def test_bundles_parse_in_node() -> None:
    if node() is None:
        pytest.skip("Node.js is not installed: apt-get install -y nodejs npm")
    for entry in ("list.mjs", "paper.mjs"):
        subprocess.run([node(), "--check", "-"], input=bundle(entry), text=True, check=True)


def test_node_unit_tests_pass() -> None:
    if node() is None:
        pytest.skip("Node.js is not installed: apt-get install -y nodejs npm")
    tests = sorted(str(p) for p in (REPO / "tests" / "js").glob("*.test.mjs"))
    assert len(tests) >= 10
    out = subprocess.run([node(), "--test", *tests], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert re.search(r"^# fail 0$", out.stdout, re.M) and not re.search(r"^# pass 0$", out.stdout, re.M)


def test_eslint_is_clean() -> None:
    eslint = REPO / "node_modules" / ".bin" / "eslint"
    if node() is None or not eslint.is_file():
        pytest.skip("eslint is not installed: run `npm ci` at the repository root")
    out = subprocess.run([str(eslint), "--max-warnings", "0", "survey_tools/render/templates/site", "tests/js"], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0, out.stdout + out.stderr


def test_eslint_catches_a_mistake(tmp_path: Path) -> None:
    eslint = REPO / "node_modules" / ".bin" / "eslint"
    if node() is None or not eslint.is_file():
        pytest.skip("eslint is not installed: run `npm ci` at the repository root")
    bad = "export function f(a) {\n  var x = 1;\n  if (a == 2) return y;\n}\n"
    out = subprocess.run([str(eslint), "--stdin", "--stdin-filename", str(JS / "bad.mjs")], input=bad, capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 1
    for rule in ("no-var", "eqeqeq", "no-undef"):
        assert rule in out.stdout
