"""The numpy id index answers exactly as a dict would, hash collisions included."""

from __future__ import annotations

from survey_tools.traces.table import IdIndex


class _Colliding(str):
    """A string whose hash collides with every other one of its kind."""

    def __hash__(self) -> int:
        return 5


def _dict_first(ids: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for i, v in enumerate(ids):
        out.setdefault(v, i)
    return out


def test_first_and_lookup_match_a_dict() -> None:
    ids = ["a", "b", "a", "c", "b", "d"]
    ix = IdIndex(ids)
    first = _dict_first(ids)
    assert ix.first().tolist() == [first[v] for v in ids]
    queries = ["a", "x", "d", "c", "", "b"]
    assert ix.lookup(queries).tolist() == [first.get(q, -1) for q in queries]


def test_collisions_are_resolved_exactly() -> None:
    ids = [_Colliding(v) for v in ("p", "q", "p", "r")]
    ix = IdIndex(ids)
    assert ix.first().tolist() == [0, 1, 0, 3]
    queries = [_Colliding(v) for v in ("q", "r", "z", "p")]
    assert ix.lookup(queries).tolist() == [1, 3, -1, 0]


def test_empty() -> None:
    assert IdIndex([]).lookup(["a"]).tolist() == [-1]
    assert IdIndex([]).first().tolist() == []
