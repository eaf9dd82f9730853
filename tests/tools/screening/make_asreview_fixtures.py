"""Rewrite tests/fixtures/asreview/: our exports of the test survey, and what ASReview LAB made of them.

    PYTHONPATH=. python3 tests/tools/screening/make_asreview_fixtures.py ASREVIEW_PYTHON

Builds the `queued` survey of the tests (this repository's survey plus the six synthetic
candidates the loopback arXiv server answers), exports it as ASReview CSV and as RIS, and runs
``asreview_lab.py label`` with ASREVIEW_PYTHON on each: 2507.90002 and 2507.90001 relevant,
2507.90004 and 2507.90007 irrelevant, the other two unseen. Update the sha256 column of
tests/fixtures/SOURCES.md afterwards.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]

from click.testing import CliRunner  # noqa: E402
from helpers.search_server import search_service  # noqa: E402
from helpers.survey_copy import copy_edition  # noqa: E402

from survey_tools.cli import cli  # noqa: E402

OUT = HERE.parents[1] / "fixtures" / "asreview"


def main(asreview_python: str) -> None:
    os.environ["SURVEY_ARXIV_DELAY"] = "0"
    os.environ["SURVEY_NET_ALLOW"] = "127.0.0.1"  # the loopback search server
    work = Path(tempfile.mkdtemp(prefix="asreview-fixtures-"))
    try:
        root = copy_edition(work / "survey")
        with search_service() as server:
            r = CliRunner().invoke(cli, ["--root", str(root), "search", "--since", "2025-01-01", "--arxiv-url",
                                         server.url, "--delay", "0", "--backoff", "0", "--timeout", "2"])
        assert r.exit_code == 0, r.output
        OUT.mkdir(parents=True, exist_ok=True)
        for fmt, ext in (("asreview", "csv"), ("ris", "ris")):
            ours = OUT / f"our-export.{ext}"
            r = CliRunner().invoke(cli, ["--root", str(root), "screen", "export", "--format", fmt, str(ours)])
            assert r.exit_code == 0, r.output
            lab_dir = work / f"lab-{ext}"
            subprocess.run([asreview_python, str(HERE / "asreview_lab.py"), "label", str(ours), str(lab_dir),
                            "arXiv:2507.90002,arXiv:2507.90001", "arXiv:2507.90004,arXiv:2507.90007"], check=True, cwd=work)
            for made in sorted(lab_dir.iterdir()):
                shutil.copyfile(made, OUT / f"lab-from-{ext}{made.suffix}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1])
