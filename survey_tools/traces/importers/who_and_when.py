"""Who&When (ICML 2025 failure attribution): Magentic-One and CaptainAgent/AG2 logs.

A log is ``{"history": [{"content", "role", "name"?}, ...], "mistake_agent",
"mistake_step", ...}``. There are no timestamps: an entry's index in the history is
its ``t`` (the trace says so in ``system`` and ``metadata.clock``). Raw content is
replaced by its hash unless ``keep_content`` is set. Mapping (docs/trace-formats.md):

Magentic-One (roles such as ``Orchestrator (thought)``):
  ``Orchestrator (thought)`` -> orchestrator_decision;
  ``Orchestrator (-> X)`` -> a message to X (a delegation), preceded by a spawn of X
  the first time X appears; an entry from X -> X's return to the orchestrator;
  ``Orchestrator (termination condition)`` (the final answer) -> aggregate, then stop;
  ``human`` / ``user`` -> human_intervention.
CaptainAgent/AG2 (role ``assistant`` and a ``name``):
  the first entry (the manager's task as the expert received it; the dataset names the
  expert as its speaker) -> a spawn of that expert by ``manager``, then the expert's
  message, so a mistake annotated at step 0 falls on the expert; a reply with a code block answered by the next entry's
  execution output -> tool_call / tool_result (tool ``code_execution``); other replies
  -> messages; experts are spawned by the manager when they first speak; the last
  entry ends the run -> aggregate of the manager, then stop.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import orjson

from survey_tools.traces.importers.common import Builder, ImportFailed, ImportResult, content_hash
from survey_tools.traces.limits import span_count_problem

_DELEGATE = re.compile(r"^\s*(?P<who>.+?)\s*\(\s*->\s*(?P<to>.+?)\s*\)\s*$")
_SUFFIX = re.compile(r"^\s*(?P<who>.+?)\s*\((?P<what>[^)]*)\)\s*$")
_TERMINAL = re.compile(r"terminal|executor|computer", re.I)
_EXIT = re.compile(r"^\s*exitcode\s*:", re.I)
ANNOTATIONS = (
    "mistake_agent",
    "mistake_step",
    "mistake_reason",
    "is_correct",
    "is_corrected",
    "ground_truth",
    "question_ID",
    "level",
)


def _truth(v: Any) -> bool | None:
    """A correctness flag as the dataset writes it (a boolean, or "True"/"False")."""
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.strip().lower() in ("true", "false"):
        return v.strip().lower() == "true"
    return None


def _entries(doc: Any) -> list[dict[str, Any]]:
    if not isinstance(doc, dict):
        raise ImportFailed(
            f"a Who&When log is a JSON object with a 'history' list; this is {type(doc).__name__}"
        )
    hist = doc.get("history")
    if not isinstance(hist, list):
        keys = ", ".join(sorted(map(str, doc))[:8])
        raise ImportFailed(f"not a Who&When log: no 'history' list (keys: {keys})")
    if not hist:
        raise ImportFailed("the history is empty: there is nothing to import")
    too_many = span_count_problem(len(hist), "history entries")
    if too_many:
        raise ImportFailed(too_many)
    out = []
    for i, h in enumerate(hist):
        if not isinstance(h, dict) or not isinstance(h.get("content", ""), str):
            raise ImportFailed(f"history[{i}] is not an entry with text 'content'")
        if not isinstance(h.get("role"), str) and not isinstance(h.get("name"), str):
            raise ImportFailed(f"history[{i}] has neither a 'role' nor a 'name'")
        out.append(h)
    return out


def _is_magentic(entries: list[dict[str, Any]]) -> bool:
    return any(
        isinstance(h.get("role"), str) and h["role"].startswith("Orchestrator") for h in entries
    )


def _ref(h: dict[str, Any], keep: bool) -> dict[str, Any]:
    text = h.get("content", "") or ""
    out: dict[str, Any] = {"content_ref": content_hash(text)}
    if keep:
        out["content"] = text
    return out


def _magentic(entries: list[dict[str, Any]], b: Builder, keep: bool) -> tuple[list[int], str]:
    primary: list[int] = []  # the event each history entry became
    spawned: set[str] = set()
    orch = "Orchestrator"
    last_to: str | None = None
    for i, h in enumerate(entries):
        role = str(h.get("role") or h.get("name"))
        t = float(i)
        ref = _ref(h, keep)
        m = _DELEGATE.match(role)
        s = _SUFFIX.match(role)
        if m:
            orch, to = m.group("who"), m.group("to")
            if to not in spawned:
                sp = b.add(t, "spawn", orch, to=to, role="orchestrator")
                spawned.add(to)
                ev = b.add(t, "message", orch, to=to, **{"from": orch}, **ref)
                b.edge(sp, ev, "causal")
            else:
                ev = b.add(t, "message", orch, to=to, **{"from": orch}, **ref)
            last_to = to
        elif s and s.group("who") == orch or role.startswith("Orchestrator"):
            what = s.group("what").lower() if s else ""
            who = s.group("who") if s else orch
            if "termination" in what or "final" in what:
                ev = b.add(t, "aggregate", who, role="orchestrator", **ref)
            else:
                ev = b.add(t, "orchestrator_decision", who, role="orchestrator", **ref)
        elif role.lower() in ("human", "user"):
            ev = b.add(t, "human_intervention", "human", **ref)
        else:
            agent = role
            if agent not in spawned:
                # Speaking without a recorded delegation: spawned by the orchestrator now.
                b.add(
                    t,
                    "spawn",
                    orch,
                    to=agent,
                    role="orchestrator",
                    reason="first appears without a recorded delegation",
                )
                spawned.add(agent)
            ev = b.add(t, "return", agent, to=orch, **{"from": agent}, **ref)
            if last_to is not None and last_to != agent:
                b.events[ev][3]["reason"] = f"answers instead of {last_to}"  # type: ignore[index]
        primary.append(ev)
    return primary, "Magentic-One"


def _ag2(entries: list[dict[str, Any]], b: Builder, keep: bool) -> tuple[list[int], str]:
    primary: list[int] = []
    spawned: set[str] = set()
    manager = "manager"
    for i, h in enumerate(entries):
        name = str(h.get("name") or h.get("role"))
        content = h.get("content", "") or ""
        t = float(i)
        ref = _ref(h, keep)
        nxt = entries[i + 1] if i + 1 < len(entries) else None
        is_output = bool(_EXIT.match(content)) or bool(_TERMINAL.search(name))
        if i == 0 and not is_output:
            spawn = b.add(t, "spawn", manager, to=name, role="manager")
            spawned.add(name)
            ev = b.add(t, "message", name, **{"from": name}, role="task", **ref)
            b.edge(spawn, ev, "spawn")
            primary.append(ev)
            continue
        if name not in spawned and not is_output:
            b.add(t, "spawn", manager, to=name, role="manager")
            spawned.add(name)
        runs_code = (
            "```" in content
            and nxt is not None
            and (
                bool(_EXIT.match(nxt.get("content", "") or ""))
                or bool(_TERMINAL.search(str(nxt.get("name") or "")))
            )
        )
        if is_output and primary and b.events[primary[-1]][1] == "tool_call":
            ev = b.add(t, "tool_result", name, tool="code_execution", trusted=False, **ref)
        elif runs_code:
            ev = b.add(t, "tool_call", name, tool="code_execution", **ref)
        else:
            ev = b.add(t, "message", name, **{"from": name}, **ref)
        primary.append(ev)
    return primary, "CaptainAgent (AG2)"


def _link(b: Builder, primary: list[int]) -> None:
    """Dependencies: the history is one conversation, each entry answers the one before it;
    delegations and returns get their specific kinds, and a spawn leads to the spawned agent's
    next event."""
    for a, c in zip(primary, primary[1:], strict=False):
        ka, kc = b.events[a][1], b.events[c][1]
        kind = "causal"
        if ka == "message" and (b.events[a][3] or {}).get("to") == b.events[c][2]:
            kind = "message"
        elif kc == "aggregate" and ka == "return":
            kind = "aggregate"
        elif ka == "return":
            kind = "return"
        elif ka == "tool_call" and kc == "tool_result":
            kind = "tool_dependency"
        b.edge(a, c, kind)
    for k, (_, type_, _, extra) in enumerate(b.events):
        if type_ == "spawn" and extra:
            nxt = b.next_of(extra["to"], b.events[k][0], -1)
            if nxt is not None:
                b.edge(k, nxt, "spawn")
    b.dedupe_edges()


def import_log(doc: Any, *, source: str, keep_content: bool = False) -> ImportResult:
    entries = _entries(doc)
    b = Builder()
    magentic = _is_magentic(entries)
    primary, system = (_magentic if magentic else _ag2)(entries, b, keep_content)

    # The run ends at the last entry: make sure there is an aggregate, then stop.
    t_end = float(len(entries) - 1)
    orch = "Orchestrator" if magentic else "manager"
    last = primary[-1]
    if b.events[last][1] == "aggregate":
        agg = last
    else:
        agg = b.add(t_end, "aggregate", orch, role="orchestrator")
        b.edge(last, agg, "aggregate")
    stop = b.add(t_end, "stop", b.events[agg][2], role="orchestrator")
    b.edge(agg, stop, "causal")

    _link(b, primary)

    meta: dict[str, Any] = {
        "source_format": "who-and-when",
        "source": source,
        "clock": "message-index: t is the entry's position in the history (no timestamps)",
        "history_length": len(entries),
    }
    annotations = {k: doc[k] for k in ANNOTATIONS if k in doc}
    if "question" in doc and isinstance(doc["question"], str):
        annotations["question_ref"] = content_hash(doc["question"])
    step = doc.get("mistake_step")
    notes: list[str] = []
    try:
        idx = int(step) if step is not None and str(step).strip() != "" else None
    except (TypeError, ValueError):
        idx = None
        notes.append(f"mistake_step {step!r} is not a history index; kept as is")
    refs: list[tuple[tuple[str, ...], int]] = []
    if idx is not None:
        if 0 <= idx < len(primary):
            refs.append((("metadata", "annotations", "mistake_event"), primary[idx]))
        else:
            notes.append(f"mistake_step {idx} is outside the history (0..{len(primary) - 1})")
    meta["annotations"] = annotations
    # Algorithm-generated runs say whether the answer was right in is_correct,
    # hand-crafted ones in is_corrected (the string "True" or "False").
    rewards: dict[str, float] = {}
    for key in ("is_correct", "is_corrected"):
        verdict = _truth(doc.get(key))
        if verdict is not None:
            rewards["team"] = 1.0 if verdict else 0.0
            meta["reward_from"] = key
            break
    qid = str(doc.get("question_ID") or source)
    head = {
        "trace_id": f"who-and-when:{qid}"[:256],
        "task_id": qid[:256],
        "system": f"{system} run from Who&When; t = message index (no timestamps)",
        "topology": "centralized",
        "rewards": rewards,
        "costs": {
            "tokens": 0,
            "wall_clock_s": 0,
            "messages": sum(1 for e in b.events if e[1] == "message"),
        },
        "metadata": meta,
    }
    notes.append(f"{len(entries)} history entries -> {len(b.events)} events ({system})")
    return ImportResult(builder=b, head=head, notes=notes, event_refs=refs)


def import_run(
    read: Callable[[], bytes], *, source: str, keep_content: bool = False
) -> list[ImportResult]:
    """The importers' signature (importers/__init__.py): one run, one trace."""
    data = read()
    # Counted before anything is decoded, as the span formats' spans are (--max-spans): every
    # history entry has a "role" or a "name" key, so their count bounds the entries from above.
    bound = data.count(b'"role"') + data.count(b'"name"')
    too_many = span_count_problem(bound, '"role" and "name" keys (history entries or more)')
    if too_many:
        raise ImportFailed(too_many)
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as err:
        if "memory" in str(err).lower():  # orjson's word for a MemoryError: the root's message
            raise MemoryError(str(err)) from None
        raise ImportFailed(f"not JSON: {err}") from None
    del data
    return [import_log(doc, source=source, keep_content=keep_content)]
