"""``survey init``'s last word on an adopted list: the survey it writes always validates.

The import (adopt.csvio, partial mode) checks each row on its own; the validator also checks
what spans records and what a record's values say about each other (a link whose arXiv id is
not the record's, a value over a length limit). A list is never refused for a few rows: the
records the validator would reject are repaired here, each offending value moved out of its
field into the record's private ``import_notes`` (kept, never published) with one warning
naming the record and the source row, and the corpus checked again. A record that cannot be
repaired that way (its key or title rejected) is left out, said with its row.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.corpus.validation import report_for
from survey_tools.corpus.yamlio import dump_yaml, parse_yaml
from survey_tools.errors import Problem
from survey_tools.fileio import atomic_write

# The private field every adopted survey has: what a field could not hold, "field: value" each.
NOTES_FIELD = "import_notes"
NOTES_MAX = 1_000_000  # a Scopus export's reference lists run to 30,000 characters a row
_ROUNDS = 4  # moving one value can reveal another problem (a link left from another record)
_PATH = re.compile(r"^([A-Za-z0-9_-]+)(?:\[(\d+)\]|\.([A-Za-z0-9_-]+))?")


@dataclass
class Repairs:
    """What the repair did: the values moved by field, the records left out, the warnings."""

    moved: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    dropped: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def repair_corpus(root: Path, rows: Mapping[str, str], protected: frozenset[str]) -> Repairs:
    """Validate the records under ``root`` and repair each one the validator rejects, until the
    corpus validates (at most a few rounds); ``rows``: record path -> its source row ("file:line"),
    for the warnings; ``protected``: the fields a record cannot lose (key, title)."""
    out = Repairs()
    for _ in range(_ROUNDS):
        tax = load_taxonomy(root)
        report = report_for(load_corpus(root, tax, use_cache=False))
        if report.ok:
            break
        by_file: dict[str, list[Problem]] = defaultdict(list)
        for p in report.problems:
            by_file[p.file].append(p)
        changed = False
        order = list(tax.retained.field_names())
        for rel, problems in sorted(by_file.items()):
            changed |= _repair_file(root, rel, problems, rows.get(rel, rel), protected, order, out)
        if not changed:
            break
    return out


def _repair_file(
    root: Path,
    rel: str,
    problems: list[Problem],
    row: str,
    protected: frozenset[str],
    order: list[str],
    out: Repairs,
) -> bool:
    path = root / rel
    if not rel.endswith(".yaml") or not path.is_file():
        return False
    doc = parse_yaml(path.read_text(encoding="utf-8"), rel)
    record = doc.data
    if not isinstance(record, dict):
        return False
    targets = sorted({_target(p.field) for p in problems}, key=_order)
    if any(t[0] in protected or not t[0] for t in targets):
        path.unlink()
        why = "; ".join(f"{p.field or 'record'}: {p.message}" for p in problems[:2])
        out.dropped.append(rel)
        out.warnings.append(f"{row}: left out ({rel} cannot be made valid: {why})")
        return True
    notes: list[str] = [record[NOTES_FIELD]] if isinstance(record.get(NOTES_FIELD), str) else []
    moved = []
    for name, index, sub in targets:
        value = _take(record, name, index, sub)
        if value is None:
            continue
        where = name + (f"[{index}]" if index is not None else "") + (f".{sub}" if sub else "")
        notes.append(f"{where}: {value}")
        moved.append(where)
        out.moved[name] += 1
    if not moved:
        return False
    record[NOTES_FIELD] = "\n\n".join(notes)
    # in the collection's field order, as the import writes a record (an export and import
    # again gives the same file)
    rank = {name: i for i, name in enumerate(order)}
    record = dict(sorted(record.items(), key=lambda kv: rank.get(kv[0], len(rank))))
    atomic_write(path, dump_yaml(record))
    first = next(p for p in problems if _target(p.field)[0] == _target(moved[0])[0])
    out.warnings.append(
        f"{row}: {', '.join(moved)} moved to {NOTES_FIELD} (the validator: {first.message})"
    )
    return True


def _target(path: str) -> tuple[str, int | None, str]:
    """A problem's field path as (field, list index, sub-key): ``links[1]`` -> (links, 1, '')."""
    m = _PATH.match(path or "")
    if not m:
        return ("", None, "")
    return (m.group(1), int(m.group(2)) if m.group(2) else None, m.group(3) or "")


def _order(t: tuple[str, int | None, str]) -> tuple[str, int, str]:
    # list items from the last: taking links[2] first leaves links[1] where it was
    return (t[0], -(t[1] if t[1] is not None else -1), t[2])


def _take(record: dict[str, Any], name: str, index: int | None, sub: str) -> Any:
    """Remove and return the value at the path (None when it is not there)."""
    value = record.get(name)
    if value is None:
        return None
    if index is not None and isinstance(value, list) and index < len(value):
        item = value.pop(index)
        if not value:
            del record[name]
        return item
    if sub and isinstance(value, dict) and sub in value:
        item = value.pop(sub)
        if not value:
            del record[name]
        return item
    return record.pop(name)
