"""Framework rules as data: a user's rules file adds a framework without code, a bad one is
refused with every problem at its line, and --explain says what each span became and why.

tests/data/traces/rules/: ``acme.otlp.json`` is a run of a made-up framework ("acme") whose
spans no convention or shipped row knows; ``acme-rules.yaml`` is the rules file its user would
write; ``bad-rules.yaml`` a broken one, ``bad-rules.expected`` the exact lines it gets.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from helpers.support import run

from survey_tools.traces.importers import frameworks

DATA = Path(__file__).resolve().parents[2] / "data" / "traces" / "rules"


def _import(tmp_path: Path, *extra: str) -> tuple[int, dict, str]:
    out = tmp_path / "acme.trace.json"
    code, _, err = run(
        None, "trace", "import", "auto", str(DATA / "acme.otlp.json"), "-o", str(out), *extra
    )
    return code, (json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}), err


def test_without_rules_the_made_up_framework_is_mostly_generic_and_the_summary_names_its_spans(
    tmp_path: Path,
) -> None:
    code, doc, err = _import(tmp_path)
    assert code == 0, err
    # acme.llm says it is a model call by its name's last word (selfsaid.dotted); nothing
    # names an agent or a tool, so the three calls are the run's root's, named by its span.
    assert {e["agent"] for e in doc["events"]} == {"acme.session"}
    assert Counter(e.get("role") for e in doc["events"])["llm_call"] == 3
    assert "unknown operations kept as generic events: acme.action (2), acme.actor (2)" in err
    # Nothing invented where the file says nothing the importer can read.
    assert "the file has no token counts (no span reports usage; the trace's tokens are 0)" in err
    assert "the file has no tool spans: nothing is invented in their place" in err
    assert doc["costs"]["tokens"] == 0 and doc["costs"]["tool_calls"] == 0


def test_a_users_rules_file_adds_the_framework_without_code(tmp_path: Path) -> None:
    code, doc, err = _import(tmp_path, "--rules", str(DATA / "acme-rules.yaml"))
    assert code == 0, err
    ev = doc["events"]
    spawns = [(e["agent"], e["to"]) for e in ev if e["type"] == "spawn"]
    assert spawns == [("root", "planner"), ("planner", "writer")]
    assert [(e["agent"], e["to"]) for e in ev if e["type"] == "return"] == [
        ("writer", "planner"),
        ("planner", "root"),
    ]
    assert [(e["agent"], e["tool"]) for e in ev if e["type"] == "tool_call"] == [
        ("planner", "ask_writer"),
        ("writer", "search"),
    ]
    assert Counter(e["agent"] for e in ev if e.get("role") == "llm_call") == {
        "planner": 2,
        "writer": 1,
    }
    assert (doc["costs"]["input_tokens"], doc["costs"]["output_tokens"]) == (450, 70)
    assert "generic" not in err
    # The shipped table is as it was once the import is over.
    assert "acme.actor.role" not in frameworks.WANTED


def test_a_bad_rules_file_is_refused_with_every_problem_at_its_line(tmp_path: Path) -> None:
    code, doc, err = _import(tmp_path, "--rules", str(DATA / "bad-rules.yaml"))
    assert code == 1 and doc == {}
    want = (DATA / "bad-rules.expected").read_text(encoding="utf-8").splitlines()
    assert err.replace(str(DATA) + "/", "").splitlines() == want


def test_explain_says_what_each_span_became_and_by_which_rule(tmp_path: Path) -> None:
    code, _, err = _import(tmp_path, "--rules", str(DATA / "acme-rules.yaml"), "--explain")
    assert code == 0, err
    lines = [ln.split(": explain: ", 1)[1] for ln in err.splitlines() if ": explain: " in ln]
    rules = DATA / "acme-rules.yaml"
    assert lines == [
        "span a000000000000001 'acme.session': the run's root: agent root [nothing matched]",
        "span a000000000000002 'acme.actor': agent planner's span, delegated to by root "
        f"[acme: acme.actor: an agent's turn, named by acme.actor.role ({rules}:3)]",
        "span a000000000000003 'acme.llm': model call of planner "
        f"[acme: acme.llm: a model call, its usage a JSON object in acme.usage ({rules}:9)]",
        "span a000000000000004 'acme.action': tool call ask_writer of planner "
        f"[acme: acme.action: a tool call named by acme.action.name ({rules}:16)]",
        "span a000000000000005 'acme.actor': agent writer's span, delegated to by planner "
        f"[acme: acme.actor: an agent's turn, named by acme.actor.role ({rules}:3)]",
        "span a000000000000006 'acme.llm': model call of writer "
        f"[acme: acme.llm: a model call, its usage a JSON object in acme.usage ({rules}:9)]",
        "span a000000000000007 'acme.action': tool call search of writer "
        f"[acme: acme.action: a tool call named by acme.action.name ({rules}:16)]",
        "span a000000000000008 'acme.llm': model call of planner "
        f"[acme: acme.llm: a model call, its usage a JSON object in acme.usage ({rules}:9)]",
    ]


def test_the_shipped_rules_load_and_every_row_names_where_it_is() -> None:
    assert frameworks.RULES and all(r.where.startswith("rules.yaml:") for r in frameworks.RULES)


def test_agents_are_the_owners_of_model_calls(tmp_path: Path) -> None:
    """shape.otlp.json: no span says who the planner and the checker are. Planner.forward
    holds model calls (through a nameless scope) and is the agent Planner; a model call
    directly in a tool is the tool's agent's; a tool holding Checker.__call__'s model calls
    is a delegation to Checker; a chain inside a conventional agent span stays its step."""
    out = tmp_path / "shape.trace.json"
    code, _, err = run(
        None, "trace", "import", "auto", str(DATA / "shape.otlp.json"), "-o", str(out)
    )
    assert code == 0, err
    ev = json.loads(out.read_text(encoding="utf-8"))["events"]
    assert [(e["agent"], e["to"]) for e in ev if e["type"] == "spawn"] == [
        ("Pipeline.run", "Planner"),
        ("Planner", "Checker"),
        ("Pipeline.run", "writer"),
    ]
    assert [(e["agent"], e["to"]) for e in ev if e["type"] == "return"] == [
        ("Checker", "Planner"),
        ("Planner", "Pipeline.run"),
        ("writer", "Pipeline.run"),
    ]
    models = Counter(e["agent"] for e in ev if e.get("role") == "llm_call")
    assert models == {"Planner": 2, "Checker": 1, "writer": 1}
    assert [(e["agent"], e["tool"]) for e in ev if e["type"] == "tool_call"] == [
        ("Planner", "summarise"),
        ("Planner", "ask_checker"),
    ]


def _otlp(spans: list[tuple[str, str, str, float, float, dict[str, str]]]) -> dict:
    """An OTLP/JSON document of (id, parent, name, start s, end s, attributes) spans."""
    t0 = 1_700_000_000_000_000_000
    return {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {
                        "spans": [
                            {
                                "traceId": "2af7651916cd43dd8448eb211c80319c",
                                "spanId": sid,
                                **({"parentSpanId": pid} if pid else {}),
                                "name": name,
                                "startTimeUnixNano": str(t0 + int(s * 1e9)),
                                "endTimeUnixNano": str(t0 + int(e * 1e9)),
                                "attributes": [
                                    {"key": k, "value": {"stringValue": v}} for k, v in a.items()
                                ],
                            }
                            for sid, pid, name, s, e, a in spans
                        ]
                    }
                ]
            }
        ]
    }


def test_haystack_tracer_rows_name_the_agent_by_its_component(tmp_path: Path) -> None:
    """Spans as Haystack's own tracer names them (haystack-ai 3.4.1's source: the pipeline's
    haystack.component.run with haystack.component.name, the Agent's nameless loop, its
    step.llm and step.tool spans): the component is the agent."""
    doc = _otlp(
        [
            ("c000000000000001", "", "haystack.pipeline.run", 0, 5, {}),
            (
                "c000000000000002",
                "c000000000000001",
                "haystack.component.run",
                0.1,
                4.9,
                {"haystack.component.name": "coordinator", "haystack.component.type": "Agent"},
            ),
            ("c000000000000003", "c000000000000002", "haystack.agent.run", 0.2, 4.8, {}),
            ("c000000000000004", "c000000000000003", "haystack.agent.step", 0.3, 2.0, {}),
            ("c000000000000005", "c000000000000004", "haystack.agent.step.llm", 0.4, 1.0, {}),
            (
                "c000000000000006",
                "c000000000000004",
                "haystack.agent.step.tool",
                1.1,
                1.9,
                {"haystack.tool.name": "search"},
            ),
        ]
    )
    src = tmp_path / "haystack.otlp.json"
    src.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "haystack.trace.json"
    code, _, err = run(None, "trace", "import", "auto", str(src), "-o", str(out))
    assert code == 0, err
    ev = json.loads(out.read_text(encoding="utf-8"))["events"]
    assert [(e["agent"], e["to"]) for e in ev if e["type"] == "spawn"] == [("root", "coordinator")]
    assert [e["agent"] for e in ev if e.get("role") == "llm_call"] == ["coordinator"]
    assert [(e["agent"], e["tool"]) for e in ev if e["type"] == "tool_call"] == [
        ("coordinator", "search")
    ]
    assert "runtime spans folded into their agent's events: haystack.agent.run (1)" in err
