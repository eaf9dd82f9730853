"""Lists of entries as data: one YAML file of mappings, a JSON array (CSL-JSON too) or JSON lines.
Nested keys become ``parent.child`` columns, arrays list cells; CSL's dates and person names are
read as a reference manager writes them."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import msgspec
import yaml

from survey_tools.adopt.table import (
    Cell,
    Row,
    Table,
    check_cells,
    check_columns,
    read_limits,
    too_many,
)
from survey_tools.corpus.yamlio import parse_yaml
from survey_tools.errors import InvalidInput, Problem


def _scalar(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _flatten(entry: Mapping[str, Any], prefix: str = "") -> dict[str, Cell]:
    """One entry's values by column: nested mappings become ``parent.child`` columns, lists of
    scalars lists, lists of mappings one JSON text per item."""
    out: dict[str, Cell] = {}
    for key, value in entry.items():
        name = f"{prefix}{key}"
        date = _csl_date(value)
        names = _person_names(value)
        if date:  # CSL: issued: {date-parts: [[2004, 4, 28]]} -> 2004-04-28, and the year
            out[name] = date
            if key == "issued" and not prefix:
                out.setdefault("year", date[:4])
        elif names:
            out[name] = names
        elif isinstance(value, Mapping):
            out.update(_flatten(value, name + "."))
        elif isinstance(value, list):
            out[name] = tuple(_scalar(v) if not isinstance(v, Mapping | list) else json.dumps(v, sort_keys=True, ensure_ascii=False)
                              for v in value if v is not None)
        else:
            out[name] = _scalar(value)
    return out


def _csl_date(value: Any) -> str:
    """A CSL-JSON date ({"date-parts": [[2004, 4, 28]]}) as an ISO date, "" for anything else."""
    if not isinstance(value, Mapping) or not isinstance(value.get("date-parts"), list) or not value["date-parts"]:
        return ""
    parts = value["date-parts"][0]
    if not isinstance(parts, list) or not parts or not str(parts[0]).strip().isdigit():
        return ""
    out = [f"{int(str(parts[0]).strip()):04d}"]
    out += [f"{int(str(p).strip()):02d}" for p in parts[1:3] if str(p).strip().isdigit()]
    return "-".join(out)


# How reference managers write a person: CSL-JSON (family, given; literal) and Zotero's own
# export (lastName, firstName; name).
_NAME_KEYS = (("family", "given"), ("lastName", "firstName"))


def _person_names(value: Any) -> tuple[str, ...]:
    """A list of persons as "Last, First" names; () when ``value`` is not such a list."""
    if not isinstance(value, list) or not value or not all(isinstance(v, Mapping) for v in value):
        return ()
    out = []
    for v in value:
        last, first = next(((str(v.get(a) or ""), str(v.get(b) or "")) for a, b in _NAME_KEYS if v.get(a)), ("", ""))
        whole = str(v.get("literal") or v.get("name") or "")
        if not last and not whole:
            return ()
        out.append(f"{last}, {first}" if last and first else (last or whole))
    return tuple(" ".join(n.split()) for n in out)


def entries_table(label: str, fmt: str, entries: Sequence[tuple[int, Any]]) -> Table:
    problems = [Problem(label, line, 0, "", f"entry {i} is a {type(e).__name__}, not a mapping of fields")
                for i, (line, e) in enumerate(entries, start=1) if not isinstance(e, Mapping)]
    if problems:
        raise InvalidInput(problems, "every entry must be a mapping of fields")
    columns: list[str] = []
    lists: set[str] = set()
    rows = []
    for line, e in entries:
        try:
            cells = _flatten(e)
        except RecursionError:  # an entry nested near the reader's own depth limit
            raise InvalidInput([Problem(label, line, 0, "", "the entry is nested too deep to be a list's entry "
                                        "(a field's value is at most a list or a mapping of values)")],
                               "every entry must be a mapping of fields") from None
        for k, v in cells.items():
            if k not in columns:
                columns.append(k)
            if isinstance(v, tuple):
                lists.add(k)
        rows.append(Row(line, cells))
    check_columns(label, columns)
    # A column that is a list in some entries and a single value in others is a list throughout.
    rows = [Row(r.line, {k: ((v,) if v else ()) if k in lists and isinstance(v, str) else v for k, v in r.cells.items()})
            for r in rows]
    table = Table(label, fmt, tuple(columns), tuple(rows), list_columns=frozenset(lists))
    check_cells(label, table.rows)
    return table


def _entry_list(data: Any, label: str, what: str) -> list[Any]:
    """The entries of a YAML/JSON document: a list, or a mapping holding exactly one list."""
    if isinstance(data, list):
        return data
    if isinstance(data, Mapping):
        lists = [k for k, v in data.items() if isinstance(v, list)]
        if len(lists) == 1:
            return list(data[lists[0]])
        hint = f" (it has {len(lists)} lists: {', '.join(map(str, lists))})" if lists else ""
        raise InvalidInput([Problem(label, 1, 0, "", f"the {what} file is a mapping, not a list of entries{hint}")],
                           "expected a list of entries")
    raise InvalidInput([Problem(label, 1, 0, "", f"the {what} file holds a {type(data).__name__}, not a list of entries")],
                       "expected a list of entries")


# What a YAML list may build besides its entries: ten values (keys, scalars, lists, mappings) for
# each entry --max-entries allows. The parse keeps a position for every value (about 370 bytes
# each): one entry of 2,000,000 keys took 32 s and 740 MiB before it was refused.
VALUES_PER_ENTRY = 10


def _yaml_values(text: str, label: str) -> None:
    """Refuse a YAML list of more values than VALUES_PER_ENTRY for each entry allowed, before it
    is parsed with positions. A key and its value take one ``:``, a flow item a ``,`` or the
    ``[`` before it, a block item (and its list) a ``-``, a mapping at least one ``:`` or a
    ``{``: a bound free to count; only a text over it is counted exactly, by libyaml's event
    stream, stopped at the first value past the limit."""
    limit = read_limits().max_entries * VALUES_PER_ENTRY
    dashes = text.count("- ") + text.count("-\n")
    bound = 2 * text.count(":") + text.count(",") + 2 * dashes + 2 * text.count("[") + text.count("{") + 1
    if bound <= limit:
        return
    n = 0
    try:
        for ev in yaml.parse(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            if isinstance(ev, (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                n += 1
                if n > limit:
                    raise InvalidInput([Problem(
                        label, ev.start_mark.line + 1 if ev.start_mark else 0, 0, "",
                        f"more than {limit:,} values (keys, items and texts); the limit is {limit:,}, "
                        f"{VALUES_PER_ENTRY} for each of the {read_limits().max_entries:,} entries "
                        "(--max-entries raises it)")], "the list is too long")
    except yaml.YAMLError:
        return  # the strict reader names the fault at its line


def read_yaml_list(text: str, label: str) -> Table:
    _yaml_values(text, label)
    doc = parse_yaml(text, label)
    if doc.problems:
        raise InvalidInput(doc.problems, "the YAML file cannot be read")
    entries = _entry_list(doc.data, label, "YAML")
    top = () if isinstance(doc.data, list) else (next(k for k, v in doc.data.items() if isinstance(v, list)),)
    return entries_table(label, "yaml", [(doc.position((*top, i))[0], e) for i, e in enumerate(entries)])


# The nesting Python's JSON reader follows before it runs out of stack (about the recursion
# limit): a deeper document is refused at the line where it passes this depth.
JSON_DEPTH = 900
_JSON_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_JSON_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


class _Constant(ValueError):
    """NaN, Infinity or -Infinity: not JSON (RFC 8259), though Python's reader takes them."""


def _no_constant(name: str) -> Any:
    raise _Constant(name)


def _line_of(text: str, pattern: re.Pattern[str], hit: Any) -> int:
    """The line of the first match of ``pattern`` in ``text`` for which ``hit(match)`` holds."""
    depth = 0
    for m in pattern.finditer(text):
        if hit(m, depth):
            return text.count("\n", 0, m.start()) + 1
        tok = m.group(0)
        depth += 1 if tok in "[{" else -1 if tok in "]}" else 0
    return 0


def _kept_apart(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose key repeats: the first value under the key, each later one under
    ``KEY (2)`` (``(3)``...), as a repeated column header is named; nothing is dropped."""
    out: dict[str, Any] = {}
    for k, v in pairs:
        name, n = k, 1
        while name in out:
            n += 1
            name = f"{k} ({n})"
        out[name] = v
    return out


_JSON_KEY = re.compile(r'("(?:[^"\\]|\\.)*")\s*:|"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _repeated_keys(text: str) -> list[tuple[int, str]]:
    """The line and name of every key that repeats one of its own object's keys."""
    stack: list[set[str]] = []
    found: list[tuple[int, str]] = []
    for m in _JSON_KEY.finditer(text):
        tok = m.group(0)
        if tok in "[{":
            stack.append(set())
        elif tok in "]}":
            if stack:
                stack.pop()
        elif m.group(1) is not None and stack:
            key = json.loads(m.group(1))
            if key in stack[-1]:
                found.append((text.count("\n", 0, m.start()) + 1, key))
            stack[-1].add(key)
    return found


def repeated_key_warnings(text: str, label: str, line: int = 1) -> list[str]:
    """One warning a key given twice in one entry, naming its line: both values kept."""
    return [f"{label}:{line + at - 1}: the key {json.dumps(key)} appears twice in one entry: the first value "
            f"is read as {json.dumps(key)}, the later one kept as {json.dumps(key + ' (2)')}"
            for at, key in _repeated_keys(text)]


def _loads(text: str, label: str, line: int) -> Any:
    """One JSON document; NaN and Infinity, and nesting too deep for the reader, refused with the
    line where they are (``line``: the line ``text`` starts on). A key given twice in one object
    keeps both values (:func:`_kept_apart`; init says so by line, :func:`repeated_key_warnings`)."""
    try:
        return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_kept_apart)
    except _Constant as err:
        at = _line_of(text, _JSON_CONSTANT, lambda m, _d: m.group(1) is not None)
        raise InvalidInput([Problem(label, line + max(at, 1) - 1, 0, "", f"{err} is not a JSON value (JSON "
                                    "has no NaN or Infinity): write a number, or leave the value out")],
                           "the JSON file cannot be read") from None
    except RecursionError:
        at = _line_of(text, _JSON_BRACKET, lambda m, d: d >= JSON_DEPTH)
        raise InvalidInput([Problem(label, line + max(at, 1) - 1, 0, "", f"nesting deeper than {JSON_DEPTH} "
                                    "levels: a list of entries is never nested that deep")],
                           "the JSON file cannot be read") from None


_RAW_ITEMS = msgspec.json.Decoder(list[msgspec.Raw])


def _json_items(text: str, label: str, limit: int) -> None:
    """Refuse a JSON array of more than ``limit`` entries before a dict is built for any: the
    items are counted as raw slices of the text (3,500,000 tiny entries in 49 MB needed more
    than 737 MiB as dicts). Anything msgspec refuses is left to the full reader's messages."""
    if text.lstrip()[:1] != "[":
        return
    try:
        n = len(_RAW_ITEMS.decode(text))
    except (msgspec.DecodeError, RecursionError):
        return
    if n > limit:
        raise too_many(label, 1, "entries")


def read_json_list(text: str, label: str, lines: bool) -> Table:
    entries: list[tuple[int, Any]] = []
    dec = json.JSONDecoder()
    limit = read_limits().max_entries
    try:
        if lines:
            for n, ln in enumerate(text.splitlines(), start=1):
                if ln.strip():
                    if len(entries) >= limit:
                        raise too_many(label, n, "entries")
                    entries.append((n, _loads(ln, label, n)))
        else:
            _json_items(text, label, limit)
            data = _loads(text, label, 1)
            items = _entry_list(data, label, "JSON")
            if len(items) > limit:
                raise too_many(label, 1, "entries")
            # The line each entry starts on: decode the array item by item.
            # (newlines counted from the last entry on, not from the start: one pass)
            starts = []
            idx = text.find("[") + 1
            line, counted = 1, 0
            for _ in items:
                while idx < len(text) and text[idx] in " \t\r\n,":
                    idx += 1
                line += text.count("\n", counted, idx)
                counted = idx
                starts.append(line)
                _, idx = dec.raw_decode(text, idx)
            if not isinstance(data, list):  # a wrapped list: positions are not worth a second walk
                starts = [0] * len(items)
            entries = list(zip(starts, items, strict=True))
    except json.JSONDecodeError as err:
        line = getattr(err, "lineno", 0) if not lines else n
        raise InvalidInput([Problem(label, line, 0, "", f"not valid JSON: {err.msg}")], "the JSON file cannot be read") from None
    except ValueError as err:  # e.g. an integer too long to convert
        raise InvalidInput([Problem(label, 0, 0, "", f"not usable JSON: {err}")], "the JSON file cannot be read") from None
    if not entries:
        raise InvalidInput([Problem(label, 1, 0, "", "no entries")], "nothing to read")
    table = entries_table(label, "jsonl" if lines else "json", entries)
    repeated = (
        [w for n, ln in enumerate(text.splitlines(), start=1) if ln.strip() for w in repeated_key_warnings(ln, label, n)]
        if lines else repeated_key_warnings(text, label)
    )
    return replace(table, warnings=(*repeated, *table.warnings)) if repeated else table
