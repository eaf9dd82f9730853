"""Configuration files parsed earlier in the process are taken back from a pickle
(corpus/yamlio.py ``_parsed_config``): the same document as a fresh parse, a copy of its own for
each caller, and a file whose bytes changed is parsed again."""

from __future__ import annotations

from pathlib import Path

from survey_tools.corpus import yamlio
from survey_tools.corpus.yamlio import parse_yaml_bytes, read_yaml_file

REPO = Path(__file__).resolve().parents[3]


def test_the_kept_document_is_a_fresh_parse(tmp_path: Path) -> None:
    for rel in ("taxonomy/survey.yaml", "data/claims.yaml", "taxonomy/protocol.yaml"):
        raw = (REPO / rel).read_bytes()
        first = read_yaml_file(REPO / rel, rel)[1]
        again = read_yaml_file(REPO / rel, rel)[1]
        assert again == first == parse_yaml_bytes(raw, rel)
        assert again is not first and again.data is not first.data


def test_a_caller_changing_its_copy_changes_nobody_elses(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("a:\n  b: [1, 2]\n", encoding="utf-8")
    doc = read_yaml_file(path, "c.yaml")[1]
    doc.data["a"]["b"].append(3)
    doc.values.clear()
    again = read_yaml_file(path, "c.yaml")[1]
    assert again.data == {"a": {"b": [1, 2]}} and again.values


def test_changed_bytes_are_parsed_again_and_the_memory_is_bounded(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("a: 1\n", encoding="utf-8")
    assert read_yaml_file(path, "c.yaml")[1].data == {"a": 1}
    path.write_text("a: 2\nb: [\n", encoding="utf-8")
    broken = read_yaml_file(path, "c.yaml")[1]
    assert broken.problems and broken == parse_yaml_bytes(path.read_bytes(), "c.yaml")
    for i in range(yamlio._PARSED_ENTRIES + 10):
        path.write_text(f"n: {i}\n", encoding="utf-8")
        assert read_yaml_file(path, "c.yaml")[1].data == {"n": i}
    assert len(yamlio._PARSED) == yamlio._PARSED_ENTRIES
