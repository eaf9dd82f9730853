"""Take (or refresh) the frozen copy of the survey the toolkit's tests run on.

    python3 tools/survey_snapshot.py            # from the commit checked out (HEAD)

The tests of the toolkit read ``tests/fixtures/survey-snapshot/`` rather than the live
``corpus/``, ``exclusions/``, ``taxonomy/``, ``data/`` and ``screening/``: curating the list
(a record added, a tag corrected) must not break a test of the code. The copy is taken from a
commit (``git archive``, so nothing uncommitted slips in) and ``SNAPSHOT.md`` names it. Refresh it
when a change to the toolkit needs a change to the survey's configuration too, and update the
tests' expected figures in the same commit.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEST = REPO / "tests" / "fixtures" / "survey-snapshot"
FOLDERS = ("taxonomy", "corpus", "exclusions", "data", "screening")

NOTE = """# The survey, frozen for the toolkit's tests

A copy of this repository's {folders} at commit `{commit}` ({date}), taken by
`python3 tools/survey_snapshot.py`. The toolkit's tests copy the survey from here
(`tests/helpers/survey_copy.py`), so that curating the live list never breaks a test of the
code; the few tests about the live list itself are under `tests/unit/live/`.

Licence: the records are this project's data (LICENSE-DATA); the configuration is the project's own.
"""


def _git(*args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=REPO, check=True, capture_output=True).stdout


def take(commit: str = "HEAD") -> Path:
    sha = _git("rev-parse", commit).decode().strip()
    date = _git("show", "-s", "--format=%cs", sha).decode().strip()
    if DEST.exists():
        shutil.rmtree(DEST)
    DEST.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(_git("archive", sha, *FOLDERS))) as tar:
        tar.extractall(DEST, filter="data")
    folders = ", ".join(f"`{f}/`" for f in FOLDERS)
    (DEST / "SNAPSHOT.md").write_text(NOTE.format(folders=folders, commit=sha, date=date), encoding="utf-8")
    return DEST


if __name__ == "__main__":
    print(take(*sys.argv[1:2]))
