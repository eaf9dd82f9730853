"""The held-out sets of framework runs (tests/fixtures/traces-heldout*/), checked as their
programs ran: one listing of a set's runs and one check of a run, shared by each set's test
module, which keeps only its own NOT_WRITTEN (what the files do not hold) and KNOWN_WRONG
(the checks still failing, and why)."""

from __future__ import annotations

import itertools
import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from benchmarks import framework_checks
from benchmarks.framework_checks import CHECKS, _invoke, cases, check, expected_graph, graph


def params(heldout: Path) -> list[Any]:
    """One pytest parameter (folder, run, file name) per run file of a held-out set."""
    return [
        pytest.param(d, run_, name, id=f"{key}/{name}") for d, key, run_, name in cases(heldout)
    ]


def assert_all_here(
    heldout: Path, runs: int, known_wrong: dict[str, Any], not_written: dict[str, Any]
) -> None:
    """The set holds ``runs`` run files, and every entry of the two tables names one of them
    (``not_written``: a folder, or a folder/file)."""
    found = params(heldout)
    assert len(found) == runs
    keys = {f"{c.values[0].name}/{c.values[2]}" for c in found}
    assert set(known_wrong) <= keys
    assert set(not_written) <= {c.values[0].name for c in found} | keys


def assert_reads_as_it_ran(
    folder: Path,
    run_: dict[str, Any],
    name: str,
    not_written: dict[str, tuple[str, ...]],
    known_wrong: dict[str, tuple[tuple[str, ...], str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every check passes, but those a file cannot pass (``not_written``, then checked to be
    absent); a run of ``known_wrong`` fails exactly its listed checks."""
    for key, checks in not_written.items():
        monkeypatch.setitem(framework_checks.NOT_WRITTEN, key, checks)
    got = check(folder, folder.name, run_, name)
    failed = {c: got.why[c] for c in CHECKS if not got.passed.get(c)}
    key = f"{folder.name}/{name}"
    if key in known_wrong:
        checks, why = known_wrong[key]
        assert set(failed) == set(checks), f"{why}: now failing {failed}"
        return
    assert not failed, f"{got.summary}\n{failed}"


def read_up_to_names(folder: Path, run_: dict[str, Any], name: str) -> dict[str, Any]:
    """What a file naming no agent reads as, renamed: each agent the import numbered
    (``Agent``, ``Agent#2``...) given the program's name that makes the most of the four
    shape checks (delegations, returns, tool calls, model calls) hold; returns those four,
    got and wanted, and the names given (agents the file does not name can only be
    matched so, never read)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "t.json"
        code, err = _invoke("trace", "import", "auto", str(folder / name), "-o", str(out))
        assert code == 0, err
        doc = json.loads(out.read_text(encoding="utf-8"))
    want = expected_graph(run_)
    expected = list(run_["agents"])
    got_graph = graph(doc, set(expected))
    found = sorted(got_graph["agents"] - {got_graph["app"]})
    keys = ("delegations", "returns", "tool_calls", "model_calls")

    def renamed(mapping: dict[str, str]) -> dict[str, Any]:
        ev = [
            {
                **e,
                "agent": mapping.get(e["agent"], e["agent"]),
                **({"to": mapping.get(e["to"], e["to"])} if e.get("to") else {}),
            }
            for e in doc["events"]
        ]
        g = graph({**doc, "events": ev}, set(expected))
        return {k: Counter(dict(g[k])) for k in keys}

    best: tuple[int, dict[str, str], dict[str, Any]] = (-1, {}, {})
    if len(found) == len(expected):
        for perm in itertools.permutations(expected):
            mapping = dict(zip(found, perm, strict=True))
            got = renamed(mapping)
            score = sum(got[k] == Counter(dict(want[k])) for k in keys)
            if score > best[0]:
                best = (score, mapping, got)
    return {
        "names": best[1],
        "got": best[2],
        "want": {k: Counter(dict(want[k])) for k in keys},
        "found": found,
    }


def assert_reads_up_to_names(heldout: Path, key: str) -> None:
    """The run ``key`` (folder/file) of a set, whose file names no agent, reads right but for
    the names: as many agents as the program had, and renamed (:func:`read_up_to_names`),
    the program's delegations, returns, tool calls and model calls."""
    folder_name, name = key.split("/", 1)
    folder = heldout / folder_name
    run_ = next(r for _d, _k, r, n in cases(folder) if n == name)
    read = read_up_to_names(folder, run_, name)
    assert len(read["found"]) == len(run_["agents"]), read["found"]
    assert read["got"] == read["want"], read
