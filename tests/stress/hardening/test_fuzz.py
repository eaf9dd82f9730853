"""Property-based fuzzing of every reader: any input ends in data or problems, never a crash.

Each test feeds an entry point random or mutated input and allows only the library's own
outcomes (a result, problems, or a SurveyError carrying a message). Examples are bounded in
time by the profile's deadline; the profiles live in conftest.py.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

import msgspec
import pytest
from helpers.survey_copy import SURVEY
from hypothesis import example, given
from hypothesis import strategies as st

from survey_tools.corpus.loading import _check_bytes
from survey_tools.corpus.taxonomy import Taxonomy, load_taxonomy
from survey_tools.corpus.yamlio import dump_yaml, parse_yaml_bytes
from survey_tools.errors import SurveyError

REPO = Path(__file__).resolve().parents[3]
TAX = load_taxonomy(SURVEY)
VALID = (SURVEY / "corpus" / "c3.yaml").read_text(encoding="utf-8")
VALID_EXCLUSION = (SURVEY / "exclusions" / "E001.yaml").read_text(encoding="utf-8")
PAPERS = REPO / "tests" / "fixtures" / "survey-artifact" / "papers.csv"
AUDIT = (REPO / "data/audit/spotcheck.csv").read_text(encoding="utf-8")
TRACE = (REPO / "examples/traces/valid/centralized.json").read_text(encoding="utf-8")

# Every value of every controlled field, and near misses of each (case, separators, typos).
_VALUES = sorted({v for c in TAX.collections.values() for f in c.controlled for v in f.ids})


def _near(v: str) -> list[str]:
    return [v.upper(), v.title(), v.replace("_", "-"), v + "s", v[:-1], f" {v}", v + "\n", ""]


NEAR = sorted({n for v in _VALUES for n in _near(v)} | {"NA", "na", "N/A", "untagged", "yes", "Yes"})
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
    st.text(max_size=40), st.sampled_from(NEAR), st.sampled_from(_VALUES),
)
values = st.recursive(
    scalars,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=12), kids, max_size=4),
    max_leaves=20,
)


def _check(raw: bytes, name: str = "fuzz", collection: str = "retained") -> list[Any]:
    coll = TAX.collection(collection)
    data, problems, _positions = _check_bytes(TAX, coll, f"{coll.folder}/{name}.yaml", raw)
    for p in problems:  # every problem names the file and says something
        assert p[0].endswith(f"{name}.yaml") and p[4], p
    return problems


# --- records ------------------------------------------------------------------------------


@given(st.binary(max_size=2000))
def test_record_random_bytes(raw: bytes) -> None:
    _check(raw)


@given(st.text(max_size=500))
def test_record_random_text(text: str) -> None:
    _check(text.encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize("escape", ["\\ud800", "\\udfff", "\\U0000d800"])
def test_a_lone_surrogate_escape_is_refused_before_any_check(escape: str) -> None:
    # A lone surrogate cannot be encoded (jsonschema-rs, the JSON outputs and the files would
    # all fail on it): the YAML reader refuses the escape with the line and column.
    raw = VALID.replace("title: ", f'title: "{escape}" #', 1).encode("utf-8")
    problems = _check(raw)
    assert [(p[1], p[4].split("\n")[0]) for p in problems] == [
        (VALID.splitlines().index(next(x for x in VALID.splitlines() if x.startswith("title: "))) + 1,
         "a backslash (\\) inside double quotes starts an escape code, and this one is not a "
         "character: put the value in single quotes instead, like title: '…', or write each "
         "backslash twice")], problems
    assert all("\n    YAML parser: " in p[4] and "invalid Unicode character escape" in p[4] for p in problems)


@given(values)
def test_record_random_yaml_document(data: Any) -> None:
    _check(dump_yaml(data).encode("utf-8"))


_FIELDS = [line.split(":", 1)[0] for line in VALID.splitlines() if line and line[0].isalpha()]


@given(st.dictionaries(st.sampled_from(_FIELDS), values, min_size=1, max_size=4))
def test_record_mutated_fields(changes: dict[str, Any]) -> None:
    doc = parse_yaml_bytes(VALID.encode(), "corpus/c3.yaml")
    data = dict(doc.data)
    data.update(changes)
    _check(dump_yaml(data).encode("utf-8"), "c3")


@given(st.fixed_dictionaries({
    f.name: st.sampled_from(NEAR) for f in TAX.retained.controlled if f.kind == "single"
}))
def test_record_near_miss_taxonomy_values(tags: dict[str, str]) -> None:
    data = dict(parse_yaml_bytes(VALID.encode(), "corpus/c3.yaml").data)
    data.update(tags)
    problems = _check(dump_yaml(data).encode("utf-8"), "c3")
    bad = {k for k, v in tags.items() if v not in TAX.field(k).ids and v != TAX.na}
    assert bad <= {p[3] for p in problems}  # each wrong tag is named


@given(st.integers(0, len(VALID_EXCLUSION) - 1), st.binary(min_size=1, max_size=8))
def test_exclusion_byte_splice(at: int, junk: bytes) -> None:
    raw = VALID_EXCLUSION.encode()
    _check(raw[:at] + junk + raw[at:], "E001", "excluded")


@given(st.integers(1, 400), st.sampled_from(["[", "{", "- ", "a: "]))
def test_record_deep_nesting(depth: int, opener: str) -> None:
    if opener in ("[", "{"):
        closer = "]" if opener == "[" else "}"
        text = "key: x\nnotes: " + opener * depth + closer * depth + "\n"
    else:
        text = "".join("  " * i + opener + ("\n" if opener == "a: " else "") for i in range(depth))
    _check(text.encode())


# --- CSV import, claims, audit (through files, as the commands read them) -----------------


@pytest.fixture(scope="module")
def survey() -> Any:
    with tempfile.TemporaryDirectory() as d:
        root = Path(d) / "survey"
        for name in ("taxonomy", "corpus", "exclusions", "data"):
            shutil.copytree(SURVEY / name, root / name)
        yield root, load_taxonomy(root)


def _mutate(text: str, data: st.DataObject) -> str:
    ops = data.draw(st.lists(st.tuples(
        st.integers(0, max(0, len(text))),
        st.sampled_from(['"', ",", "\n", "\r\n", "\ufeff", "\x00", "\\", "'", ";", "NA", "\u00e9"]),
        st.integers(0, 3),
    ), max_size=6))
    for at, ins, cut in ops:
        text = text[:at] + ins + text[at + cut:]
    return text


def _csv_text() -> str:
    return "\n".join(PAPERS.read_text(encoding="utf-8").splitlines()[:4]) + "\n"


@given(st.data())
def test_csv_import_mutated(survey: Any, data: st.DataObject) -> None:
    from survey_tools.adopt.csvio import plan_import

    root, tax = survey
    text = _mutate(_csv_text(), data)
    enc = data.draw(st.sampled_from(["utf-8", "utf-8-sig", "latin-1"]))
    path = root / "papers.csv"
    path.write_bytes(text.encode(enc, "replace"))
    try:
        plan_import(tax, path)
    except SurveyError as err:
        assert str(err)


@given(values)
def test_claims_random(survey: Any, claims: Any) -> None:
    from survey_tools.reports.claims_file import parse_claims

    _, tax = survey
    doc = parse_yaml_bytes(dump_yaml({"claims": claims}).encode(), "data/claims.yaml")
    try:
        parse_claims(tax, doc, "data/claims.yaml")
    except SurveyError as err:
        assert str(err)


@given(st.data())
def test_audit_mutated(survey: Any, data: st.DataObject) -> None:
    from survey_tools.reports.agreement import compute_agreement

    root, tax = survey
    path = root / "audit.csv"
    text = _mutate("\n".join(AUDIT.splitlines()[:5]) + "\n", data)
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        compute_agreement(tax, path, "audit.csv")
    except SurveyError as err:
        assert str(err)


# --- traces and importers -----------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=10), kids, max_size=4),
    max_leaves=20,
)


def _trace_ok(raw: bytes) -> None:
    from survey_tools.traces.validate import check_bytes

    report, _ = check_bytes(raw, "fuzz.json")
    for p in report.sorted():
        assert p.format()


@given(st.binary(max_size=2000))
def test_trace_random_bytes(raw: bytes) -> None:
    _trace_ok(raw)


@given(json_values)
def test_trace_random_json(value: Any) -> None:
    _trace_ok(json.dumps(value).encode())


@given(st.data())
def test_trace_mutated(data: st.DataObject) -> None:
    trace = json.loads(TRACE)
    events = trace["events"]
    i = data.draw(st.integers(0, len(events) - 1))
    key = data.draw(st.sampled_from(["id", "t", "type", "agent", "to", "from", "extra"]))
    events[i][key] = data.draw(json_values)
    if data.draw(st.booleans()):
        trace["edges"].append({"src": data.draw(st.text(max_size=4)), "dst": events[0]["id"],
                               "type": data.draw(st.sampled_from(["causal", "x", ""]))})
    _trace_ok(json.dumps(trace).encode())


@given(st.sampled_from(["who-and-when", "otel", "openai-agents"]), st.one_of(
    st.binary(max_size=500), json_values.map(lambda v: json.dumps(v).encode())))
def test_importers_random(fmt: str, raw: bytes) -> None:
    from survey_tools.traces.importers import run_import

    try:
        run_import(fmt, "fuzz.json", lambda: raw)
    except SurveyError as err:
        assert str(err)


def test_taxonomy_is_loaded() -> None:
    assert isinstance(TAX, Taxonomy) and _VALUES


# --- the parse cache (bytes in the user's cache folder: data to check, never to trust) ------------


_CACHE_ROOT = Path(tempfile.mkdtemp(prefix="fuzz-cache-"))
_FRESH: list[Any] = []
shutil.copytree(REPO / "tests/data/tiny-survey", _CACHE_ROOT / "survey")


_packable = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), st.text(max_size=20),
              st.binary(max_size=20)),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
    max_leaves=20,
)


@given(st.one_of(st.binary(max_size=400), _packable.map(lambda v: msgspec.msgpack.encode(v))))
@example(b"\x94\x00\xa3\x00\x00\x80")  # a string that is not UTF-8: msgspec raises UnicodeDecodeError
def test_parse_cache_any_bytes(raw: bytes) -> None:
    import os

    from survey_tools.corpus.loading import _cache_path, load_corpus

    # A cache folder of this test's own, for this example only: the tests that run after it in
    # the same process keep the session's (an example cannot take pytest's monkeypatch).
    with mock.patch.dict(os.environ, {"SURVEY_CACHE_DIR": str(_CACHE_ROOT / "cache")}):
        root = _CACHE_ROOT / "survey"
        if not _FRESH:
            _FRESH.append(load_corpus(root, use_cache=False))
        fresh = _FRESH[0]
        path = _cache_path(fresh.taxonomy)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)
        got = load_corpus(root, use_cache=True)  # must not raise, whatever the bytes
    assert [r.data for r in got] == [r.data for r in fresh]
    assert got.problems == fresh.problems
