"""Bad input gets a clear error, never a traceback or a hang."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from helpers.trace_bad_input_cases import MINIMAL
from helpers.trace_paths import EXAMPLES

from survey_tools.cli import cli
from survey_tools.traces.limits import Limits
from survey_tools.traces.validate import check_bytes, check_file, check_value


def lines(data: bytes | str) -> list[str]:
    raw = data.encode() if isinstance(data, str) else data
    report, _ = check_bytes(raw, "t.json", limit=0)
    return [p.format() for p in report.sorted()]


def test_minimal_trace_is_valid() -> None:
    assert lines(json.dumps(MINIMAL)) == []


def test_file_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(MINIMAL))
    report, trace = check_file(path, name="t.json", limits=Limits(max_bytes=100))
    assert trace is None
    assert [p.format() for p in report.sorted()] == [
        f"t.json: $: the file is {path.stat().st_size} bytes, over the 100 bytes limit "
        "(--max-bytes raises it) [size]"
    ]
    res = CliRunner().invoke(cli, ["trace", "validate", "--max-bytes", "1K", str(path)])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(cli, ["trace", "validate", "--max-bytes", "100", str(path)])
    assert res.exit_code == 1 and "over the 100 bytes limit" in res.output
    res = CliRunner().invoke(cli, ["trace", "validate", "--max-bytes", "lots", str(path)])
    assert res.exit_code == 2


def test_string_limit_counts_escapes_exactly() -> None:
    small = Limits(max_string_bytes=40)
    ok = json.dumps(dict(MINIMAL, trace_id='q\\"' + "y" * 30)).encode()
    assert check_bytes(ok, "t.json", limits=small)[0].ok
    bad = json.dumps(dict(MINIMAL, trace_id='q\\"' + "y" * 40)).encode()
    report, _ = check_bytes(bad, "t.json", limits=small)
    assert [p.check for p in report.sorted()] == ["size"]


def test_utf8_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(MINIMAL).encode())
    report, trace = check_file(path)
    assert report.ok and trace is not None
    # A BOM anywhere but the start is still an error.
    report, _ = check_bytes(b" " + b"\xef\xbb\xbf" + json.dumps(MINIMAL).encode(), "t.json")
    assert not report.ok


def test_deep_nesting_inside_an_event() -> None:
    doc = json.dumps(MINIMAL).replace(
        '"agent": "o"', '"agent": "o", "attributes": {"a": ' + "[" * 5000 + "]" * 5000 + "}"
    )
    assert lines(doc) == ["t.json:1:1138: $: nesting is deeper than 1024 levels [json]"]


def test_nesting_below_the_limit_is_fine() -> None:
    text = json.dumps(dict(MINIMAL, metadata={"deep": "HERE"}))
    assert lines(text.replace('"HERE"', "[" * 1000 + "]" * 1000)) == []


def test_duplicate_key_nested_in_attributes() -> None:
    doc = json.dumps(MINIMAL).replace(
        '"agent": "o"', '"agent": "o", "attributes": {"k": {"a": 1, "a": 2}}'
    )
    assert lines(doc) == [
        "t.json: $.events[0].attributes.k: duplicate key 'a' in one object "
        "(only the last would be kept) [duplicate-key]"
    ]


def test_escaped_quotes_and_spaced_colons_are_not_duplicates() -> None:
    doc = json.loads(json.dumps(MINIMAL))
    doc["events"][0]["content_ref"] = 'a\\":b "quoted": c'
    assert lines(json.dumps(doc)) == []
    assert lines(json.dumps(doc, separators=(" , ", " : "))) == []
    assert lines(json.dumps(doc, indent=4)) == []


def test_python_nan_is_reported_not_serialised() -> None:
    doc = dict(MINIMAL, rewards={"team": float("nan")})
    report, _ = check_value(doc, "v")
    assert [p.format() for p in report.sorted()] == [
        "v:1:132: $: NaN and Infinity are not JSON numbers; every number must be finite [json]"
    ]


def test_wrong_shapes_everywhere() -> None:
    assert lines("42") == ["t.json: $: a trace must be a JSON object, not number [type]"]
    assert lines('{"events": 3}') == [
        "t.json: $: missing required field 'costs' [schema]",
        "t.json: $: missing required field 'edges' [schema]",
        "t.json: $: missing required field 'rewards' [schema]",
        "t.json: $: missing required field 'task_id' [schema]",
        "t.json: $: missing required field 'trace_id' [schema]",
        "t.json: $.events: must be an array, not an integer [schema]",
    ]


def test_extension_fields_are_allowed() -> None:
    doc = json.loads(json.dumps(MINIMAL))
    doc["x-run"] = {"host": "a"}
    doc["events"][0]["x-span"] = "abc"
    doc["edges"] = [{"src": "e1", "dst": "e1", "type": "temporal", "x-note": "self"}]
    assert lines(json.dumps(doc)) == []


def test_cli_never_shows_a_traceback_on_any_invalid_example() -> None:
    runner = CliRunner()
    for path in sorted((EXAMPLES / "invalid").glob("*.json")):
        for cmd in ("validate", "metrics"):
            res = runner.invoke(cli, ["trace", cmd, str(path)])
            assert res.exit_code == 1, (cmd, path, res.output)
            assert isinstance(res.exception, SystemExit), (cmd, path, res.exception)
            assert "Traceback" not in res.output


def test_a_file_is_checked_as_its_bytes_are(tmp_path: Path) -> None:
    # check_file maps the file into memory (check_bytes gets bytes): every path
    # through the decoder must say the same for both.
    ok = json.dumps(MINIMAL).encode()
    cases = {
        "empty": b"",
        "valid": ok,
        "bom": b"\xef\xbb\xbf" + ok,
        "bom-invalid": b"\xef\xbb\xbf" + ok.replace(b'"stop"', b'"halt"'),
        "duplicate-key": ok.replace(b'"trace_id": "t"', b'"trace_id": "t", "trace_id": "u"'),
        "slow-path": ok.replace(b'"t": 0', b'"t": -1'),
        "truncated": ok[:-5],
        "long-string": ok.replace(b'"task_id": "t"', b'"task_id": "\n' + b"x" * 64 + b'"'),
    }
    small = Limits(max_string_bytes=32)
    for name, data in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_bytes(data)
        from_file, _ = check_file(path, name="t.json", limit=0, limits=small)
        from_bytes, _ = check_bytes(data, "t.json", limit=0, limits=small)
        assert from_file.to_dict() == from_bytes.to_dict(), name
        assert (name in ("valid", "bom")) == from_file.ok, name
