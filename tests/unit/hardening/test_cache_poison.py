"""The parse cache is data that is checked, never trusted: a poisoned or mistyped entry is rebuilt."""

from __future__ import annotations

import shutil
from pathlib import Path

import msgspec
import pytest

from survey_tools.corpus.loading import load_corpus

TINY = Path(__file__).resolve().parents[2] / "data" / "tiny-survey"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SURVEY_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "survey"
    shutil.copytree(TINY, root)
    text = (root / "entries" / "oxidize.yaml").read_text()
    (root / "entries" / "oxidize.yaml").write_text(text + "unknown_field: 1\n")
    return root


def cache_file(tmp_path: Path) -> Path:
    (found,) = (tmp_path / "cache" / "records").glob("*.msgpack")
    return found


def test_an_entry_edited_to_hide_its_problems_is_not_trusted(root: Path, tmp_path: Path) -> None:
    first = load_corpus(root, use_cache=True)
    assert any(p.field == "unknown_field" for p in first.problems)
    path = cache_file(tmp_path)
    rows = msgspec.msgpack.decode(path.read_bytes())
    for entry in rows[3]:
        entry[2] = []  # problems: none (the check hash left as it was)
    path.write_bytes(msgspec.msgpack.encode(rows))
    again = load_corpus(root, use_cache=True)
    assert again.cache_hits == 0
    assert [p.format() for p in again.problems] == [p.format() for p in first.problems]


@pytest.mark.parametrize(
    "poison",
    [b"\x80\x04\x95 not msgpack at all", msgspec.msgpack.encode([3, "x", "y", [["k", 5]]]), b""],
    ids=["garbage", "wrong-types", "empty"],
)
def test_a_cache_of_the_wrong_shape_is_rebuilt(root: Path, tmp_path: Path, poison: bytes) -> None:
    load_corpus(root, use_cache=True)
    cache_file(tmp_path).write_bytes(poison)
    again = load_corpus(root, use_cache=True)
    assert again.cache_hits == 0
    assert any(p.field == "unknown_field" for p in again.problems)
    third = load_corpus(root, use_cache=True)  # and the rebuilt cache is used
    assert third.cache_hits == third.files
