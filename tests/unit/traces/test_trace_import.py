"""survey trace import: real Who&When runs, OTLP and Agents SDK fixtures built from
the specifications, and bad input (reported repairs or clear errors, never an
invalid trace)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers.trace_paths import REPO, WHO_AND_WHEN

from survey_tools.cli import cli
from survey_tools.traces.metrics import compute
from survey_tools.traces.validate import check_file

FIXTURES = REPO / "tests" / "data" / "traces"
OTLP = FIXTURES / "otel" / "research-assistant.otlp.json"
AGENTS = FIXTURES / "openai-agents" / "customer-service.json"


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, ["trace", *args])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    return res.exit_code, res.stdout, res.stderr


def imported(tmp_path: Path, fmt: str, src: Path, *extra: str) -> tuple[dict, str]:
    out = tmp_path / (src.stem + ".trace.json")
    code, _, err = run("import", fmt, str(src), "-o", str(out), *extra)
    assert code == 0, err
    report, trace = check_file(out)
    assert report.ok, [p.format() for p in report.sorted()]
    assert trace is not None
    return json.loads(out.read_text()), err


@pytest.fixture
def who_and_when() -> Path:
    return WHO_AND_WHEN


def test_magentic_one_run(tmp_path: Path, who_and_when: Path) -> None:
    src = who_and_when / "hand-crafted-24.json"
    doc, err = imported(tmp_path, "who-and-when", src)
    kinds = [(e["id"], e["t"], e["type"], e["agent"]) for e in doc["events"]]
    assert kinds == [
        ("e1", 0.0, "human_intervention", "human"),
        ("e2", 1.0, "orchestrator_decision", "Orchestrator"),
        ("e3", 2.0, "orchestrator_decision", "Orchestrator"),
        ("e4", 3.0, "orchestrator_decision", "Orchestrator"),
        ("e5", 4.0, "aggregate", "Orchestrator"),
        ("e6", 4.0, "stop", "Orchestrator"),
    ]
    ann = doc["metadata"]["annotations"]
    assert ann["mistake_agent"] == "Orchestrator" and ann["mistake_step"] == "1"
    assert ann["mistake_event"] == "e2"  # history[1], the initial plan
    assert "message index" in doc["system"] and doc["metadata"]["clock"].startswith("message")
    raw = json.loads(src.read_text())
    text = json.dumps(doc)
    for entry in raw["history"]:  # no raw content, only hashes
        assert entry["content"][:40] not in text
    assert all(e["content_ref"].startswith("sha256:") for e in doc["events"][:5])
    assert "5 history entries -> 6 events (Magentic-One)" in err


def test_captain_agent_run(tmp_path: Path, who_and_when: Path) -> None:
    doc, _ = imported(tmp_path, "who-and-when", who_and_when / "algorithm-generated-47.json")
    types = [e["type"] for e in doc["events"]]
    assert types == ["spawn"] + ["message"] * 6 + ["aggregate", "stop"]
    expert = "Mesopotamian_Number_Systems_Expert"
    # Entry 0 is spoken by the expert the dataset names (the manager only spawns it).
    assert doc["events"][0]["agent"] == "manager" and doc["events"][0]["to"] == expert
    assert doc["events"][1]["agent"] == expert and doc["events"][1]["role"] == "task"
    assert doc["metadata"]["annotations"]["mistake_event"] == "e3"
    assert doc["metadata"]["annotations"]["is_correct"] is False
    assert doc["rewards"] == {"team": 0.0} and doc["metadata"]["reward_from"] == "is_correct"
    assert doc["events"][2]["agent"] == expert


def test_mistake_at_step_0_falls_on_the_named_speaker(tmp_path: Path, who_and_when: Path) -> None:
    raw = json.loads((who_and_when / "algorithm-generated-47.json").read_text())
    raw["mistake_step"] = "0"
    src = tmp_path / "step0.json"
    src.write_text(json.dumps(raw))
    doc, _ = imported(tmp_path, "who-and-when", src)
    ev = next(
        e for e in doc["events"] if e["id"] == doc["metadata"]["annotations"]["mistake_event"]
    )
    assert ev["agent"] == raw["history"][0]["name"] == raw["mistake_agent"]


def test_hand_crafted_reward_from_is_corrected(tmp_path: Path, who_and_when: Path) -> None:
    doc, _ = imported(tmp_path, "who-and-when", who_and_when / "hand-crafted-24.json")
    assert doc["rewards"] == {"team": 0.0}  # "is_corrected": "False"
    assert doc["metadata"]["reward_from"] == "is_corrected"
    raw = json.loads((who_and_when / "hand-crafted-24.json").read_text())
    raw["is_corrected"] = "True"
    src = tmp_path / "right.json"
    src.write_text(json.dumps(raw))
    doc, _ = imported(tmp_path, "who-and-when", src)
    assert doc["rewards"] == {"team": 1.0}


@pytest.mark.parametrize("name", ["hand-crafted-24.json", "algorithm-generated-47.json"])
def test_turn_taking_logs_have_no_speedup(tmp_path: Path, who_and_when: Path, name: str) -> None:
    _, trace = check_file(
        imported(tmp_path, "who-and-when", who_and_when / name)[0]
        and tmp_path / (Path(name).stem + ".trace.json")
    )
    assert trace is not None
    m = compute(trace)
    assert m["work_basis"] == "agent_active_time" and m["parallelism_speedup"] is None


def test_keep_content_is_opt_in(tmp_path: Path, who_and_when: Path) -> None:
    doc, _ = imported(
        tmp_path, "who-and-when", who_and_when / "hand-crafted-24.json", "--keep-content"
    )
    assert doc["events"][3]["content"] == "Request satisfied."


def test_magentic_delegation_and_code_execution(tmp_path: Path) -> None:
    log = {
        "question_ID": "q1",
        "mistake_agent": "WebSurfer",
        "mistake_step": "3",
        "is_correct": True,
        "history": [
            {"role": "human", "content": "task"},
            {"role": "Orchestrator (thought)", "content": "plan"},
            {"role": "Orchestrator (-> WebSurfer)", "content": "search it"},
            {"role": "WebSurfer", "content": "found"},
            {"role": "Orchestrator (-> WebSurfer)", "content": "open it"},
            {"role": "WebSurfer", "content": "opened"},
            {"role": "Orchestrator (termination condition)", "content": "FINAL ANSWER: x"},
        ],
    }
    src = tmp_path / "m1.json"
    src.write_text(json.dumps(log))
    doc, _ = imported(tmp_path, "who-and-when", src)
    types = [(e["type"], e["agent"], e.get("to")) for e in doc["events"]]
    assert types == [
        ("human_intervention", "human", None),
        ("orchestrator_decision", "Orchestrator", None),
        ("spawn", "Orchestrator", "WebSurfer"),
        ("message", "Orchestrator", "WebSurfer"),
        ("return", "WebSurfer", "Orchestrator"),
        ("message", "Orchestrator", "WebSurfer"),
        ("return", "WebSurfer", "Orchestrator"),
        ("aggregate", "Orchestrator", None),
        ("stop", "Orchestrator", None),
    ]
    assert doc["metadata"]["annotations"]["mistake_event"] == "e5"
    _, trace = check_file(tmp_path / "m1.trace.json")
    assert trace is not None
    m = compute(trace)
    assert m["o1_spawns"] == 1 and m["o2_delegations"] == 3 and m["o3_messages"] == 2


def test_ag2_code_execution_becomes_a_tool_pair(tmp_path: Path) -> None:
    log = {
        "history": [
            {"role": "assistant", "name": "Expert", "content": "task from manager"},
            {"role": "assistant", "name": "Expert", "content": "```python\nprint(1)\n```"},
            {"role": "user", "name": "Computer_terminal", "content": "exitcode: 0\nOutput: 1"},
            {"role": "assistant", "name": "Checker", "content": "Looks right. TERMINATE"},
        ]
    }
    src = tmp_path / "ag2.json"
    src.write_text(json.dumps(log))
    doc, _ = imported(tmp_path, "who-and-when", src)
    types = [(e["type"], e["agent"], e.get("tool")) for e in doc["events"]]
    assert ("tool_call", "Expert", "code_execution") in types
    assert ("tool_result", "Computer_terminal", "code_execution") in types
    assert ("spawn", "manager", None) in types


def test_otlp_fixture(tmp_path: Path) -> None:
    doc, err = imported(tmp_path, "otel", OTLP)
    assert doc["costs"]["tokens"] == 1200 + 150 + 800 + 90 + 2000 + 700
    assert doc["costs"]["tool_calls"] == 3
    agents = {e["agent"] for e in doc["events"]}
    assert {"planner", "researcher", "writer"} <= agents
    spawns = [(e["agent"], e["to"]) for e in doc["events"] if e["type"] == "spawn"]
    assert spawns == [("planner", "researcher"), ("planner", "writer")]
    returns = [(e["agent"], e["to"]) for e in doc["events"] if e["type"] == "return"]
    assert returns == [("researcher", "planner"), ("writer", "planner")]
    transfer = [e for e in doc["events"] if e.get("role") == "transfer"]
    assert [(e["agent"], e["to"]) for e in transfer] == [("planner", "writer")]
    tools = [e["tool"] for e in doc["events"] if e["type"] == "tool_call"]
    assert tools == ["web_search", "fetch_page", "transfer_to_writer"]
    assert all(e["trusted"] is False for e in doc["events"] if e["type"] == "tool_result")
    # The base64 id was read as hex; the generic ones keep their operation.
    ops = [e["attributes"]["operation"] for e in doc["events"] if "attributes" in e]
    assert "retrieval" in ops and "(none)" in ops
    assert doc["events"][-1]["type"] == "stop" and doc["events"][-1]["t"] == 10.0
    assert "1 orphan span(s) (parent not in the file) re-parented under the trace root" in err
    assert "clock skew: 1 span(s) started before their parent" in err
    assert "unknown operations kept as generic events: db.query (1), retrieval (1)" in err
    fetch = next(e for e in doc["events"] if e.get("tool") == "fetch_page")
    assert fetch["t"] == 2.1  # clamped to its parent's start


def test_openai_agents_fixture(tmp_path: Path) -> None:
    doc, err = imported(tmp_path, "openai-agents", AGENTS)
    assert doc["costs"]["tokens"] == 900 + 60 + 400 + 30 + 1100 + 80
    by_type: dict[str, list[dict]] = {}
    for e in doc["events"]:
        by_type.setdefault(e["type"], []).append(e)
    # The handoff is the delegation: Triage brings Billing in and passes it the
    # conversation, which never comes back to Triage: Billing returns to nobody.
    assert [(e["agent"], e["to"], e.get("role")) for e in by_type["spawn"]] == [
        ("Customer service", "Triage", None),
        ("Triage", "Billing", "handoff"),
    ]
    assert "message" not in by_type
    assert [(e["agent"], e["to"]) for e in by_type["return"]] == [("Triage", "Customer service")]
    assert [e["tool"] for e in by_type["tool_call"]] == ["lookup_order", "refund"]
    safety = by_type["safety_event"]
    assert len(safety) == 1 and safety[0]["agent"] == "Billing"  # only the triggered one
    assert doc["metadata"]["workflow_name"] == "Customer service"
    assert doc["task_id"] == "thread_42"
    assert "custom:audit_log (1), mcp_tools (1)" in err


def test_import_to_stdout_and_folder(tmp_path: Path) -> None:
    code, out, _ = run("import", "openai-agents", str(AGENTS))
    assert code == 0 and json.loads(out)["events"]
    folder = tmp_path / "out"
    folder.mkdir()
    code, _, err = run("import", "otel", str(OTLP), str(OTLP), "-o", str(folder))
    assert code == 0, err
    assert (folder / "research-assistant.otlp.trace.json").is_file()
    code, _, err = run("import", "otel", str(OTLP), str(AGENTS))
    assert code == 2 and "several inputs need -o FOLDER" in err


@pytest.mark.parametrize(
    ("fmt", "content", "message"),
    [
        ("who-and-when", '{"history": []}', "the history is empty"),
        ("who-and-when", '{"messages": []}', "no 'history' list"),
        ("who-and-when", "[1, 2]", "a Who&When log is a JSON object"),
        ("who-and-when", '{"history": [{"content": "x"}]}', "neither a 'role' nor a 'name'"),
        ("who-and-when", '{"history": [', "not JSON"),
        ("otel", '{"history": []}', "no 'resourceSpans' list"),
        ("otel", '{"resourceSpans": [{"scopeSpans": [{"spans": []}]}]}', "no usable spans"),
        ("otel", '{"resourceSpans": 5}', "not OTLP/JSON trace data"),
        ("openai-agents", '{"resourceSpans": []}', "not an OpenAI Agents SDK export"),
        ("openai-agents", '[{"object": "trace", "id": "t"}]', "no trace.span objects"),
    ],
)
def test_wrong_or_broken_input_is_a_clear_error(
    tmp_path: Path, fmt: str, content: str, message: str
) -> None:
    src = tmp_path / "bad.json"
    src.write_text(content)
    out = tmp_path / "bad.trace.json"
    code, stdout, err = run("import", fmt, str(src), "-o", str(out))
    assert code == 1
    assert message in err
    assert not out.exists() and not list(tmp_path.glob(".*.tmp"))


def test_several_traces_in_one_otlp_file_need_a_folder(tmp_path: Path) -> None:
    doc = json.loads(OTLP.read_text())
    doc["resourceSpans"][0]["scopeSpans"][1]["spans"][0]["traceId"] = "0" * 31 + "1"
    src = tmp_path / "two.json"
    src.write_text(json.dumps(doc))
    code, _, err = run("import", "otel", str(src), "-o", str(tmp_path / "x.json"))
    assert code == 1 and "holds 2 traces" in err and "give -o FOLDER" in err
    assert not (tmp_path / "x.json").exists()
    out = tmp_path / "out"
    out.mkdir()
    code, _, err = run("import", "otel", str(src), "-o", str(out))
    assert code == 0, err
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "two.00000000000000000000000000000001.trace.json",
        "two.5b8efff798038103d269b633813fc60c.trace.json",
    ]
    for p in out.iterdir():
        assert check_file(p)[0].ok


def test_synthetic_otlp_import_is_valid_and_measurable(tmp_path: Path) -> None:
    from benchmarks.otel_synth import write_otlp

    src = write_otlp(tmp_path / "s.json", n_spans=2000, seed=3)
    doc, err = imported(tmp_path, "otel", src)
    assert "2000 span(s) imported" in err
    _, trace = check_file(tmp_path / "s.trace.json")
    assert trace is not None
    m = compute(trace)
    assert m["spawned_agents"] == 300 and m["o5_stop_t"] is not None
    assert m["parallelism_speedup"] and m["parallelism_speedup"] > 1


def test_otlp_child_starting_after_its_parent_ended_is_clamped(tmp_path: Path) -> None:
    def span(sid: str, parent: str, op: str, start_s: float, end_s: float, name: str) -> dict:
        key = "gen_ai.tool.name" if op == "execute_tool" else "gen_ai.agent.name"
        return {
            "traceId": "0af7651916cd43dd8448eb211c80319c",
            "spanId": sid,
            **({"parentSpanId": parent} if parent else {}),
            "name": op,
            "startTimeUnixNano": str(int(start_s * 1e9)),
            "endTimeUnixNano": str(int(end_s * 1e9)),
            "attributes": [
                {"key": k, "value": {"stringValue": v}}
                for k, v in {"gen_ai.operation.name": op, key: name}.items()
            ],
        }

    spans = [
        span("00f067aa0ba902b7", "", "invoke_agent", 0, 10, "lead"),
        span("00f067aa0ba902b8", "00f067aa0ba902b7", "invoke_agent", 1, 4, "worker"),
        # Starts after the worker's span ended (a clock that ran ahead).
        span("00f067aa0ba902b9", "00f067aa0ba902b8", "execute_tool", 6, 7, "search"),
    ]
    src = tmp_path / "late.otlp.json"
    src.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    doc, err = imported(tmp_path, "otel", src)  # imported() also checks the trace validates
    assert "clock skew: 1 span(s) started after their parent ended" in err
    call = next(e for e in doc["events"] if e["type"] == "tool_call")
    assert call["t"] == 4.0


def _otlp_line(value: dict, span_id: str = "00f067aa0ba902b7") -> str:
    span = {
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "spanId": span_id,
        "name": "chat",
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
            {"key": "gen_ai.usage.input_tokens", "value": value},
        ],
    }
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})


@pytest.mark.parametrize(
    ("fmt", "text", "message"),
    [
        (
            "otel",
            _otlp_line({"intValue": "1" * 40}),
            "span '00f067aa0ba902b7': gen_ai.usage.input_tokens: 111111111111… (40 characters) "
            "is not a token count (0 to 2**53)",
        ),
        (
            "otel",
            _otlp_line({"intValue": int("9" * 40)}),
            "span '00f067aa0ba902b7': gen_ai.usage.input_tokens: 999999999999… (40 characters)",
        ),
        (
            "otel",
            _otlp_line({"intValue": "7"}) + "\n" + _otlp_line({"intValue": -3}, "00f067aa0ba902b8"),
            "line 2: span '00f067aa0ba902b8': gen_ai.usage.input_tokens: -3 is not a token count",
        ),
        ("otel", _otlp_line({"intValue": "7"}) + "\n{oops\n", "line 2, column 2: not JSON"),
        (
            "otel",
            '{"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": 5}]}]}]}',
            "span is not an OTLP/JSON span: Expected `str`, got `int` - at `$.spanId`",
        ),
        ("openai-agents", '{"object": "trace", "id": "t"}\n[1, 2\n', "line 2: not JSON"),
        (
            "openai-agents",
            json.dumps(
                {
                    "object": "trace.span",
                    "id": "span_1",
                    "trace_id": "trace_1",
                    "started_at": "2025-01-01T00:00:00+00:00",
                    "span_data": {"type": "generation", "usage": {"input_tokens": -5}},
                }
            ),
            "span 'span_1': usage.input_tokens: -5 is not a token count",
        ),
        ("openai-agents", '{"object": "trace", "id": "t"}\n{"x": 1}\n', "line 2: not an OpenAI"),
    ],
    ids=[
        "otel-40-digit-string",
        "otel-40-digit-int",
        "otel-negative",
        "otel-bad-line",
        "otel-bad-span",
        "agents-bad-line",
        "agents-negative-usage",
        "agents-not-export",
    ],
)
def test_malformed_inputs_name_the_line_or_span(
    tmp_path: Path, fmt: str, text: str, message: str
) -> None:
    src = tmp_path / "bad.json"
    src.write_text(text)
    code, out, err = run("import", fmt, str(src), "-o", str(tmp_path / "x.json"))
    assert code == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{src}: not imported: "), err
    assert message in lines[0]
    assert "Traceback" not in err and not (tmp_path / "x.json").exists()
