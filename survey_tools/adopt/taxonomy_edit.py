"""``survey taxonomy rename`` and ``migrate``: change the taxonomy and every place its values live.

``rename`` moves every record from one value of a controlled field to another; ``migrate`` makes
a field hold several values or one (a controlled field multi <-> single, a plain field list <->
string). Both rewrite the records, the copies of records kept in the exclusion log, and
``taxonomy/csv.yaml`` (value maps, list separators), so import, export and ``--restore`` keep
working.

Records are rewritten with ruamel.yaml's round-trip mode, so comments, key order and quoting of
untouched lines stay as they were. Every file is read and changed in memory first; nothing is
written when any record cannot be read, and each file is then replaced atomically.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from survey_tools.corpus.taxonomy import CSV_FILE, FORMER_FIELD, Collection, Taxonomy, load_taxonomy
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
    changed, problems = _rewrite_records(root, tax, coll, field, lambda d: _rename_in(d, field, cf.kind, old, new))
    csv_text = _rewrite_csv(root, coll, field, lambda col: _rename_csv_value(col, old, new))
    if problems:
        raise InvalidInput(problems, "nothing was renamed")
    if csv_text is not None:
        changed[CSV_FILE] = csv_text
    for rel, text in changed.items():
        atomic_write(root / rel, text)
    return sorted(changed)


def _rewrite_records(root: Path, tax: Taxonomy, coll: Collection, field: str,
                     change: Callable[[Any], bool]) -> tuple[dict[str, str], list[Problem]]:
    """Apply ``change`` to every record of ``coll`` and to the copies of them the exclusion log
    keeps (``retained_record``); the new texts of the files it changed, and every problem."""
    y = round_trip_yaml()
    problems: list[Problem] = []
    changed: dict[str, str] = {}
    folders = [(root / coll.folder, False)]
    ex = tax.excluded
    if ex is not None and coll is tax.retained and FORMER_FIELD in {f.name for f in ex.fields}:
        folders.append((root / ex.folder, True))
    for folder, copies in folders:
        for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
            rel = path.relative_to(root).as_posix()
            try:
                if path.stat().st_size > MAX_FILE_BYTES:
                    problems.append(Problem(rel, 1, 1, "", f"file is larger than {MAX_FILE_BYTES:,} bytes"))
                    continue
                data = y.load(path.read_text(encoding="utf-8"))
                target: Any = data.get(FORMER_FIELD) if copies and hasattr(data, "get") else data
                if target is None or not change(target):
                    continue
            except ValueError as err:
                problems.append(Problem(rel, 0, 0, f"{FORMER_FIELD}.{field}" if copies else field, f"cannot rewrite: {err}"))
                continue
            except Exception as err:  # ruamel's errors have no common base; report, never crash
                line = getattr(getattr(err, "problem_mark", None), "line", 0)
                problems.append(Problem(rel, line + 1 if line else 0, 0, field, f"cannot rewrite: {err}"))
                continue
            buf = io.StringIO()
            y.dump(data, buf)
            changed[rel] = buf.getvalue()
    return changed, problems


def _rewrite_csv(root: Path, coll: Collection, field: str, change: Callable[[Any], bool]) -> str | None:
    """taxonomy/csv.yaml with ``change`` applied to the column of ``field`` (None: unchanged)."""
    path = root / CSV_FILE
    if not path.is_file():
        return None
    y = round_trip_yaml()
    data = y.load(path.read_text(encoding="utf-8"))
    layout: Any = data.get(coll.name) if hasattr(data, "get") else None
    cols = layout.get("columns") if layout is not None and hasattr(layout, "get") else None
    hit = False
    for col in cols or []:
        if hasattr(col, "get") and col.get("field") == field and not col.get("ignore"):
            hit = change(col) or hit
    if not hit:
        return None
    buf = io.StringIO()
    y.dump(data, buf)
    return buf.getvalue()


def _rename_csv_value(col: Any, old: str, new: str) -> bool:
    """The list's strings that meant OLD now mean NEW; a string that was OLD itself is mapped."""
    values = col.get("values")
    if values is None:
        col["values"] = {old: new}
        return True
    hit = False
    for text in list(values.keys()):
        if values[text] == old:
            values[text] = new
            hit = True
    if not hit and old not in values:
        values[old] = new
        hit = True
    return hit


_LIST_TYPES = {"string": "string_list", "text": "string_list", "url": "url_list"}


def migrate_field(root: Path | str, field: str, to: str) -> list[str]:
    """Make ``field`` hold several values (``multi``/``list``) or one (``single``/``string``):
    the field's definition, every record (one value <-> a one-item list), the exclusion log's
    copies and the CSV column's separator. A record holding several values cannot become
    single-valued: every such record is named and nothing is written."""
    root = Path(root)
    tax = load_taxonomy(root)
    cf = tax.find_field(field)
    sentinels = (tax.na, tax.untagged)
    coll: Collection | None
    definition: tuple[str, tuple[str, ...], str]
    if cf is not None:
        if to not in ("multi", "single"):
            raise UsageError(f"--to {to!r}: {field} is a controlled field; use --to multi or --to single")
        if cf.kind == to:
            raise UsageError(f"{field} is already {to}-valued")
        if cf.kind == "mapping":
            raise UsageError(f"{field} is a mapping field; it cannot be migrated")
        coll = tax.collection(cf.collection) if cf.collection else tax.retained
        definition = (cf.source, ("kind",), to)
    else:
        coll = next((c for c in tax.collections.values() if any(f.name == field for f in c.fields)), None)
        if coll is None:
            known = sorted({f.name for c in tax.collections.values() for f in c.fields} |
                           {f.name for k in tax.collections.values() for f in k.controlled})
            raise UsageError(f"no field {field!r} (known: {', '.join(known)})")
        pf = next(f for f in coll.fields if f.name == field)
        if to == "list":
            if pf.type not in _LIST_TYPES:
                raise UsageError(f"{field} is of type {pf.type}; only string, text and url fields become lists")
            new_type = _LIST_TYPES[pf.type]
        elif to == "string":
            if not pf.type.endswith("_list"):
                raise UsageError(f"{field} is of type {pf.type}, not a list")
            new_type = "url" if pf.type == "url_list" else "string"
        else:
            raise UsageError(f"--to {to!r}: {field} is a plain field; use --to list or --to string")
        definition = ("taxonomy/survey.yaml", ("collections", coll.name, "fields", field, "type"), new_type)
    several = to in ("multi", "list")

    def change(data: Any) -> bool:
        if not hasattr(data, "get") or field not in data:
            return False
        value = data[field]
        if several and not isinstance(value, list) and value not in sentinels:
            data[field] = [value]
            return True
        if not several and isinstance(value, list):
            if len(value) > 1:
                raise ValueError(f"holds {len(value)} values; keep one before making {field} single-valued")
            data[field] = value[0] if value else tax.untagged
            return True
        return False

    changed, problems = _rewrite_records(root, tax, coll, field, change)
    if problems:
        raise InvalidInput(problems, "nothing was migrated")
    rel, keys, value = definition
    changed[rel] = _set_key(root / rel, keys, value)
    sep = str(tax.csv_layout.get("list_separator", " ; ")) if tax.csv_layout else " ; "

    def separator(col: Any) -> bool:
        if several and "separator" not in col:
            col["separator"] = sep
            col.pop("take", None)
            return True
        if not several and ("separator" in col or "take" in col):
            col.pop("separator", None)
            col.pop("take", None)  # a one-item list per cell is now the value itself
            return True
        return False

    csv_text = _rewrite_csv(root, coll, field, separator)
    if csv_text is not None:
        changed[CSV_FILE] = csv_text
    for path, text in changed.items():
        atomic_write(root / path, text)
    return sorted(changed)


def _set_key(path: Path, keys: tuple[str, ...], value: Any) -> str:
    """The YAML file with one key set (comments and order kept)."""
    y = round_trip_yaml()
    data = y.load(path.read_text(encoding="utf-8"))
    cur = data
    for k in keys[:-1]:
        cur = cur[k]
    cur[keys[-1]] = value
    buf = io.StringIO()
    y.dump(data, buf)
    return buf.getvalue()
