"""Counting (reports/counting.py) against an independent pandas count, on the real corpus.

The build counts in plain Python; pandas (a test dependency here, and what a reader's notebook
uses through ``Table.to_frame``) recounts the same cells with group-bys, for every pair of axes
the taxonomy offers and for thinned-out record lists (empty ones included).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pandas as pd
import pytest
from helpers.survey_copy import SURVEY

from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.reports.axes import Axis, known_axes, resolve_axis
from survey_tools.reports.counting import _record_cells, tabulate

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def corpus():  # type: ignore[no-untyped-def]
    tax = load_taxonomy(SURVEY)
    return load_corpus(SURVEY, tax)


def _reference(records, rows: Axis, cols: Axis | None, untagged: str):  # type: ignore[no-untyped-def]
    cells = [(rec.id, r, c) for rec in records for r, c in _record_cells(rec, rows, cols, untagged)]
    df = pd.DataFrame(cells, columns=["rid", "r", "c"])
    if df.empty:
        return {}, {}, {}, 0, {}
    per_cell = df.groupby(["r", "c"])["rid"].nunique().to_dict()
    per_row = df.groupby("r")["rid"].nunique().to_dict()
    per_col = df.groupby("c")["rid"].nunique().to_dict()
    ids = {k: tuple(sorted(set(g))) for k, g in df.groupby(["r", "c"])["rid"]}
    return per_cell, per_row, per_col, int(df["rid"].nunique()), ids


def _pairs(corpus):  # type: ignore[no-untyped-def]
    tax = corpus.taxonomy
    axes = [resolve_axis(tax, name) for name in known_axes(tax)]
    for a in axes:
        yield a, None
    # Every pair of controlled axes; plain fields (titles, years...) crossed with one of them.
    controlled = [a for a in axes if a.kind != "plain"]
    for a, b in itertools.permutations(controlled, 2):
        if a.collection == b.collection:
            yield a, b
    for a in axes:
        if a.kind == "plain":
            yield a, next(b for b in controlled if b.collection == a.collection)


def test_every_axis_pair_counts_as_pandas_does(corpus) -> None:  # type: ignore[no-untyped-def]
    tax = corpus.taxonomy
    checked = 0
    for rows, cols in _pairs(corpus):
        recs = list(corpus.of(rows.collection))
        for subset in (recs, recs[::3], []):
            t = tabulate(tax, subset, rows, cols, keep_cells=True)
            per_cell, per_row, per_col, total, ids = _reference(subset, rows, cols, tax.untagged)
            assert t.total == total
            for i, r in enumerate(t.row_values):
                assert t.row_totals[i] == per_row.get(r, 0), (rows.spec, r)
                for j, c in enumerate(t.col_values):
                    assert t.counts[i][j] == per_cell.get((r, c), 0), (rows.spec, r, c)
            for j, c in enumerate(t.col_values):
                assert t.col_totals[j] == per_col.get(c, 0)
            assert set(per_row) <= set(t.row_values) and set(per_col) <= set(t.col_values)
            assert dict(t.cells) == ids
            # without the cells' members (the build's tables): the same counts, by its own path
            bare = tabulate(tax, subset, rows, cols)
            assert (bare.row_values, bare.col_values, bare.counts, bare.row_totals, bare.col_totals, bare.total) == (
                t.row_values, t.col_values, t.counts, t.row_totals, t.col_totals, t.total)
            assert not bare.cells
            checked += 1
    assert checked > 300  # every axis alone and crossed, three record lists each


def test_a_table_hands_its_counts_to_pandas(corpus) -> None:  # type: ignore[no-untyped-def]
    tax = corpus.taxonomy
    rows, cols = resolve_axis(tax, "reward_type"), resolve_axis(tax, "credit_granularity")
    t = tabulate(tax, corpus.of(rows.collection), rows, cols)
    frame = t.to_frame()
    assert list(frame.index) == list(t.row_values) and list(frame.columns) == list(t.col_values)
    assert frame.index.name == "reward_type" and frame.columns.name == "credit_granularity"
    assert frame.values.tolist() == [list(r) for r in t.counts]
    assert int(frame.loc["orchestration", "orchestrator"]) == t.count("orchestration", "orchestrator")
    alone = tabulate(tax, corpus.of(rows.collection), rows)
    one = alone.to_frame()
    assert list(one.columns) == ["count"] and one.columns.name is None
    assert one["count"].tolist() == [r[0] for r in alone.counts]
    assert one["count"].tolist() == list(t.row_totals)  # a record counts once in its row


def test_a_value_written_twice_counts_once(corpus) -> None:  # type: ignore[no-untyped-def]
    # A record that names a value twice (a list the schema does not keep unique) is still one
    # record in that row, with or without the cells' members.
    from survey_tools.corpus.records import Record

    tax = corpus.taxonomy
    listed = [
        (a, r) for a in (resolve_axis(tax, n) for n in known_axes(tax)) if a.kind in ("multi", "plain")
        for r in corpus.of(a.collection) if isinstance(r.get(a.field), list) and r.get(a.field)
    ]
    axis, rec = listed[0]  # the authors of the real survey's records
    value = rec.get(axis.field)[0]
    twice = Record(rec.collection, rec.id, rec.path, {**rec.data, axis.field: [value, value]}, {})
    for keep in (False, True):
        t = tabulate(tax, [twice], axis, keep_cells=keep)
        assert t.total == 1 and t.row_totals[t.row_values.index(value)] == 1
        assert sum(t.row_totals) == 1 and t.counts[t.row_values.index(value)] == (1,)
