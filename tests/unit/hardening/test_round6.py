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
    assert f"error: {target}: {link} is a symbolic link; init writes only into real folders" in res.output
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    assert sorted(p.name for p in target.iterdir()) == sorted(["list.csv", link])
