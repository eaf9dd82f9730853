"""A trace held as columns: one numpy array or list per event field, codes for names.

A million events as a million dicts cost about a gigabyte and every check becomes a
Python loop; as columns they cost tens of megabytes and most checks become a few
vectorised numpy operations. Columns are built from the fast decoder's structs or,
tolerantly, from whatever plain JSON values a broken trace holds (a wrong-typed value
becomes "missing" here; the schema check reports it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain, repeat
from operator import attrgetter, countOf, is_not
from typing import Any

import numpy as np
from msgspec import UNSET

from survey_tools.traces.schema import EDGE_TYPES, EVENT_TYPES

EVENT_CODE = {name: i for i, name in enumerate(EVENT_TYPES)}
EDGE_CODE = {name: i for i, name in enumerate(EDGE_TYPES)}

# Struct attribute -> JSON field; only "from" differs (a Python keyword).
STRUCT_FIELDS = (
    ("id", "id"),
    ("t", "t"),
    ("type", "type"),
    ("agent", "agent"),
    ("role", "role"),
    ("from_", "from"),
    ("to", "to"),
    ("tool", "tool"),
    ("call_id", "call_id"),
    ("content_ref", "content_ref"),
    ("content", "content"),
    ("trusted", "trusted"),
    ("duration_s", "duration_s"),
    ("reason", "reason"),
    ("attributes", "attributes"),
)


class Names:
    """Interns agent/tool names as small integer codes (-1 = absent)."""

    def __init__(self) -> None:
        # None (a broken trace's missing value) and UNSET (the fast decoder's) are absent.
        self.index: dict[Any, int] = {None: -1, UNSET: -1}
        self.names: list[str] = []

    def codes(self, values: Sequence[Any]) -> np.ndarray:
        index = self.index
        names = self.names
        # New names get codes in sorted order (not set order, which varies with the
        # hash seed), so codes are the same from run to run.
        new: set[str] = set(values) - index.keys()
        for v in sorted(new):
            index[v] = len(names)
            names.append(v)
        return np.fromiter(map(index.__getitem__, values), dtype=np.int32, count=len(values))


@dataclass
class Table:
    """Columns of a trace's events and edges."""

    ids: list[Any]
    t: np.ndarray  # float64, nan when missing or invalid
    dur: np.ndarray  # float64, nan when absent
    etype: np.ndarray  # int8 code into EVENT_TYPES, -1 when invalid
    agent: np.ndarray  # int32 code into names.names, -1 when absent
    to: np.ndarray
    tool: np.ndarray
    trusted: np.ndarray  # int8: -1 absent, 0 false, 1 true
    has_reason: np.ndarray  # bool
    call_id: list[Any]
    names: Names
    # Raw endpoint strings by edge index (None where not a string); a list, or only
    # the dangling ones (a dict) when the endpoints were resolved in a helper process.
    src_ids: Any
    dst_ids: Any
    esrc: np.ndarray  # int32 index of the source event, -1 when dangling
    edst: np.ndarray
    ekind: np.ndarray  # int8 code into EDGE_TYPES, -1 when invalid
    # int64: index of the first event with the same id (itself unless a duplicate), -1
    # when the event has no usable id.
    first: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def n(self) -> int:
        return len(self.ids)

    @property
    def m(self) -> int:
        return len(self.esrc)

    def set_edges(self, ec: EdgeColumns) -> None:
        self.esrc, self.edst, self.ekind, self.first = ec.esrc, ec.edst, ec.ekind, ec.first
        self.src_ids, self.dst_ids = ec.src_ids, ec.dst_ids


def _index(ids: list[Any]) -> dict[Any, int]:
    index = dict(zip(ids, range(len(ids)), strict=True))
    if len(index) != len(ids):
        # Duplicates: the first occurrence must win, so build from the end.
        index = dict(zip(reversed(ids), range(len(ids) - 1, -1, -1), strict=True))
    return index


def _edges(index: dict[Any, int], src: list[Any], dst: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    get = index.get
    s = np.fromiter(map(get, src, repeat(-1)), np.int32, len(src))
    d = np.fromiter(map(get, dst, repeat(-1)), np.int32, len(dst))
    return s, d


_TRUSTED = {True: 1, False: 0}
_UNSET_AS_NONE: dict[Any, Any] = {UNSET: None}


@dataclass
class EdgeColumns:
    """What the edges contribute to a :class:`Table`, and the ids' first occurrences."""

    esrc: np.ndarray
    edst: np.ndarray
    ekind: np.ndarray
    first: np.ndarray
    src_ids: Any
    dst_ids: Any


def edge_columns(ids: list[str], edges: list[Any]) -> EdgeColumns:
    """Resolve :class:`~survey_tools.traces.decode.FastEdge` endpoints against ``ids``."""
    src = list(map(attrgetter("src"), edges))
    dst = list(map(attrgetter("dst"), edges))
    index = _index(ids)
    esrc, edst = _edges(index, src, dst)
    return EdgeColumns(
        esrc=esrc,
        edst=edst,
        ekind=np.fromiter(
            map(EDGE_CODE.__getitem__, map(attrgetter("type"), edges)), np.int8, len(edges)
        ),
        # Without duplicate ids every event is its own first occurrence: no look-ups.
        first=np.arange(len(ids), dtype=np.int64)
        if len(index) == len(ids)
        else np.fromiter(map(index.__getitem__, ids), np.int64, len(ids)),
        src_ids=src,
        dst_ids=dst,
    )


def from_structs(
    events: list[Any], edges: list[Any] | None, resolved: EdgeColumns | None = None
) -> tuple[Table, int]:
    """Columns from :class:`~survey_tools.traces.decode.FastEvent` structs (already typed).

    The edges come as structs, already ``resolved``, or (``edges`` None) are left
    empty for the caller to set with :meth:`Table.set_edges`. Also
    returns how many optional keys the events hold (for the duplicate-key check).
    Everything runs at C speed (``map`` over attribute getters into ``np.fromiter``):
    this is the hot loop of a million-event validation.
    """
    n = len(events)

    def col(attr: str) -> list[Any]:
        return list(map(attrgetter(attr), events))

    names = Names()
    ids = col("id")
    if resolved is not None:
        ec = resolved
    elif edges is not None:
        ec = edge_columns(ids, edges)
    else:  # filled in by the caller (a helper process resolves them meanwhile)
        none = np.zeros(0, dtype=np.int32)
        ec = EdgeColumns(none, none, none.astype(np.int8), none.astype(np.int64), [], [])
    to, tool = col("to"), col("tool")
    raw_call_id = col("call_id")
    call_id = list(map(_UNSET_AS_NONE.get, raw_call_id, raw_call_id))
    has_reason = np.fromiter(map(is_not, map(attrgetter("reason"), events), repeat(UNSET)), bool, n)
    dur = np.fromiter(map(attrgetter("duration_s"), events), np.float64, n)
    attributes = [a for a in map(attrgetter("attributes"), events) if a is not UNSET]
    trusted = np.fromiter(
        map(_TRUSTED.get, map(attrgetter("trusted"), events), repeat(-1)), np.int8, n
    )
    optional = (
        int(np.count_nonzero(trusted >= 0))
        # One pass for the fields only counted here (cheaper than four).
        + 4 * n
        - countOf(
            chain.from_iterable(map(attrgetter("role", "from_", "content_ref", "content"), events)),
            UNSET,
        )
        + n
        - to.count(UNSET)
        + n
        - tool.count(UNSET)
        + n
        - call_id.count(None)
        + int(has_reason.sum())
        + int(np.count_nonzero(~np.isnan(dur)))
        + len(attributes)
        + sum(map(count_keys, attributes))
    )
    table = Table(
        ids=ids,
        t=np.fromiter(map(attrgetter("t"), events), np.float64, n),
        dur=dur,
        etype=np.fromiter(map(EVENT_CODE.__getitem__, map(attrgetter("type"), events)), np.int8, n),
        agent=names.codes(col("agent")),
        to=names.codes(to),
        tool=names.codes(tool),
        trusted=trusted,
        has_reason=has_reason,
        call_id=call_id,
        names=names,
        src_ids=ec.src_ids,
        dst_ids=ec.dst_ids,
        esrc=ec.esrc,
        edst=ec.edst,
        ekind=ec.ekind,
        first=ec.first,
    )
    return table, optional


def count_keys(value: Any) -> int:
    """Number of object keys in ``value`` and everything nested in it (no recursion)."""
    total = 0
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            total += len(v)
            stack.extend(x for x in v.values() if isinstance(x, (dict, list)))
        elif isinstance(v, list):
            stack.extend(x for x in v if isinstance(x, (dict, list)))
    return total


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else None


def _str_or_none(v: Any) -> str | None:
    return v if isinstance(v, str) and v else None


def _num_or_nan(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return math.nan
    f = float(v)
    return f if math.isfinite(f) else math.nan


def from_values(events: Any, edges: Any) -> Table:
    """Columns from plain JSON values that may be of any shape (a broken trace)."""
    evs = events if isinstance(events, list) else []
    eds = edges if isinstance(edges, list) else []
    cols: dict[str, list[Any]] = {}
    for _, name in STRUCT_FIELDS:
        cols[name] = [_get(e, name) for e in evs]
    for name in ("id", "agent", "role", "from", "to", "tool", "call_id"):
        cols[name] = [_str_or_none(v) for v in cols[name]]
    ids = cols["id"]
    names = Names()
    src = [_str_or_none(_get(e, "src")) for e in eds]
    dst = [_str_or_none(_get(e, "dst")) for e in eds]
    index = _index(ids)
    index.pop(None, None)
    esrc, edst = _edges(index, src, dst)
    return Table(
        ids=ids,
        t=np.array([_num_or_nan(v) for v in cols["t"]], dtype=np.float64),
        dur=np.array([_num_or_nan(v) for v in cols["duration_s"]], dtype=np.float64),
        etype=np.array(
            [EVENT_CODE.get(v, -1) if isinstance(v, str) else -1 for v in cols["type"]],
            dtype=np.int8,
        ),
        agent=names.codes(cols["agent"]),
        to=names.codes(cols["to"]),
        tool=names.codes(cols["tool"]),
        trusted=np.array(
            [int(v) if isinstance(v, bool) else -1 for v in cols["trusted"]], dtype=np.int8
        ),
        has_reason=np.array([isinstance(v, str) for v in cols["reason"]], dtype=bool),
        call_id=cols["call_id"],
        names=names,
        src_ids=src,
        dst_ids=dst,
        esrc=esrc,
        edst=edst,
        ekind=np.array(
            [EDGE_CODE.get(k, -1) if isinstance(k := _get(e, "type"), str) else -1 for e in eds],
            dtype=np.int8,
        ),
        first=np.fromiter(map(index.get, ids, repeat(-1)), np.int64, len(ids)),
    )
