"""``survey duplicates`` and its part of ``survey validate``."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.support import run


def test_real_corpus_is_clean() -> None:
    root = Path(__file__).resolve().parents[3]
    code, out, err = run(root, "duplicates")
    assert (code, out) == (0, "")
    assert err.endswith(" duplicate problems\n")


def _retitle(root: Path, rel: str, title: str) -> None:
    path = root / rel
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(f"title: {title}\n" if ln.startswith("title:") else ln for ln in lines))


@pytest.mark.parametrize(
    ("edits", "expected"),
    [
        # The same title after normalisation: case, punctuation, braces, accents.
        ([("corpus/marft.yaml", "'{LLM} Collaboration with Multi-Agent Reinforcement Learning!'")],
         ["corpus/magrpo.yaml:2:8: title: the same title is also used by corpus/marft.yaml"
          "; if it is the same work, keep one record (edit corpus/marft.yaml, delete the other); if not, add to this record not_duplicate_of: {marft: how the two differ}",
          "corpus/marft.yaml:2:8: title: the same title is also used by corpus/magrpo.yaml"
          "; if it is the same work, keep one record (edit corpus/magrpo.yaml, delete the other); if not, add to this record not_duplicate_of: {magrpo: how the two differ}"]),
        # A near title, retained against excluded.
        ([("exclusions/E028.yaml", "LLM Collaboration With Multi-Agent Reinforcment Learning")],
         ["corpus/magrpo.yaml:2:8: title: a title 99% similar to exclusions/E028.yaml "
          "('LLM Collaboration With Multi-Agent Reinforcment Learning'): the same work twice?"
          "; if it is the same work, it is already in exclusions/E028.yaml: keep only one (an exclusion says why the work was left out); if not, add to this record not_duplicate_of: {E028: how the two differ}",
          "exclusions/E028.yaml:2:8: title: a title 99% similar to corpus/magrpo.yaml "
          "('LLM Collaboration With Multi-Agent Reinforcement Learning'): the same work twice?"
          "; if it is the same work, it is already in corpus/magrpo.yaml: keep only one (an exclusion says why the work was left out)"]),
    ],
)
def test_duplicates_found(survey: Path, edits: list[tuple[str, str]], expected: list[str]) -> None:
    for rel, title in edits:
        _retitle(survey, rel, title)
    code, out, _ = run(survey, "duplicates")
    assert code == 1
    assert out.splitlines() == expected


def test_fuzzy_pair(survey: Path) -> None:
    _retitle(survey, "corpus/marft.yaml", "LLM Collaboration with Multi-Agent Reinforcement Learnin")
    code, out, _ = run(survey, "duplicates")
    assert code == 1
    assert out.splitlines() == [
        "corpus/magrpo.yaml:2:8: title: a title 99% similar to corpus/marft.yaml "
        "('LLM Collaboration with Multi-Agent Reinforcement Learnin'): the same work twice?"
        "; if it is the same work, keep one record (edit corpus/marft.yaml, delete the other); if not, add to this record not_duplicate_of: {marft: how the two differ}",
        "corpus/marft.yaml:2:8: title: a title 99% similar to corpus/magrpo.yaml "
        "('LLM Collaboration With Multi-Agent Reinforcement Learning'): the same work twice?"
        "; if it is the same work, keep one record (edit corpus/magrpo.yaml, delete the other); if not, add to this record not_duplicate_of: {magrpo: how the two differ}",
    ]
    # ... and validation reports the same problems.
    code, vout, _ = run(survey, "validate")
    assert code == 1
    assert vout.splitlines() == out.splitlines()
