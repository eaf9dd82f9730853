"""Turn the bytes of a trace file into Python values, with clear errors for bad JSON.

Two paths:

* **fast**: ``msgspec`` decodes events and edges straight into compact typed
  structs that encode the event and edge definitions of the schema (required
  fields, types, enums, lengths, minimums, no unknown fields). That is several
  times faster and smaller than a dict per event, which is what makes a
  million-event trace fit the time and memory targets.
* **slow**: anything the fast path rejects is decoded again with ``orjson`` into
  plain values, and the JSON Schema itself (``jsonschema-rs``) reports every
  problem. The fast path is only a strict pre-filter: a rejection there is never
  the verdict. A property test checks that what the fast path accepts the schema
  accepts too.

JSON objects with duplicate keys are valid to most parsers (the last value wins);
we reject them. Both parsers drop duplicates silently, so we compare the number of
keys they kept with an upper bound on the keys in the text, and run an exact but
slow scan only when the two disagree.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

import msgspec
import numpy as np
import orjson
from msgspec import UNSET, UnsetType

from survey_tools.heap import leave_to_exit
from survey_tools.traces.limits import (
    DEFAULT_LIMITS,
    UTF8_BOM,
    UTF16_BOMS,
    Buffer,
    Limits,
    event_count_problem,
    string_problem,
    strip_bom,
)
from survey_tools.traces.problems import TraceReport, json_path
from survey_tools.traces.table import (
    EVENT_CODE,
    Table,
    count_keys,
    from_structs,
    from_values,
)

_Id = Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
_Ref = Annotated[str, msgspec.Meta(max_length=4096)]
_Content = Annotated[str, msgspec.Meta(max_length=1_000_000)]
_NonNeg = Annotated[float, msgspec.Meta(ge=0)]

EventType = Literal[
    "orchestrator_decision",
    "spawn",
    "despawn",
    "message",
    "tool_call",
    "tool_result",
    "return",
    "aggregate",
    "human_intervention",
    "safety_event",
    "stop",
]
EdgeType = Literal[
    "temporal",
    "causal",
    "spawn",
    "message",
    "tool_dependency",
    "return",
    "aggregate",
    "safety_flow",
]


class FastEvent(msgspec.Struct, forbid_unknown_fields=True, gc=False, rename={"from_": "from"}):
    """An event as the schema defines it (the ``if``/``then`` rules are checked after)."""

    id: _Id
    t: _NonNeg
    type: EventType
    agent: _Id
    # Absent fields are UNSET (not None) so that an explicit JSON null, which the
    # schema rejects, is rejected here too.
    role: _Id | UnsetType = UNSET
    from_: _Id | UnsetType = UNSET
    to: _Id | UnsetType = UNSET
    tool: _Id | UnsetType = UNSET
    call_id: _Id | UnsetType = UNSET
    content_ref: _Ref | UnsetType = UNSET
    content: _Content | UnsetType = UNSET
    trusted: bool | UnsetType = UNSET
    # nan, not UNSET, when absent: the column then goes straight into a float array.
    duration_s: _NonNeg = math.nan
    reason: _Ref | UnsetType = UNSET
    attributes: dict[str, Any] | UnsetType = UNSET


class FastEdge(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    src: _Id
    dst: _Id
    type: EdgeType


class _FastDoc(msgspec.Struct, forbid_unknown_fields=True):
    # The small top-level fields stay plain values: the real schema checks them.
    events: list[FastEvent]
    edges: list[FastEdge]
    schema_version: Any = msgspec.UNSET
    trace_id: Any = msgspec.UNSET
    task_id: Any = msgspec.UNSET
    system: Any = msgspec.UNSET
    topology: Any = msgspec.UNSET
    rewards: Any = msgspec.UNSET
    costs: Any = msgspec.UNSET
    metrics: Any = msgspec.UNSET
    metadata: Any = msgspec.UNSET


_HEAD_FIELDS = (
    "schema_version",
    "trace_id",
    "task_id",
    "system",
    "topology",
    "rewards",
    "costs",
    "metrics",
    "metadata",
)
_FAST_DECODER = msgspec.json.Decoder(_FastDoc)


@dataclass
class Decoded:
    """A parsed trace document as top-level fields plus event and edge columns.

    ``typed`` is true when the events and edges came through the fast path (already
    checked against the schema's event and edge definitions); ``recheck`` then holds
    the events that break one of the schema's ``if``/``then`` rules, rebuilt as
    plain values for the real schema to report. Otherwise ``doc`` is the whole
    document, for the schema to check in full.
    """

    head: dict[str, Any]
    table: Table
    typed: bool
    doc: Any = None
    recheck: dict[int, dict[str, Any]] = field(default_factory=dict)


def _count_byte(data: Buffer, byte: int) -> int:
    # numpy in 16 MiB slices: about 4x faster than bytes.count and no big temporary.
    arr = np.frombuffer(data, dtype=np.uint8)
    step = 1 << 24
    return sum(int(np.count_nonzero(arr[i : i + step] == byte)) for i in range(0, len(arr), step))


def _count_quote_colon(data: bytes) -> int:
    arr = np.frombuffer(data, dtype=np.uint8)
    step = 1 << 24
    total = 0
    for i in range(0, max(0, len(arr) - 1), step):
        a = arr[i : i + step + 1]
        total += int(np.count_nonzero((a[:-1] == 34) & (a[1:] == 58)))
    return total


def _may_have_duplicates(data: bytes, kept: int) -> bool:
    """False when the text provably holds no more object keys than the parser kept.

    Every ``:`` outside a string ends a key, so the count of ``:`` bytes bounds the
    keys from above (the caller tries that first); so does the count of ``":`` when
    no key has blanks before its colon (a ``":`` inside a string needs an escaped
    quote before it).
    """
    if _count_quote_colon(data) != kept:
        return True
    return re.search(rb'"[ \t\r\n]+:', data) is not None


class _DupDict(dict[str, Any]):
    duplicates: list[str]


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d = dict(pairs)
    if len(d) == len(pairs):
        return d
    seen: set[str] = set()
    dups: list[str] = []
    for k, _ in pairs:
        if k in seen and k not in dups:
            dups.append(k)
        seen.add(k)
    out = _DupDict(d)
    out.duplicates = dups
    return out


def _duplicate_paths(text: str) -> Iterator[tuple[str, str]]:
    """(JSON path of the object, key) for each duplicated key; exact and slow."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 5000))  # orjson already bounded depth at 1024
    try:
        doc = json.loads(text, object_pairs_hook=_pairs_hook)
    finally:
        sys.setrecursionlimit(old)
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(doc, ())]
    found: list[tuple[tuple[str | int, ...], str]] = []
    while stack:
        v, path = stack.pop()
        if isinstance(v, dict):
            if isinstance(v, _DupDict):
                found.extend((path, k) for k in v.duplicates)
            stack.extend((x, (*path, k)) for k, x in v.items() if isinstance(x, (dict, list)))
        elif isinstance(v, list):
            stack.extend((x, (*path, i)) for i, x in enumerate(v) if isinstance(x, (dict, list)))
    for path, key in found:
        yield json_path(path), key


def _check_duplicates(data: bytes, kept: int, report: TraceReport) -> None:
    if not _may_have_duplicates(data, kept):
        return
    for path, key in _duplicate_paths(data.decode("utf-8")):
        report.add(
            path,
            f"duplicate key {key!r} in one object (only the last would be kept)",
            "duplicate-key",
        )


def _parse_error(data: bytes, err: orjson.JSONDecodeError, report: TraceReport) -> None:
    msg = str(err.msg)
    pos = err.pos
    here = data[pos : pos + 9]
    if not data.strip():
        text = "the file is empty; a trace is a JSON object"
    elif data.startswith(UTF16_BOMS):
        text = "the file is UTF-16 (it starts with a UTF-16 byte order mark); a trace is UTF-8"
    elif here.startswith((b"NaN", b"Infinity", b"-Infinity")):
        text = "NaN and Infinity are not JSON numbers; every number must be finite"
    elif "infinity" in msg:
        text = "a number is too large to be finite"
    elif "depth" in msg or "recursion" in msg:
        text = "nesting is deeper than 1024 levels"
    elif "end of data" in msg or "EOF" in msg:
        text = "the file ends in the middle of a value (truncated?)"
    elif "UTF-8" in msg:
        text = "the file is not valid UTF-8"
    else:
        text = f"not valid JSON: {msg}"
    report.add("$", text, "json", line=err.lineno, col=err.colno)


def _type_name(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def decode(
    read_raw: Callable[[], Buffer], report: TraceReport, limits: Limits = DEFAULT_LIMITS
) -> Decoded | None:
    """Parse the bytes ``read_raw()`` returns; on a JSON error report it and return ``None``.

    ``read_raw`` may be called twice (the duplicate-key scan needs the text again), so
    the first copy of a large file can be freed while the columns are built. It may
    return the file mapped into memory (``mmap``) rather than read: the fast path
    decodes straight from the mapping, the rest gets a copy as ``bytes``. A leading
    UTF-8 byte order mark is skipped; a string over the limit is refused before
    anything is parsed.
    """

    def read() -> Buffer:
        raw = read_raw()
        if isinstance(raw, bytes):
            return strip_bom(raw)
        # A mapped file: slicing copies, which only a file with a byte order mark pays.
        return raw[len(UTF8_BOM) :] if raw[: len(UTF8_BOM)] == UTF8_BOM else raw

    def read_bytes() -> bytes:
        raw = read()
        return raw if isinstance(raw, bytes) else bytes(raw)

    data = read()
    too_long = string_problem(data, limits)
    if too_long is not None:
        msg, line, col = too_long
        report.add("$", msg, "size", line=line, col=col)
        return None
    too_many = event_count_problem(data, limits)
    if too_many is not None:
        report.add("$", too_many, "size")
        return None
    colons = _count_byte(data, 58)
    # The input goes in a list the fast path empties once the input is decoded: then
    # no reference is left and its bytes are freed before the columns are built. (A
    # forked helper that took the edges was removed: it cost CPU time and bought less
    # than a quarter of the wall time; benchmarks/TRACES.md.)
    box = [data]
    del data
    got = _fast_plain(box)
    if got is not None:
        fast, table, optional = got
        head = {k: getattr(fast, k) for k in _HEAD_FIELDS}
        head = {k: v for k, v in head.items() if v is not msgspec.UNSET}
        kept = 2 + len(head) + count_keys(list(head.values()))
        kept += 4 * table.n + 3 * table.m + optional
        recheck = {int(i): _as_value(fast.events[int(i)]) for i in _if_then_breaches(table)}
        del fast
        if colons != kept:
            _check_duplicates(read_bytes(), kept, report)
        return Decoded(head=head, table=table, typed=True, recheck=recheck)

    # The fast path rejected the file: the slow path, with the input again if the fast
    # path had let it go.
    data = bytes(box.pop()) if box else read_bytes()
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as err:
        _parse_error(data, err, report)
        return None
    kept = count_keys(doc)
    if colons != kept:
        _check_duplicates(data, kept, report)
    del data
    if not isinstance(doc, dict):
        report.add("$", f"a trace must be a JSON object, not {_type_name(doc)}", "type")
        return None
    head = {k: v for k, v in doc.items() if k not in ("events", "edges")}
    table = from_values(doc.get("events"), doc.get("edges"))
    return Decoded(head=head, table=table, typed=False, doc=doc)


def _fast_plain(box: list[Buffer]) -> tuple[_FastDoc, Table, int] | None:
    """The fast path in one process: events and edges into structs, then columns.

    Returns None (leaving the input in ``box``) when the fast decoder rejects the file.
    """
    try:
        fast = _FAST_DECODER.decode(box[0])
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, UnicodeDecodeError):
        return None
    box.clear()  # the structs hold copies: the input can go
    edges = fast.edges
    fast.edges = []
    table, optional = from_structs(fast.events, edges)
    # In the survey process the structs are left to its exit, not freed one by one (heap.py).
    leave_to_exit(fast, edges)
    return fast, table, optional


def _as_value(ev: FastEvent) -> dict[str, Any]:
    """The event as the JSON it came from (absent fields dropped)."""
    out: dict[str, Any] = msgspec.to_builtins(ev)
    return {
        k: v
        for k, v in out.items()
        if not (k == "duration_s" and isinstance(v, float) and math.isnan(v))
    }


def _if_then_breaches(table: Table) -> np.ndarray:
    """Events that break the schema's conditional rules (spawn needs ``to``, tools ``tool``)."""
    spawn = table.etype == EVENT_CODE["spawn"]
    tools = (table.etype == EVENT_CODE["tool_call"]) | (table.etype == EVENT_CODE["tool_result"])
    return np.flatnonzero((spawn & (table.to < 0)) | (tools & (table.tool < 0)))
