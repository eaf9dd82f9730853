"""The registry of build outputs: which generators exist, which a survey builds, and what
each declares it is drawn from. The generators themselves are in :mod:`.generators`.

A generator is a function ``(BuildContext) -> {relative path: str | bytes}`` registered with
:func:`register`. ``BuildContext`` is the computed :class:`~survey_tools.reports.compute.Survey`;
a generator is a pure function of it: it returns file contents and never reads or writes a file.
A generator of many files (the site's paper and tag pages) returns them as :class:`Lazy`: the
paths at once, each file's contents rendered when the build asks for it, so that the build
writes them one by one and never holds every rendered page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.reports.compute import Survey

Output = str | bytes
Generator = Callable[["BuildContext"], Mapping[str, Output]]



class Lazy(Mapping[str, Output]):
    """Files whose paths are known and whose contents are rendered on each access (not kept)."""

    def __init__(self, render: Mapping[str, Callable[[], Output]]) -> None:
        self._render = dict(render)

    def __getitem__(self, rel: str) -> Output:
        return self._render[rel]()

    def __iter__(self) -> Iterator[str]:
        return iter(self._render)

    def __len__(self) -> int:
        return len(self._render)

    def __contains__(self, rel: object) -> bool:
        return rel in self._render

    def renderer(self, rel: str) -> Callable[[], Output]:
        return self._render[rel]


REPORTS = "reports"
GENERATORS: dict[str, Generator] = {}
# Generators that declare what they are drawn from: (survey) -> bytes that change whenever their
# output could. The build takes their files from its cache when those bytes are unchanged.
INPUTS: dict[str, Callable[[BuildContext], bytes]] = {}
# Written whatever survey.yaml `outputs:` says: validation and the key reference depend on them.
ALWAYS = ("schemas", "config-docs")
CONFIG_DOCS = "taxonomy/README.md"


def register(name: str, inputs: Callable[[BuildContext], bytes] | None = None) -> Callable[[Generator], Generator]:
    """Register ``fn`` as the generator ``name`` (a later registration under a name replaces it).

    ``inputs`` (optional) returns everything the output is drawn from, as bytes: the build then
    renders it again only when those change (worth it for expensive outputs such as figures).
    """

    def deco(fn: Generator) -> Generator:
        GENERATORS[name] = fn
        if inputs is not None:
            INPUTS[name] = inputs
        else:
            INPUTS.pop(name, None)
        return fn

    return deco


# What every generator reads: the survey computed once (reports.compute.compute_survey).
BuildContext = Survey


def selected(tax: Taxonomy) -> tuple[str, ...]:
    """The outputs this survey builds: survey.yaml `outputs:` (plus ALWAYS), or every one."""
    if tax.outputs is None:
        return tuple(GENERATORS)
    return tuple(n for n in GENERATORS if n in tax.outputs or n in ALWAYS)
