"""Shared fixtures: the repository root, the survey artifact (tests/fixtures), throw-away survey
folders and one read-only copy per session. The shared CLI runner and snapshot helper are in
tests/support.py (``from support import run, snapshot``)."""

from __future__ import annotations

import gc
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from survey_copy import copy_edition

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


# The slow part of the suite: `python3 -m pytest -q -m "not slow"` leaves it out (the developers'
# quick loop); the README's test command runs everything. Listed here, in one place, rather than
# in each module: a module, or one test of it (``path::name``, all its parameters).
SLOW_TESTS = frozenset({
    # subprocess builds of the whole real corpus, git clones and merges, a wheel
    "tests/build/test_idempotent.py",
    "tests/build/test_incremental.py",
    "tests/build/test_input_stage.py::test_a_new_screening_log_makes_the_built_outputs_stale",
    "tests/core/test_cachedir.py",
    "tests/e2e/test_contribution.py",
    "tests/e2e/test_record_only_pull_requests.py",
    "tests/e2e/test_pull_request_mistakes.py",
    "tests/hardening/test_crash_safety.py",
    "tests/packaging/test_wheel.py",
    "tests/packaging/test_core_install.py",  # a fresh venv with the core alone, then a build
    "tests/precommit/test_pre_commit.py",
    "tests/diff/test_diff.py",  # a git repository and a build of each revision
    "tests/github/test_ci.py::test_gitattributes_is_what_the_script_writes",
    "tests/github/test_ci.py::test_every_output_is_generated_and_merges",
    "tests/architecture/test_pure_renderers.py",
    "tests/core/test_fileio.py::test_the_build_writes_readable_outputs",
    "tests/core/test_fileio.py::test_a_build_syncs_the_outputs_it_replaces_and_not_the_ones_it_creates",
    "tests/core/test_contribution_checks.py::test_a_stale_correction_says_what_changed_and_the_command",
    "tests/render/test_render_markdown.py::test_committed_readme_and_contributing_are_current",
    "tests/screening/test_flow.py",
    # `survey init` of whole lists, each then validated and built
    "tests/init/test_new_survey_doc.py",
    "tests/init/test_from_formats.py::test_it_validates_and_builds_twice_the_same",
    "tests/init/test_taxonomy_changes.py",
    "tests/init/test_outputs.py",
    "tests/init/test_port.py::test_it_validates_and_builds",
    "tests/init/test_list_corpus.py",  # the corpus of real lists, each adopted, built, exported
    # a real outside program: ASReview and cffconvert in their own environments, a Ray
    # cluster, awesome-lint under Node.js, Chromium
    "tests/screening/test_asreview.py",
    "tests/packaging/test_citation.py",
    "tests/traces/test_scale.py::test_ray_local_cluster_gives_the_same_rows",
    "tests/render/test_render_awesome_lint.py",
    "tests/init/test_from_formats.py::test_readme_passes_awesome_lint",
    "tests/init/test_port.py::test_page_opens_in_chromium",
    "tests/traces/test_real_tools.py",  # the OpenTelemetry SDK and the Agents SDK write traces
    "tests/render/test_page_scripts.py",  # Node's test runner and eslint
    # the published site folder alone over loopback HTTP: a build of the real corpus and a
    # `survey init` list, each crawled
    "tests/render/test_site_served.py",
    "tests/github/test_zizmor.py",  # zizmor on the workflows
    # the privileged comment job's steps under bash, a `survey` process each
    "tests/github/test_pr_report.py",
    # a hundred-megabyte input (each hostile case written 100 MiB long: 700 MB a run); commands
    # that must stop at a deadline (they wait for it)
    "tests/traces/test_trace_bad_input.py::test_hundred_megabyte_string",
    "tests/hardening/test_hostile.py::test_hostile_case[audit/huge-cell]",
    "tests/hardening/test_hostile.py::test_hostile_case[claims/huge-scalar]",
    "tests/hardening/test_hostile.py::test_hostile_case[csv/huge-cell]",
    "tests/hardening/test_hostile.py::test_hostile_case[importers/otel-huge]",
    "tests/hardening/test_hostile.py::test_hostile_case[records/huge-scalar]",
    "tests/hardening/test_hostile.py::test_hostile_case[taxonomy/huge-field-file]",
    "tests/hardening/test_hostile.py::test_hostile_case[traces/huge-string]",
    "tests/links/test_hostile_links.py::test_the_command_deadline_bounds_links",
    "tests/add/test_metadata.py::test_the_command_deadline_bounds_add",
    # property-based fuzzing (hundreds of generated inputs each)
    "tests/hardening/test_fuzz.py",
    "tests/config/test_config_fuzz.py",
    "tests/traces/test_trace_properties.py",
    # the suite's own timing plugin, run under a pytest of its own (benchmarks/)
    "tests/benchmarks/test_test_timing_plugin.py",
})
# A test that takes one of these fixtures builds the whole real corpus first, or drives Chromium.
SLOW_FIXTURES = frozenset({"built", "browser"})


def _listed_slow(nodeid: str) -> bool:
    path, _, name = nodeid.partition("::")
    return path in SLOW_TESTS or nodeid in SLOW_TESTS or f"{path}::{name.partition('[')[0]}" in SLOW_TESTS


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
    listed = {entry.partition("::")[0] for entry in SLOW_TESTS}
    missing = sorted(p for p in listed if not (REPO / p).is_file())
    if missing:  # a renamed module would silently join the quick loop
        raise pytest.UsageError(f"tests/conftest.py SLOW_TESTS names missing files: {missing}")
    for item in items:
        if _listed_slow(item.nodeid) or SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


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
def artifact() -> Path:
    return ARTIFACT


@pytest.fixture
def survey_dir(tmp_path: Path) -> Path:
    """An empty survey folder with this repository's taxonomy."""
    root = tmp_path / "survey"
    shutil.copytree(REPO / "taxonomy", root / "taxonomy")
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
