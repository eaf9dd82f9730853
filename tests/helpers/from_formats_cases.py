"""What test_from_formats.py shares with the slower tests split from it (by kind, under tests/)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers.init_support import FIXTURES, run

PORTS_DIR = FIXTURES / "ports"


CSV_ARGS = [
    "--title",
    "Hand-over Studies",
    "--controlled",
    "HRI type",
    "--controlled",
    "Quantitative (separable conditions, Y/N)",
    "--controlled",
    "Robot",
    "--list",
    "Robot=, ",
    "--distinct-titles",
]


ENTRY_ARGS = [
    "--title",
    "Code Search",
    "--controlled",
    "tags",
    "--controlled",
    "task",
    "--distinct-titles",
]


# format -> (fixture, the name the adopter's file has, the init options; nothing else is written by hand)
PORTS: dict[str, tuple[str, str, list[str]]] = {
    "csv": ("messy.csv", "messy.csv", CSV_ARGS),
    "tsv": ("messy.tsv", "messy.tsv", CSV_ARGS),
    "yaml": ("entries.yaml", "entries.yaml", ENTRY_ARGS),
    "json": ("entries.json", "entries.json", ENTRY_ARGS),
    "jsonl": ("entries.jsonl", "entries.jsonl", ENTRY_ARGS),
    "bibtex": (
        "refs.bib",
        "refs.bib",
        [
            "--title",
            "Graph Drawing",
            "--controlled",
            "entry type",
            "--controlled",
            "keywords",
            "--list",
            "keywords=, ",
        ],
    ),
    # an awesome list adopts the toolkit in its own repository: the README is the source
    "markdown": ("awesome.md", "README.md", []),
}


@pytest.fixture(scope="module", params=sorted(PORTS))
def port(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path]:
    fmt = request.param
    fixture, name, args = PORTS[fmt]
    base = tmp_path_factory.mktemp(f"port-{fmt}")
    root = base / "list"
    if fmt == "markdown":
        root.mkdir()
        source = root / name
    else:
        source = base / name
    shutil.copy(PORTS_DIR / fixture, source)
    res = run(root, "init", str(root), "--from", str(source), *args)
    assert res.exit_code == 0, res.output
    return fmt, root
