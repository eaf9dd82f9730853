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

import hashlib
import io
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEST = REPO / "tests" / "fixtures" / "survey-snapshot"
FOLDERS = ("taxonomy", "corpus", "exclusions", "data", "screening")
SOURCES = REPO / "tests" / "fixtures" / "SOURCES.md"
ROW = re.compile(r"^(\| `survey-snapshot/` \| `[^`]+` \| `)[0-9a-f]{64}(` \|)$", re.M)

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
    (DEST / "SNAPSHOT.md").write_text(
        NOTE.format(folders=folders, commit=sha, date=date), encoding="utf-8"
    )
    _update_sources(folder_sha256(DEST))
    return DEST


def folder_sha256(folder: Path) -> str:
    """The sha256 of the folder's ``sha256sum`` lines in sorted order (tests/unit/core/test_fixtures.py)."""
    lines = "".join(
        f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(folder).as_posix()}\n"
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    )
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def _update_sources(digest: str) -> None:
    text = SOURCES.read_text(encoding="utf-8")
    new, n = ROW.subn(lambda m: f"{m.group(1)}{digest}{m.group(2)}", text)
    if n != 1:
        raise SystemExit(f"{SOURCES}: no row for survey-snapshot/ to update; add it")
    SOURCES.write_text(new, encoding="utf-8")


if __name__ == "__main__":
    print(take(*sys.argv[1:2]))
