"""The optional extras of the distribution, and the one way the library loads what they ship.

``pip install survey-corpus-tools`` installs the core: what ``survey validate``, ``build``,
``stats``, ``add`` and the pull-request checks need. The rest comes with an extra
(pyproject.toml ``[project.optional-dependencies]``); a command that needs a library its
extra did not install stops with one line naming the install command, through
:func:`require_extra`, never with a traceback.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from survey_tools._version import DISTRIBUTION
from survey_tools.errors import EXIT_USAGE, SurveyError

# extra -> what it is for (the words of the one-line error)
EXTRAS = {
    "screening": "the living search's screening (survey search, survey screen)",
    "spreadsheets": "Excel workbooks as lists (survey init --from, survey import)",
    "analysis": "tables as pandas DataFrames (Table.to_frame)",
    "scale": "Parquet output and the Ray engine of survey trace metrics",
}


def install_command(extra: str) -> str:
    return f"pip install '{DISTRIBUTION}[{extra}]'"


class MissingExtra(SurveyError):
    """A library of an optional extra is not installed."""

    exit_code = EXIT_USAGE

    def __init__(self, extra: str, module: str) -> None:
        self.extra = extra
        self.module = module
        super().__init__(
            f"{module} is not installed: {EXTRAS.get(extra, extra)} needs the [{extra}] extra: "
            f"{install_command(extra)}"
        )


def _provides(missing: str | None, module: str) -> bool:
    """The missing module is ``module`` or one of its parents (not something it imports)."""
    return missing is not None and (module == missing or module.startswith(missing + "."))


def require_extra(extra: str, package: str, *submodules: str) -> ModuleType:
    """``package`` (and its ``submodules``, then reached as its attributes), imported;
    :class:`MissingExtra` when the ``extra`` that ships them is absent.

    A module missing *inside* an installed library (a broken install) is not the extra's
    absence: that ImportError goes on as the fault it is.
    """
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}")
    module = package
    try:
        top = importlib.import_module(package)
        for module in submodules:
            importlib.import_module(module)
    except ModuleNotFoundError as err:
        if _provides(err.name, module):
            raise MissingExtra(extra, module) from None
        raise
    return top


__all__ = ["EXTRAS", "MissingExtra", "install_command", "require_extra"]
