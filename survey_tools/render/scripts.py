"""The page scripts: small ES modules under ``templates/site/js/`` joined into one inline script.

The modules are real ES modules (node's test runner imports them, eslint lints them); the pages
stay self-contained and work from ``file://`` (where a browser refuses module scripts), so the
build joins a module and everything it imports, dependencies first, into one function scope:
``import`` lines are dropped and ``export`` keywords removed. The modules therefore follow two
rules, checked here: imports are single-line ``import { a, b } from "./x.mjs";`` statements, and
no two modules of one bundle declare the same top-level name.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

_IMPORT = re.compile(r'^import \{([^}]*)\} from "\./([a-z0-9_-]+\.mjs)";\s*$')
_EXPORT = re.compile(r"^export (?=(?:async )?function |const |let |class )")
_TOP = re.compile(r"^(?:export )?(?:async )?(?:function\*? |const |let |class )([A-Za-z_$][\w$]*)", re.M)


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


def top_level_names(name: str) -> list[str]:
    """Names a module declares at its top level (functions, constants, variables, classes)."""
    return _TOP.findall(_source(name))


@lru_cache(maxsize=8)
def bundle(entry: str) -> str:
    """One script: the modules ``entry`` needs, dependencies first, in one strict function."""
    order = _order(entry)
    seen: dict[str, str] = {}
    parts = []
    for name in order:
        for top in top_level_names(name):
            if top in seen:
                raise ValueError(f"page script modules {seen[top]} and {name} both declare {top!r}")
            seen[top] = name
        body = [_EXPORT.sub("", line) for line in _source(name).splitlines() if not _IMPORT.match(line)]
        parts.append(f"// --- {name}\n" + "\n".join(body).strip("\n"))
    return "(function () {\n\"use strict\";\n" + "\n\n".join(parts) + "\n})();\n"
