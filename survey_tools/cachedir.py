"""Where the toolkit keeps its cache (parsed records, drawn figures, the build lock): outside the
survey folder.

The cache lives in the user's cache directory (``$XDG_CACHE_HOME/survey-tools`` or
``~/.cache/survey-tools`` on Linux, the platform's equivalent elsewhere, found by platformdirs).
What is keyed by content alone is shared by every survey folder: ``records/`` (the parse cache,
one file per taxonomy digest, dropped when the toolkit's own source changes) and ``outputs/`` (generators' files by the hash of their inputs),
so a second clone or worktree of a survey starts warm. What belongs to one folder (the build
lock, the last build's manifest, the links cache) is in a subfolder per survey folder, named
after the folder and a hash of its absolute path. The environment variable ``SURVEY_CACHE_DIR``
replaces the base folder (for example a folder a CI cache keeps between runs);
``SURVEY_NO_CACHE=1`` turns the parse cache and the build cache off.

Nothing is written inside the survey folder itself, so a pre-commit hook or a CI check leaves a
clean ``git status`` behind.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import platformdirs

from survey_tools.hashing import content_hexdigest

ENV_VAR = "SURVEY_CACHE_DIR"
APP_NAME = "survey-tools"


def cache_base() -> Path:
    """The folder holding every survey's cache: ``$SURVEY_CACHE_DIR`` or the user cache dir."""
    configured = os.environ.get(ENV_VAR, "").strip()
    if configured:
        return Path(configured).expanduser().absolute()
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def cache_dir(root: Path | str) -> Path:
    """The cache folder of the survey at ``root`` (not created here)."""
    where = Path(root).resolve()
    digest = content_hexdigest(os.fsencode(where), 8)
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", where.name)[:40] or "root"
    return cache_base() / f"{name}-{digest}"
