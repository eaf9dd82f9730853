"""Write docs/trace-formats.md's table of the framework rows from rules.yaml (one line a row).

    python3 tools/rules_table.py [--check]

The table sits under the heading line ``| family | the habit | ...`` and ends at the first
line that is not a table row. ``--check`` exits 1 when the docs' table is not the one the
rows give (tests/unit/traces/test_trace_auto.py checks every row is listed).
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from survey_tools.traces.importers.frameworks import RULES, Rule  # noqa: E402

DOC = REPO / "docs" / "trace-formats.md"
HEAD = "| family | the habit | matches | on spans of kind | says |"


def _code(text: str) -> str:
    return "`" + text.replace("|", "\\|") + "`"


def _sources(srcs: tuple[str, ...]) -> str:
    return ", ".join(_code(s) for s in srcs)


def row(r: Rule) -> str:
    says = [f"kind `{r.kind}`"] if r.kind else []
    if r.agent:
        says.append(f"agent from {_sources(r.agent)}")
    if r.target:
        says.append(f"hand-off to {_sources(r.target)}")
    if r.tool:
        says.append(f"tool from {_sources(r.tool)}")
    if r.tokens_in or r.tokens_out:
        says.append(f"tokens from {_sources(r.tokens_in + r.tokens_out)}")
    kinds = ", ".join(r.kinds) if r.kinds else "any"
    why = r.why.replace("|", "\\|")
    return (
        f"| {r.family} | {why} | {_code(r.on)} ~ {_code(r.match)} | {kinds} | {'; '.join(says)} |"
    )


def render(text: str) -> str:
    lines = text.split("\n")
    at = lines.index(HEAD)
    end = at + 2
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return "\n".join([*lines[: at + 2], *(row(r) for r in RULES), *lines[end:]])


def main(argv: list[str]) -> int:
    text = DOC.read_text(encoding="utf-8")
    new = render(text)
    if "--check" in argv:
        return 0 if new == text else 1
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
