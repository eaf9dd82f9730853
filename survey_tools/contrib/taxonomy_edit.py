"""``survey taxonomy rename``: move every record from one value of a controlled field to another.

Records are rewritten with ruamel.yaml's round-trip mode, so comments, key order and quoting of
untouched lines stay as they were. Every file is read and changed in memory first; nothing is
written when any record cannot be read, and each file is then replaced atomically.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.corpus.yamlio import MAX_FILE_BYTES
from survey_tools.errors import InvalidInput, Problem, UsageError
from survey_tools.fileio import atomic_write


def round_trip_yaml() -> Any:
    y = YAML(typ="rt")
    y.preserve_quotes = True
    y.width = 1_000_000  # never re-wrap long lines
    y.indent(mapping=2, sequence=2, offset=0)
    return y


def _rename_in(data: Any, field: str, kind: str, old: str, new: str) -> bool:
    if not hasattr(data, "get"):
        return False
    value = data.get(field)
    if kind == "single" and value == old:
        data[field] = new
        return True
    if kind == "multi" and isinstance(value, list) and old in value:
        for i, v in enumerate(value):
            if v == old:
                value[i] = new
        return True
    if kind == "mapping" and hasattr(value, "keys") and old in value:
        if new in value:
            raise ValueError(f"already has {new!r}")
        keys = list(value.keys())
        pos = keys.index(old)
        value.insert(pos, new, value.pop(old))
        return True
    return False


def rename_value(root: Path | str, field: str, old: str, new: str) -> list[str]:
    """Rewrite every record whose ``field`` uses ``old`` to use ``new``; returns the files changed."""
    root = Path(root)
    tax = load_taxonomy(root)
    cf = tax.find_field(field)
    if cf is None:
        known = sorted(c.name for coll in tax.collections.values() for c in coll.controlled)
        raise UsageError(f"{field!r} is not a controlled field (known: {', '.join(known)})")
    allowed = [*cf.ids, *([tax.na] if cf.not_applicable else [])]
    if new not in allowed:
        raise UsageError(
            f"{new!r} is not a value of {field}; add it to {cf.source or 'the taxonomy'} first"
        )
    if old == new:
        raise UsageError("OLD and NEW are the same value")
    coll = tax.collection(cf.collection) if cf.collection else tax.retained
    folder = root / coll.folder
    y = round_trip_yaml()
    problems: list[Problem] = []
    changed: dict[str, str] = {}
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        rel = path.relative_to(root).as_posix()
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                problems.append(Problem(rel, 1, 1, "", f"file is larger than {MAX_FILE_BYTES:,} bytes"))
                continue
            text = path.read_text(encoding="utf-8")
            data = y.load(text)
            if not _rename_in(data, field, cf.kind, old, new):
                continue
        except Exception as err:  # ruamel's errors have no common base; report, never crash
            line = getattr(getattr(err, "problem_mark", None), "line", 0)
            problems.append(Problem(rel, line + 1 if line else 0, 0, field, f"cannot rewrite: {err}"))
            continue
        buf = io.StringIO()
        y.dump(data, buf)
        changed[rel] = buf.getvalue()
    if problems:
        raise InvalidInput(problems, "nothing was renamed")
    for rel, text in changed.items():
        atomic_write(root / rel, text)
    return sorted(changed)
