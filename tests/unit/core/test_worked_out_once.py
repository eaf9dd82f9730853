"""What the build works out once and shares gives what working it out each time gave: a record's
categories per axis (``Axis.extract`` kept on the record), each value's records in one pass
(``members_by_value``, ``mapping_index``), the prose check's quick walk (``_has_control``) and the NFC question
(``published_data``), the
records' shared strings, and the Jinja environment's dict look-up."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from helpers.survey_copy import SURVEY
from hypothesis import given
from hypothesis import strategies as st

from survey_tools.corpus.checks import _CONTROL, _has_control, _scalars
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.published import _composed, published_data
from survey_tools.corpus.records import Corpus
from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.render import model
from survey_tools.render.templating import make_environment
from survey_tools.reports.axes import get_path, known_axes, mode_of, resolve_axis

REPO = Path(__file__).resolve().parents[3]
_RETAINED = load_taxonomy(SURVEY).retained


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return load_corpus(SURVEY)


def test_kept_categories_are_the_ones_worked_out_afresh(corpus: Corpus) -> None:
    tax = corpus.taxonomy
    for name in known_axes(tax):
        ax = resolve_axis(tax, name)
        for rec in corpus.of(ax.collection):
            first = ax.extract(rec, tax.untagged)
            assert first == tuple(ax._extract(rec, tax.untagged)), (name, rec.id)
            assert ax.extract(rec, tax.untagged) is first  # the second ask is the kept answer


def test_another_sentinel_is_not_served_from_the_memo(corpus: Corpus) -> None:
    tax = corpus.taxonomy
    ax = resolve_axis(tax, "verified")
    base = corpus.retained[0]
    rec = replace(base, data={k: v for k, v in base.data.items() if k != "verified"})
    assert ax.extract(rec, tax.untagged) == (tax.untagged,)
    assert ax.extract(rec, "(none)") == ("(none)",)
    assert ax.extract(rec, tax.untagged) == (tax.untagged,)


def test_a_record_made_from_another_starts_with_no_memo(corpus: Corpus) -> None:
    tax = corpus.taxonomy
    ax = resolve_axis(tax, "scenario")
    rec = corpus.retained[0]
    other_value = next(v for v in ax.values if v != rec.get("scenario"))
    kept = ax.extract(rec, tax.untagged)
    other = replace(rec, data={**rec.data, "scenario": other_value})
    assert other.axis_values == {}
    assert ax.extract(other, tax.untagged) == (other_value,)
    assert ax.extract(rec, tax.untagged) == kept == (str(rec.get("scenario")),)


def test_each_values_records_in_one_pass_are_the_scans_answer(corpus: Corpus) -> None:
    tax = corpus.taxonomy
    recs = corpus.retained
    for cf in tax.retained.controlled:
        names = [cf.name] + ([cf.group.name] if cf.group is not None else [])
        for name in names:
            ax = resolve_axis(tax, name)
            by_value = model.members_by_value(tax, ax, recs)
            for value in {*ax.values, *by_value}:
                scan = [r for r in recs if value in ax.extract(r, tax.untagged)]
                assert by_value.get(value, []) == scan, (name, value)
        if cf.kind == "mapping":
            ax = resolve_axis(tax, cf.name)
            held = model.mapping_index(ax, recs)
            assert held, cf.name
            for v in cf.values:
                for m in cf.modes:
                    scan = [r for r in recs if isinstance(raw := get_path(r.data, ax.field), Mapping)
                            and v.id in raw and mode_of(raw[v.id]) == m.id]
                    assert held.get((v.id, m.id), []) == scan, (v.id, m.id)


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@given(values)
def test_the_quick_walk_finds_a_control_character_where_the_full_walk_does(value: Any) -> None:
    assert _has_control(value) == any(_CONTROL.search(text) for _, text, _ in _scalars(value, ()))


def test_every_control_character_is_unprintable() -> None:
    # _has_control skips the search of a printable text: every character it looks for must be
    # one str.isprintable refuses, by this Python's Unicode database.
    found = [c for c in map(chr, range(0x110000)) if _CONTROL.match(c) and c.isprintable()]
    assert found == []


@given(values)
def test_published_data_composes_where_the_full_walk_does(value: Any) -> None:
    # published_data asks the joined strings first; the answer must be the full walk's.
    data = {"x": value, "\u0065\u0301": [value]} if isinstance(value, str) else {"x": value}
    assert published_data(_RETAINED, data) == _composed(data)


def test_records_share_field_names_and_positions(corpus: Corpus) -> None:
    a, b = corpus.retained[0], corpus.retained[1]
    assert next(k for k in a.data if k == "title") is next(k for k in b.data if k == "title")
    shared = set(a.positions) & set(b.positions)
    assert shared
    for name in shared:
        ka = next(k for k in a.positions if k == name)
        kb = next(k for k in b.positions if k == name)
        assert ka is kb
        if a.positions[name] == b.positions[name]:
            assert a.positions[name] is b.positions[name]


def test_templates_read_dict_keys_and_keep_dict_methods() -> None:
    import jinja2

    env = make_environment(jinja2.DictLoader({
        "t": "{{ d.title }}|{{ d.missing is defined }}|{{ d.items() | list | length }}|{{ o.real }}",
    }), autoescape=True)
    # A key named like a dict method does not hide the method (Jinja's own rule).
    out = env.get_template("t").render(d={"title": "<b>", "items": "shadow", "x": 1}, o=3)
    assert out == "&lt;b&gt;|False|3|3"
