"""The one explainer (survey_tools/schema_words.py): every case of tests/data/schema-words says
exactly its expected lines, and every keyword of the table that a kind of file's schemas use is
exercised by at least one case of that kind (records, configuration files, traces)."""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml

from survey_tools import schema_words
from survey_tools.corpus.checks import check_record
from survey_tools.corpus.configs import check_document, config_schemas
from survey_tools.corpus.record_schema import record_schema
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.corpus.yamlio import dump_yaml, parse_yaml
from survey_tools.errors import InvalidInput
from survey_tools.traces.importers.frameworks import load_rules
from survey_tools.traces.schema import schema as trace_schema
from survey_tools.traces.survey_v1 import SCHEMA_FILE, check_file_v1
from survey_tools.traces.validate import check_bytes

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data"
SNAPSHOT = ROOT / "tests" / "fixtures" / "survey-snapshot"
CASES: dict[str, list[dict[str, Any]]] = yaml.safe_load(
    (DATA / "schema-words" / "cases.yaml").read_text(encoding="utf-8")
)
EXPECTED = DATA / "schema-words" / "expected.yaml"
RECORD_BASE = DATA / "records" / "valid" / "minimal-na.yaml"
TRACE_BASE = DATA / "traces" / "metrics" / "independent-agents.json"
SURVEY_V1_BASE = DATA / "traces" / "survey-v1" / "valid" / "no-edges.json"


def _changed(base: Any, case: dict[str, Any]) -> Any:
    doc = copy.deepcopy(base)
    for dotted, value in (case.get("set") or {}).items():
        *head, last = [int(p) if p.isdigit() else p for p in dotted.split(".")]
        node = doc
        for step in head:
            node = node[step]
        node[last] = value
    for dotted, times in (case.get("times") or {}).items():  # a long value: set value * times
        node = doc
        *head, last = [int(p) if p.isdigit() else p for p in dotted.split(".")]
        for step in head:
            node = node[step]
        node[last] = node[last] * times
    for dotted in case.get("drop") or ():
        *head, last = [int(p) if p.isdigit() else p for p in dotted.split(".")]
        node = doc
        for step in head:
            node = node[step]
        del node[last]
    return doc


def _record(case: dict[str, Any], tmp: Path) -> list[str]:
    tax = load_taxonomy(SNAPSHOT)
    coll = tax.retained
    data = _changed(yaml.safe_load(RECORD_BASE.read_text(encoding="utf-8")), case)
    rel = "corpus/minimal-na.yaml"
    doc = parse_yaml(dump_yaml(data), rel)
    return [p.format() for p in check_record(tax, coll, rel, doc)]


def _config(case: dict[str, Any], tmp: Path) -> list[str]:
    base = yaml.safe_load((SNAPSHOT / case["file"]).read_text(encoding="utf-8"))
    doc = parse_yaml(dump_yaml(_changed(base, case)), case["file"])
    return [p.format() for p in check_document(case["schema"], doc, case["file"])]


def _trace(case: dict[str, Any], tmp: Path) -> list[str]:
    if "survey-v1" in case:  # the survey's trace profile
        base = json.loads(SURVEY_V1_BASE.read_text(encoding="utf-8"))
        path = tmp / "trace.json"
        path.write_text(json.dumps(_changed(base, case["survey-v1"])), encoding="utf-8")
        report = check_file_v1(path, name="trace.json")
        return [p.format() for p in report.sorted() if p.check == "survey-v1"]
    if "rules" in case:
        try:
            load_rules(dump_yaml(case["rules"]), "rules.yaml")
        except InvalidInput as err:
            return [p.format() for p in err.problems]
        return []
    base = json.loads(TRACE_BASE.read_text(encoding="utf-8"))
    raw = json.dumps(_changed(base, case)).encode()
    report, _ = check_bytes(raw, "trace.json")
    return [p.format() for p in report.sorted() if p.check == "schema"]


RUN = {"records": _record, "configs": _config, "traces": _trace}


def _cases() -> Iterator[tuple[str, int, dict[str, Any]]]:
    for kind, cases in CASES.items():
        for i, case in enumerate(cases):
            yield kind, i, case


def said(kind: str, case: dict[str, Any]) -> tuple[list[str], set[str]]:
    """The lines a case says and the keywords of the failures explained on the way."""
    seen: set[str] = set()
    real = schema_words.failure

    def watching(err: Any) -> schema_words.Failure:
        f = real(err)
        seen.add(f.keyword)
        return f

    schema_words.failure = watching  # type: ignore[assignment]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            lines = RUN[kind](case, Path(tmp))
    finally:
        schema_words.failure = real  # type: ignore[assignment]
    return lines, seen


def _expected() -> dict[str, list[list[str]]]:
    return yaml.safe_load(EXPECTED.read_text(encoding="utf-8"))


@pytest.mark.parametrize(("kind", "i", "case"), list(_cases()), ids=lambda v: str(v)[:40])
def test_each_case_says_its_expected_lines(kind: str, i: int, case: dict[str, Any]) -> None:
    lines, _ = said(kind, case)
    assert lines == _expected()[kind][i]


def _keywords(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in schema_words.KEYWORDS:
                yield key
            if key == "if":  # a condition: its keywords decide, they are never said
                continue
            if key in ("properties", "$defs", "patternProperties") and isinstance(value, dict):
                for sub in value.values():
                    yield from _keywords(sub)
            else:
                yield from _keywords(value)
    elif isinstance(node, list):
        for sub in node:
            yield from _keywords(sub)


def _schemas(kind: str) -> list[Any]:
    if kind == "records":
        tax = load_taxonomy(SNAPSHOT)
        return [record_schema(tax, name) for name in tax.collections]
    if kind == "configs":
        return [c.schema for c in config_schemas().values()]
    rules = resources.files("survey_tools.traces.importers").joinpath("rules.schema.yaml")
    v1 = resources.files("survey_tools.traces").joinpath("schemas", SCHEMA_FILE)
    return [
        trace_schema(),
        yaml.safe_load(rules.read_text(encoding="utf-8")),
        json.loads(v1.read_text(encoding="utf-8")),
    ]


@pytest.mark.parametrize("kind", sorted(CASES))
def test_every_keyword_a_kind_uses_is_exercised(kind: str) -> None:
    used = {k for s in _schemas(kind) for k in _keywords(s)}
    seen: set[str] = set()
    for case in CASES[kind]:
        seen |= said(kind, case)[1]
    assert sorted(used - seen) == [], f"{kind}: keywords of its schemas no case exercises"


def write_expected() -> None:  # pragma: no cover - run by hand after adding a case
    out = {kind: [said(kind, c)[0] for c in cases] for kind, cases in CASES.items()}
    EXPECTED.write_text(yaml.safe_dump(out, allow_unicode=True, width=200), encoding="utf-8")


def test_the_table_names_its_rules_and_sources() -> None:
    """Each keyword of the table is explained by a rule of the Explainer, has a plain template,
    and names where its did-you-mean comes from (or none)."""
    for keyword, entry in schema_words.KEYWORDS.items():
        assert callable(getattr(schema_words.Explainer, entry.rule, None)), keyword
        assert "" in entry.templates, keyword
        assert entry.near in ("", "values", "keys", "modes"), keyword
