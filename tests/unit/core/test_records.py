"""Data-driven record checks: every fixture under tests/data/*/valid is clean and every fixture
under tests/data/*/invalid yields exactly the problems in its .expected file."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from survey_tools.corpus.validation import validate_corpus

DATA = Path(__file__).resolve().parents[2] / "data"
CASES = {"records": "corpus", "exclusions": "exclusions"}


def _cases(kind: str, group: str) -> list[Path]:
    return sorted((DATA / kind / group).glob("*.yaml"))


def _validate_one(survey_dir: Path, kind: str, case: Path) -> list[str]:
    shutil.copy(case, survey_dir / CASES[kind] / case.name)
    return "\n".join(p.format() for p in validate_corpus(survey_dir)).splitlines()


@pytest.mark.parametrize(
    "kind,case",
    [(k, c) for k in CASES for c in _cases(k, "valid")],
    ids=lambda v: getattr(v, "name", v),
)
def test_valid_fixture_has_no_problem(survey_dir: Path, kind: str, case: Path) -> None:
    assert _validate_one(survey_dir, kind, case) == []


@pytest.mark.parametrize(
    "kind,case",
    [(k, c) for k in CASES for c in _cases(k, "invalid")],
    ids=lambda v: getattr(v, "name", v),
)
def test_invalid_fixture_reports_exact_lines(survey_dir: Path, kind: str, case: Path) -> None:
    expected = case.with_suffix(".expected").read_text(encoding="utf-8").splitlines()
    assert _validate_one(survey_dir, kind, case) == expected


def test_every_invalid_fixture_has_expectations() -> None:
    for kind in CASES:
        for case in _cases(kind, "invalid"):
            assert case.with_suffix(".expected").is_file(), case


def test_alias_bomb_is_refused_fast(survey_dir: Path) -> None:
    # Nine levels of nine aliases would expand to 9**9 strings if anything expanded them.
    start = time.perf_counter()
    problems = _validate_one(survey_dir, "records", DATA / "records/invalid/alias-bomb.yaml")
    assert time.perf_counter() - start < 1.0
    assert problems == [
        "corpus/alias-bomb.yaml:2:4: a value starting with & or * must be in quotes (YAML reads it as an anchor or alias, which records do not allow)"
    ]


def test_deep_nesting_is_refused_without_crashing(survey_dir: Path) -> None:
    (survey_dir / "corpus" / "deep.yaml").write_text("key: " + "[" * 100_000 + "\n")
    problems = [p.format() for p in validate_corpus(survey_dir)]
    assert problems == ["corpus/deep.yaml:1:69: nesting deeper than 64 levels"]


def test_cross_record_problems(survey_dir: Path) -> None:
    case = DATA / "corpora" / "duplicates"
    for sub in ("corpus", "exclusions"):
        for f in (case / sub).glob("*.yaml"):
            shutil.copy(f, survey_dir / sub / f.name)
    got = [p.format() for p in validate_corpus(survey_dir)]
    assert got == (case / "expected.txt").read_text(encoding="utf-8").splitlines()


def test_validation_never_writes_records(corpus_copy: Path) -> None:
    before = {p: p.read_bytes() for p in corpus_copy.rglob("*.yaml")}
    validate_corpus(corpus_copy)
    assert {p: p.read_bytes() for p in corpus_copy.rglob("*.yaml")} == before


def test_yml_extension_is_reported(survey_dir: Path) -> None:
    (survey_dir / "corpus" / "oops.yml").write_text("key: oops\n")
    got = [p.format() for p in validate_corpus(survey_dir)]
    assert got == ["corpus/oops.yml: records end in .yaml, not .yml: rename the file to oops.yaml"]


def _variant(survey_dir: Path, key: str, title: str, arxiv: str, extra: str = "") -> None:
    text = (DATA / "records/valid/demo-paper.yaml").read_text(encoding="utf-8")
    text = text.replace("key: demo-paper", f"key: {key}").replace(
        "title: A Demonstration Paper on Orchestration", f"title: '{title}'").replace("2501.00001", arxiv)
    text = text.replace("  doi: 10.1000/demo.1\n", "").replace("  openreview: AbCdEf123\n", "")
    # each variant says what its own work does (a copied summary is a problem of its own)
    summaries = {"kimi-k2-5": "A vision-language model trained with agent-swarm reinforcement learning.",
                 "kimi-k2-7": "Reports a later model of the same family, with longer tool-use rollouts."}
    text = text.replace("Trains an orchestrator with RL to decide which worker acts next.", summaries[key])
    (survey_dir / "corpus" / f"{key}.yaml").write_text(text + extra, encoding="utf-8")


def test_declared_non_duplicates_pass_and_unknown_keys_are_named(survey_dir: Path) -> None:
    # Titles that differ in a number are never one work (K2.5 and K2.7): no declaration needed.
    _variant(survey_dir, "kimi-k2-5", "Kimi K2.5: Visual Agentic Intelligence", "2501.00011")
    _variant(survey_dir, "kimi-k2-7", "Kimi K2.7: Visual Agentic Intelligence", "2501.00012")
    assert [p.format() for p in validate_corpus(survey_dir)] == []
    _variant(survey_dir, "kimi-k2-7", "Kimi K2.5: Visual Agentic Intelligences", "2501.00012")
    got = [p.format() for p in validate_corpus(survey_dir)]
    assert got == [
        "corpus/kimi-k2-5.yaml:3:8: title: a title 99% similar to corpus/kimi-k2-7.yaml "
        "('Kimi K2.5: Visual Agentic Intelligences'): the same work twice?"
        "; if it is the same work, keep one record (edit corpus/kimi-k2-7.yaml, delete the other); if not, add to this record not_duplicate_of: {kimi-k2-7: how the two differ}",
        "corpus/kimi-k2-7.yaml:3:8: title: a title 99% similar to corpus/kimi-k2-5.yaml "
        "('Kimi K2.5: Visual Agentic Intelligence'): the same work twice?"
        "; if it is the same work, keep one record (edit corpus/kimi-k2-5.yaml, delete the other); if not, add to this record not_duplicate_of: {kimi-k2-5: how the two differ}",
    ]
    _variant(survey_dir, "kimi-k2-7", "Kimi K2.5: Visual Agentic Intelligences", "2501.00012",
             "not_duplicate_of:\n  kimi-k2-5: A later model with its own report.\n  kimi-k3: Not yet out.\n")
    got = [p.format() for p in validate_corpus(survey_dir)]
    assert got == ["corpus/kimi-k2-7.yaml:41:12: not_duplicate_of.kimi-k3: no record with key 'kimi-k3'"]
