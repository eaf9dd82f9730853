"""Runs the real OpenAI Agents SDK offline: a scripted local model (canned responses,
no network) drives a triage agent that calls a tool, hands off to a specialist, and
one tool that fails. What the SDK's tracing emits is captured by a TracingProcessor of
ours (the dicts its exporters receive) and, when asked, by the SDK's own
BackendSpanExporter posting to a loopback server."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
from collections.abc import AsyncIterator, Coroutine
from typing import Any

from agents import (
    Agent,
    ModelResponse,
    ModelSettings,
    RunConfig,
    Runner,
    Usage,
    function_tool,
    set_trace_processors,
    trace,
)
from agents.models.interface import Model
from agents.tracing import TracingProcessor
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

# Per model call: (input tokens, output tokens); the run's usage is their sum.
USAGE = [(300, 40), (350, 60), (280, 45), (30, 20)]


def _message(text: str, n: int) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id=f"msg_{n}",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


def _call(name: str, args: str, n: int) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        id=f"fc_{n}", call_id=f"call_{n}", type="function_call", name=name, arguments=args
    )


class ScriptedModel(Model):
    """Returns the next canned output on each call, with canned usage."""

    def __init__(self, script: list[list[Any]]) -> None:
        self.script = list(script)
        self.n = 0

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        out = self.script.pop(0)
        i, o = USAGE[self.n % len(USAGE)]
        self.n += 1
        return ModelResponse(
            output=out,
            usage=Usage(requests=1, input_tokens=i, output_tokens=o, total_tokens=i + o),
            response_id=None,
        )

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError


class Capture(TracingProcessor):
    """What the SDK hands its exporters: trace and span export dicts, in order."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def on_trace_start(self, trace: Any) -> None:
        pass

    def on_trace_end(self, trace: Any) -> None:
        if (d := trace.export()) is not None:
            self.items.append(d)

    def on_span_start(self, span: Any) -> None:
        pass

    def on_span_end(self, span: Any) -> None:
        if (d := span.export()) is not None:
            self.items.append(d)

    def shutdown(self) -> None:
        pass

    def force_flush(self) -> None:
        pass


@function_tool
def lookup_order(order_id: str) -> str:
    """Look up an order."""
    return f"order {order_id}: shipped"


@function_tool
def refund(order_id: str) -> str:
    """Refund an order."""
    raise RuntimeError("refund service unavailable")


def _agents() -> Agent[Any]:
    specialist = Agent(
        name="refunds",
        instructions="Handle refunds.",
        tools=[refund],
        model=ScriptedModel(
            [
                [_call("refund", '{"order_id": "A7"}', 3)],
                [_message("The refund could not be made now.", 4)],
            ]
        ),
    )
    return Agent(
        name="triage",
        instructions="Route the customer.",
        tools=[lookup_order],
        handoffs=[specialist],
        model=ScriptedModel(
            [
                [_call("lookup_order", '{"order_id": "A7"}', 1)],
                [_call("transfer_to_refunds", "{}", 2)],
            ]
        ),
        model_settings=ModelSettings(),
    )


def _run_to_end(coro: Coroutine[Any, Any, Any]) -> Any:
    """asyncio.run, or, where this thread already runs an event loop (Playwright's sync API
    in the same session, a notebook), asyncio.run on a thread of its own. The context is
    copied so the SDK's current trace (a context variable) is the same on that thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    ctx = contextvars.copy_context()
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(ctx.run, asyncio.run, coro).result()


def run(processors: list[TracingProcessor], runs: int = 1) -> None:
    """``runs`` traces, each one customer conversation."""
    set_trace_processors(processors)
    try:
        for k in range(runs):
            with trace(f"customer-service-{k}", group_id="conversation-1"):
                _run_to_end(
                    Runner.run(
                        _agents(),
                        "Refund order A7",
                        run_config=RunConfig(tracing_disabled=False),
                    )
                )
    finally:
        set_trace_processors([])
