"""The columns' id index and name codes against the plain dict they replace."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from survey_tools.traces.table import IdIndex, Names


class Clash(str):
    """A string whose hash clashes with every other Clash: equal hashes, different ids."""

    def __hash__(self) -> int:
        return 7


def dict_first(ids: list[Any]) -> dict[Any, int]:
    index: dict[Any, int] = {}
    for i, v in enumerate(ids):
        if v is not None:
            index.setdefault(v, i)
    return index


names = st.sampled_from(["a", "b", "c", "e1", "e10", ""])
ids_st = st.lists(
    st.one_of(names, st.none(), names.map(Clash)),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(ids_st, st.lists(st.one_of(names, st.none(), names.map(Clash), st.just("zz")), max_size=40))
def test_id_index_is_a_dict_of_first_occurrences(ids: list[Any], queries: list[Any]) -> None:
    index = IdIndex(ids)
    ref = dict_first(ids)
    assert index.first.tolist() == [-1 if v is None else ref[v] for v in ids]
    assert index.find(queries).tolist() == [ref.get(q, -1) for q in queries]


def test_id_index_settles_equal_hashes_of_different_ids() -> None:
    ids = [Clash("x"), Clash("y"), Clash("x"), None, Clash("z")]
    index = IdIndex(ids)
    assert index.first.tolist() == [0, 1, 0, -1, 4]
    queries = [Clash("z"), Clash("y"), Clash("w"), None, Clash("x")]
    assert index.find(queries).tolist() == [4, 1, -1, -1, 0]


def test_id_index_keeps_first_occurrences_among_many_equal_hashes() -> None:
    # Large enough that the hashes' sort is not stable by accident (short arrays are sorted
    # by insertion): equal hashes must still come in event order.
    ids: list[Any] = [f"e{i % 97}" for i in range(5000)] + [
        Clash(f"c{i % 13}") for i in range(3000)
    ]
    ids[::11] = [None] * len(ids[::11])
    index = IdIndex(ids)
    ref = dict_first(ids)
    assert index.first.tolist() == [-1 if v is None else ref[v] for v in ids]
    queries = [*ids[::-7], "e5", Clash("c3"), "nope", Clash("nope")]
    assert index.find(queries).tolist() == [ref.get(q, -1) for q in queries]


def test_name_codes_are_sorted_per_batch_of_new_names() -> None:
    names = Names()
    first = names.codes(iter(["w", None, "b", "w", "a"]), 5).tolist()
    second = names.codes(iter(["z", "b", "c"]), 3).tolist()
    assert names.names == ["a", "b", "w", "c", "z"]
    assert first == [2, -1, 1, 2, 0]
    assert second == [4, 1, 3]
