"""The tests of test_from_formats.py that build the whole real survey or run the `survey` command end to end."""

from __future__ import annotations

from pathlib import Path

from helpers.from_formats_cases import port as port  # a fixture, found by name
from helpers.init_support import run

ENTRIES = {"csv": 12, "tsv": 12, "yaml": 10, "json": 10, "jsonl": 10, "bibtex": 8, "markdown": 6}


def test_it_validates_and_builds_twice_the_same(port: tuple[str, Path]) -> None:
    fmt, root = port
    res = run(root, "validate")
    assert res.exit_code == 0, res.output
    assert f"{ENTRIES[fmt]} files checked, 0 problems" in res.output
    assert run(root, "build").exit_code == 0
    for _ in range(2):
        res = run(root, "build", "--check")
        assert res.exit_code == 0, res.output
    readme = (root / "README.md").read_text(encoding="utf-8")
    for rec in sorted((root / "corpus").glob("*.yaml")):
        key = rec.stem
        assert f"`{key}`" in readme, (fmt, key)  # every entry is listed
    assert readme.count("Awesome") == (
        2 if fmt == "markdown" else 0
    )  # only a list that calls itself so
