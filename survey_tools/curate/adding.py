"""``survey add``: turn an arXiv paper into a retained record, checked before anything is written.

Controlled fields are set from command-line options whose names come from
``taxonomy/commands.yaml`` (``flags``) or, failing that, from the field's own name. Fields that
are not given are written as the taxonomy's ``untagged`` sentinel, so ``survey validate`` keeps
failing until a person fills them: a half-done record cannot land silently.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from survey_tools.corpus.checks import check_record
from survey_tools.corpus.duplicates import find_matches
from survey_tools.corpus.identifiers import ids_from_url, normalize_arxiv, normalize_doi
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.options import option_names
from survey_tools.corpus.pasted import pasted_words, shared_run, summary_fields
from survey_tools.corpus.records import Corpus
from survey_tools.corpus.taxonomy import (
    Collection,
    ControlledField,
    PlainField,
    Taxonomy,
    commands_config,
    load_taxonomy,
)
from survey_tools.corpus.titles import normalize_title
from survey_tools.corpus.yamlio import dump_yaml, parse_yaml
from survey_tools.errors import InvalidInput, Problem, SurveyError, UsageError
from survey_tools.fileio import atomic_write
from survey_tools.schema_words import suggest
from survey_tools.scholarly.arxiv_client import ArxivClient, ArxivPaper, ClientConfig
from survey_tools.scholarly.metadata import (
    CrossrefClient,
    OpenReviewClient,
    Work,
    strict_doi,
    strict_openreview_id,
)

# Words that make a key less readable without making it more distinctive.
_STOPWORDS = frozenset({
    "a", "an", "the", "of", "on", "for", "with", "and", "in", "to", "via", "towards", "toward",
    "from", "by", "at", "is", "are",
})


class DuplicateError(SurveyError):
    """The work is already retained or excluded."""


def flag_names(tax: Taxonomy, coll: Collection) -> dict[str, ControlledField]:
    """Option name (without dashes) -> the controlled field of ``coll`` it sets."""
    return option_names(tax, coll)


def _parse_value(tax: Taxonomy, cf: ControlledField, flag: str, raw: list[str]) -> Any:
    """The record value for the option's raw strings, or UsageError naming the nearest value."""
    specials = [tax.na] if cf.not_applicable else []

    def one(v: str, choices: Sequence[str], noun: str, shown: str = "") -> str:
        if v in choices:
            return v
        near = suggest(v, choices)
        hint = f"; did you mean {near!r}?" if near else f" (choose one of: {', '.join(choices)})"
        raise UsageError(f"--{flag} {shown or v}: {v!r} is not a {noun}{hint}")

    if cf.kind == "single":
        if len(raw) > 1:
            raise UsageError(f"--{flag} was given {len(raw)} times but takes one value")
        return one(raw[0], [*cf.ids, *specials], cf.noun)
    if cf.kind == "multi":
        items = [x.strip() for r in raw for x in r.split(",") if x.strip()]
        if items == [tax.na] and specials:
            return tax.na
        return [one(x, list(cf.ids), cf.noun) for x in dict.fromkeys(items)]
    # mapping: --subdecision O2=learned, repeatable; "none" for an empty mapping, or NA
    if raw == [tax.na] and specials:
        return tax.na
    out: dict[str, str] = {}
    for r in raw:
        if r == "none":
            continue
        key, sep, mode = r.partition("=")
        if not sep:
            raise UsageError(
                f"--{flag} {r}: expected {cf.noun}=mode, e.g. {cf.ids[0]}={cf.mode_ids[0]}"
            )
        k = one(key.strip(), list(cf.ids), cf.noun, r)
        if k in out:
            raise UsageError(f"--{flag}: {k} is given twice")
        out[k] = one(mode.strip(), list(cf.mode_ids), f"{cf.noun} mode", r)
    return {k: out[k] for k in cf.ids if k in out}


def parse_field_options(
    tax: Taxonomy, coll: Collection, args: Sequence[str]
) -> tuple[dict[str, Any], list[str]]:
    """``["X", "--reward-type", "shared"]`` -> ``({"reward_type": "shared"}, ["X"])``.

    Options are read from the command's free arguments so that their names live in the
    taxonomy, not in the code; the arguments that are not options are returned in order.
    """
    flags = flag_names(tax, coll)
    given: dict[str, tuple[str, list[str]]] = {}
    positional: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if not a.startswith("--") or a == "--":
            positional.append(a)
            i += 1
            continue
        name, sep, value = a[2:].partition("=")
        if name not in flags:
            near = suggest(name, flags)
            hint = f"; did you mean --{near}?" if near else ""
            raise UsageError(f"no such option --{name}{hint} (taxonomy options: "
                             f"{', '.join('--' + f for f in sorted(flags))})")
        if not sep:
            if i + 1 >= len(args) or args[i + 1].startswith("--"):
                raise UsageError(f"--{name} needs a value")
            value = args[i + 1]
            i += 1
        cf = flags[name]
        prev = given.get(cf.name)
        if prev is not None and prev[0] != name:
            raise UsageError(f"--{prev[0]} and --{name} both set {cf.name}")
        given.setdefault(cf.name, (name, []))[1].append(value)
        i += 1
    tags = {fname: _parse_value(tax, coll.controlled_field(fname) or flags[flag], flag, raw)
            for fname, (flag, raw) in given.items()}
    return tags, positional


def author_name(name: str) -> str:
    """arXiv's ``First Middle Last`` -> the corpus's ``Last, First Middle``.

    The last word is taken as the family name; particles (van, de) cannot be told apart from
    given names without a name database, so the contributor fixes those by hand.
    """
    parts = name.split()
    if len(parts) < 2 or "," in name:
        return name.strip()
    return f"{parts[-1]}, {' '.join(parts[:-1])}"


def derive_key(title: str, year: int, taken: Iterable[str], pattern: str) -> str:
    """A readable, lowercase, collision-safe key from the title.

    A short name before a colon (``Agent Lightning: ...``) is used whole; otherwise the first
    three significant words. On a collision the year is appended, then ``-2``, ``-3``...
    """
    taken = set(taken)
    head, colon, _ = title.partition(":")
    words = normalize_title(head if colon and len(head.split()) <= 4 else title).split()
    if not (colon and len(head.split()) <= 4):
        words = [w for w in words if w not in _STOPWORDS][:3] or words[:3]
    ascii_words = [re.sub(r"[^a-z0-9]", "", w) for w in words]
    base = "-".join(w for w in ascii_words if w)[:60].strip("-") or "paper"
    rx = re.compile(pattern)
    candidates = [base, f"{base}{year}"] + [f"{base}{year}-{n}" for n in range(2, 1000)]
    for key in candidates:
        if key not in taken and rx.match(key):
            return key
    raise UsageError(f"cannot derive a free key from {title!r}; give one with --key")


@dataclass(frozen=True)
class AddPlan:
    """A record ready to be written (or printed with --dry-run)."""

    key: str
    path: Path  # absolute
    rel: str
    record: Mapping[str, Any]
    text: str
    work: Work
    untagged: tuple[str, ...] = field(default=())


def _retained_taken(corpus: Corpus, root: Path, coll: Collection) -> set[str]:
    folder = root / coll.folder
    on_disk = {p.stem for p in folder.glob("*.yaml")} if folder.is_dir() else set()
    return on_disk | {r.id for r in corpus.retained}


def refuse_duplicates(corpus: Corpus, data: Mapping[str, Any], what: str,
                      ignore: Iterable[str] = ()) -> None:

    matches = find_matches(corpus, data, ignore)
    if matches:
        labels = {n: c.label for n, c in corpus.taxonomy.collections.items()}
        first = matches[0]
        kind = labels.get(first.record.collection, first.record.collection)
        more = f" (and {len(matches) - 1} more)" if len(matches) > 1 else ""
        raise DuplicateError(
            f"{what} is already in the survey: {first.record.path} ({kind}) has "
            f"{first.reason}{more}"
        )


def _arxiv_note(paper: ArxivPaper) -> str:
    """What the record's notes say of the arXiv entry; a candidate found by hand has no
    category, and its date may be only the month its id carries."""
    cat = f"; primary category {paper.primary_category}" if paper.primary_category else ""
    when = f", {paper.updated}" if paper.updated else ""
    return f"arXiv version {paper.version}{when}{cat}."


def work_from_arxiv(paper: ArxivPaper) -> Work:
    ids = {"arxiv": paper.arxiv_id}
    links = [paper.abs_url]
    if paper.doi:
        ids["doi"] = paper.doi.lower()
        links.append(f"https://doi.org/{paper.doi}")
    return Work(
        title=paper.title,
        authors=tuple(author_name(a) for a in paper.authors),
        year=paper.year,
        venue=paper.journal_ref or "",
        identifiers=ids,
        links=tuple(links),
        abstract=paper.abstract,
        note=_arxiv_note(paper),
        source=f"arXiv:{paper.arxiv_id}",
    )


def _names_field(f: PlainField) -> bool:
    return f.type == "person_list" or "author" in f.name or "editor" in f.name


def _split_list(f: PlainField, name: str, raw: str) -> list[str]:
    """A list given on the command line: items split on ";" (or "|", a line break) when there is
    one, else names on " and ", else on commas. A list of names written with commas only is
    refused when a comma may as well sit inside a name ("Doe, Jane, Roe, John")."""
    for sep in (";", "|", "\n"):
        if sep in raw:
            return [x.strip() for x in raw.split(sep) if x.strip()]
    if _names_field(f) and re.search(r"\s+and\s+", raw):
        return [x.strip() for x in re.split(r"\s+and\s+", raw) if x.strip()]
    parts = [x.strip() for x in raw.split(",") if x.strip()]
    if _names_field(f) and len(parts) > 1:
        if f.type == "person_list" and len(parts) == 2:
            return [raw.strip()]  # one name written "Last, First"
        if f.type == "person_list" or any(len(p.split()) == 1 for p in parts):
            raise UsageError(f"--set {name}={raw}: cannot tell where one name ends and the next begins; separate "
                             f"names with ';', e.g. --set {name}='Doe, Jane; Roe, John'")
    return parts


def _coerce(f: PlainField, name: str, raw: str) -> Any:
    """``--set`` text as the field's type wants it (the schema check reports what is still wrong)."""
    if f.type in ("string", "text", "url", "date"):
        return raw
    if f.type in ("string_list", "url_list", "person_list"):
        return _split_list(f, name, raw)
    if f.type in ("integer", "year"):
        try:
            return int(raw)
        except ValueError:
            raise UsageError(f"--set {name}={raw}: {raw!r} is not a whole number") from None
    if f.type == "boolean":
        if raw.lower() in ("true", "false"):
            return raw.lower() == "true"
        raise UsageError(f"--set {name}={raw}: expected true or false")
    doc = parse_yaml(raw, f"--set {name}")
    if doc.problems:
        raise UsageError(f"--set {name}: {doc.problems[0].message}")
    return doc.data


def parse_sets(tax: Taxonomy, coll: Collection, sets: Sequence[str]) -> dict[str, Any]:
    """``["venue=Journal of X", "identifiers.doi=10.5555/1"]`` -> field values, each checked
    against the field's kind and type; an unknown field names the nearest one."""
    out: dict[str, Any] = {}
    plain = {f.name: f for f in coll.fields}
    grouped: dict[str, list[str]] = {}
    for item in sets:
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise UsageError(f"--set {item!r}: expected FIELD=VALUE")
        head, dot, sub = name.partition(".")
        if head not in plain and coll.controlled_field(head) is None:
            near = suggest(head, coll.field_names())
            raise UsageError(f"--set {name}: no such field{f'; did you mean {near!r}?' if near else ''} "
                             f"(fields: {', '.join(coll.field_names())})")
        if dot:
            f = plain.get(head)
            if f is None or f.type not in ("identifiers", "object", "evidence"):
                raise UsageError(f"--set {name}: {head} has no sub-fields")
            out.setdefault(head, {})[sub] = raw.strip()
            continue
        cf = coll.controlled_field(head)
        if cf is not None:
            grouped.setdefault(head, []).append(raw.strip())
            continue
        if head in out:
            raise UsageError(f"--set {head} is given twice")
        out[head] = _coerce(plain[head], head, raw.strip())
    for head, raws in grouped.items():
        cf = coll.controlled_field(head)
        assert cf is not None
        out[head] = _parse_value(tax, cf, f"set {head}=", raws)
    return out


def build_record(
    tax: Taxonomy,
    work: Work,
    key: str,
    tags: Mapping[str, Any],
    summary: str | None,
    sets: Mapping[str, Any] | None = None,
    today: str | None = None,
    not_duplicate_of: Mapping[str, str] | None = None,
    note: str | None = None,
) -> dict[str, Any]:
    """The record in the collection's field order: what the source says, each field's
    configured default where it says nothing, then --set values and tags; untagged where
    nothing is known and the field is required.

    A new record belongs to the living list, added ``today`` (ISO date; default: the system's);
    ``note`` is added to the source's own note.
    """
    coll = tax.retained
    values = _source_values(tax, coll, work, key)
    values.update(_curation_values(tax, coll, work, summary, today, not_duplicate_of, note))
    _fill_in(tax, coll, values, sets or {}, tags)
    # Only fields the taxonomy declares are written, in its order.
    declared = {f.name for f in coll.fields} | {c.name for c in coll.controlled}
    return {n: values[n] for n in coll.field_names() if n in values and n in declared}


def _source_values(tax: Taxonomy, coll: Collection, work: Work, key: str) -> dict[str, Any]:
    """What the source (arXiv, Crossref, OpenReview, or --set) says of the work."""
    values: dict[str, Any] = {coll.id_field: key, coll.title_field: work.title}
    if work.authors:
        values["authors"] = list(work.authors)
        values["authors_complete"] = True
    if work.year is not None:
        values["year"] = work.year
    if work.venue:
        values["venue"] = work.venue
    ids = {k: v for k, v in work.identifiers.items() if k in tax.identifiers}
    if ids:
        values["identifiers"] = ids
    if work.links:
        values["links"] = list(work.links)
        url_field = next((f.name for f in coll.fields if f.type == "url" and f.name not in values), None)
        if url_field is not None:  # a survey keeping one URL per record
            values[url_field] = work.links[0]
    return values


def _curation_values(tax: Taxonomy, coll: Collection, work: Work, summary: str | None, today: str | None,
                     not_duplicate_of: Mapping[str, str] | None, note: str | None) -> dict[str, Any]:
    """What the curator adds: the summary, the notes, the edition and date, declared non-duplicates."""
    values: dict[str, Any] = {}
    if summary:
        values["summary"] = summary
    notes = " ".join(x for x in (work.note, note) if x)
    if notes:
        values["notes"] = notes
    if tax.editions is not None:
        values[tax.editions.field] = tax.editions.living.id
        values[tax.editions.added_field] = today or dt.date.today().isoformat()
    if not_duplicate_of:
        field_name = next((f.name for f in coll.fields if f.type == "key_reasons"), None)
        if field_name is None:
            raise UsageError("the taxonomy declares no field for non-duplicates (a field of type key_reasons)")
        values[field_name] = dict(not_duplicate_of)
    return values


def _fill_in(tax: Taxonomy, coll: Collection, values: dict[str, Any], sets: Mapping[str, Any],
             tags: Mapping[str, Any]) -> None:
    """Defaults where nothing is known, then --set values (sub-fields merged) and tags; untagged
    for every controlled field and required prose nobody gave, so that validation fails."""
    for f in coll.fields:
        if f.name not in values and f.default is not None:
            values[f.name] = f.default
    for name, v in sets.items():
        old = values.get(name)
        values[name] = {**old, **v} if isinstance(v, dict) and isinstance(old, dict) else v
    for cf in coll.controlled:
        if cf.name in tags:
            values[cf.name] = tags[cf.name]
        elif cf.name not in values:
            values[cf.name] = tax.untagged
    for f in coll.fields:
        if f.required and f.name not in values and f.type in ("string", "text"):
            values[f.name] = tax.untagged


def _key_words(title: str) -> str:
    words = [w for w in normalize_title(title).split() if w not in _STOPWORDS][:3]
    return "-".join(re.sub(r"[^a-z0-9]", "", w) for w in words if re.sub(r"[^a-z0-9]", "", w))


def record_key(tax: Taxonomy, record: Mapping[str, Any], work: Work, taken: Iterable[str]) -> str:
    """A free key, made as commands.yaml ``add.key`` says: from the title (default), from the
    arXiv id, or from ``add.key_template``."""
    coll = tax.retained
    conf = commands_config(tax).get("add") or {}
    how = conf.get("key", "title")
    year = work.year or 0
    if how == "title" or (how == "arxiv" and not work.identifiers.get("arxiv")):
        return derive_key(work.title, year, taken, coll.id_pattern)
    if how == "arxiv":
        base = work.identifiers["arxiv"]
    else:
        authors = record.get("authors") or []
        first = str(authors[0]).split(",")[0] if authors else ""
        fields = {
            "title_words": _key_words(work.title), "year": year or "",
            "first_author": re.sub(r"[^a-z0-9]", "", normalize_title(first).replace(" ", "")),
            **{k: work.identifiers.get(k, "") for k in ("arxiv", "doi", "openreview")},
        }
        try:
            base = str(conf.get("key_template", "{title_words}")).format(**fields)
        except (KeyError, IndexError, ValueError) as err:
            raise UsageError(f"taxonomy/commands.yaml add.key_template: cannot fill {err}") from None
    rx = re.compile(coll.id_pattern)
    used = set(taken)
    variants = [base, base.lower(), re.sub(r"[^a-z0-9]+", "-", base.lower()).strip("-"),
                re.sub(r"[^A-Za-z0-9]+", "_", base).strip("_")]
    for cand in dict.fromkeys(variants):
        for key in [cand] + [f"{cand}-{n}" for n in range(2, 1000)]:
            if key and key not in used and rx.match(key):
                return key
    raise UsageError(f"cannot make a key from {base!r} that matches {coll.id_pattern}; give one with --key")


def resolve_reference(ref: str) -> tuple[str, str]:
    """``(kind, id)`` for an arXiv id or URL, a DOI (or doi.org URL), or an OpenReview id or URL."""
    arxiv_id = normalize_arxiv(ref)
    if arxiv_id:
        return "arxiv", arxiv_id
    # Parsed strictly: the id goes into a URL path or query of the service asked.
    doi = normalize_doi(ref)
    if doi:
        return "doi", strict_doi(doi)
    if ref.lower().startswith("openreview:"):
        return "openreview", strict_openreview_id(ref.split(":", 1)[1].strip())
    found = ids_from_url(ref) if re.match(r"^https?://", ref) else {}
    if "openreview" in found:
        return "openreview", strict_openreview_id(found["openreview"])
    raise UsageError(
        f"{ref!r} is not an arXiv id or URL, a DOI or an OpenReview id (expected e.g. 2505.19591, "
        "arXiv:2505.19591v2, https://arxiv.org/abs/2505.19591, 10.5555/12345678 or openreview:ID)"
    )


def plan_add(
    root: Path,
    corpus: Corpus,
    ref: str | None,
    fetch: Callable[[str], ArxivPaper] | None,
    tags: Mapping[str, Any],
    key: str | None = None,
    summary: str | None = None,
    taken: Iterable[str] = (),
    sets: Sequence[str] = (),
    crossref: Callable[[str], Work] | None = None,
    openreview: Callable[[str], Work] | None = None,
    not_duplicate_of: Mapping[str, str] | None = None,
    today: str | None = None,
    note: str | None = None,
) -> AddPlan:
    """Fetch, derive the key, refuse duplicates and build the record; write nothing.

    ``ref`` is an arXiv id, DOI or OpenReview id (looked up with ``fetch``, ``crossref`` or
    ``openreview``), or None for a record made only from ``sets`` (``--set FIELD=VALUE``)."""

    tax = corpus.taxonomy
    coll = tax.retained
    given = parse_sets(tax, coll, sets)
    used = _retained_taken(corpus, root, coll) | set(taken)
    _check_key(key, coll, used)
    lookups = {"arxiv": (lambda i: work_from_arxiv(fetch(i))) if fetch is not None else None,
               "doi": crossref, "openreview": openreview}
    work = _work_from_sets(coll, given) if ref is None else _looked_up(corpus, ref, lookups)
    known = {r.id for r in corpus}
    for k in not_duplicate_of or {}:
        if k not in known:
            raise UsageError(f"--not-duplicate-of {k}: no record with key {k!r}")
    record = build_record(tax, work, "", tags, summary, given, today, not_duplicate_of, note)
    refuse_duplicates(corpus, record, work.source)
    if key is None:
        key = record_key(tax, record, work, used)
    record[coll.id_field] = key
    record = {n: record[n] for n in coll.field_names() if n in record}
    rel = f"{coll.folder}/{key}.yaml"
    text = _checked_text(tax, coll, rel, record, work)
    # Every field still to fill, whether or not validation requires it yet (subdecisions is
    # required only once the category says so).
    untagged = tuple(n for n, v in record.items() if v == tax.untagged)
    return AddPlan(key, root / rel, rel, record, text, work, untagged)


def _check_key(key: str | None, coll: Collection, used: set[str]) -> None:
    if key is None:
        return
    if not re.match(coll.id_pattern, key):
        raise UsageError(f"--key {key!r} does not match {coll.id_pattern}")
    if key in used:
        raise DuplicateError(f"--key {key!r} is already used by {coll.folder}/{key}.yaml")


def _work_from_sets(coll: Collection, given: Mapping[str, Any]) -> Work:
    """The work a record made by hand describes (--set title=... and the rest)."""
    title = given.get(coll.title_field)
    if not isinstance(title, str) or not title.strip():
        raise UsageError(f"give an arXiv id, DOI or OpenReview id, or at least --set {coll.title_field}=...")
    year = given.get("year")
    ids = {k: v for k, v in (given.get("identifiers") or {}).items() if isinstance(v, str)}
    return Work(title=title, year=year if isinstance(year, int) else None, identifiers=ids,
                source=f"--set {coll.title_field}")


def _looked_up(corpus: Corpus, ref: str, lookups: Mapping[str, Callable[[str], Work] | None]) -> Work:
    """The work ``ref`` names, from the service its kind of id belongs to."""
    kind, ident = resolve_reference(ref)
    label = {"arxiv": "arXiv", "doi": "DOI", "openreview": "OpenReview"}[kind]
    # Checked before the request too: a known id needs no network round trip.
    refuse_duplicates(corpus, {"identifiers": {kind: ident}}, f"{label}:{ident}")
    lookup = lookups.get(kind)
    if lookup is None:
        raise UsageError(f"cannot look up {label} ids here")
    return lookup(ident)


def _checked_text(tax: Taxonomy, coll: Collection, rel: str, record: Mapping[str, Any], work: Work) -> str:
    """The record's file text; the record must be well-formed except for the fields left
    untagged on purpose."""
    text = dump_yaml(record)
    doc = parse_yaml(text, rel)
    problems = check_record(tax, coll, rel, doc)
    for name in summary_fields(coll) if work.abstract else ():  # the summary given, pasted?
        value = record.get(name)
        run = shared_run(value, work.abstract) if isinstance(value, str) else None
        if run:
            line, col = doc.values.get((name,), (0, 0))
            problems.append(Problem(rel, line, col, name, pasted_words(name, run, f"the abstract of {work.source}")))
    real = [p for p in problems if not p.message.startswith("not yet tagged")]
    if real:
        missing = [p.field for p in real if p.message.startswith("required field is missing")]
        extra = (f"; set {', '.join(missing)} with --set FIELD=VALUE" if missing else "")
        raise InvalidInput(real, f"the record built for {work.source} is invalid{extra}")
    return text


def write_plan(plan: AddPlan) -> None:
    if plan.path.exists():  # a race with another writer: never overwrite
        raise DuplicateError(f"{plan.rel} appeared while adding; nothing written")
    atomic_write(plan.path, plan.text)


def read_id_list(path: Path) -> list[str]:
    """One arXiv id or URL per line; blank lines and ``#`` comments are skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"cannot read {path}: {err}") from None
    out = []
    for line in text.splitlines():
        s = line.split("#", 1)[0].strip()
        if s:
            out.append(s)
    return out


@dataclass(frozen=True)
class BatchOutcome:
    ref: str
    status: str  # added | skipped | failed
    detail: str  # the path written, or the reason


def add_many(
    root: Path,
    corpus: Corpus,
    refs: Sequence[str],
    client: ArxivClient,
    tags: Mapping[str, Any],
    dry_run: bool = False,
    progress: Callable[[Iterable[str]], Iterable[str]] = lambda x: x,
    sets: Sequence[str] = (),
    crossref: Callable[[str], Work] | None = None,
    openreview: Callable[[str], Work] | None = None,
) -> list[BatchOutcome]:
    """Add each id in turn; a failure is recorded and the next id is tried."""

    out: list[BatchOutcome] = []
    written: list[str] = []
    for ref in progress(refs):
        try:
            plan = plan_add(root, corpus, ref, client.fetch, tags, taken=written, sets=sets,
                            crossref=crossref, openreview=openreview)
            if not dry_run:
                write_plan(plan)
                # Re-read so that the next id is checked against this one too (cached: cheap).
                corpus = load_corpus(root, corpus.taxonomy)
            written.append(plan.key)
            out.append(BatchOutcome(ref, "added", plan.rel))
        except DuplicateError as err:
            out.append(BatchOutcome(ref, "skipped", str(err)))
        except SurveyError as err:
            out.append(BatchOutcome(ref, "failed", str(err)))
    return out


@dataclass(frozen=True)
class AddRequest:
    """What ``survey add`` was asked: the id or URL and the field options as typed (``words``),
    the other options as given."""

    words: tuple[str, ...] = ()
    sets: tuple[str, ...] = ()
    from_file: Path | None = None
    key: str | None = None
    summary: str | None = None
    dry_run: bool = False
    day: str | None = None
    not_duplicate_of: tuple[str, ...] = ()  # KEY=REASON
    arxiv_url: str | None = None
    crossref_url: str | None = None
    openreview_url: str | None = None
    delay: float | None = None
    timeout: float | None = None
    deadline: float | None = None  # seconds from now


@dataclass(frozen=True)
class AddResult:
    """One record planned (and written unless a dry run), or a list's outcomes (``--from-file``)."""

    plan: AddPlan | None = None
    outcomes: tuple[BatchOutcome, ...] = ()

    @property
    def failed(self) -> bool:
        return any(o.status == "failed" for o in self.outcomes)


def _request_checked(request: AddRequest, refs: Sequence[str]) -> dict[str, str]:
    """Refuse options that do not go together; the declared distinct works by key."""
    if len(refs) > 1:
        raise UsageError(f"give one id or URL, not {len(refs)}: {' '.join(refs)}")
    if refs and request.from_file is not None:
        raise UsageError("give one id or URL, or --from-file LIST")
    if not refs and request.from_file is None and not request.sets:
        raise UsageError("give one arXiv id, DOI or OpenReview id, --from-file LIST, or --set FIELD=VALUE")
    if request.from_file is not None and request.key is not None:
        raise UsageError("--key names one record; it cannot be used with --from-file")
    declared: dict[str, str] = {}
    for item in request.not_duplicate_of:
        k, sep, reason = item.partition("=")
        if not sep or not k.strip() or not reason.strip():
            raise UsageError(f"--not-duplicate-of {item!r}: write KEY=REASON (the reason in your own words)")
        declared[k.strip()] = reason.strip()
    if request.day is not None:
        try:
            dt.date.fromisoformat(request.day)
        except ValueError:
            raise UsageError(f"--date {request.day!r} is not an ISO date (YYYY-MM-DD)") from None
    return declared


def add(
    root: Path,
    request: AddRequest,
    progress: Callable[[Iterable[str]], Iterable[str]] = lambda x: x,
) -> AddResult:
    """``survey add``: the work named (looked up on arXiv, Crossref or OpenReview) or given by
    ``--set`` planned as a record, checked and written (printed only, for a dry run); with
    ``--from-file``, every id of the list in turn (a failure recorded, the next one tried)."""
    tax = load_taxonomy(root)
    tags, refs = parse_field_options(tax, tax.retained, list(request.words))
    declared = _request_checked(request, refs)
    corpus = load_corpus(root, tax)
    until = None if request.deadline is None else time.monotonic() + request.deadline
    config = ClientConfig.from_env(request.arxiv_url, request.delay, request.timeout)
    client = ArxivClient(dataclasses.replace(config, deadline=until))
    crossref = CrossrefClient.from_env(request.crossref_url, request.timeout, until).fetch
    openreview = OpenReviewClient.from_env(request.openreview_url, request.timeout, until).fetch
    if request.from_file is not None:
        outcomes = add_many(root, corpus, read_id_list(request.from_file), client, tags, request.dry_run,
                            progress, request.sets, crossref, openreview)
        return AddResult(outcomes=tuple(outcomes))
    plan = plan_add(root, corpus, refs[0] if refs else None, client.fetch, tags, request.key, request.summary,
                    sets=request.sets, crossref=crossref, openreview=openreview,
                    not_duplicate_of=declared, today=request.day)
    if not request.dry_run:
        write_plan(plan)
    return AddResult(plan=plan)


__all__ = [
    "AddPlan", "AddRequest", "AddResult", "BatchOutcome", "DuplicateError", "add", "add_many", "build_record",
    "derive_key", "flag_names", "parse_field_options", "parse_sets", "plan_add", "read_id_list",
    "record_key", "resolve_reference", "work_from_arxiv", "write_plan",
]
