"""Write (or --check) .gitattributes from the build's own list of outputs.

Every file `survey build` writes is marked ``linguist-generated=true`` (GitHub folds it in pull
requests and leaves it out of language statistics) and ``merge=survey-generated``: a merge never
stops on a generated file, because main regenerates all of them after the merge. With the merge
driver configured (``git config merge.survey-generated.driver true``, which keeps the current
branch's copy) two branches that both committed outputs merge cleanly; pull requests made as
CONTRIBUTING describes carry no outputs at all.

The list comes from ``build.plan_build`` (the registry of generators run in memory) plus the
folders the build owns outright, so a new generator cannot be forgotten:
``python3 tools/gitattributes.py --check`` fails when the file is not what this script writes, and
tests/acceptance/github checks with ``git check-attr`` that every output carries both attributes.

    python3 tools/gitattributes.py [--root DIR] [--check]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from survey_tools.build import OWNED_DIRS, plan_build
from survey_tools.fileio import atomic_write

ATTRS = "linguist-generated=true merge=survey-generated"
HEADER = """\
# Written by tools/gitattributes.py from the outputs of `survey build`: do not edit by hand.
# Generated files are folded in pull-request diffs (linguist-generated) and never stop a merge
# (merge=survey-generated; configure the driver with
#   git config merge.survey-generated.driver true
# to keep the current branch's copy): main regenerates every output after each merge.
"""


def patterns(root: Path) -> list[str]:
    """One pattern per output file, or per folder the build owns (its files vary with the records)."""
    outputs = plan_build(root).outputs
    owned = [d for d in OWNED_DIRS if any(rel.startswith(d + "/") for rel in outputs)]
    single = [rel for rel in outputs if not any(rel.startswith(d + "/") for d in owned)]
    return sorted([*(f"/{d}/**" for d in owned), *(f"/{rel}" for rel in single)])


def render(root: Path) -> str:
    lines = [f"{p} {ATTRS}" for p in patterns(root)]
    return HEADER + "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, default=Path("."))
    ap.add_argument("--check", action="store_true", help="fail when .gitattributes is not up to date")
    args = ap.parse_args(argv)
    text = render(args.root)
    target = args.root / ".gitattributes"
    if args.check:
        current = target.read_text(encoding="utf-8") if target.exists() else ""
        if current != text:
            print(f"{target}: not what tools/gitattributes.py writes; run python3 tools/gitattributes.py",
                  file=sys.stderr)
            return 1
        return 0
    atomic_write(target, text.encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
