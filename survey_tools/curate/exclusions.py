"""``survey exclude``: append to the exclusion log, or move a record between the two collections.

A retained record moved to the log keeps every field under ``retained_record``, so moving it
back restores the file byte for byte (the YAML dump is deterministic). Both moves write the new
file first and remove the old one last: a failure leaves the survey as it was.
"""

from __future__ import annotations

import datetime as dt
import io
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from survey_tools.adopt.taxonomy_edit import round_trip_yaml
from survey_tools.corpus.checks import check_record
from survey_tools.corpus.identifiers import ids_from_url, normalize_arxiv, normalize_doi
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.records import Corpus, Record
from survey_tools.corpus.taxonomy import FORMER_FIELD, Collection, Taxonomy, load_taxonomy
from survey_tools.corpus.yamlio import dump_yaml, parse_yaml
from survey_tools.curate.adding import flag_names, parse_field_options, refuse_duplicates
from survey_tools.errors import InvalidInput, SurveyError, UsageError
from survey_tools.fileio import atomic_write
from survey_tools.hashing import content_hexdigest
from survey_tools.scholarly.arxiv_client import ArxivClient, ArxivPaper, ClientConfig
from survey_tools.slugs import slug


@dataclass(frozen=True)
class Move:
    """Files to write and to remove, applied in that order."""

    write: tuple[tuple[str, str], ...]  # (relative path, text): new files
    remove: tuple[str, ...]
    message: str
    rewrite: tuple[tuple[str, str], ...] = ()  # existing files replaced (declarations dropped)


def _excluded(tax: Taxonomy) -> Collection:
    coll = tax.excluded
    if coll is None:
        raise UsageError("this survey has no exclusion log (a second collection in taxonomy/)")
    return coll


# Identifier kinds in the order an exclusion id is derived from them (the first one present).
ID_KINDS = ("arxiv", "doi", "openreview")


def _prefix(corpus: Corpus, coll: Collection) -> str:
    """The letters before the number of the numbered ids in use (``E`` of ``E036``), else the
    literal start of the id pattern (``^E...``), else none."""
    for rec in corpus.of(coll.name):
        if m := re.fullmatch(r"([A-Za-z]*)\d+", rec.id):
            return m.group(1)
    m = re.match(r"\^([A-Za-z]*)", coll.id_pattern)
    return m.group(1) if m else ""


def _slug(kind: str, value: str) -> str:
    """``kind-value`` in lower case, letters and digits joined by ``-``; a short hash of the exact
    value keeps apart what lower-casing, cutting or a DOI's free punctuation would merge
    (OpenReview ids are case-sensitive). arXiv ids lose nothing: ``2501.01234`` -> ``arxiv-2501-01234``."""
    flat = slug(value, empty="")
    exact = kind == "arxiv" and len(flat) <= 40
    if not exact:
        flat = flat[:40].rstrip("-") + "-" + content_hexdigest(value.encode("utf-8"), 3)
    return f"{kind}-{flat}" if flat.strip("-") else kind


def new_id(corpus: Corpus, coll: Collection, values: Mapping[str, Any]) -> str:
    """An id derived from the excluded work itself, so that two pull requests excluding different
    works never pick the same id (a running number would: both take the next free one).

    ``E-arxiv-2501-01234`` for an arXiv id (likewise a DOI or OpenReview id), else
    ``E-url-<10 hex digits of the URL's sha256>``. The same work excluded twice gets the same id,
    which the duplicate checks refuse anyway. Ids already in the log (``E001``...) stay as they are.
    """
    ids = values.get("identifiers")
    ids = ids if isinstance(ids, Mapping) else {}
    basis = next(((k, str(ids[k])) for k in ID_KINDS if ids.get(k)), None)
    if basis is None:
        basis = ("url", str(values.get("url") or values.get("identifier") or values.get(coll.title_field) or ""))
        slug = "url-" + content_hexdigest(basis[1].encode("utf-8"), 5)
    else:
        slug = _slug(*basis)
    prefix = _prefix(corpus, coll)
    new = f"{prefix}-{slug}" if prefix else slug
    if not re.match(coll.id_pattern, new):
        raise UsageError(
            f"cannot name the exclusion: {new!r} does not match collections.{coll.name}.id_pattern "
            f"{coll.id_pattern!r} in taxonomy/survey.yaml; allow ids derived from the work, e.g. "
            f"'^{prefix}([0-9]{{3,}}|-[a-z0-9][a-z0-9-]{{2,79}})$'"
        )
    if new in corpus.by_id(coll.name):
        raise UsageError(f"{coll.folder}/{new}.yaml already holds this work ({basis[0]} {basis[1]})")
    return new


def _check(tax: Taxonomy, coll: Collection, rel: str, text: str) -> None:
    problems = check_record(tax, coll, rel, parse_yaml(text, rel))
    if problems:
        raise InvalidInput(problems, f"{rel} would be invalid; nothing written")


def _ordered(coll: Collection, values: Mapping[str, Any]) -> dict[str, Any]:
    return {n: values[n] for n in coll.field_names() if n in values and values[n] is not None}


def plan_exclusion(
    root: Path,
    corpus: Corpus,
    ref: str,
    tags: Mapping[str, Any],
    note: str,
    title: str | None = None,
    date: str | None = None,
    fetch: Callable[[str], ArxivPaper] | None = None,
    duplicate_of: str | None = None,
) -> Move:
    """Exclude a retained record (by key) or a new work (arXiv id, DOI, OpenReview or other URL).

    ``duplicate_of`` names the retained record this one duplicates: the likeness that would
    otherwise refuse the exclusion is the reason for it, and the exclusion says so (in the
    collection's field of type ``key_reasons``) so the pair is not reported again."""
    tax = corpus.taxonomy
    coll = _excluded(tax)
    kept: list[str] = []
    if duplicate_of is not None:
        tags, kept = _as_duplicate(corpus, coll, ref, tags, duplicate_of)
    _require_note_and_tags(tax, coll, note, tags)
    day = date or dt.date.today().isoformat()
    try:
        dt.date.fromisoformat(day)
    except ValueError:
        raise UsageError(f"--date {day!r} is not an ISO date (YYYY-MM-DD)") from None
    retained = corpus.by_id(tax.retained.name)
    values: dict[str, Any] = {"date_screened": day, "note": note.strip()}
    if tax.editions is not None:  # a decision of the living list, made on the screening day
        values[tax.editions.field] = tax.editions.living.id
        values[tax.editions.added_field] = day
    values.update(tags)
    remove: tuple[str, ...] = ()
    moved_from: str | None
    if ref in retained:
        rec = retained[ref]
        _refuse_loss(coll, rec)
        values.update(_from_record(tax, rec))
        if title:
            values[coll.title_field] = title
        refuse_duplicates(corpus, values, ref, ignore=[rec.path, *kept])
        remove = (rec.path,)
        moved_from = rec.path
    else:
        _describe_new_work(corpus, coll, values, ref, title, fetch, kept)
        moved_from = None
    exclusion_id = new_id(corpus, coll, values)
    values[coll.id_field] = exclusion_id
    rel = f"{coll.folder}/{exclusion_id}.yaml"
    message = f"moved {moved_from} to {rel}" if moved_from else f"wrote {rel}"
    record = _ordered(coll, values)
    text = dump_yaml(record)
    _check(tax, coll, rel, text)
    dropped = _drop_declarations(root, corpus, ref if remove else "")
    return Move(((rel, text),), remove, message, tuple(dropped))


def _as_duplicate(
    corpus: Corpus, coll: Collection, ref: str, tags: Mapping[str, Any], duplicate_of: str
) -> tuple[Mapping[str, Any], list[str]]:
    """The tags with the declaration that ``ref`` duplicates ``duplicate_of``, and the record
    files the duplicate checks must then ignore (the one it duplicates)."""
    tax = corpus.taxonomy
    other = corpus.by_id(tax.retained.name).get(duplicate_of)
    if other is None or duplicate_of == ref:
        raise UsageError(f"--duplicate-of {duplicate_of!r}: not another retained record's key")
    field = next((f.name for f in coll.fields if f.type == "key_reasons"), None)
    if field is None:
        raise UsageError(
            f"the {coll.label.lower()} declares no field of type key_reasons to hold "
            f"'duplicate of {duplicate_of}'"
        )
    return {**tags, field: {duplicate_of: f"duplicate of {duplicate_of}"}}, [other.path]


def _require_note_and_tags(
    tax: Taxonomy, coll: Collection, note: str, tags: Mapping[str, Any]
) -> None:
    if not note.strip():
        raise UsageError("--note is required: say in your own words why the work is excluded")
    missing = [c for c in coll.controlled if c.required and c.name not in tags]
    if missing:
        flags = flag_names(tax, coll)
        # The shortest option that sets each field is the one contributors know.
        names = [min((f for f, c in flags.items() if c.name == m.name), key=len) for m in missing]
        raise UsageError(
            f"missing {', '.join('--' + n for n in names)}: every exclusion needs "
            f"its {', '.join(m.noun for m in missing)}"
        )


def _describe_new_work(
    corpus: Corpus,
    coll: Collection,
    values: dict[str, Any],
    ref: str,
    title: str | None,
    fetch: Callable[[str], ArxivPaper] | None,
    kept: list[str],
) -> None:
    """Fill ``values`` with what the reference says of a work not in the list, and its title."""
    values.update(_from_reference(ref))
    arxiv_id = normalize_arxiv(ref)
    # Known already? Say so before asking arXiv for a title.
    refuse_duplicates(corpus, values, ref, ignore=kept)
    if title:
        values[coll.title_field] = title
    elif arxiv_id and fetch is not None:
        values[coll.title_field] = fetch(arxiv_id).title
    else:
        raise UsageError(f"--title is required for {ref!r} (only arXiv titles are looked up)")
    # Again with the title: a work known by its title under another identifier.
    refuse_duplicates(corpus, values, ref, ignore=kept)


def _drop_declarations(root: Path, corpus: Corpus, key: str) -> list[tuple[str, str]]:
    """Retained records that declare ``key`` distinct from them (``not_duplicate_of``) lose that
    line when ``key`` leaves the list: it would name a record that is no longer there."""
    if not key:
        return []
    tax = corpus.taxonomy
    fields = [f.name for f in tax.retained.fields if f.type == "key_reasons"]
    out = []
    for rec in corpus.of(tax.retained.name):
        if rec.id == key or not any(isinstance(rec.data.get(f), dict) and key in rec.data[f] for f in fields):
            continue
        y = round_trip_yaml()
        data = y.load((root / rec.path).read_text(encoding="utf-8"))  # comments and order kept
        for f in fields:
            if hasattr(data.get(f), "pop") and key in data[f]:
                data[f].pop(key)
                if not data[f]:
                    del data[f]
        buf = io.StringIO()
        y.dump(data, buf)
        out.append((rec.path, buf.getvalue()))
    return out


def _refuse_loss(coll: Collection, rec: Record) -> None:
    """Moving ``rec`` must keep all of it: refuse, naming what would be lost, when the
    exclusion collection has no field to hold the retained record."""
    if FORMER_FIELD in {f.name for f in coll.fields}:
        return
    held = {f.name for f in coll.fields} | {c.name for c in coll.controlled}
    lost = [k for k in rec.data if k not in held]
    raise UsageError(
        f"cannot move {rec.path} to the {coll.label.lower()}: the collection {coll.name!r} declares "
        f"no {FORMER_FIELD!r} field, so the record's "
        f"{', '.join(lost) if lost else 'fields'} would be lost and --restore could not bring it back. "
        f"Add `{FORMER_FIELD}: {{type: object}}` to collections.{coll.name}.fields in "
        f"taxonomy/survey.yaml, or exclude it by identifier after removing the record by hand"
    )


def _from_record(tax: Taxonomy, rec: Record) -> dict[str, Any]:
    data = dict(rec.data)
    raw_ids = data.get("identifiers")
    ids: dict[str, Any] = dict(raw_ids) if isinstance(raw_ids, dict) else {}
    links = data.get("links") or []
    url = links[0] if links else ""
    if ids.get("arxiv"):
        ident = f"arXiv:{ids['arxiv']}"
    elif ids.get("openreview"):
        ident = f"OpenReview:{ids['openreview']}"
    elif ids.get("doi"):
        ident = f"DOI:{ids['doi']}"
    else:
        ident = url
    return {
        tax.excluded.title_field if tax.excluded else "title": rec.title,
        "identifier": ident,
        "identifiers": dict(ids) or None,
        "url": url,
        FORMER_FIELD: data,
    }


def _from_reference(ref: str) -> dict[str, Any]:
    arxiv_id = normalize_arxiv(ref)
    if arxiv_id:
        return {"identifier": f"arXiv:{arxiv_id}", "identifiers": {"arxiv": arxiv_id},
                "url": f"https://arxiv.org/abs/{arxiv_id}"}
    doi = normalize_doi(ref)
    if doi:
        return {"identifier": f"DOI:{doi}", "identifiers": {"doi": doi},
                "url": f"https://doi.org/{doi}"}
    if re.match(r"^https?://", ref):
        ids = ids_from_url(ref)
        if "openreview" in ids:
            return {"identifier": f"OpenReview:{ids['openreview']}", "identifiers": ids, "url": ref}
        return {"identifier": ref, "identifiers": ids or None, "url": ref}
    raise UsageError(
        f"{ref!r} is neither a retained record's key nor an arXiv id, DOI or URL"
    )


def plan_restore(root: Path, corpus: Corpus, exclusion_id: str) -> Move:
    """Move an exclusion that holds a former retained record back to the corpus."""
    tax = corpus.taxonomy
    coll = _excluded(tax)
    ex = corpus.by_id(coll.name).get(exclusion_id)
    if ex is None:
        raise UsageError(f"no exclusion {exclusion_id} in {coll.folder}/")
    former = ex.get(FORMER_FIELD)
    if not isinstance(former, dict):
        raise UsageError(f"{ex.path} was never a retained record; there is nothing to restore")
    key = str(former.get(tax.retained.id_field, ""))
    rel = f"{tax.retained.folder}/{key}.yaml"
    if (root / rel).exists():
        raise UsageError(f"cannot restore {ex.path}: {rel} already exists")
    refuse_duplicates(corpus, former, key, ignore=[ex.path])
    text = dump_yaml(former)
    _check(tax, tax.retained, rel, text)
    return Move(((rel, text),), (ex.path,), f"moved {ex.path} back to {rel}")


def apply(root: Path, move: Move) -> None:
    for rel, _ in move.write:
        if (root / rel).exists():
            raise SurveyError(f"{rel} appeared meanwhile; nothing written")
    for rel, text in (*move.write, *move.rewrite):
        atomic_write(root / rel, text)
    for rel in move.remove:
        (root / rel).unlink()


@dataclass(frozen=True)
class ExcludeRequest:
    """What ``survey exclude`` was asked: the work (a key, id or URL) and tag options as typed."""

    words: tuple[str, ...]
    note: str = ""
    title: str | None = None
    date: str | None = None
    restore: bool = False
    dry_run: bool = False
    arxiv_url: str | None = None
    duplicate_of: str | None = None


def exclude(root: Path, request: ExcludeRequest) -> Move:
    """``survey exclude``: a retained record moved to the exclusion log, a new work appended to
    it (its title looked up on arXiv unless given), or, with ``restore``, an exclusion moved back;
    applied unless a dry run. The move is returned either way."""
    tax = load_taxonomy(root)
    coll = tax.excluded
    if coll is None:
        raise UsageError("this survey has no exclusion log")
    tags, refs = parse_field_options(tax, coll, list(request.words))
    if len(refs) != 1:
        raise UsageError(f"give exactly one id or URL (got {len(refs)})")
    corpus = load_corpus(root, tax)
    if corpus.problems:
        raise UsageError("the corpus has invalid records; run survey validate and fix them first")
    if request.restore:
        if tags or request.note or request.title:
            raise UsageError("--restore takes only the exclusion's id")
        move = plan_restore(root, corpus, refs[0])
    else:
        fetch = None if request.title else ArxivClient(ClientConfig.from_env(request.arxiv_url)).fetch
        move = plan_exclusion(
            root, corpus, refs[0], tags, request.note, request.title, request.date, fetch, request.duplicate_of
        )
    if not request.dry_run:
        apply(root, move)
    return move
