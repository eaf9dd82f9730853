"""survey-tools: keep a curated literature corpus honest.

The public library API, for scripts::

    from survey_tools import load_corpus, validate_corpus, run_build

    report = validate_corpus("path/to/survey")
    print(report.ok, len(report.problems))
    result = run_build("path/to/survey", check=True)

``run_build`` is the build function (``survey_tools.build.build``). ``build`` is the module
``survey_tools.build``, which Python binds to this name whenever it has been imported; called,
``build(root, check=False)`` runs the same build, so scripts written ``from survey_tools import
build; build(root)`` work in any import order.

Names are resolved on first use (PEP 562), so that ``import survey_tools.cli`` (which Python
does before every ``survey`` command) does not load the build, the renderers and jinja2.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from survey_tools._version import __version__

# public name -> the module that defines it
_API = {
    "SurveyError": "survey_tools.errors",
    "UsageError": "survey_tools.errors",
    "InvalidInput": "survey_tools.errors",
    "Problem": "survey_tools.errors",
    "Report": "survey_tools.errors",
    "Taxonomy": "survey_tools.corpus.taxonomy",
    "load_taxonomy": "survey_tools.corpus.taxonomy",
    "Record": "survey_tools.corpus.records",
    "Corpus": "survey_tools.corpus.records",
    "load_corpus": "survey_tools.corpus.loading",
    "load_valid_corpus": "survey_tools.corpus.loading",
    "validate_corpus": "survey_tools.corpus.validation",
    "compute_stats": "survey_tools.reports.stats",
    "load_config": "survey_tools.reports.report_config",
    "compute_gaps": "survey_tools.reports.gaps",
    "Survey": "survey_tools.reports.compute",
    "compute_survey": "survey_tools.reports.compute",
    "make_context": "survey_tools.build",
    "build": "survey_tools.build",  # the (callable) module itself: see the module doc
    "run_build": "survey_tools.build",
    "check_file": "survey_tools.traces.validate",
    # the commands' own library functions (each command parses options and calls one of these)
    "InitRequest": "survey_tools.adopt.start",
    "run_init": "survey_tools.adopt.start",
    "AddRequest": "survey_tools.curate.adding",
    "ExcludeRequest": "survey_tools.curate.exclusions",
    "exclude": "survey_tools.curate.exclusions",
    "RefreshRequest": "survey_tools.curate.refresh",
    "refresh": "survey_tools.curate.refresh",
    "add": "survey_tools.curate.adding",
    "SearchRequest": "survey_tools.curate.search",
    "run_search": "survey_tools.curate.search",
    "DecisionRequest": "survey_tools.curate.screen",
    "decide": "survey_tools.curate.screen",
    "import_labels": "survey_tools.curate.screen",
    "import_found": "survey_tools.curate.screen",
    "refresh_schema_files": "survey_tools.corpus.record_schema",
}

__all__ = [
    "__version__",
    "AddRequest",
    "Corpus",
    "DecisionRequest",
    "ExcludeRequest",
    "InitRequest",
    "InvalidInput",
    "Problem",
    "Record",
    "RefreshRequest",
    "Report",
    "SearchRequest",
    "Survey",
    "SurveyError",
    "Taxonomy",
    "UsageError",
    "add",
    "build",
    "check_file",
    "compute_gaps",
    "compute_stats",
    "compute_survey",
    "decide",
    "exclude",
    "import_found",
    "import_labels",
    "load_config",
    "load_corpus",
    "load_taxonomy",
    "load_valid_corpus",
    "make_context",
    "refresh",
    "refresh_schema_files",
    "run_build",
    "run_init",
    "run_search",
    "validate_corpus",
]

if TYPE_CHECKING:
    from survey_tools.adopt.start import InitRequest, run_init
    from survey_tools.build import build, make_context
    from survey_tools.build import build as run_build
    from survey_tools.corpus.loading import load_corpus, load_valid_corpus
    from survey_tools.corpus.record_schema import refresh_schema_files
    from survey_tools.corpus.records import Corpus, Record
    from survey_tools.corpus.taxonomy import Taxonomy, load_taxonomy
    from survey_tools.corpus.validation import validate_corpus
    from survey_tools.curate.adding import AddRequest, add
    from survey_tools.curate.exclusions import ExcludeRequest, exclude
    from survey_tools.curate.refresh import RefreshRequest, refresh
    from survey_tools.curate.screen import DecisionRequest, decide, import_found, import_labels
    from survey_tools.curate.search import SearchRequest, run_search
    from survey_tools.errors import InvalidInput, Problem, Report, SurveyError, UsageError
    from survey_tools.reports.compute import Survey, compute_survey
    from survey_tools.reports.gaps import compute_gaps
    from survey_tools.reports.report_config import load_config
    from survey_tools.reports.stats import compute_stats
    from survey_tools.traces.validate import check_file


# public names that are another name in their module
_RENAMED = {"run_build": "build"}


def __getattr__(name: str) -> Any:
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'survey_tools' has no attribute {name!r}")
    found = importlib.import_module(module)
    if name == "build":  # the submodule, as Python binds it once imported (callable: the build)
        return found
    return getattr(found, _RENAMED.get(name, name))
