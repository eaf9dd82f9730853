"""The span importers' builder gives the edges the generic Builder gives."""

from __future__ import annotations

import random

import pytest

from survey_tools.traces.importers.common import Builder
from survey_tools.traces.importers.spans import _EXACT_NS, SpanBuilder

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


def test_unrounded_seconds_are_what_round_gives() -> None:
    rng = random.Random(2)
    for _ in range(200_000):
        d = rng.randrange(-_EXACT_NS + 1, _EXACT_NS)
        assert (d / 1e9) == round(d / 1e9, 9)
    for d in (0, 1, 999_999_999, _EXACT_NS - 1, -(_EXACT_NS - 1)):
        assert (d / 1e9) == round(d / 1e9, 9)
