"""A trace held as columns: one numpy array or list per event field, codes for names.

A million events as a million dicts cost about a gigabyte and every check becomes a
Python loop; as columns they cost tens of megabytes and most checks become a few
vectorised numpy operations. Columns are built from the fast decoder's structs or,
tolerantly, from whatever plain JSON values a broken trace holds (a wrong-typed value
becomes "missing" here; the schema check reports it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, repeat
from operator import attrgetter, countOf, eq, is_not
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


class _Index(dict[Any, int]):
    """Name -> code; a name not seen before gets the next code as it is looked up."""

    def __init__(self, names: list[str]) -> None:
        # None (a broken trace's missing value) and UNSET (the fast decoder's) are absent.
        super().__init__({None: -1, UNSET: -1})
        self.names = names

    def __missing__(self, name: str) -> int:
        code = self[name] = len(self.names)
        self.names.append(name)
        return code


class Names:
    """Interns agent/tool names as small integer codes (-1 = absent)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.index = _Index(self.names)

    def codes(self, values: Iterable[Any], count: int) -> np.ndarray:
        """Codes of ``count`` values, in one pass over them (new names are added)."""
        start = len(self.names)
        out = np.fromiter(map(self.index.__getitem__, values), dtype=np.int32, count=count)
        new = self.names[start:]
        if len(new) > 1:
            # New names get codes in sorted order (not first-seen order), so a code
            # says the same whatever the order of the events.
            order = sorted(range(len(new)), key=new.__getitem__)
            remap = np.empty(len(new), dtype=np.int32)
            remap[order] = np.arange(start, start + len(new), dtype=np.int32)
            self.names[start:] = [new[k] for k in order]
            for code, name in enumerate(self.names[start:], start):
                self.index[name] = code
            moved = out >= start
            out[moved] = remap[out[moved] - start]
        return out


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
    # Raw endpoint strings by edge index (None where not a string).
    src_ids: list[Any]
    dst_ids: list[Any]
    esrc: np.ndarray  # int32 index of the source event, -1 when dangling
    edst: np.ndarray
    ekind: np.ndarray  # int8 code into EDGE_TYPES, -1 when invalid
    # int64: index of the first event with the same id (itself unless a duplicate), -1
    # when the event has no usable id.
    first: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    # Each event's ``attributes`` as decoded (UNSET or None where absent), or empty when no
    # event has any: the metrics read the span nesting an importer wrote there.
    attributes: list[Any] = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.ids)

    @property
    def m(self) -> int:
        return len(self.esrc)


def _hashes(values: list[Any]) -> np.ndarray:
    return np.fromiter(map(hash, values), np.int64, len(values))


class IdIndex:
    """Event ids -> index of their first occurrence, without a dict of a million ids.

    The ids' hashes are sorted once; a look-up is a binary search among them (the
    queries sorted first, so the search walks the array in order), then one string
    comparison with the id found, since equal hashes do not prove equal strings.
    A dict would do the same work with a random memory access per id and per query,
    which is what costs at a million events. ``None`` stands for a missing id: it
    is no event's id and no look-up finds it.
    """

    def __init__(self, ids: list[Any]) -> None:
        self.ids = ids
        h = _hashes(ids)
        # Among equal hashes the earliest event comes first: a stable sort gives that, but
        # costs three times a quicksort on a million hashes (0.14 s against 0.04 s), and
        # equal hashes are rare (a duplicate id, or a clash): only then are they put in order.
        self.order = np.argsort(h)
        self.sorted = h[self.order]
        runs = np.flatnonzero(self.sorted[1:] == self.sorted[:-1])
        if runs.size:
            self.order = self.order[np.lexsort((self.order, self.sorted))]
        none = np.flatnonzero(h == hash(None))
        self.absent = np.zeros(len(ids), dtype=bool)
        self.absent[none[[ids[i] is None for i in none.tolist()]]] = True
        self.first = np.arange(len(ids), dtype=np.int64)
        if runs.size:  # duplicate ids, or (rarely) different ids with equal hashes
            self._settle_runs(runs)
        self.first[self.absent] = -1

    def _settle_runs(self, runs: np.ndarray) -> None:
        order = self.order.tolist()
        seen: dict[Any, int] = {}
        prev = -2
        for p in runs.tolist():
            if p != prev + 1:  # a new run of equal hashes starts at p
                seen.clear()
                self._first_of(order[p], seen)
            self._first_of(order[p + 1], seen)
            prev = p

    def _first_of(self, i: int, seen: dict[Any, int]) -> None:
        if not self.absent[i]:
            self.first[i] = seen.setdefault(self.ids[i], i)

    def find(self, queries: list[Any]) -> np.ndarray:
        """int32 index of the first event whose id is each query, -1 for none."""
        m, n = len(queries), len(self.ids)
        if n == 0:
            return np.full(m, -1, dtype=np.int32)
        hq = _hashes(queries)
        # In the order of their hashes the queries walk the sorted array once.
        by_hash = np.argsort(hq)
        hq_sorted = hq[by_hash]
        pos_sorted = np.searchsorted(self.sorted, hq_sorted)
        np.minimum(pos_sorted, n - 1, out=pos_sorted)
        pos = np.empty(m, dtype=np.int64)
        pos[by_hash] = pos_sorted
        hit = np.empty(m, dtype=bool)
        hit[by_hash] = self.sorted[pos_sorted] == hq_sorted
        cand = self.order[pos]
        same = np.fromiter(
            map(eq, map(self.ids.__getitem__, cand.tolist()), queries), dtype=bool, count=m
        )
        ok = hit & same & ~self.absent[cand]
        out = np.where(ok, cand, -1).astype(np.int32)
        for j in np.flatnonzero(hit & ~ok).tolist():
            out[j] = self._search_run(int(pos[j]), queries[j])
        return out

    def _search_run(self, p: int, query: Any) -> int:
        """The first event with id ``query`` among those sharing the hash at ``p``."""
        if query is None:
            return -1
        h = self.sorted[p]
        while p < len(self.sorted) and self.sorted[p] == h:
            i = int(self.order[p])
            if not self.absent[i] and self.ids[i] == query:
                return i
            p += 1
        return -1


_TRUSTED: dict[Any, int] = {True: 1, False: 0, UNSET: -1}
_UNSET_AS_NONE: dict[Any, Any] = {UNSET: None}


def from_structs(events: list[Any], edges: list[Any]) -> tuple[Table, int]:
    """Columns from :class:`~survey_tools.traces.decode.FastEvent` structs (already typed).

    Also returns how many optional keys the events hold (for the duplicate-key
    check). Every column is one pass at C speed (``map`` over an attribute getter
    into ``np.fromiter``), names are coded in that same pass and edge ends are found
    through :class:`IdIndex`: this is the hot loop of a million-event validation.
    """
    n = len(events)

    def get(attr: str) -> Iterator[Any]:
        return map(attrgetter(attr), events)

    names = Names()
    ids = list(get("id"))
    src = list(map(attrgetter("src"), edges))
    dst = list(map(attrgetter("dst"), edges))
    index = IdIndex(ids)
    agent = names.codes(get("agent"), n)
    to = names.codes(get("to"), n)
    tool = names.codes(get("tool"), n)
    raw_call_id = list(get("call_id"))
    # A field no event has (often call_id and reason) is counted, not mapped: counting the
    # UNSET values is an identity check each, a third of a pass that builds a column.
    no_call_id = countOf(raw_call_id, UNSET)
    call_id: list[Any] = (
        [None] * n if no_call_id == n else list(map(_UNSET_AS_NONE.get, raw_call_id, raw_call_id))
    )
    no_reason = countOf(get("reason"), UNSET)
    has_reason = (
        np.zeros(n, dtype=bool)
        if no_reason == n
        else np.fromiter(map(is_not, get("reason"), repeat(UNSET)), bool, n)
    )
    dur = np.fromiter(get("duration_s"), np.float64, n)
    no_attributes = countOf(get("attributes"), UNSET)
    raw_attributes = list(get("attributes")) if no_attributes < n else []
    attributes = [a for a in raw_attributes if a is not UNSET]
    trusted = np.fromiter(map(_TRUSTED.__getitem__, get("trusted")), np.int8, n)
    optional = (
        # One pass for the fields only counted here (cheaper than four).
        4 * n
        - countOf(
            chain.from_iterable(map(attrgetter("role", "from_", "content_ref", "content"), events)),
            UNSET,
        )
        + int(np.count_nonzero(to >= 0))
        + int(np.count_nonzero(tool >= 0))
        + (n - no_call_id)
        + int(np.count_nonzero(trusted >= 0))
        + (n - no_reason)
        + int(np.count_nonzero(~np.isnan(dur)))
        + (n - no_attributes)
        + sum(map(count_keys, attributes))
    )
    table = Table(
        ids=ids,
        t=np.fromiter(get("t"), np.float64, n),
        dur=dur,
        etype=np.fromiter(map(EVENT_CODE.__getitem__, get("type")), np.int8, n),
        agent=agent,
        to=to,
        tool=tool,
        trusted=trusted,
        has_reason=has_reason,
        call_id=call_id,
        names=names,
        src_ids=src,
        dst_ids=dst,
        esrc=index.find(src),
        edst=index.find(dst),
        ekind=np.fromiter(
            map(EDGE_CODE.__getitem__, map(attrgetter("type"), edges)), np.int8, len(edges)
        ),
        first=index.first,
        attributes=raw_attributes,
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
    index = IdIndex(ids)
    n = len(ids)
    return Table(
        ids=ids,
        t=np.array([_num_or_nan(v) for v in cols["t"]], dtype=np.float64),
        dur=np.array([_num_or_nan(v) for v in cols["duration_s"]], dtype=np.float64),
        etype=np.array(
            [EVENT_CODE.get(v, -1) if isinstance(v, str) else -1 for v in cols["type"]],
            dtype=np.int8,
        ),
        agent=names.codes(cols["agent"], n),
        to=names.codes(cols["to"], n),
        tool=names.codes(cols["tool"], n),
        trusted=np.array(
            [int(v) if isinstance(v, bool) else -1 for v in cols["trusted"]], dtype=np.int8
        ),
        has_reason=np.array([isinstance(v, str) for v in cols["reason"]], dtype=bool),
        call_id=cols["call_id"],
        names=names,
        src_ids=src,
        dst_ids=dst,
        esrc=index.find(src),
        edst=index.find(dst),
        ekind=np.array(
            [EDGE_CODE.get(k, -1) if isinstance(k := _get(e, "type"), str) else -1 for e in eds],
            dtype=np.int8,
        ),
        first=index.first,
        attributes=(
            cols["attributes"] if any(isinstance(a, dict) for a in cols["attributes"]) else []
        ),
    )
