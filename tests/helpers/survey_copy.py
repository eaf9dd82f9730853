"""Copies of this repository's survey for tests that change or count it.

The living list grows with every contribution, so a test that counts records, takes the next
exclusion id or lists every record with a value works on the survey's published edition: the
records whose ``edition`` is the living list's are left out of the copy.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_LIVING = re.compile(r"^edition: living$", re.M)


def copy_edition(dest: Path, names: tuple[str, ...] = ("taxonomy", "corpus", "exclusions", "data")) -> Path:
    """``dest`` with ``names`` copied from the repository, living-list records left out."""
    for name in names:
        if (REPO / name).exists():
            shutil.copytree(REPO / name, dest / name)
    for name in ("corpus", "exclusions"):
        for rec in (dest / name).glob("*.yaml") if name in names else ():
            if _LIVING.search(rec.read_text(encoding="utf-8")):
                rec.unlink()
    return dest
