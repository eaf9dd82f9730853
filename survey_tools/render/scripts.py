"""The page scripts: small ES modules under ``templates/site/js/`` joined into one inline script.

The modules are real ES modules (node's test runner imports them, eslint lints them); the pages
stay self-contained and work from ``file://`` (where a browser refuses module scripts), so the
build joins a module and everything it imports, dependencies first, into one function scope:
``import`` lines are dropped and ``export`` keywords removed. The modules therefore follow three
rules, checked here: imports are single-line ``import { a, b } from "./x.mjs";`` statements, a
module imports only names the other module exports (in one scope a missing export would go
unnoticed), and no two modules of one bundle declare the same top-level name (every name of
``const a = 1, b = 2;`` counts).
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

_IMPORT = re.compile(r'^import \{([^}]*)\} from "\./([a-z0-9_-]+\.mjs)";\s*$')
_EXPORT = re.compile(r"^export (?=(?:async )?function |const |let |class )")
_TOP = re.compile(r"^(export )?(?:async )?(?:function\*? |class |(const |let ))([A-Za-z_$][\w$]*)")
_NEXT = re.compile(r"\s*([A-Za-z_$][\w$]*)\s*=(?!=)")
_OPEN, _CLOSE = "([{", ")]}"


def _source(name: str) -> str:
    return resources.files("survey_tools.render").joinpath("templates", "site", "js", name).read_text(encoding="utf-8")


def _order(entry: str) -> list[str]:
    """``entry`` and the modules it imports, each after everything it imports."""
    out: list[str] = []
    visiting: set[str] = set()

    def visit(name: str) -> None:
        if name in out:
            return
        if name in visiting:
            raise ValueError(f"page script modules import each other in a cycle through {name}")
        visiting.add(name)
        for line in _source(name).splitlines():
            m = _IMPORT.match(line)
            if m:
                visit(m.group(2))
            elif line.startswith("import "):
                raise ValueError(f"{name}: write imports as `import {{ a, b }} from \"./x.mjs\";` on one line: {line!r}")
        visiting.discard(name)
        out.append(name)

    visit(entry)
    return out


def _more_declarators(rest: str) -> list[str]:
    """The names after the first of ``const a = 1, b = f(x, y), c = "d, e";``: each one follows a
    comma outside brackets and strings."""
    names: list[str] = []
    depth, quote, i = 0, "", 0
    while i < len(rest):
        ch = rest[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
        elif ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif ch == "," and depth == 0:
            m = _NEXT.match(rest, i + 1)
            if m:
                names.append(m.group(1))
        i += 1
    return names


def _declarations(name: str) -> list[tuple[str, bool]]:
    """(name, exported) for every name a module declares at its top level."""
    out: list[tuple[str, bool]] = []
    for line in _source(name).splitlines():
        m = _TOP.match(line)
        if m:
            exported = bool(m.group(1))
            out.append((m.group(3), exported))
            if m.group(2):
                out.extend((more, exported) for more in _more_declarators(line[m.end():]))
    return out


def top_level_names(name: str) -> list[str]:
    """Names a module declares at its top level (functions, constants, variables, classes)."""
    return [top for top, _ in _declarations(name)]


def exported_names(name: str) -> set[str]:
    return {top for top, exported in _declarations(name) if exported}


def _imports(name: str) -> list[tuple[str, list[str]]]:
    """(module, [names]) for each import line of a module."""
    out = []
    for line in _source(name).splitlines():
        m = _IMPORT.match(line)
        if m:
            out.append((m.group(2), [n.strip() for n in m.group(1).split(",") if n.strip()]))
    return out


@lru_cache(maxsize=8)
def bundle(entry: str) -> str:
    """One script: the modules ``entry`` needs, dependencies first, in one strict function."""
    return _join(entry)


def _join(entry: str) -> str:
    order = _order(entry)
    seen: dict[str, str] = {}
    parts = []
    for name in order:
        for top in top_level_names(name):
            if top in seen:
                raise ValueError(f"page script modules {seen[top]} and {name} both declare {top!r}")
            seen[top] = name
        for module, names in _imports(name):
            missing = sorted(set(names) - exported_names(module))
            if missing:
                raise ValueError(f"{name} imports {', '.join(missing)} from {module}, which does not export it")
        body = [_EXPORT.sub("", line) for line in _source(name).splitlines() if not _IMPORT.match(line)]
        parts.append(f"// --- {name}\n" + "\n".join(body).strip("\n"))
    return "(function () {\n\"use strict\";\n" + "\n\n".join(parts) + "\n})();\n"
