"""Add one top-level field to record files, keeping every other line byte for byte.

The new line goes where the taxonomy's field order puts it (before the first top-level key that
the taxonomy orders after it); a file that already has the field is left alone.

    python3 tools/set_field.py FIELD VALUE FILE...        # e.g. edition 2605.02801v1 corpus/*.yaml

VALUE is written as a YAML scalar (quoted when YAML would read it as something else).
Used once to record the edition of the survey's 116 imported records.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.corpus.yamlio import dump_yaml

_TOP_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):")


def insert_field(text: str, order: list[str], field: str, value: object) -> str | None:
    """``text`` with ``field: value`` inserted by ``order``; None when the field is there."""
    lines = text.splitlines(keepends=True)
    keys = [(i, m.group(1)) for i, line in enumerate(lines) if (m := _TOP_KEY.match(line))]
    if any(k == field for _, k in keys):
        return None
    later = set(order[order.index(field) + 1:]) if field in order else set()
    at = next((i for i, k in keys if k in later), len(lines))
    if at == len(lines) and lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    new = dump_yaml({field: value})
    return "".join([*lines[:at], new, *lines[at:]])


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    field, raw, *files = argv
    value: object = {"true": True, "false": False}.get(raw, raw)
    tax = load_taxonomy(Path.cwd())
    changed = 0
    for name in files:
        path = Path(name)
        folder = path.parent.name
        coll = next((c for c in tax.collections.values() if c.folder == folder), None)
        if coll is None:
            print(f"{name}: not in a collection folder", file=sys.stderr)
            return 2
        out = insert_field(path.read_text(encoding="utf-8"), coll.field_names(), field, value)
        if out is not None:
            path.write_text(out, encoding="utf-8")
            changed += 1
    print(f"{changed} of {len(files)} files changed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
