"""What every importer shares: an event/edge builder, content hashing, streamed
atomic output, and the import summary."""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from survey_tools.errors import SurveyError
from survey_tools.fileio import atomic_write
from survey_tools.hashing import content_hexdigest
from survey_tools.traces.schema import SCHEMA_VERSION


class ImportFailed(SurveyError):
    """The input cannot be imported at all (wrong format, no usable data)."""


def content_hash(text: str) -> str:
    """A stable reference to content without the content: ``sha256:<hex>``."""
    return "sha256:" + content_hexdigest(text.encode("utf-8", "surrogatepass"), 32)


# Event tuples keep a million-span import small: (t, type, agent, extra-fields dict).
Event = tuple[float, str, str, dict[str, Any] | None]


@dataclass
class Builder:
    """Collects events and edges; event ids are ``e1``, ``e2``, … in creation order."""

    events: list[Event] = field(default_factory=list)
    edges: list[tuple[int, int, str]] = field(default_factory=list)
    # Per agent: sorted (t, index) of its events, for "the agent's next event".
    _timeline: dict[str, list[tuple[float, int]]] = field(default_factory=dict)

    @property
    def n_events(self) -> int:
        return len(self.events)

    def add(self, t: float, type_: str, agent: str, **fields: Any) -> int:
        k = len(self.events)
        extra = {key: v for key, v in fields.items() if v is not None} or None
        self.events.append((t, type_, agent, extra))
        tl = self._timeline.setdefault(agent, [])
        if tl and tl[-1] > (t, k):
            bisect.insort(tl, (t, k))
        else:
            tl.append((t, k))
        return k

    def edge(self, src: int, dst: int, kind: str) -> None:
        if src != dst:
            self.edges.append((src, dst, kind))

    def next_of(self, agent: str, t: float, after: int) -> int | None:
        """The agent's first event after (t, after), if any."""
        tl = self._timeline.get(agent)
        if not tl:
            return None
        j = bisect.bisect_right(tl, (t, after))
        return tl[j][1] if j < len(tl) else None

    def chain_agents(self) -> None:
        """Link each agent's consecutive events with causal edges (work follows work)."""
        for tl in self._timeline.values():
            for (_, a), (_, b) in zip(tl, tl[1:], strict=False):
                self.edge(a, b, "causal")

    def dedupe_edges(self) -> None:
        """Keep one edge per (src, dst): the most specific kind wins over causal."""
        best: dict[tuple[int, int], str] = {}
        for s, d, kind in self.edges:
            if best.get((s, d), "causal") == "causal":
                best[(s, d)] = kind
        self.edges = [(s, d, k) for (s, d), k in sorted(best.items())]


@dataclass
class ImportResult:
    builder: Any  # a Builder, or the span importers' columnar SpanBuilder
    head: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    # (key path in head, builder event index): written as that event's final id.
    event_refs: list[tuple[tuple[str, ...], int]] = field(default_factory=list)
    # Names this trace among several of one input (its trace id); '' for the only one.
    key: str = ""

    def iter_json(self) -> Iterator[bytes]:
        """The trace as JSON, one event or edge per line, without one giant string."""
        b = self.builder
        if not isinstance(b, Builder):
            order, pos = b.time_order()
            yield from self._iter_head(pos)
            yield from b.iter_events(order)
            del order
            yield b'],\n"edges": [\n'
            yield from b.iter_edges(pos)
            yield b"]\n}\n"
            return
        evs = b.events
        # Events in time order (creation order breaks ties); ids follow that order.
        order = sorted(range(len(evs)), key=lambda k: (evs[k][0], k))
        pos = [0] * len(evs)
        for i, k in enumerate(order):
            pos[k] = i + 1
        yield from self._iter_head(pos)
        last = len(evs) - 1
        for i, k in enumerate(order):
            t, type_, agent, extra = evs[k]
            ev: dict[str, Any] = {"id": f"e{i + 1}", "t": t, "type": type_, "agent": agent}
            if extra:
                ev.update(extra)
            yield orjson.dumps(ev) + (b",\n" if i < last else b"\n")
        del order
        yield b'],\n"edges": [\n'
        eds = sorted((pos[s], pos[d], kind) for s, d, kind in b.edges)
        last = len(eds) - 1
        for i, (s, d, kind) in enumerate(eds):
            yield orjson.dumps({"src": f"e{s}", "dst": f"e{d}", "type": kind}) + (
                b",\n" if i < last else b"\n"
            )
        yield b"]\n}\n"

    def _iter_head(self, pos: list[int]) -> Iterator[bytes]:
        head = {"schema_version": SCHEMA_VERSION, **self.head}
        for keys, k in self.event_refs:
            node = head
            for key in keys[:-1]:
                node = node[key]
            node[keys[-1]] = f"e{pos[k]}"
        rest = {k: v for k, v in head.items() if k not in ("events", "edges")}
        yield b"{\n"
        for key, v in rest.items():
            yield orjson.dumps(key) + b": " + orjson.dumps(v) + b",\n"
        yield b'"events": [\n'


def write_stream(path: Path, chunks: Iterator[bytes]) -> None:
    """Write ``chunks`` to ``path`` atomically, without joining them in memory first."""
    atomic_write(path, chunks)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def datetime_nanos(dt: datetime) -> int:
    """A time as nanoseconds since the epoch (a time without a zone is UTC), exact to the
    microsecond a datetime holds."""
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    delta = dt - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000


def iso_nanos(v: Any) -> int | None:
    """An ISO 8601 time (the Agents SDK's exports, the console exporter, trace stores) as
    nanoseconds since the epoch; None when ``v`` is not one."""
    if not isinstance(v, str):
        return None
    try:
        return datetime_nanos(datetime.fromisoformat(v.strip()))
    except ValueError:
        return None
