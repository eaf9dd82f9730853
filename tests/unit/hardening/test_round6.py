"""Hostile input, round 6 (issue 57's second table, tools/attack_round6.py): what the first table
did not try. The bombs themselves are built by the attack table (a bomb is not committed); here
each refusal on a small input with its limit lowered, and the folders init adopts."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.support import run


@pytest.mark.parametrize("link", ["corpus", "reports", "taxonomy"])
def test_init_writes_through_no_link_in_the_adopted_folder(tmp_path: Path, link: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("x")
    target = tmp_path / "adopted"
    target.mkdir()
    (target / "list.csv").write_text("title,year,url\nA paper,2024,https://example.org/a\n")
    (target / link).symlink_to(outside)
    res = run(None, "init", str(target), "--from", str(target / "list.csv"), "--title", "T")
    assert res.exit_code == 2
    assert (
        f"error: {target}: {link} is a symbolic link; init writes only into real folders"
        in res.output
    )
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    assert sorted(p.name for p in target.iterdir()) == sorted(["list.csv", link])


LISTS = [
    (
        "many.json",
        "[" + ",".join(['{"title": "A paper", "year": 2024}'] * 4) + "]",
        ("--max-entries", "3"),
        "many.json:1: more than 3 entries; the limit is 3 (--max-entries raises it)",
    ),
    (
        "many.ris",
        "".join(f"TY  - JOUR\nTI  - Paper {i}\nPY  - 2024\nER  - \n" for i in range(4)),
        ("--max-entries", "3"),
        "many.ris:13: more than 3 references; the limit is 3 (--max-entries raises it)",
    ),
    (
        "keys.yaml",
        "- title: A paper\n" + "".join(f"  k{i}: x\n" for i in range(40)),
        ("--max-entries", "2"),
        "keys.yaml:10: more than 20 values (keys, items and texts); the limit is 20, 10 for "
        "each of the 2 entries (--max-entries raises it)",
    ),
    (
        "double.bib",
        '@string{m0 = "xxxxxxxxxxxxxxxx"}\n'
        + "".join(f"@string{{m{i} = m{i - 1} # m{i - 1}}}\n" for i in range(1, 41))
        + "@misc{a, title = m40, year = 2024}\n",
        (),
        "double.bib:14: @string m13 expands to 131,072 characters; a value is at most 100,000",
    ),
]


@pytest.mark.parametrize(("name", "text", "args", "message"), LISTS, ids=[c[0] for c in LISTS])
def test_a_list_is_refused_before_it_is_built(
    tmp_path: Path, name: str, text: str, args: tuple[str, ...], message: str
) -> None:
    src = tmp_path / name
    src.write_text(text)
    res = run(None, "init", str(tmp_path / "new"), "--from", str(src), "--dry-run", *args)
    assert res.exit_code == 1, res.output
    assert res.output.splitlines()[0] == message
    assert not (tmp_path / "new").exists()


def test_bibtex_macros_resolve_through_earlier_macros(tmp_path: Path) -> None:
    src = tmp_path / "chain.bib"
    src.write_text(
        '@string{a = "Alpha"}\n@string{b = a # " and " # a}\n@string{c = b}\n'
        "@misc{k, title = c # { x}, year = 2024}\n"
    )
    res = run(None, "init", str(tmp_path / "new"), "--from", str(src), "--title", "T")
    assert res.exit_code == 0, res.output
    assert "title: Alpha and Alpha x" in (tmp_path / "new/corpus/k.yaml").read_text()


def test_events_are_counted_in_a_mapped_file_too(tmp_path: Path) -> None:
    import mmap

    from survey_tools.traces.limits import Limits, _counts, event_count_problem

    events = ",".join(
        f'{{"id":"e{i}","t":0,"type":"message","agent":"agent","to":"b"}}' for i in range(5)
    )
    data = ('{"events":[' + events + '],"edges":[]}').encode()
    path = tmp_path / "t.json"
    path.write_bytes(data)
    with path.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        assert _counts(mapped, (b'"agent"', b'"to"')) == [data.count(b'"agent"'), 5] == [10, 5]
        # the value "agent" is no key: 5 events, not 10
        assert event_count_problem(mapped, Limits(max_events=4)) == (
            "the trace holds 5 events, over the 4 events limit (--max-events raises it)"
        )
        assert event_count_problem(mapped, Limits(max_events=5)) is None


def test_mapped_counts_see_a_key_across_a_slice_boundary_once(tmp_path: Path) -> None:
    import mmap

    from survey_tools.traces.limits import _counts

    step = 1 << 24  # the slices' size
    # "src" straddles the first boundary, then "agent" right after it: each counted once
    data = b" " * (step - 3) + b'"src"' + b'"agent"' + b" " * 10
    path = tmp_path / "big.json"
    path.write_bytes(data)
    with path.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        assert _counts(mapped, (b'"src"', b'"agent"', b'"a')) == [1, 1, 1]


def test_prefix_counts_bound_the_key_counts_across_slice_boundaries(tmp_path: Path) -> None:
    import mmap

    from survey_tools.traces.limits import _prefix_counts

    step = 1 << 20  # the slices' size
    keys = (b'"src"', b'"agent"')
    for shift in range(-6, 3):  # a key's first four bytes on each side of the boundary
        data = b" " * (step + shift) + b'"src"' + b'"agent"' + b'"agenda"' + b'"sr'
        path = tmp_path / f"b{shift + 6}.json"
        path.write_bytes(data)
        with path.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            # "agenda starts as "agent does: a bound, at least the key's own count
            assert _prefix_counts(mapped, keys) == _prefix_counts(data, keys) == [1, 2]
