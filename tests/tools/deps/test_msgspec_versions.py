"""The code that decodes user bytes with msgspec, under every msgspec release pyproject allows.

msgspec 0.23 raises ``msgspec.DecodeError`` for text that is not UTF-8 where 0.19-0.22 raised
``UnicodeDecodeError``; `survey trace import otel` caught only the latter, so every user who
installed that day got an "internal fault". The trace importers, the trace decoder and the parse
cache's tests are run here once per release, each release's wheel laid first on ``sys.path`` in
a subprocess. The wheels are downloaded by ``tools/ci.sh install`` (into MSGSPEC_WHEELS; the suite
itself never touches the network).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
WHEELS = Path(
    os.environ.get("SURVEY_MSGSPEC_WHEELS")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "survey-tools-ci" / "msgspec"
)
# The releases the lower bound in pyproject.toml admits, newest included (tools/ci.sh downloads
# the same list).
RELEASES = ("0.18.6", "0.19.0", "0.20.0", "0.21.1", "0.22.0", "0.23.0")
TESTS = (
    "tests/unit/hardening/test_hostile.py",
    "tests/unit/traces/test_trace_import.py",
    "tests/unit/traces/test_trace_bad_input.py",
    "tests/unit/core/test_cache.py",
)


def test_the_releases_tried_start_at_the_lower_bound() -> None:
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    low = re.search(r'"msgspec>=([0-9.]+)"', pyproject)
    assert low, "pyproject.toml names msgspec's lower bound"
    assert RELEASES[0].startswith(low.group(1)), (RELEASES[0], low.group(1))
    ci = (REPO / "tools" / "ci.sh").read_text(encoding="utf-8")
    assert all(f"msgspec=={r}" in ci for r in RELEASES)


@pytest.mark.parametrize("release", RELEASES)
def test_user_bytes_decode_to_messages_with_msgspec(release: str, tmp_path: Path) -> None:
    wheel = sorted(WHEELS.glob(f"msgspec-{release}-*.whl"))
    if not wheel:
        pytest.skip(f"no msgspec {release} wheel in {WHEELS}: run tools/ci.sh install")
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
         "--target", str(site), str(wheel[0])],
        check=True, capture_output=True,
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)])}
    probe = subprocess.run(
        [sys.executable, "-c", "import msgspec; print(msgspec.__version__)"],
        env=env, capture_output=True, text=True, check=True,
    )
    assert probe.stdout.strip() == release
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
         "-k", "otel or utf or trace or cache or json", *TESTS],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert re.search(r"\d+ passed", run.stdout), run.stdout[-2000:]
