"""Copies of the survey for tests that change or count it: from the frozen snapshot
``tests/fixtures/survey-snapshot/`` (``SURVEY``, taken by ``tools/survey_snapshot.py``), never
from the live ``corpus/``, ``exclusions/``, ``taxonomy/``, ``data/`` and ``screening/``, which
grow and change with every curation round; a test about the live list itself is under
``tests/unit/live/`` and reads ``REPO``.

A test that counts records, takes the next exclusion id or lists every record with a value
works on the survey's published edition: the records whose ``edition`` is the living list's
are left out of the copy (``copy_edition``).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# The survey as of the commit SNAPSHOT.md names: a survey folder of its own (read it in place,
# or copy it to change it).
SURVEY = REPO / "tests" / "fixtures" / "survey-snapshot"
_LIVING = re.compile(r"^edition: living$", re.M)


def copy_edition(dest: Path, names: tuple[str, ...] = ("taxonomy", "corpus", "exclusions", "data")) -> Path:
    """``dest`` with ``names`` copied from the snapshot, living-list records left out."""
    for name in names:
        if (SURVEY / name).exists():
            shutil.copytree(SURVEY / name, dest / name)
    for name in ("corpus", "exclusions"):
        for rec in (dest / name).glob("*.yaml") if name in names else ():
            if _LIVING.search(rec.read_text(encoding="utf-8")):
                rec.unlink()
    return dest
