"""The registry of build outputs: which generators exist, which a survey builds, and what
each declares it is drawn from. The generators themselves are in :mod:`.generators`.

A generator is a function ``(BuildContext) -> {relative path: str | bytes}`` registered with
:func:`register`. ``BuildContext`` is the computed :class:`~survey_tools.reports.compute.Survey`;
a generator is a pure function of it: it returns file contents and never reads or writes a file.
A generator of many files (the site's paper and tag pages) returns them as :class:`Lazy`: the
paths at once, each file's contents rendered when the build asks for it, so that the build
writes them one by one and never holds every rendered page. A generator of files that are
expensive to draw (the figures) returns them as :class:`Parts`: each part names what it is drawn
from, and the build takes a part's files from its cache while those inputs are unchanged.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Part:
    """Files drawn together (a figure's SVG and PNG) from what ``inputs`` holds: equal inputs,
    equal files. ``render`` returns the files' contents in the order of ``paths``."""

    paths: tuple[str, ...]
    inputs: bytes
    render: Callable[[], Sequence[Output]]


class Parts(Lazy):
    """Files drawn in parts, each declaring its inputs (:class:`Part`). Read as a mapping (a
    :class:`Lazy`), a part is drawn once, when the first of its files is read, and its files are
    kept; the build instead takes each part's files from its cache while the part's inputs are
    unchanged (``build._memoised``), so editing one record draws again only the parts whose
    inputs it changed."""

    def __init__(self, parts: Mapping[str, Part]) -> None:
        self.parts = dict(parts)
        self._drawn: dict[str, dict[str, Output]] = {}
        super().__init__({
            rel: functools.partial(self._file, name, rel)
            for name, part in self.parts.items() for rel in part.paths
        })

    def drawn(self, name: str) -> dict[str, Output]:
        """The files of part ``name``, drawn on the first call."""
        if name not in self._drawn:
            part = self.parts[name]
            self._drawn[name] = dict(zip(part.paths, part.render(), strict=True))
        return self._drawn[name]

    def _file(self, name: str, rel: str) -> Output:
        return self.drawn(name)[rel]


REPORTS = "reports"
GENERATORS: dict[str, Generator] = {}
# Written whatever survey.yaml `outputs:` says: validation and the key reference depend on them.
ALWAYS = ("schemas", "config-docs")
CONFIG_DOCS = "taxonomy/README.md"


def register(name: str) -> Callable[[Generator], Generator]:
    """Register ``fn`` as the generator ``name`` (a later registration under a name replaces it)."""

    def deco(fn: Generator) -> Generator:
        GENERATORS[name] = fn
        return fn

    return deco


# What every generator reads: the survey computed once (reports.compute.compute_survey).
BuildContext = Survey


def selected(tax: Taxonomy) -> tuple[str, ...]:
    """The outputs this survey builds: survey.yaml `outputs:` (plus ALWAYS), or every one."""
    if tax.outputs is None:
        return tuple(GENERATORS)
    return tuple(n for n in GENERATORS if n in tax.outputs or n in ALWAYS)
