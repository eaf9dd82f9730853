"""Finding the same work twice: across retained records and the exclusion log, or for a new record.

Two records are the same work when they share an arXiv id (ignoring version), a DOI or an
OpenReview id, when their titles are equal after normalisation (case, punctuation, LaTeX braces,
accents), or when the normalised titles are nearly equal: a rapidfuzz ``ratio`` of at least
:data:`FUZZY_THRESHOLD` out of 100. On the real corpus the closest two distinct titles score 76,
so 90 leaves room for real near-duplicates (a subtitle typo, a changed hyphen) without false alarms.
Titles that differ in a number ("Paper number 3 ..." and "Paper number 4 ...", "Llama 2" and
"Llama 3") are never the same work, however alike the rest is.

One rule decides every title comparison, :func:`title_similarity`, and one index,
:class:`KnownIndex`, finds the known works a candidate duplicates: ``survey validate`` (through
:func:`fuzzy_title_problems`, which scores its candidate pairs with the same rule), ``survey
add`` and ``survey exclude`` (:func:`find_matches`), ``survey search`` and ``survey screen``
(the index over the corpus and the queue).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz, process

from survey_tools.corpus.identifiers import record_identifiers
from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import Taxonomy
from survey_tools.corpus.titles import normalize_title, title_key
from survey_tools.errors import Problem

FUZZY_THRESHOLD = 90.0
_NUMBER = re.compile(r"\d+")


def _numbers(norm: str) -> tuple[int, ...]:
    return tuple(int(n) for n in _NUMBER.findall(norm))


def title_similarity(a: str, b: str) -> float:
    """How alike two *normalised* titles are, 0 when they are not the same work: 100 for equal
    titles, else the rapidfuzz ratio when it reaches FUZZY_THRESHOLD and both titles carry the
    same numbers in the same order."""
    if not a or not b:
        return 0.0
    if a == b:
        return 100.0
    if _numbers(a) != _numbers(b):
        return 0.0
    return float(fuzz.ratio(a, b, score_cutoff=FUZZY_THRESHOLD))


@dataclass(frozen=True)
class Match:
    """An existing record that a candidate duplicates, and why."""

    record: Record
    reason: str  # "arXiv id 2505.19591", "the same title", "a title 93% similar"

    def describe(self, tax_label: Mapping[str, str]) -> str:
        kind = tax_label.get(self.record.collection, self.record.collection).lower()
        return f"{self.record.path} ({kind}) has {self.reason}"


def _kinds(corpus: Corpus) -> dict[str, str]:
    return {k: v.normalize for k, v in corpus.taxonomy.identifiers.items()}


def _identifier_field(rec: Record, kind: str) -> tuple[str, ...]:
    ids = rec.get("identifiers")
    if isinstance(ids, dict) and kind in ids:
        return ("identifiers", kind)
    if "identifier" in rec.data:
        return ("identifier",)
    for f in ("links", "url"):
        if f in rec.data:
            return (f,)
    return ()


def _foreign_letters(a: str, b: str) -> str:
    """The code points by which two look-alike titles differ, named (for the message)."""
    diff = sorted(set(a) ^ set(b), key=ord)
    named = [f"U+{ord(c):04X} {unicodedata.name(c, '?')}" for c in diff if not c.isascii()][:3]
    return "different characters that look alike: " + ", ".join(named) if named else "letters that look alike"


def _key_collisions(corpus: Corpus) -> list[Problem]:
    """Keys of one collection that differ only in case: on a case-insensitive file system (macOS,
    Windows) their pages (papers/<key>.html) are one file, and BibTeX keys ignore case."""
    by_name: dict[tuple[str, str], list[Record]] = defaultdict(list)
    for rec in corpus:
        by_name[(rec.collection, rec.id.casefold())].append(rec)
    out = []
    for (_, name), recs in sorted(by_name.items()):
        for rec in recs[1:]:
            line, col = rec.where(())
            out.append(Problem(rec.path, line, col, "key",
                               f"keys {recs[0].id!r} ({recs[0].path}) and {rec.id!r} both become the page "
                               f"name {name!r} where case does not count (papers/{name}.html, the BibTeX key): rename one"))
    return out


def cross_check(corpus: Corpus) -> list[Problem]:
    """Problems that only show across records: shared identifiers and titles, retained and excluded at once."""
    tax = corpus.taxonomy
    problems: list[Problem] = []
    kinds = {k: v.normalize for k, v in tax.identifiers.items()}
    seen: dict[tuple[str, str], list[Record]] = defaultdict(list)
    titles: dict[str, list[Record]] = defaultdict(list)
    for rec in corpus:
        for kind, value in record_identifiers(rec.data, kinds).items():
            seen[(kind, value)].append(rec)
        if rec.title:
            titles[title_key(rec.title)].append(rec)

    def report(
        rec: Record, path: tuple[str, ...], field: str, others: list[Record], what: str
    ) -> None:
        line, col = rec.where(path)
        names = ", ".join(o.path for o in others)
        crossing = {o.collection for o in others} | {rec.collection}
        if len(crossing) > 1:
            msg = f"{what} is both retained and excluded (also in {names})"
        else:
            msg = f"{what} is also used by {names}"
        problems.append(Problem(rec.path, line, col, field, msg + what_to_do(tax, rec, others[0])))

    # Records that declare each other distinct (either one naming the other) share a title or
    # an identifier knowingly: one row per study of the same work, say.
    declared = {(rec.id, other) for rec in corpus for other in declared_distinct(tax, rec)}

    def clashing(rec: Record, recs: list[Record]) -> list[Record]:
        return [o for o in recs if o is not rec and (rec.id, o.id) not in declared and (o.id, rec.id) not in declared]

    for (kind, value), recs in sorted(seen.items()):
        if len(recs) < 2:
            continue
        label = tax.identifiers[kind].label
        for rec in recs:
            others = clashing(rec, recs)
            if others:
                path = _identifier_field(rec, kind)
                report(rec, path, ".".join(path) or kind, others, f"{label} {value}")
    problems += _key_collisions(corpus)
    for norm, recs in sorted(titles.items()):
        if len(recs) < 2 or not norm:
            continue
        for rec in recs:
            others = clashing(rec, recs)
            if others:
                alike = all(normalize_title(o.title) == normalize_title(rec.title) for o in others)
                # equal only once confusable letters are read as the letters they look like
                report(rec, ("title",), "title", others, "the same title" if alike else
                       f"a title that looks the same ({_foreign_letters(rec.title, others[0].title)})")
    return problems


def find_matches(
    corpus: Corpus, data: Mapping[str, Any], ignore: Iterable[str] = ()
) -> list[Match]:
    """Every existing record (retained or excluded) that ``data`` duplicates, best reason first.

    ``ignore`` lists record paths to leave out (the record being moved, for example).
    """
    index = KnownIndex.of_corpus(corpus, skip=frozenset(ignore))
    by_ref = {rec.path: rec for rec in corpus}
    distinct = frozenset(declared_distinct(corpus.taxonomy, data))
    return [Match(by_ref[k.ref], why) for k, why in index.matches(data, distinct=distinct)]


# Words shared by more titles than this are too common to pair titles on (blocking key cap).
BLOCK_CAP = 200
# Each title is paired with others through its rarest words, at most this many of them.
BLOCK_KEYS = 4
# Groups up to this size are scored pair by pair in Python; larger ones in one C call.
SMALL_GROUP = 32


_SHORT_TITLES = ('<short titles with no shared word>',)


def _candidate_groups(titles: Sequence[str]) -> list[list[int]]:
    """Groups of title (or summary) indices that may be near-duplicates.

    Comparing every pair is quadratic (100k titles would be 5e9 comparisons), so titles are
    grouped by their rarest words: two titles at least 90% alike differ in at most a word or two,
    so they share one of each other's rarest shared words. Words in more than BLOCK_CAP titles are not
    used as keys, which bounds the work per group; titles made only of such words are grouped by
    their whole word set.
    """

    words = [sorted(set(t.split())) for t in titles]
    df: Counter[str] = Counter(w for ws in words for w in ws)
    groups: dict[object, list[int]] = defaultdict(list)
    for i, ws in enumerate(words):
        # A word no other title has cannot pair this title with anything: skip it.
        rare = sorted((w for w in ws if 2 <= df[w] <= BLOCK_CAP), key=lambda w: (df[w], w))
        rare = rare[:BLOCK_KEYS]
        keys: list[object] = list(rare) if rare else [tuple(ws)]
        if not rare and len(ws) <= 2:
            # A title of one or two words that shares none of them (a typo in a system's name:
            # 'hypoevolve' and 'hypoevolvx') has no word to meet its twin by: such short titles
            # meet in one group of their own, which stays small in any real list.
            keys.append(_SHORT_TITLES)
        for k in keys:
            groups[k].append(i)
    return [g for g in groups.values() if len(g) > 1]


def near_pairs(texts: Sequence[str], cutoff: float) -> dict[tuple[int, int], float]:
    """Every pair ``(i, j)``, ``i < j``, of texts whose rapidfuzz ``ratio`` reaches ``cutoff``
    (equal texts included), with that ratio.

    Only the pairs of a :func:`_candidate_groups` group are scored, so the work grows with the
    number of texts, not with its square (the titles of ``survey validate``, the summaries).
    """
    pairs: dict[tuple[int, int], float] = {}
    for group in _candidate_groups(texts):
        if len(group) <= SMALL_GROUP:
            # Small groups (nearly all of them) are scored pair by pair: no NumPy import.
            for x, i in enumerate(group):
                for j in group[x + 1 :]:
                    key = (i, j) if i < j else (j, i)
                    if key not in pairs:
                        score = fuzz.ratio(texts[i], texts[j], score_cutoff=cutoff)
                        if score:
                            pairs[key] = score
            continue
        sub = [texts[i] for i in group]
        # cdist finds a large group's pairs in C; each one found is scored again exactly.
        scores = process.cdist(sub, sub, scorer=fuzz.ratio, score_cutoff=cutoff, dtype="uint8")
        for a, b in zip(*scores.nonzero(), strict=True):
            i, j = group[int(a)], group[int(b)]
            if i < j and (i, j) not in pairs:
                score = fuzz.ratio(texts[i], texts[j], score_cutoff=cutoff)
                if score:
                    pairs[(i, j)] = score
    return pairs


def what_to_do(tax: Taxonomy, rec: Record, other: Record) -> str:
    """What a contributor does about a record that collides with ``other``: keep one if they
    are the same work; else say they differ (a field of type ``key_reasons``), when there is one."""
    coll = tax.collections.get(rec.collection)
    declare = next((f.name for f in coll.fields if f.type == "key_reasons"), None) if coll else None
    if other.collection != rec.collection:
        same = (f"if it is the same work, it is already in {other.path}: keep only one (an "
                f"exclusion says why the work was left out)")
    else:
        same = f"if it is the same work, keep one record (edit {other.path}, delete the other)"
    if declare is None:
        return f"; {same}"
    return f"; {same}; if not, add to this record {declare}: {{{other.id}: how the two differ}}"


def declared_distinct(tax: Taxonomy, rec: Record | Mapping[str, Any], collection: str | None = None) -> dict[str, str]:
    """``{key: reason}`` of the records this one declares it is not a duplicate of (the fields
    of type ``key_reasons`` of its collection, e.g. ``not_duplicate_of``)."""
    data = rec.data if isinstance(rec, Record) else rec
    coll_name = rec.collection if isinstance(rec, Record) else (collection or tax.retained.name)
    coll = tax.collections.get(coll_name)
    out: dict[str, str] = {}
    for f in coll.fields if coll else ():
        if f.type == "key_reasons" and isinstance(data.get(f.name), dict):
            out.update({str(k): str(v) for k, v in data[f.name].items()})
    return out


@dataclass(frozen=True)
class DeclaredPair:
    record: Record
    other: str  # the key it declares
    reason: str
    score: float | None  # title similarity, when the other record exists


def declared_pairs(corpus: Corpus) -> list[DeclaredPair]:
    """Every declared non-duplicate, with the title similarity that would otherwise flag it."""
    tax = corpus.taxonomy
    by_id = {r.id: r for r in corpus}
    out = []
    for rec in corpus:
        for key, reason in sorted(declared_distinct(tax, rec).items()):
            other = by_id.get(key)
            # The plain ratio (not the rule): how alike the declared pair's titles look.
            score = (
                float(fuzz.ratio(normalize_title(rec.title), normalize_title(other.title)))
                if other is not None else None
            )
            out.append(DeclaredPair(rec, key, reason, score))
    return out


def declared_problems(corpus: Corpus) -> list[Problem]:
    """A declared non-duplicate must name an existing record, not the record itself."""
    problems = []
    for d in declared_pairs(corpus):
        fields = [f.name for f in corpus.taxonomy.collection(d.record.collection).fields if f.type == "key_reasons"]
        path = (fields[0], d.other) if fields else ("",)
        line, col = d.record.where(path)
        field_name = ".".join(path)
        if d.other == d.record.id:
            problems.append(Problem(d.record.path, line, col, field_name, "a record cannot be declared distinct from itself"))
        elif d.score is None:
            problems.append(Problem(d.record.path, line, col, field_name, f"no record with key {d.other!r}"))
        elif not d.reason.strip():
            problems.append(Problem(d.record.path, line, col, field_name, "give the reason the two are different works"))
    return problems


def fuzzy_title_problems(corpus: Corpus) -> list[Problem]:
    """Pairs of records whose titles are nearly, but not exactly, equal after normalisation.

    Exact title and identifier clashes are reported by :func:`cross_check`. A pair that one of
    its records declares distinct (``not_duplicate_of: {key: reason}``) passes.
    """
    declared = {(d.record.id, d.other) for d in declared_pairs(corpus)}
    recs = [r for r in corpus if r.title]
    titles = [title_key(r.title) for r in recs]
    problems: list[Problem] = []
    if len(recs) < 2:
        return problems

    pairs: dict[tuple[int, int], float] = {}
    for (i, j), score in near_pairs(titles, FUZZY_THRESHOLD).items():
        # Equal titles are cross_check's; titles with other numbers are other works.
        if titles[i] != titles[j] and title_similarity(titles[i], titles[j]):
            pairs[(i, j)] = pairs[(j, i)] = score
    for (i, j), score in sorted(pairs.items()):
        a, b = recs[i], recs[j]
        if (a.id, b.id) in declared or (b.id, a.id) in declared:
            continue
        line, col = a.where(("title",))
        problems.append(
            Problem(
                a.path,
                line,
                col,
                "title",
                f"a title {score:.0f}% similar to {b.path} ({b.title!r}): the same work "
                f"twice?{what_to_do(corpus.taxonomy, a, b)}",
            )
        )
    return problems


def scan(corpus: Corpus) -> list[Problem]:
    """Every duplicate in the corpus and the exclusion log: identifiers, titles, near titles."""
    return sorted(set(cross_check(corpus)) | set(fuzzy_title_problems(corpus)) | set(declared_problems(corpus)))


@dataclass(frozen=True)
class Known:
    """One work already known: a record, or an entry of another list such as a screening queue."""

    ref: str  # a record's path, or a queue entry's name
    kind: str  # the collection name, or "queue"
    id: str  # the record's id (key, E###) or the queue entry's id
    title: str
    not_duplicate_of: frozenset[str] = frozenset()


class KnownIndex:
    """Known works indexed for checking many candidates at once (a search run's hits).

    The same rules as :func:`find_matches` (identifiers ignoring arXiv versions, equal
    normalised titles, titles at least FUZZY_THRESHOLD similar), but each candidate is compared
    only with titles that share one of its rarest words, so 10,000 candidates against 10,000
    works take well under a second instead of 10^8 comparisons. A known work that declares the
    candidate distinct (a record's ``key_reasons`` field, a queue entry's ``not_duplicate_of``)
    does not match it on titles (identifiers still do).
    """

    def __init__(self, kinds: Mapping[str, str], labels: Mapping[str, str] | None = None) -> None:
        self.kinds = dict(kinds)
        self.labels = dict(labels or {})  # identifier kind -> its label ("arXiv id")
        self.works: list[Known] = []
        self.by_id: dict[tuple[str, str], list[int]] = defaultdict(list)
        self.by_title: dict[str, list[int]] = defaultdict(list)
        self.words: dict[str, list[int]] = defaultdict(list)
        self.norm: list[str] = []

    @classmethod
    def of_corpus(cls, corpus: Corpus, skip: frozenset[str] = frozenset()) -> KnownIndex:
        """Every record of the corpus but those whose path is in ``skip``."""
        tax = corpus.taxonomy
        index = cls(_kinds(corpus), {k: v.label for k, v in tax.identifiers.items()})
        for rec in corpus:
            if rec.path not in skip:
                index.add(Known(rec.path, rec.collection, rec.id, rec.title,
                                frozenset(declared_distinct(tax, rec))), rec.data)
        return index

    def add(self, work: Known, data: Mapping[str, Any]) -> None:
        i = len(self.works)
        self.works.append(work)
        for k, v in record_identifiers(data, self.kinds).items():
            self.by_id[(k, v)].append(i)
        norm = title_key(work.title)
        self.norm.append(norm)
        if norm:
            self.by_title[norm].append(i)
            for w in set(norm.split()):
                self.words[w].append(i)

    def match(self, data: Mapping[str, Any], refs: Iterable[str] = ()) -> tuple[Known, str] | None:
        """The first known work ``data`` duplicates and why, or None. ``refs`` are the
        candidate's own names (arXiv id, ``arXiv:id``) that a ``not_duplicate_of`` may use."""
        found = self.matches(data, refs)
        return found[0] if found else None

    def matches(self, data: Mapping[str, Any], refs: Iterable[str] = (),
                distinct: frozenset[str] = frozenset()) -> list[tuple[Known, str]]:
        """Every known work ``data`` duplicates and why: shared identifiers first, then equal
        titles, then near titles by similarity. On titles, a pair passes when either side
        declares the other distinct (``distinct``: the candidate's own declarations)."""
        ids = record_identifiers(data, self.kinds)
        out: list[tuple[Known, str]] = []
        seen: set[int] = set()
        for k, v in ids.items():
            for i in self.by_id.get((k, v), ()):
                if i not in seen:
                    seen.add(i)
                    out.append((self.works[i], f"the same {self.labels.get(k, k)} {v}"))
        title = title_key(str(data.get("title", "")))
        if not title:
            return out
        names = set(refs) | set(ids.values())
        if "arxiv" in ids:
            names.add(f"arXiv:{ids['arxiv']}")

        def allowed(i: int) -> bool:
            # A known work that declares itself distinct from the candidate (by any of its names),
            # or that the candidate declares distinct, does not match on titles.
            w = self.works[i]
            return i not in seen and not (w.not_duplicate_of & names) and w.id not in distinct

        for i in self.by_title.get(title, ()):
            if allowed(i):
                seen.add(i)
                out.append((self.works[i], "the same title"))
        words = sorted((w for w in set(title.split()) if w in self.words),
                       key=lambda w: (len(self.words[w]), w))
        pool: set[int] = set()
        for w in words[:BLOCK_KEYS]:
            pool.update(self.words[w][: BLOCK_CAP * 5])
        near = sorted(((title_similarity(title, self.norm[i]), i) for i in pool if allowed(i)),
                      key=lambda x: (-x[0], x[1]))
        for score, i in near:
            if score:
                found = self.works[i]
                out.append((found, f"a title {score:.0f}% similar ({found.title!r})"))
        return out
