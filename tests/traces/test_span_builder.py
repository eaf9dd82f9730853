"""The span importers' columnar builder agrees with the generic Builder it replaced."""

from __future__ import annotations

import random

import pytest

from survey_tools.traces.importers.common import Builder
from survey_tools.traces.importers.spans import _EXACT_NS, SpanBuilder, SpanRec, _sort

AGENTS = ["root", "a", "b", "c", "d"]


def _old_edges(b: Builder) -> set[tuple[int, int, str]]:
    b.chain_agents()
    for k, (t, type_, _agent, extra) in enumerate(b.events):
        if type_ in ("spawn", "message", "return") and extra and "to" in extra:
            nxt = b.next_of(extra["to"], t, k)
            if nxt is not None:
                b.edge(k, nxt, type_)
    b.dedupe_edges()
    return set(b.edges)


@pytest.mark.parametrize("seed", range(40))
def test_links_and_dedupe_match_the_generic_builder(seed: int) -> None:
    rng = random.Random(seed)
    old, new = Builder(), SpanBuilder()
    for _ in range(rng.randint(1, 60)):
        t = rng.randint(0, 8) / 4
        agent = rng.choice(AGENTS)
        type_ = rng.choice(["spawn", "message", "return", "tool_call", "orchestrator_decision"])
        if type_ in ("spawn", "message", "return"):
            to = rng.choice([*AGENTS, "nobody"])
            old.add(t, type_, agent, to=to)
            new.add(t, type_, agent, ("to", to))
        else:
            old.add(t, type_, agent)
            new.add(t, type_, agent)
    n = len(old.events)
    for _ in range(rng.randint(0, 20)):
        s, d = rng.randrange(n), rng.randrange(n)
        kind = rng.choice(["causal", "aggregate", "tool_dependency", "return"])
        old.edge(s, d, kind)
        new.edge(s, d, kind)
    want = _old_edges(old)
    new.finish()
    kinds = ("causal", "spawn", "message", "return", "tool_dependency", "aggregate")
    got = {
        (s, d, kinds[k])
        for s, d, k in zip(new.src.tolist(), new.dst.tolist(), new.kind.tolist(), strict=True)
    }
    assert got == want


def test_sort_matches_python_sort() -> None:
    rng = random.Random(1)
    recs = [
        SpanRec(f"{rng.randrange(50):016x}", "", rng.randrange(5), rng.randrange(5), "tool", "x")
        for _ in range(300)
    ]
    want = sorted(recs, key=lambda r: (r.start, r.end, r.span_id))
    _sort(recs)
    assert [id(r) for r in recs] == [id(r) for r in want]
    big = [SpanRec("b", "", 1 << 70, 0, "tool", "x"), SpanRec("a", "", 1 << 70, 0, "tool", "x")]
    _sort(big)
    assert [r.span_id for r in big] == ["a", "b"]


def test_unrounded_seconds_are_what_round_gives() -> None:
    rng = random.Random(2)
    for _ in range(200_000):
        d = rng.randrange(-_EXACT_NS + 1, _EXACT_NS)
        assert (d / 1e9) == round(d / 1e9, 9)
    for d in (0, 1, 999_999_999, _EXACT_NS - 1, -(_EXACT_NS - 1)):
        assert (d / 1e9) == round(d / 1e9, 9)


def _random_builder(seed: int) -> SpanBuilder:
    rng = random.Random(seed)
    b = SpanBuilder()
    for _ in range(rng.randint(1, 60)):
        t = rng.randint(0, 8) / 4
        type_ = rng.choice(["spawn", "message", "return", "tool_call", "orchestrator_decision"])
        to = rng.choice([*AGENTS, "nobody"])
        b.add(
            t,
            type_,
            rng.choice(AGENTS),
            ("to", to) if type_ in ("spawn", "message", "return") else (),
        )
    for _ in range(rng.randint(0, 20)):
        n = b.n_events
        b.edge(rng.randrange(n), rng.randrange(n), rng.choice(["causal", "aggregate", "return"]))
    return b


@pytest.mark.parametrize("seed", range(40))
def test_plain_edges_match_the_numpy_edges(seed: int) -> None:
    fast = _random_builder(seed)
    fast.finish()  # (numpy: the keys of these small builds fit in int64)
    plain = _random_builder(seed)
    plain.t = [e.t for e in plain.events]
    plain.type = [e.type for e in plain.events]
    plain.agent = [e.agent for e in plain.events]
    src, dst, kind = plain._edges_plain()
    assert (src.tolist(), dst.tolist(), kind.tolist()) == (
        fast.src.tolist(),
        fast.dst.tolist(),
        fast.kind.tolist(),
    )
