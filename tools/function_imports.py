"""List the imports written inside functions of the package, with the reason each gives.

An import statement inside a function counts, and so does a call of ``require_extra`` (the
library of an optional extra, imported when a command needs it).

A function-level import is kept only for a heavy optional library (pandas, scikit-learn,
openpyxl, pyarrow, ...) whose import would slow every command or fail without its extra; its
reason is a comment on the import's line or on the lines just above it. Everything else is
imported at the top of its module, where a reader sees what the module depends on.
``tests/unit/architecture/test_function_imports.py`` holds the package to this.

    python3 tools/function_imports.py [PACKAGE_DIR]   # one line per import, then the count
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "survey_tools"
# The most function-level imports the package may hold (issue 47).
LIMIT = 15


@dataclass(frozen=True)
class FunctionImport:
    path: str
    line: int
    function: str
    modules: tuple[str, ...]
    reason: str  # the comment that says why, or ""

    def __str__(self) -> str:
        why = self.reason or "NO REASON GIVEN"
        return f"{self.path}:{self.line}: {self.function}: {', '.join(self.modules)}  # {why}"


def _modules(node: ast.Import | ast.ImportFrom) -> tuple[str, ...]:
    if isinstance(node, ast.Import):
        return tuple(a.name for a in node.names)
    return ("." * node.level + (node.module or ""),)


def _reason(lines: list[str], line: int) -> str:
    """The comment on the import's line, else the comment lines right above it."""
    own = lines[line - 1]
    if "#" in own:
        return own.split("#", 1)[1].strip()
    above: list[str] = []
    i = line - 2
    while i >= 0 and lines[i].strip().startswith("#"):
        above.insert(0, lines[i].strip().lstrip("#").strip())
        i -= 1
    return " ".join(above)


def _is_require_extra(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "require_extra"
    )


def _walk(node: ast.AST, function: str, lines: list[str], rel: str) -> list[FunctionImport]:
    found: list[FunctionImport] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            found += _walk(child, child.name, lines, rel)
        elif isinstance(child, ast.ClassDef):
            found += _walk(child, function, lines, rel)
        elif isinstance(child, ast.Import | ast.ImportFrom) and function:
            found.append(
                FunctionImport(
                    rel, child.lineno, function, _modules(child), _reason(lines, child.lineno)
                )
            )
        elif function and _is_require_extra(child):
            # survey_tools.extras.require_extra imports an extra's library: an import too
            assert isinstance(child, ast.Call)
            names = tuple(a.value for a in child.args[1:] if isinstance(a, ast.Constant))
            found.append(
                FunctionImport(
                    rel,
                    child.lineno,
                    function,
                    tuple(map(str, names)),
                    _reason(lines, child.lineno) or "require_extra",
                )
            )
            found += _walk(child, function, lines, rel)
        else:
            found += _walk(child, function, lines, rel)
    return found


def function_imports(package: Path = PACKAGE) -> list[FunctionImport]:
    """Every import statement inside a function of the package, in file order."""
    found: list[FunctionImport] = []
    for path in sorted(package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(package.parent).as_posix()
        found += _walk(ast.parse(text, str(path)), "", text.splitlines(), rel)
    return found


def main() -> None:
    package = Path(sys.argv[1]) if len(sys.argv) > 1 else PACKAGE
    found = function_imports(package)
    for f in found:
        print(f)
    print(
        f"{len(found)} imports inside functions (limit {LIMIT}); "
        f"{sum(1 for f in found if not f.reason)} without a reason"
    )


if __name__ == "__main__":
    main()
