"""The build's input stage: every file besides records and configuration is read once, through
one ``Reads``, and the incremental build's key is what that stage read; the screening logs have
one reader, which reports a malformed entry instead of dropping it."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.input_stage_cases import RUN
from helpers.input_stage_cases import survey as survey  # a fixture, found by name

from survey_tools import buildcache
from survey_tools.corpus.inputs import Reads
from survey_tools.corpus.screening_logs import DECISIONS, QUEUE, RUNS, parse_log
from survey_tools.errors import InvalidInput
from survey_tools.reports.compute import load_valid, read_inputs


def test_reads_records_every_file_and_listing_it_read(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"one")
    (tmp_path / "q").mkdir()
    (tmp_path / "q" / "x.yaml").write_bytes(b"id: x")
    reads = Reads(tmp_path)
    assert reads.file("a.txt") == b"one"
    assert reads.file("missing.txt") is None
    assert reads.names("q", ".yaml") == ("x.yaml",)
    assert reads.paths == ("a.txt", "missing.txt", "q/*.yaml")
    before = reads.digest()
    for change in (
        lambda: (tmp_path / "a.txt").write_bytes(b"two"),
        lambda: (tmp_path / "missing.txt").write_bytes(b""),
        lambda: (tmp_path / "q" / "y.yaml").write_bytes(b"id: y"),
    ):
        change()
        again = Reads(tmp_path)
        again.file("a.txt"), again.file("missing.txt"), again.names("q", ".yaml")
        assert again.digest() != before
        before = again.digest()


def test_a_log_entry_that_is_not_a_mapping_is_reported_with_its_line() -> None:
    raw = b"- date: '2026-06-01'\n  decision: retained\n- just text\n- [a, list]\n"
    with pytest.raises(InvalidInput) as err:
        parse_log(raw, DECISIONS)
    assert [p.format() for p in err.value.problems] == [
        "screening/decisions.yaml:3:3: [1]: expected an entry (key: value lines)",
        "screening/decisions.yaml:4:3: [2]: expected an entry (key: value lines)",
    ]
    assert parse_log(None, DECISIONS) == []
    assert parse_log(b"", DECISIONS) == []
    with pytest.raises(InvalidInput, match="is invalid"):
        parse_log(b"date: 1\n", RUNS)


def _key(root: Path) -> tuple[str, tuple[str, ...]]:
    inputs = read_inputs(*load_valid(root))
    return buildcache.input_key(inputs.corpus, inputs.reads), inputs.reads.paths


def test_the_key_is_what_the_stage_read(survey: Path) -> None:
    key, read = _key(survey)
    # No search was ever run: the runs log is looked for (absent), nothing else of screening/.
    assert {RUNS, "data/audit/spotcheck.csv"} <= set(read)
    assert DECISIONS not in read
    audit = survey / "data" / "audit" / "spotcheck.csv"
    audit.write_bytes(audit.read_bytes().replace(b"\n", b"\r\n", 1))
    key2 = _key(survey)[0]
    assert key2 != key
    (survey / "screening").mkdir()
    (survey / RUNS).write_text(RUN, encoding="utf-8")
    key3, read = _key(survey)
    assert key3 != key2
    assert {RUNS, DECISIONS, f"{QUEUE}/*.yaml"} <= set(read)


