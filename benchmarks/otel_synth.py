"""Synthetic OTLP/JSON GenAI traces of any size (for the import benchmark and tests;
test data, not part of the package).

One root ``invoke_agent`` span (the orchestrator) invokes a few hundred sub-agents;
each sub-agent makes model calls (``chat`` with token usage) and tool calls
(``execute_tool``). Deterministic for a given seed. Written span by span, so a
million spans never sit in memory as objects.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import orjson

from survey_tools.traces.importers.common import write_stream

T0 = 1_760_000_000_000_000_000
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TOOLS = ("web_search", "fetch_page", "run_python", "read_file")


def _kv(key: str, value: str | int) -> dict[str, object]:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _span(
    sid: int, parent: int, name: str, start: int, end: int, attrs: list[dict[str, object]]
) -> bytes:
    return orjson.dumps(
        {
            "traceId": TRACE_ID,
            "spanId": f"{sid:016x}",
            "parentSpanId": f"{parent:016x}" if parent else "",
            "name": name,
            "kind": 1,
            "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(end),
            "attributes": attrs,
            "status": {"code": 1},
        }
    )


def iter_otlp(n_spans: int, *, n_agents: int = 300, seed: int = 0) -> Iterator[bytes]:
    rng = random.Random(seed)
    n_agents = max(1, min(n_agents, n_spans - 1))
    per_agent = max(1, (n_spans - 1 - n_agents) // n_agents)
    extra = max(0, n_spans - 1 - n_agents - per_agent * n_agents)
    ms = 1_000_000
    yield b'{"resourceSpans": [{"resource": {"attributes": ['
    yield orjson.dumps(_kv("service.name", "synthetic-genai")) + b"]},"
    yield b'"scopeSpans": [{"scope": {"name": "survey-tools.synthetic"}, "spans": [\n'
    sid = 1
    clock = T0 + 5 * ms
    agents_end = T0
    body: list[bytes] = []
    for a in range(n_agents):
        me = sid + 1
        sid += 1
        start = clock
        t = start + ms
        children: list[bytes] = []
        for _ in range(per_agent + (1 if a < extra else 0)):
            sid += 1
            dur = rng.randint(5, 400) * ms
            if rng.random() < 0.5:
                attrs = [
                    _kv("gen_ai.operation.name", "chat"),
                    _kv("gen_ai.request.model", "model-small"),
                    _kv("gen_ai.usage.input_tokens", rng.randint(100, 3000)),
                    _kv("gen_ai.usage.output_tokens", rng.randint(10, 500)),
                ]
                children.append(_span(sid, me, "chat model-small", t, t + dur, attrs))
            else:
                tool = TOOLS[rng.randrange(len(TOOLS))]
                attrs = [
                    _kv("gen_ai.operation.name", "execute_tool"),
                    _kv("gen_ai.tool.name", tool),
                    _kv("gen_ai.tool.call.id", f"call_{sid}"),
                ]
                children.append(_span(sid, me, f"execute_tool {tool}", t, t + dur, attrs))
            t += dur + ms
        attrs = [
            _kv("gen_ai.operation.name", "invoke_agent"),
            _kv("gen_ai.agent.name", f"agent_{a:03d}"),
        ]
        body.append(_span(me, 1, f"invoke_agent agent_{a:03d}", start, t, attrs))
        body.extend(children)
        agents_end = max(agents_end, t)
        clock += rng.randint(1, 50) * ms  # agents run concurrently, staggered
        if len(body) >= 50_000:
            yield b",\n".join(body) + b",\n"
            body = []
    root = _span(
        1,
        0,
        "invoke_agent orchestrator",
        T0,
        agents_end + 10 * ms,
        [_kv("gen_ai.operation.name", "invoke_agent"), _kv("gen_ai.agent.name", "orchestrator")],
    )
    yield b",\n".join([*body, root]) + b"\n]}]}]}\n"


def write_otlp(path: Path | str, *, n_spans: int, seed: int = 0) -> Path:
    path = Path(path)
    write_stream(path, iter_otlp(n_spans, seed=seed))
    return path


def _linked_span(
    tid: int, sid: int, parent: int, name: str, start: int, end: int, attrs: list, link: int = 0
) -> dict[str, object]:
    span: dict[str, object] = {
        "traceId": f"{tid:032x}",
        "spanId": f"{sid:016x}",
        "parentSpanId": f"{parent:016x}" if parent else "",
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(end),
        "attributes": attrs,
    }
    if link:
        # The link names the publish span of the turn before, in its own trace.
        span["links"] = [{"traceId": f"{tid - 1:032x}", "spanId": f"{link:016x}"}]
    return span


def iter_linked(n_spans: int, *, n_agents: int = 5, seed: int = 0) -> Iterator[bytes]:
    """AutoGen-style spans: one small trace per message the runtime delivers, joined by
    span links (JSON lines, one export batch per 200 turns). Each turn is a trace:
    ``autogen process <agent>`` (linked to the publish span of the turn before) holding
    the agent's ``invoke_agent`` span (a model call with usage, then a hand-off tool
    ``transfer_to_<next agent>``) and the ``autogen publish`` of its reply. Turns run one
    after another: one run, one trace, and a speedup of at most 1. Five spans a turn."""
    rng = random.Random(seed)
    ms = 1_000_000
    agents = [f"agent_{a}" for a in range(n_agents)]
    turns = max(1, n_spans // 5)
    clock = T0
    sid = 0
    prev_publish = 0
    batch: list[dict[str, object]] = []
    for k in range(turns):
        tid = k + 1
        me, nxt = agents[k % n_agents], agents[(k + 1) % n_agents]
        proc, inv, chat, tool, pub = (sid + 1, sid + 2, sid + 3, sid + 4, sid + 5)
        sid += 5
        t0 = clock
        t_chat = t0 + 2 * ms
        t_tool = t_chat + rng.randint(5, 60) * ms
        t_pub = t_tool + 2 * ms
        t_end = t_pub + ms
        batch += [
            _linked_span(
                tid,
                proc,
                0,
                f"autogen process {me}.(default)-T",
                t0,
                t_end,
                [_kv("messaging.operation", "process"), _kv("messaging.destination", me)],
                link=prev_publish,
            ),
            _linked_span(
                tid,
                inv,
                proc,
                f"invoke_agent {me}",
                t0 + ms,
                t_pub,
                [_kv("gen_ai.operation.name", "invoke_agent"), _kv("gen_ai.agent.name", me)],
            ),
            _linked_span(
                tid,
                chat,
                inv,
                "chat scripted",
                t_chat,
                t_tool,
                [
                    _kv("gen_ai.operation.name", "chat"),
                    _kv("gen_ai.usage.input_tokens", rng.randint(100, 3000)),
                    _kv("gen_ai.usage.output_tokens", rng.randint(10, 500)),
                ],
            ),
            _linked_span(
                tid,
                tool,
                inv,
                f"execute_tool transfer_to_{nxt}",
                t_tool,
                t_tool + ms,
                [
                    _kv("gen_ai.operation.name", "execute_tool"),
                    _kv("gen_ai.tool.name", f"transfer_to_{nxt}"),
                ],
            ),
            _linked_span(
                tid,
                pub,
                proc,
                "autogen publish group_topic.(default)",
                t_pub,
                t_pub + ms // 2,
                [_kv("messaging.operation", "publish")],
            ),
        ]
        prev_publish = pub
        clock = t_end + ms
        if len(batch) >= 1000 or k == turns - 1:
            doc = {
                "resourceSpans": [
                    {
                        "resource": {"attributes": [_kv("service.name", "autogen-like")]},
                        "scopeSpans": [{"scope": {"name": "autogen-core"}, "spans": batch}],
                    }
                ]
            }
            yield orjson.dumps(doc) + b"\n"
            batch = []


def write_linked(path: Path | str, *, n_spans: int, seed: int = 0) -> Path:
    path = Path(path)
    write_stream(path, iter_linked(n_spans, seed=seed))
    return path
