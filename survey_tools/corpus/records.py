"""Validated records and the corpus they form."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.errors import Problem

H = TypeVar("H", bound=tuple[Any, ...])

# Records laid out alike repeat the same small values: (line, column) pairs, lists of tag values.
# Each distinct one is kept once for all of them (100,000 records held about 60 each); the table
# stops growing at a bound, so that a long-lived process does not grow without end.
_ONE_COPY: dict[Any, Any] = {}
_ONE_COPY_MAX = 300_000


def one_copy(value: H) -> H:
    """The copy of ``value`` (a tuple of strings or of whole numbers) every record shares;
    ``value`` itself the first time."""
    found = _ONE_COPY.get(value)
    if found is not None:
        return found
    if len(_ONE_COPY) < _ONE_COPY_MAX:
        _ONE_COPY[value] = value
    return value


@dataclass(frozen=True)
class Record:
    """One YAML file of a collection, as read. ``data`` is never mutated by the toolkit."""

    collection: str
    id: str
    path: str  # relative to the survey folder, with forward slashes
    data: Mapping[str, Any]
    # Line and column of each value down to depth two ("title", "identifiers.arxiv"), kept
    # from the one parse of the file so that cross-record problems can point into it.
    positions: Mapping[str, tuple[int, int]] = field(default_factory=dict, compare=False, repr=False)
    # The record's categories along each axis it was asked about (``Axis.extract``): the
    # statistics, filters, README, pages and feed ask about the same record up to a hundred
    # times. Never passed in, so a record made from another by ``replace`` starts empty.
    axis_values: dict[str, tuple[str, ...]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )

    def get(self, name: str, default: Any = None) -> Any:
        return self.data.get(name, default)

    def where(self, path: tuple[str, ...]) -> tuple[int, int]:
        """Line and column of the value at ``path`` (or of its nearest recorded parent)."""
        p = tuple(str(x) for x in path[:2])
        while p:
            found = self.positions.get(".".join(p))
            if found is not None:
                return found
            p = p[:-1]
        return (1, 1)

    @property
    def title(self) -> str:
        return str(self.data.get("title", ""))


@dataclass(frozen=True)
class Corpus:
    """Every record of every collection, plus the problems found while reading them."""

    taxonomy: Taxonomy
    records: Mapping[str, tuple[Record, ...]]  # collection name -> records sorted by id
    problems: tuple[Problem, ...] = ()
    files: int = 0
    # The files' warnings (errors.WARNING): the records passed, with their published values cleaned.
    warnings: tuple[Problem, ...] = ()
    cache_hits: int = 0
    # Changes whenever a record file (its path or bytes) or the taxonomy changes: the build's
    # key for "nothing the outputs are drawn from has changed" (empty for a hand-built corpus).
    digest: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def of(self, collection: str) -> tuple[Record, ...]:
        return self.records.get(collection, ())

    @property
    def retained(self) -> tuple[Record, ...]:
        return self.of(self.taxonomy.retained.name)

    @property
    def excluded(self) -> tuple[Record, ...]:
        ex = self.taxonomy.excluded
        return self.of(ex.name) if ex else ()

    def __iter__(self) -> Iterator[Record]:
        for recs in self.records.values():
            yield from recs

    def by_id(self, collection: str) -> dict[str, Record]:
        return {r.id: r for r in self.of(collection)}
