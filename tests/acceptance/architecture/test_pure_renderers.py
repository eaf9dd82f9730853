"""Renderers are pure functions of the computed survey: no generator opens a file of the survey.

The survey is computed once (``make_context``: the taxonomy's load reads every configuration file,
the survey's own Markdown and template overrides; the reports read the records, the audit file and
the search logs). Then every selected generator runs, plus the output requirements, with every way
of reaching the disk recorded for paths under the survey folder: opening (``open``, ``io.open``,
``os.open``), looking (``os.stat``, ``os.lstat``: ``exists``, ``is_file``, ``is_dir``) and listing
(``os.scandir``, ``os.listdir``: ``glob``, ``iterdir``). The guard first proves it sees each of
those through ``pathlib``, so a Python that reaches the disk another way fails here, not silently.
The package's own templates are read as code is and are outside the survey folder.
"""

from __future__ import annotations

import builtins
import io
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers.survey_copy import REPO, SURVEY, copy_edition

from survey_tools.build import make_context
from survey_tools.render.generators import GENERATORS
from survey_tools.render.registry import selected
from survey_tools.render.requirements import output_problems

OVERRIDE = "The exclusions, as this survey words them: {{ exclusions | length }} works.\n"


@contextmanager
def _disk_recorded(root: Path) -> Iterator[list[str]]:
    """Every access to a path under ``root`` while inside, as ``function: path``."""
    # computed before the guard: realpath itself calls lstat
    bases = {os.path.abspath(root) + os.sep, os.path.realpath(root) + os.sep}
    seen: list[str] = []
    patched: list[tuple[Any, str, Any]] = []

    def guard(owner: Any, name: str) -> None:
        real = getattr(owner, name)

        def watched(path: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(path, str | bytes | os.PathLike):
                full = os.path.abspath(os.fsdecode(path)) + os.sep
                under = next((b for b in bases if full.startswith(b)), None)
                if under is not None:
                    seen.append(f"{name}: {full[len(under) :].rstrip(os.sep) or '.'}")
            return real(path, *args, **kwargs)

        patched.append((owner, name, real))
        setattr(owner, name, watched)

    for owner, name in (
        (builtins, "open"),
        (io, "open"),
        (os, "open"),
        (os, "stat"),
        (os, "lstat"),
        (os, "scandir"),
        (os, "listdir"),
    ):
        guard(owner, name)
    try:
        yield seen
    finally:
        for owner, name, real in reversed(patched):
            setattr(owner, name, real)


@pytest.fixture(scope="module")
def survey_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The survey's edition with what the renderers mention only when present (docs/traces.md,
    tools/ci.sh), the survey's own README part and a template override of its own."""
    root = copy_edition(tmp_path_factory.mktemp("pure") / "survey")
    for rel in ("docs/traces.md", "tools/ci.sh"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / rel, root / rel)
    override = root / "taxonomy" / "templates" / "readme" / "partials" / "exclusions.md.j2"
    override.parent.mkdir(parents=True)
    override.write_text(OVERRIDE, encoding="utf-8")
    return root


def test_the_guard_sees_every_way_to_the_disk(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x", encoding="utf-8")
    probes: list[Callable[[], object]] = [
        lambda: (tmp_path / "a.txt").read_text(encoding="utf-8"),
        lambda: (tmp_path / "a.txt").read_bytes(),
        lambda: (tmp_path / "a.txt").is_file(),
        lambda: (tmp_path / "a.txt").exists(),
        lambda: os.path.isdir(tmp_path),
        lambda: list(tmp_path.glob("*.txt")),
        lambda: list(tmp_path.iterdir()),
    ]
    for probe in probes:
        with _disk_recorded(tmp_path) as seen:
            probe()
        assert seen, probe


def test_no_generator_reads_the_survey_folder(survey_folder: Path) -> None:
    ctx = make_context(survey_folder)
    touched: dict[str, list[str]] = {}
    out: dict[str, object] = {}
    for name in ("requirements", *selected(ctx.taxonomy)):
        with _disk_recorded(survey_folder) as seen:
            if name == "requirements":
                output_problems(ctx.taxonomy)
            else:
                out.update(GENERATORS[name](ctx))
        if seen:
            touched[name] = sorted(set(seen))
    assert touched == {}, (
        f"generators read the survey folder after the survey was computed: {touched}"
    )
    # what was read with the taxonomy reached the outputs: the template override, the survey's
    # own README and CONTRIBUTING parts, the files mentioned only when present
    readme, contributing = str(out["README.md"]), str(out["CONTRIBUTING.md"])
    assert f"The exclusions, as this survey words them: {len(ctx.corpus.excluded)} works." in readme
    for part in ("readme/toolkit.md", "contributing/setup.md"):
        text = (SURVEY / "taxonomy" / part).read_text(encoding="utf-8").strip("\n")
        assert text.splitlines()[-1] in (readme if part.startswith("readme") else contributing), (
            part
        )
    assert "tools/ci.sh" in contributing
