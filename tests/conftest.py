"""Shared fixtures: the repository root, the survey artifact (tests/fixtures), throw-away survey
folders and one read-only copy per session; the kind of each test, from its folder. The code the
tests share (the CLI runner, loopback servers, copies of the survey) is in tests/helpers/."""

from __future__ import annotations

import gc
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.kinds import KINDS, QUICK, SLOW_FIXTURES, kind_of
from helpers.survey_copy import SURVEY, copy_edition
from hypothesis import HealthCheck, settings

from survey_tools.cli import _FULL_COLLECTION_EVERY

REPO = Path(__file__).resolve().parents[1]
# Copies of upstream data the tests read (origin, licence and sha256 in tests/fixtures/SOURCES.md).
FIXTURES = REPO / "tests" / "fixtures"
ARTIFACT = FIXTURES / "survey-artifact"

# The caches are on, as for a user, in a throw-away folder per test process (``_cache_in_tmp``)
# instead of the user's cache directory: the parses and drawn figures of the survey's files are
# shared by the hundreds of copies the tests make of it, as they are by a user's clones. A test
# that needs a cold run sets SURVEY_NO_CACHE=1 itself.
os.environ.setdefault("SURVEY_NO_CACHE", "0")


# Hypothesis profiles for every folder (the unit folder's property tests as much as the
# fuzzers of tests/stress/): "ci" when CI=true (derandomized: the same examples on every run,
# no example database), "dev" otherwise, "long" before a release; HYPOTHESIS_PROFILE picks one.
# No deadline: on a shared 2-core machine an example's time says more about the neighbours
# than about the code (a test that is about time says so with its own limit). too_slow and
# data_too_large are suppressed because the fuzzers' strategies draw whole records, traces
# and files by design; a test's own @settings(max_examples=...) still counts.
_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large]
settings.register_profile(
    "ci",
    max_examples=40,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=_HEALTH,
)
settings.register_profile("dev", max_examples=100, deadline=None, suppress_health_check=_HEALTH)
settings.register_profile("long", max_examples=2000, deadline=None, suppress_health_check=_HEALTH)
settings.load_profile(
    os.environ.get(
        "HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI", "").lower() == "true" else "dev"
    )
)


# The kinds of tests, one folder each, and the fixtures that make a test slow: tests/helpers/kinds.py.


def pytest_configure(config: pytest.Config) -> None:
    # The collector's settings of the `survey` command (survey_tools.cli.main) in each test
    # process too: the session's fixtures, imported modules and cached surveys live until the
    # end, and with CPython's default the oldest generation was walked again and again.
    gen0, gen1, _ = gc.get_threshold()
    gc.set_threshold(gen0, gen1, _FULL_COLLECTION_EVERY)


def pytest_collection_finish(session: pytest.Session) -> None:
    # Every module the tests import is loaded now and stays so: out of the collector's walks.
    gc.freeze()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    misplaced = []
    for item in items:
        kind = kind_of(item.path)
        if not kind:
            misplaced.append(f"{item.nodeid}: not in a folder of a kind ({', '.join(KINDS)})")
        elif kind != QUICK:
            item.add_marker(pytest.mark.slow)
        elif slow := sorted(set(getattr(item, "fixturenames", ())) & set(SLOW_FIXTURES)):
            misplaced.append(
                f"{item.nodeid}: takes {slow[0]!r}; it belongs in tests/{SLOW_FIXTURES[slow[0]]}/"
            )
    if misplaced:  # raised at collection, before any test runs: the quick loop must stay quick
        raise pytest.UsageError("tests in the wrong folder:\n" + "\n".join(misplaced))


@pytest.fixture(scope="session", autouse=True)
def _cache_in_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    old = os.environ.get("SURVEY_CACHE_DIR")
    os.environ["SURVEY_CACHE_DIR"] = str(tmp_path_factory.mktemp("survey-cache"))
    yield
    if old is None:
        os.environ.pop("SURVEY_CACHE_DIR", None)
    else:
        os.environ["SURVEY_CACHE_DIR"] = old


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture
def frozen_survey() -> Path:
    """The frozen survey (tests/fixtures/survey-snapshot/), to read in place; never change it
    (a test that changes files takes ``corpus_copy`` or ``survey``)."""
    return SURVEY


@pytest.fixture
def artifact() -> Path:
    return ARTIFACT


@pytest.fixture
def survey_dir(tmp_path: Path) -> Path:
    """An empty survey folder with this repository's taxonomy."""
    root = tmp_path / "survey"
    shutil.copytree(SURVEY / "taxonomy", root / "taxonomy")
    (root / "corpus").mkdir()
    (root / "exclusions").mkdir()
    return root


@pytest.fixture(scope="session")
def survey_ro(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One copy of the survey's edition for the whole session, for tests that only read it
    (a test that changes a file takes ``survey`` or ``corpus_copy``, its own copy)."""
    return copy_edition(tmp_path_factory.mktemp("read-only") / "survey")


@pytest.fixture
def corpus_copy(tmp_path: Path) -> Path:
    """A copy of this repository's survey folder (the survey's edition), safe to modify."""
    return copy_edition(tmp_path / "survey")
