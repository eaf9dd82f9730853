"""The tests of test_hostile_links.py that feed huge inputs or wait for a command's deadline."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from helpers.links_fixtures import make_survey

from survey_tools.cli import cli


def test_the_command_deadline_bounds_links(tmp_path: Path, web: Any) -> None:
    root = make_survey(
        tmp_path / "survey",
        {
            "_template": web.url("/ok/handle/{id}", host=1),
            **{f"h{i}": {"homepage": web.url("/hang", host=i)} for i in range(3)},
            "fine": {"homepage": web.url("/ok")},
        },
    )
    start = time.monotonic()
    res = CliRunner().invoke(
        cli,
        [
            "--root",
            str(root),
            "links",
            "--format",
            "json",
            "--timeout",
            "60",
            "--deadline",
            "1.5",
            "--no-cache",
            "--retries",
            "0",
        ],
    )
    took = time.monotonic() - start
    doc = json.loads(res.stdout)
    got = {r["url"]: r for r in doc["links"]}
    assert got[web.url("/ok")]["status"] == "ok"
    hung = [r for u, r in got.items() if "/hang" in u]
    assert len(hung) == 3 and all(
        r["status"] == "unreachable" and "deadline" in r["detail"] for r in hung
    ), hung
    assert took < 30, took  # without the deadline: 60 s (the --timeout) at least
