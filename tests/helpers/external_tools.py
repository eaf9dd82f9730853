"""Where the tests find the programs they drive, and the one command that installs each.

Chromium: ``SURVEY_CHROMIUM`` names a binary, else ``chromium`` on PATH. Node.js and
awesome-lint: ``node`` on PATH and the packages ``npm ci`` installs from package-lock.json.
A test that needs a missing program skips with :func:`missing_chromium` or
:func:`missing_awesome_lint`, whose messages name the command that installs it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def chromium() -> Path | None:
    found = os.environ.get("SURVEY_CHROMIUM") or shutil.which("chromium")
    return Path(found) if found else None


def missing_chromium() -> str:
    return "Chromium is not installed (none on PATH): install it with `apt-get install -y chromium`"


def node() -> str | None:
    return shutil.which("node")


def missing_awesome_lint() -> str | None:
    """Why awesome-lint cannot run here, or None when it can."""
    if node() is None:
        return "Node.js is not installed: install it and awesome-lint with `apt-get install -y nodejs npm && npm ci`"
    if not (REPO / "node_modules" / "awesome-lint" / "package.json").is_file():
        return "awesome-lint is not installed: run `npm ci` at the repository root"
    return None


def awesome_lint(folder: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """awesome-lint (tools/awesome-lint.mjs) on ``folder``'s README.md; the test skips, with the
    command that installs it, where Node.js or the package is missing. The README is linted in
    its own folder: the contributing rule looks for CONTRIBUTING.md beside it, and that folder
    is not a git checkout with a GitHub remote."""
    why = missing_awesome_lint()
    if why is not None:
        pytest.skip(why)
    found = node()
    assert found is not None
    return subprocess.run(
        [found, str(REPO / "tools" / "awesome-lint.mjs"), "README.md"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={"PATH": "/usr/bin:/bin", "NODE_PATH": str(REPO / "node_modules"), "NO_COLOR": "1"},
    )
