"""The one place a model call's request may name its agent: a system message of the form
``You are <Name>`` and punctuation (prompts.py), wherever a convention keeps it."""

from __future__ import annotations

import json

import pytest

from survey_tools.traces.importers.prompts import prompt_name

OI = "llm.input_messages.0.message"

CASES = [
    ("You are researcher.", "researcher"),
    ("You are the Writer.", "Writer"),
    ("You are Crew Manager, the boss.", "Crew Manager"),
    ("you are planner. Send research to researcher.", "planner"),
    ("You are a helpful assistant.", ""),  # two words before the punctuation: nobody
    ("Answer briefly. You are researcher.", ""),  # not how the message starts
    ("You are researcher", ""),  # no punctuation after the name
]


@pytest.mark.parametrize(("text", "name"), CASES)
def test_openinference_system_message(text: str, name: str) -> None:
    assert prompt_name({f"{OI}.role": "system", f"{OI}.content": text}) == name


def test_only_a_system_message_names() -> None:
    assert prompt_name({f"{OI}.role": "user", f"{OI}.content": "You are researcher."}) == ""


def test_genai_and_openllmetry_places() -> None:
    msgs = [{"role": "system", "parts": [{"type": "text", "content": "You are writer."}]}]
    assert prompt_name({"gen_ai.input.messages": json.dumps(msgs)}) == "writer"
    sysi = [{"type": "text", "content": "You are critic."}]
    assert prompt_name({"gen_ai.system_instructions": json.dumps(sysi)}) == "critic"
    assert (
        prompt_name({"gen_ai.prompt.0.role": "system", "gen_ai.prompt.0.content": "You are lead."})
        == "lead"
    )
