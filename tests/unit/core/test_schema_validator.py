"""jsonschema-rs answers "valid?" and jsonschema explains (survey_tools/corpus/schema_validator.py):
the two are held together here, on every record, exclusion and configuration file the tests
and the repository hold, the hostile inputs, and generated text.

The one direction that must never happen is jsonschema-rs calling valid what jsonschema calls
invalid: a mistake would pass unreported. The other direction costs only time (the error
listing then finds nothing), and is allowed only for a string ending in a line break (Python's
``$`` matches before it, Rust's does not).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from helpers.survey_copy import SURVEY
from hypothesis import given, settings
from hypothesis import strategies as st

from survey_tools.corpus import configs
from survey_tools.corpus.record_schema import record_schema
from survey_tools.corpus.schema_validator import SPACES, SchemaValidator, python_pattern_for_rust
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.corpus.yamlio import parse_yaml

REPO = Path(__file__).resolve().parents[3]
DATA = REPO / "tests" / "data"
TAX = load_taxonomy(SURVEY)
RECORD_VALIDATORS = {c: SchemaValidator(record_schema(TAX, c)) for c in TAX.collections}


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _agree(v: SchemaValidator, data: Any, where: str) -> bool:
    """Assert the two verdicts agree (up to the allowed direction); return jsonschema's."""
    python = v.explaining.is_valid(data)
    answer = v.is_valid(data)
    if answer and not python:
        pytest.fail(f"{where}: jsonschema-rs calls valid what jsonschema does not: "
                    f"{[e.message for e in v.explaining.iter_errors(data)]}")
    if python and not answer:
        assert any(s.endswith("\n") for s in _strings(data)), f"{where}: jsonschema-rs refuses a valid file"
    return python


def _record_files() -> list[tuple[str, Path]]:
    out = [(c, p) for c, folder in (("retained", "corpus"), ("excluded", "exclusions"))
           for p in sorted((REPO / folder).glob("*.yaml"))]
    out += [("retained", p) for p in sorted((DATA / "records").glob("*/*.yaml"))]
    out += [("excluded", p) for p in sorted((DATA / "exclusions").glob("*/*.yaml"))]
    out += [("retained", p) for p in sorted((DATA / "hostile" / "records").glob("*.yaml"))]
    out += [("excluded", p) for p in sorted((DATA / "hostile" / "exclusions").glob("*.yaml"))]
    return out


def test_every_record_file_gets_the_same_verdict() -> None:
    verdicts = {True: 0, False: 0}
    for collection, path in _record_files():
        doc = parse_yaml(path.read_text(encoding="utf-8", errors="replace"), path.name)
        if doc.problems or not isinstance(doc.data, dict):
            continue
        verdicts[_agree(RECORD_VALIDATORS[collection], doc.data, str(path))] += 1
    # Both kinds were compared, in numbers: the repository's records and the invalid examples.
    assert verdicts[True] > 100 and verdicts[False] > 20, verdicts


def test_every_configuration_file_gets_the_same_verdict() -> None:
    seen = 0
    for name, schema in configs.config_schemas().items():
        v = SchemaValidator(schema.schema)
        assert v.answering is not None, f"{name}: jsonschema-rs cannot compile it"
        for rel, doc in TAX.configs.documents.items() if TAX.configs else ():
            if doc is not None and doc.data is not None:
                _agree(v, doc.data, f"{rel} against {name}")
                seen += 1
    for path in sorted((DATA / "hostile" / "taxonomy").glob("*.yaml")):
        doc = parse_yaml(path.read_text(encoding="utf-8", errors="replace"), path.name)
        if not doc.problems:
            _agree(SchemaValidator(configs.config_schemas()["field"].schema), doc.data, str(path))
    assert seen > 20


def test_spaces_are_pythons_whitespace() -> None:
    assert "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()) == SPACES


def _patterns() -> list[str]:
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "pattern" and isinstance(v, str):
                    found.add(v)
                if k == "patternProperties" and isinstance(v, dict):
                    found.update(v)
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    for c in TAX.collections:
        walk(record_schema(TAX, c))
    for schema in configs.config_schemas().values():
        walk(schema.schema)
    return sorted(found)


PATTERNS = _patterns()
# The characters where Python's and Rust's classes part ways, and the ones the patterns name.
TRICKY = SPACES + "\x00\x1b\x7f\u200b\u2060\ufeff/$.?#:aZ09-_." + "\U0001f600"


def test_patterns_include_whitespace_classes() -> None:
    assert any("\\s" in p or "\\S" in p for p in PATTERNS), PATTERNS


# No lone surrogates (category Cs): no file can hold one. UTF-8 cannot encode them, and the YAML
# reader refuses a "\ud800" escape (tests/unit/core/test_records.py); jsonschema-rs cannot take them.
@settings(max_examples=300, deadline=None)
@given(st.sampled_from(PATTERNS),
       st.text(alphabet=st.sampled_from(TRICKY) | st.characters(exclude_categories=["Cs"]), max_size=12),
       st.sampled_from(["", "http://", "https://a.b/", "10.1234/", "E-", "2026-11-23"]))
def test_each_pattern_matches_as_python_does(pattern: str, tail: str, head: str) -> None:
    text = head + tail
    python = re.search(pattern, text) is not None
    v = SchemaValidator({"type": "string", "pattern": pattern})
    rust = v.answering.is_valid(text)
    assert jsonschema.Draft202012Validator({"type": "string", "pattern": pattern}).is_valid(text) == python
    if rust != python:
        assert python and text.endswith("\n"), (pattern, text)


@pytest.mark.parametrize(("pattern", "expected"), [
    (r"\S", "[^" + SPACES + "]"),
    (r"^a\sb$", "^a[" + SPACES + "]b$"),
    (r"[^\s/]", "[^" + SPACES + "/]"),
    (r"[]\s]", "[]" + SPACES + "]"),
    (r"\\s", r"\\s"),  # an escaped backslash, then the letter s
    (r"^[0-9]{4}$", r"^[0-9]{4}$"),
])
def test_translation(pattern: str, expected: str) -> None:
    assert python_pattern_for_rust(pattern) == expected


def test_a_negated_class_inside_a_class_leaves_jsonschema_to_answer() -> None:
    v = SchemaValidator({"type": "string", "pattern": r"^[\Sx]+$"})
    assert v.answering is None
    assert v.is_valid("ab") and not v.is_valid("a b")


def test_a_value_json_cannot_hold_is_answered_by_jsonschema() -> None:
    v = SchemaValidator({"type": "object", "properties": {"n": {"type": "integer", "maximum": 5}}})
    assert not v.is_valid({"n": 10**40})
    assert v.is_valid({1: "integer key"}) == v.explaining.is_valid({1: "integer key"})
