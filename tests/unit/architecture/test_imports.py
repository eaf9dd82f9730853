"""The package's import graph, read from the source: no cycles, and click only in the CLI.

Every import counts, module-level and function-level alike, and so does a string naming one
of the package's modules (``importlib.import_module("survey_tools.x")``): a cycle held
together by a late import is still a cycle.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[3] / "survey_tools"


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(name: str, modules: Mapping[str, Path]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imported(node: ast.AST, mod: str, is_package: bool, modules: Mapping[str, Path]) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (a.name for a in node.names)
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            base = mod.split(".") if is_package else mod.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        for alias in node.names:
            sub = f"{prefix}.{alias.name}"
            yield sub if sub in modules else prefix
    elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in modules:
        yield node.value


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (edges to itself and outside left out)."""
    modules = {module_name(p, package): p for p in sorted(package.rglob("*.py"))}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for mod, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            for target in _imported(node, mod, path.name == "__init__.py", modules):
                found = _resolve(target, modules)
                if found is not None and found != mod:
                    graph[mod].add(found)
    return graph


def find_cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Each strongly connected component of more than one module, as one cycle through it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                components.append(_cycle_through(sorted(comp), graph))

    # The package has fewer modules than the default recursion limit: no need to raise it
    # (other tests depend on the default limit).
    assert len(graph) < sys.getrecursionlimit() // 4
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return components


def _cycle_through(component: list[str], graph: Mapping[str, set[str]]) -> list[str]:
    """A concrete cycle inside a strongly connected component, starting at its first module."""
    members = set(component)
    start = component[0]
    # Breadth-first from start back to start, staying inside the component.
    paths = {w: [start, w] for w in sorted(graph[start] & members)}
    frontier = list(paths)
    while start not in paths:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & members):
                if w not in paths:
                    paths[w] = [*paths[v], w]
                    nxt.append(w)
        frontier = nxt
    return paths[start]


def describe(cycle: list[str]) -> str:
    return " -> ".join(m.removeprefix("survey_tools.") for m in cycle)


def test_the_package_has_no_import_cycle() -> None:
    cycles = find_cycles(import_graph())
    assert not cycles, "import cycles:\n" + "\n".join(describe(c) for c in cycles)


def test_cycle_finder_names_a_cycle(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from pkg import c\n")
    (pkg / "c.py").write_text("import importlib\nimportlib.import_module('pkg.a')\n")
    (pkg / "d.py").write_text("from pkg import a\n")
    cycles = find_cycles(import_graph(pkg))
    assert [describe(c) for c in cycles] == ["pkg.a -> pkg.sub.b -> pkg.c -> pkg.a"]


def test_click_is_imported_only_by_the_cli() -> None:
    users = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names] if isinstance(node, ast.Import)
                else [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            )
            if any(n == "click" or n.startswith("click.") for n in names):
                users.append(module_name(path))
    assert users and all(u.startswith("survey_tools.cli") for u in users), users


def test_every_command_module_is_registered() -> None:
    from survey_tools.cli import COMMAND_MODULES, cli

    for module, names in COMMAND_MODULES.items():
        commands = __import__(module, fromlist=["COMMANDS"]).COMMANDS
        assert sorted(c.name for c in commands) == sorted(names), module
    assert set(cli.list_commands(None)) == {n for ns in COMMAND_MODULES.values() for n in ns}  # type: ignore[arg-type]


# The pipeline's stages, lowest first: a module may import its own stage and those below it.
# curate/, adopt/ and review/ (what maintainers run) sit beside build/ and never import
# render/ or build/; scholarly/ (the services' clients) sits on corpus/ and net/;
# traces/ stands alone on the shared base. The package root is the public API (imports all).
LAYERS = {
    "_version": 0, "errors": 0, "fileio": 0, "hashing": 0, "heap": 0, "cachedir": 0, "net": 0, "csvcells": 0, "latex": 0, "slugs": 0,
    "extras": 0, "columns": 0, "schema_words": 0, "hidden": 0,
    "corpus": 1, "traces": 1,
    "reports": 2,
    "render": 3,
    "build": 4, "buildcache": 4, "adopt": 4, "curate": 4, "review": 4, "scholarly": 2,
    "cli": 5, "__main__": 6,
}


def _stage(module: str) -> str:
    return module.split(".")[1] if "." in module else ""


def test_imports_run_one_way() -> None:
    wrong = []
    for mod, deps in sorted(import_graph().items()):
        stage = _stage(mod)
        if not stage:
            continue  # survey_tools/__init__.py: the public API
        assert stage in LAYERS, f"{mod}: a new stage; give it a place in LAYERS"
        for dep in sorted(deps):
            to = _stage(dep)
            if not to or LAYERS[to] > LAYERS[stage] or (stage, to) in {
                ("adopt", "render"), ("curate", "render"), ("review", "render"), ("adopt", "build"), ("curate", "build"), ("review", "build"), ("build", "adopt"), ("build", "curate"), ("build", "review"),
            } or (stage == "traces" and LAYERS[to] > 0 and to != "traces") or (
                to == "traces" and stage not in ("traces", "cli")
            ):
                wrong.append(f"{mod.removeprefix('survey_tools.')} -> {dep.removeprefix('survey_tools.')}")
    assert not wrong, "imports against the pipeline's direction:\n" + "\n".join(wrong)
