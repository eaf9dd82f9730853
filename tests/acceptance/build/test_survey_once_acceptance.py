"""The tests of test_survey_once.py that build the whole real survey or run the `survey` command end to end."""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

from survey_tools.build import build

_opens: Counter[str] = Counter()


_watch: list[Path] = []


def _hook(event: str, args: tuple[object, ...]) -> None:
    # Audit hooks cannot be removed: this one counts only while a test has set _watch.
    if event != "open" or not _watch or not isinstance(args[0], (str, os.PathLike)):
        return
    try:
        rel = Path(os.fsdecode(args[0])).resolve().relative_to(_watch[0])
    except ValueError:
        return
    _opens[rel.as_posix()] += 1


sys.addaudithook(_hook)


def test_one_build_opens_each_configuration_file_once(survey: Path) -> None:
    build(survey)  # outputs in place, so that the counted build is the unchanged one
    _opens.clear()
    _watch.append(survey.resolve())
    try:
        assert build(survey, check=True).ok
    finally:
        _watch.clear()
    configs = sorted(
        [p.relative_to(survey).as_posix() for p in (survey / "taxonomy").glob("*.yaml")]
        + [
            p.relative_to(survey).as_posix()
            for p in (survey / "taxonomy" / "fields").glob("*.yaml")
        ]
        + [p.relative_to(survey).as_posix() for p in (survey / "data").glob("*.yaml")]
    )
    assert "taxonomy/commands.yaml" in configs and "data/claims.yaml" in configs
    assert {rel: _opens[rel] for rel in configs} == {rel: 1 for rel in configs}
