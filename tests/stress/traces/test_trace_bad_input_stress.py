"""The tests of test_trace_bad_input.py that feed huge inputs or wait for a command's deadline."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.trace_bad_input_cases import MINIMAL

from survey_tools.traces.limits import Limits
from survey_tools.traces.validate import check_file


def test_hundred_megabyte_string(tmp_path: Path) -> None:
    doc = json.loads(json.dumps(MINIMAL))
    doc["events"][0]["content"] = "x" * (100 * 1024 * 1024)
    path = tmp_path / "big.json"
    text = json.dumps(doc)
    path.write_text(text)
    col = text.index('"xxx') + 1
    report, _ = check_file(path, name="big.json")
    assert [p.format() for p in report.sorted()] == [
        f"big.json:1:{col}: $: a string of 100 MiB is over the 16 MiB limit for one string "
        "(--max-string-bytes raises it) [size]"
    ]
    # With the limit raised, the schema has its say.
    report, _ = check_file(path, name="big.json", limits=Limits(max_string_bytes=200 << 20))
    assert [p.format() for p in report.sorted()] == [
        "big.json: $.events[0].content: event 'e1': "
        "is longer than 1000000 characters (104857600) [schema]"
    ]
    path.write_text(json.dumps("y" * (100 * 1024 * 1024)))
    report, _ = check_file(path, name="big.json", limits=Limits(max_string_bytes=200 << 20))
    assert [p.format() for p in report.sorted()] == [
        "big.json: $: a trace must be a JSON object, not string [type]"
    ]
