"""What test_port.py shares with the slower tests split from it (by kind, under tests/)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers.init_support import FIXTURES, run

SOURCE = FIXTURES / "synthetic-list.csv"


INIT_ARGS = [
    "--from-csv",
    "{csv}",
    "--controlled",
    "Granularity",
    "--controlled",
    "Methods",
    "--controlled",
    "Setting",
    "--controlled",
    "Tags",
    "--list",
    "Methods=|",
    "--list",
    "Tags=; ",
    "--list",
    "Authors= and ",
    "--ignore",
    "Internal notes",
    "--title",
    "Synthetic Scheduling Studies",
    "--description",
    "Placeholder entries that exercise the toolkit on a second list.",
]


# Every configuration line written by hand after `survey init` (file, old line, new lines).
HAND_WRITTEN = [
    ("taxonomy/commands.yaml", "flags: {}", ["flags: {gran: granularity, method: methods}"]),
    (
        "taxonomy/commands.yaml",
        "  key: title",
        ["  key: template", "  key_template: '{first_author}{year}-{title_words}'"],
    ),
    (
        "taxonomy/survey.yaml",
        "    fields:",
        [
            "    fields:",
            "      venue: {type: string, label: Venue, description: Where the work appeared.}",
        ],
    ),
]


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("port") / "synthetic-survey"
    root.mkdir()
    csv_path = root.parent / SOURCE.name
    shutil.copy(SOURCE, csv_path)
    res = run(root, "init", str(root), *[a.format(csv=csv_path) for a in INIT_ARGS])
    assert res.exit_code == 0, res.output
    for rel, old, new in HAND_WRITTEN:
        p = root / rel
        text = p.read_text(encoding="utf-8")
        assert old + "\n" in text, (rel, old)
        p.write_text(text.replace(old + "\n", "\n".join(new) + "\n", 1), encoding="utf-8")
    res = run(root, "build")
    assert res.exit_code == 0, res.output
    return root
