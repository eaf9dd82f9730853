"""The taxonomy: every controlled field, its values, labels and order, read from ``taxonomy/``.

Nothing about a particular survey lives in the code: another survey reuses the toolkit by
writing its own ``taxonomy/survey.yaml`` and ``taxonomy/fields/*.yaml``.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from survey_tools.corpus.configs import (
    ConfigFiles,
    checked,
    config_path,
    config_schemas,
    data_config_paths,
    with_defaults,
)
from survey_tools.corpus.yamlio import MAX_FILE_BYTES, YamlDocument, read_yaml_file
from survey_tools.errors import InvalidInput, Problem
from survey_tools.hashing import content_digest, content_hasher, hex_of
from survey_tools.schema_words import hint
from survey_tools.slugs import slug

KINDS = ("single", "multi", "mapping")
PLAIN_TYPES = (
    "string",
    "text",
    "integer",
    "year",
    "boolean",
    "date",
    "url",
    "string_list",
    "person_list",  # names as 'Last, First' (organisation authors when the record says so)
    "url_list",
    "identifiers",
    "evidence",
    "object",
    "edition",  # the edition a record entered in: a published edition's id or the living list's
    "key_reasons",  # {record key: reason}, e.g. declared non-duplicates
    "waivers",  # {check name: reason}: a record's own, explained exception to one check
)

# The record checks a record may waive, with a reason, through a field of type ``waivers``.
WAIVABLE_CHECKS = ("year_fits_arxiv",)


@dataclass(frozen=True)
class Value:
    id: str
    label: str
    description: str
    order: int
    name: str = ""  # a short name beside the id (O1 -> spawn)
    members: tuple[str, ...] = ()  # for group values: the field values they gather
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Group:
    """A grouping of a field's values (reward types into reward families)."""

    name: str
    label: str
    noun: str
    values: tuple[Value, ...]

    def of(self, value_id: str) -> str | None:
        for g in self.values:
            if value_id in g.members:
                return g.id
        return None


@dataclass(frozen=True)
class ControlledField:
    name: str
    collection: str
    label: str
    noun: str
    description: str
    required: bool
    kind: str
    not_applicable: bool
    values: tuple[Value, ...]
    modes: tuple[Value, ...] = ()
    group: Group | None = None
    ordered: bool = False
    source: str = ""
    # Required only for records whose other controlled fields have one of these values
    # ({category: [rl_method, framework]}): ``untagged`` is refused there.
    required_when: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # A mapping that places readings (where each tag was read): each entry names its place with
    # one of these words, or a code file at a commit (corpus/checks._placement_problems).
    where_words: tuple[str, ...] = ()

    @cached_property
    def ids(self) -> tuple[str, ...]:
        return tuple(v.id for v in self.values)

    @cached_property
    def mode_ids(self) -> tuple[str, ...]:
        return tuple(m.id for m in self.modes)

    def value(self, value_id: str) -> Value | None:
        for v in self.values:
            if v.id == value_id:
                return v
        return None

    def label_of(self, value_id: str) -> str:
        v = self.value(value_id)
        return v.label if v else value_id


@dataclass(frozen=True)
class PlainField:
    name: str
    type: str
    required: bool
    label: str
    description: str
    min_length: int | None = None  # characters, for string and text fields
    max_length: int | None = None
    # person_list: the boolean field by which a record says its names are organisations.
    organisation_field: str = ""
    default: Any = None  # what `survey add` writes when its source has no value
    private: bool = False  # kept in the records, left out of every output
    # year: the earliest plausible year, and earlier ones allowed by a controlled field's value
    # ((field, value, year), ...): a work with no arXiv id has nothing else to check its year by.
    earliest: int | None = None
    earliest_by: tuple[tuple[str, str, int], ...] = ()


@dataclass(frozen=True)
class Edition:
    """A snapshot of the list: a published edition of the survey, or the living list."""

    id: str
    label: str
    title: str = ""
    url: str = ""
    cutoff: str = ""  # ISO date: the last day records of this edition were screened
    description: str = ""


@dataclass(frozen=True)
class Editions:
    """The survey's published editions (oldest first) and the living list after them.

    Every record names the edition it entered in (``field``); a record of the living list also
    says when it was added (``added_field``).
    """

    field: str
    added_field: str
    living: Edition
    published: tuple[Edition, ...]

    @property
    def ids(self) -> tuple[str, ...]:
        return (*(e.id for e in self.published), self.living.id)

    @property
    def latest(self) -> Edition | None:
        return self.published[-1] if self.published else None

    def get(self, view: str) -> Edition | None:
        for e in (*self.published, self.living):
            if e.id == view:
                return e
        return None

    def up_to(self, view: str) -> tuple[str, ...]:
        """The edition ids whose records a view holds: every edition up to ``view`` included."""
        ids = self.ids
        return ids[: ids.index(view) + 1] if view in ids else ()


@dataclass(frozen=True)
class Collection:
    name: str
    label: str
    folder: str
    id_field: str
    id_pattern: str
    title_field: str
    fields: tuple[PlainField, ...]
    controlled: tuple[ControlledField, ...]

    def field_names(self) -> list[str]:
        return [f.name for f in self.fields] + [c.name for c in self.controlled]

    def controlled_field(self, name: str) -> ControlledField | None:
        for c in self.controlled:
            if c.name == name:
                return c
        return None


@dataclass(frozen=True)
class IdentifierKind:
    name: str
    label: str
    normalize: str
    pattern: str
    # Where the identifier resolves ("https://doi.org/{id}"); `survey links` checks it.
    url: str | None = None


@dataclass(frozen=True)
class Taxonomy:
    root: Path
    survey: Mapping[str, Any]
    na: str
    untagged: str
    files: Mapping[str, str]
    collections: Mapping[str, Collection]
    identifiers: Mapping[str, IdentifierKind]
    csv_layout: Mapping[str, Any]
    digest: str  # changes whenever any taxonomy file changes (cache key)
    editions: Editions | None = None
    # Words and marks refused in prose (text) fields: a record is not done while they remain.
    placeholders: tuple[str, ...] = ()
    outputs: tuple[str, ...] | None = None  # survey.yaml `outputs:`; None builds every output
    # Every configuration file, parsed once by load_taxonomy (see ConfigFiles).
    configs: ConfigFiles | None = field(default=None, compare=False, repr=False)

    def document(self, rel: str) -> YamlDocument | None:
        """The parsed configuration file ``rel`` (None when the survey has none)."""
        return (self.configs or ConfigFiles(self.root)).document(rel)

    def text(self, rel: str) -> str | None:
        """The survey's own text file ``rel`` (``TEXT_FOLDERS``, the order file), as the load read
        it; None when the survey has none. Renderers take text from here, never from the disk."""
        return self.configs.text(rel) if self.configs else None

    def texts_under(self, folder: str) -> dict[str, str]:
        """The survey's own text files under ``folder`` (one of ``TEXT_FOLDERS``), by path
        relative to it, in path order."""
        return self.configs.texts_under(folder) if self.configs else {}

    def has_file(self, rel: str) -> bool:
        """Whether the survey has ``rel`` (one of ``PRESENCE_FILES``), as the load found it."""
        return self.configs is not None and rel in self.configs.present

    def data_file(self, key: str) -> str:
        """Where the survey keeps the data file ``files.<key>`` of survey.yaml (its default, from
        survey.schema.yaml, when survey.yaml does not say)."""
        return str(self.files[key])

    def has_config(self, name: str) -> bool:
        """Whether the survey has the configuration file of schema ``name`` (claims, corrections,
        protocol, ...), where ``files:`` puts it; known from the load, so a renderer never looks
        at the disk."""
        return self.document(config_path(name, self.files)) is not None

    def collection(self, name: str) -> Collection:
        return self.collections[name]

    def field(self, name: str) -> ControlledField:
        for coll in self.collections.values():
            c = coll.controlled_field(name)
            if c is not None:
                return c
        raise KeyError(name)

    def find_field(self, name: str) -> ControlledField | None:
        try:
            return self.field(name)
        except KeyError:
            return None

    @property
    def retained(self) -> Collection:
        return next(iter(self.collections.values()))

    @property
    def excluded(self) -> Collection | None:
        colls = list(self.collections.values())
        return colls[1] if len(colls) > 1 else None

    def group(self, name: str) -> tuple[ControlledField, Group] | None:
        """Find a value grouping by its name (``reward_family``)."""
        for coll in self.collections.values():
            for c in coll.controlled:
                if c.group is not None and c.group.name == name:
                    return c, c.group
        return None


class TaxonomyError(InvalidInput):
    pass


# The exclusion-collection field that holds a retained record moved to the exclusion log.
FORMER_FIELD = "retained_record"
SURVEY_FILE = "taxonomy/survey.yaml"
CSV_FILE = "taxonomy/csv.yaml"
COMMANDS_FILE = "taxonomy/commands.yaml"
_CSV_KEYS = ("na", "list_separator")


def _check_collection(doc: YamlDocument, cpath: tuple[Any, ...], c: Mapping[str, Any],
                      plain: list[PlainField], controlled: list[ControlledField]) -> list[Problem]:
    """What the schema cannot see in one collection: its regex compiles, its id and title
    fields are declared, and no name is both a plain and a controlled field."""
    out: list[Problem] = []
    rel = "taxonomy/survey.yaml"
    names = [f.name for f in plain]
    try:
        re.compile(str(c["id_pattern"]))
    except re.error as err:
        line, col = doc.position((*cpath, "id_pattern"))
        out.append(Problem(rel, line, col, f"{cpath[1]}.id_pattern", f"not a regular expression: {err}"))
    for key in ("id_field", "title_field"):
        value = str(c[key])
        if value not in names:
            line, col = doc.position((*cpath, key) if key in c else cpath)
            out.append(Problem(rel, line, col, f"collections.{cpath[1]}.{key}",
                               f"{value!r} is not one of the collection's fields" + hint(value, names)))
    for cf in controlled:
        if cf.name in names:
            line, col = doc.position((*cpath, "fields", cf.name), key=True)
            out.append(Problem(rel, line, col, f"collections.{cpath[1]}.fields.{cf.name}",
                               "is also a controlled field; keep one of the two"))
    return out


def _check_csv_layout(doc: YamlDocument, collections: Mapping[str, Collection]) -> list[Problem]:
    """What the schema cannot see: layouts name collections, columns name their fields."""
    out: list[Problem] = []
    for name, lay in doc.data.items():
        if name in _CSV_KEYS:
            continue
        coll = collections.get(str(name))
        if coll is None:
            line, col = doc.position((name,), key=True)
            known = [*collections, *_CSV_KEYS]
            out.append(Problem(CSV_FILE, line, col, str(name),
                               "not a collection of taxonomy/survey.yaml" + hint(str(name), known)))
            continue
        names = coll.field_names()
        seen: set[str] = set()
        for i, c in enumerate(lay["columns"]):
            line, col = doc.position((name, "columns", i))
            if c["column"] in seen:
                out.append(Problem(CSV_FILE, line, col, f"{name}.columns.{i}.column",
                                   f"column {c['column']!r} appears twice"))
            seen.add(c["column"])
            if c.get("ignore"):
                continue
            if "field" not in c:
                out.append(Problem(CSV_FILE, line, col, f"{name}.columns.{i}",
                                   "needs a field, or ignore: true"))
                continue
            head = str(c["field"]).split(".")[0]
            if head not in names:
                fl, fc = doc.position((name, "columns", i, "field"))
                out.append(Problem(CSV_FILE, fl, fc, f"{name}.columns.{i}.field",
                                   f"{c['field']!r} is not a field of {name}" + hint(head, names)))
                continue
            cf = coll.controlled_field(head)
            for csv_value, vid in (c.get("values") or {}).items():
                if cf is not None and str(vid) not in cf.ids:
                    vl, vc = doc.position((name, "columns", i, "values", csv_value))
                    out.append(Problem(CSV_FILE, vl, vc, f"{name}.columns.{i}.values.{csv_value}",
                                       f"{vid!r} is not a {cf.noun}" + hint(str(vid), cf.ids)))
    return out


def _check_commands(doc: YamlDocument, collections: Mapping[str, Collection]) -> list[Problem]:
    data = doc.data if isinstance(doc.data, dict) else {}
    controlled = {c.name for coll in collections.values() for c in coll.controlled}
    out: list[Problem] = []
    for flag, fname in (data.get("flags") or {}).items():
        if fname not in controlled:
            line, col = doc.position(("flags", flag))
            out.append(Problem(COMMANDS_FILE, line, col, f"flags.{flag}",
                               f"{fname!r} is not a controlled field" + hint(fname, controlled)))
    for i, rule in enumerate((data.get("bibtex") or {}).get("entry_types") or []):
        try:
            re.compile(rule["venue"])
        except re.error as err:
            line, col = doc.position(("bibtex", "entry_types", i, "venue"))
            out.append(Problem(COMMANDS_FILE, line, col, f"bibtex.entry_types.{i}.venue",
                               f"not a regular expression: {err}"))
    add = data.get("add") or {}
    if add.get("key") == "template" and not add.get("key_template"):
        line, col = doc.position(("add", "key"))
        out.append(Problem(COMMANDS_FILE, line, col, "add.key_template",
                           "required when add.key is template"))
    return out


def _req(
    data: Mapping[str, Any],
    key: str,
    where: str,
    problems: list[Problem],
    doc: YamlDocument,
    path: tuple[Any, ...],
) -> Any:
    if key not in data:
        line, col = doc.position(path)
        problems.append(Problem(where, line, col, key, "required key is missing"))
        return None
    return data[key]


def _values(
    raw: Any, where: str, doc: YamlDocument, path: tuple[Any, ...], problems: list[Problem]
) -> tuple[Value, ...]:
    if not isinstance(raw, list) or not raw:
        line, col = doc.position(path)
        problems.append(
            Problem(
                where, line, col, ".".join(map(str, path)), "must be a non-empty list of values"
            )
        )
        return ()
    out: list[Value] = []
    seen: set[str] = set()
    pages: dict[str, str] = {}  # page name -> the first value id that has it
    for i, v in enumerate(raw):
        p = (*path, i)
        line, col = doc.position(p)
        if not isinstance(v, dict) or "id" not in v:
            problems.append(
                Problem(where, line, col, ".".join(map(str, p)), "a value needs at least an id")
            )
            continue
        vid = str(v["id"])
        if vid in seen:
            problems.append(
                Problem(where, line, col, ".".join(map(str, p)), f"duplicate value id {vid!r}")
            )
        elif (page := slug(vid)) in pages:
            # the site names a value's tag page by its slug: one page would replace the other
            problems.append(Problem(
                where, line, col, ".".join(map(str, (*p, "id"))),
                f"value ids {pages[page]!r} and {vid!r} both become the page name {page!r} "
                f"(tags/.../{page}.html): one page would replace the other; rename one",
            ))
        else:
            pages[page] = vid
        seen.add(vid)
        order = v.get("order", i + 1)
        if isinstance(order, bool) or not isinstance(order, int):
            problems.append(
                Problem(where, line, col, ".".join(map(str, (*p, "order"))), "must be a whole number")
            )
            order = i + 1
        for k in ("label", "description"):
            if not isinstance(v.get(k, ""), str) or (k == "label" and not v.get(k)):
                problems.append(
                    Problem(
                        where, line, col, ".".join(map(str, (*p, k))), "must be a non-empty string"
                    )
                )
        members = v.get("members", [])
        extra = {
            k: x
            for k, x in v.items()
            if k not in {"id", "label", "description", "order", "name", "members"}
        }
        out.append(
            Value(
                id=vid,
                label=str(v.get("label", vid)),
                description=str(v.get("description", "")),
                order=order,
                name=str(v.get("name", "")),
                members=tuple(str(m) for m in members) if isinstance(members, list) else (),
                extra=extra,
            )
        )
    return tuple(sorted(out, key=lambda x: x.order))


def _load_field(doc: YamlDocument, rel: str, problems: list[Problem]) -> ControlledField | None:
    doc, found = checked("field", doc, rel)
    if found:  # the schema names every shape mistake; the rest below needs the right shapes
        problems.extend(found)
        return None
    d = doc.data
    before = len(problems)
    name = _req(d, "name", rel, problems, doc, ())
    kind = d.get("kind", "single")
    if kind not in KINDS:
        line, col = doc.position(("kind",))
        problems.append(
            Problem(rel, line, col, "kind", f"{kind!r} is not one of {', '.join(KINDS)}")
        )
    values = _values(d.get("values"), rel, doc, ("values",), problems)
    modes = _values(d.get("modes"), rel, doc, ("modes",), problems) if kind == "mapping" else ()
    group = None
    if isinstance(d.get("groups"), dict):
        g = d["groups"]
        gvalues = _values(g.get("values"), rel, doc, ("groups", "values"), problems)
        ids = {v.id for v in values}
        for i, gv in enumerate(gvalues):
            for m in gv.members:
                if m not in ids:
                    line, col = doc.position(("groups", "values", i, "members"))
                    problems.append(
                        Problem(rel, line, col, "groups", f"member {m!r} is not a value of {name}")
                    )
        group = Group(
            name=str(g.get("name", f"{name}_group")),
            label=str(g.get("label", "")),
            noun=str(g.get("noun") or str(g.get("label", "")).lower()),
            values=gvalues,
        )
    required_when: dict[str, tuple[str, ...]] = {}
    raw_when = d.get("required_when")
    if raw_when is not None:
        if not isinstance(raw_when, dict) or not raw_when:
            line, col = doc.position(("required_when",))
            problems.append(
                Problem(rel, line, col, "required_when", "must map a controlled field to a list of its values")
            )
        else:
            for k, vals in raw_when.items():
                vs = vals if isinstance(vals, list) else [vals]
                required_when[str(k)] = tuple(str(v) for v in vs)
    if len(problems) > before:
        return None
    stem = Path(rel).stem
    if stem != name:
        problems.append(
            Problem(rel, 1, 1, "name", f"{name!r} does not match the file name {stem!r}")
        )
        return None
    return ControlledField(
        name=str(name),
        collection=str(d.get("collection", "")),
        label=str(d.get("label", name)),
        noun=str(d.get("noun") or str(d.get("label", name)).lower()),
        description=str(d.get("description", "")),
        required=bool(d.get("required", False)),
        kind=str(kind),
        not_applicable=bool(d.get("not_applicable", False)),
        values=values,
        modes=modes,
        group=group,
        ordered=bool(d.get("ordered", False)),
        source=rel,
        required_when=required_when,
        where_words=tuple(str(w) for w in d.get("where_words") or ()) if kind == "mapping" else (),
    )


# The survey's own text the outputs draw on, read with the configuration (renderers never open a
# file): folder -> the files of it that are read. README_PARTS: intro.md (the opening paragraph),
# footer.md (after the last section) and any other *.md (a section each); CONTRIBUTING_PARTS:
# sections replacing the generic ones of the same name; TEMPLATE_OVERRIDES: templates replacing
# the package's of the same path (readme/partials/papers.md.j2, ...).
README_PARTS = "taxonomy/readme"
CONTRIBUTING_PARTS = "taxonomy/contributing"
TEMPLATE_OVERRIDES = "taxonomy/templates"
TEXT_FOLDERS = {README_PARTS: "*.md", CONTRIBUTING_PARTS: "*.md", TEMPLATE_OVERRIDES: "**/*.j2"}
# Files the outputs mention only when the survey has them: the trace format's documentation
# (README) and the survey's own script of a pull request's checks (CONTRIBUTING).
PRESENCE_FILES = ("docs/traces.md", "tools/ci.sh")


def order_file(csv_layout: Mapping[str, Any], collection: str) -> str:
    """Where `survey import` keeps the imported list's order of ``collection`` (entry_order: source)."""
    raw = csv_layout.get(collection)
    return str(raw.get("order", f"data/csv/{collection}.order.csv")) if isinstance(raw, dict) else ""


class _ConfigReader:
    """Opens each configuration file once and keeps the parsed documents (``documents``), with
    two digests: ``hasher`` of the taxonomy files (the records' parse cache key) and ``every`` of
    every configuration file, data ones too (the incremental build's key)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.documents: dict[str, YamlDocument | None] = {}
        self.hasher = content_hasher()
        self.every = content_hasher()
        self.texts: dict[str, str] = {}
        self.present: set[str] = set()

    def read(self, rel: str, hashed: bool = True) -> YamlDocument | None:
        path = self.root / rel
        self.every.update(rel.encode() + b"\0")
        if not path.is_file():
            self.documents[rel] = None
            return None
        raw, parsed = read_yaml_file(path, rel)
        self.every.update(content_digest(raw, 16))
        if hashed:
            self.hasher.update(raw)
        self.documents[rel] = parsed
        return parsed

    def read_texts(self, problems: list[Problem]) -> None:
        """The survey's own text files (``TEXT_FOLDERS``) and which ``PRESENCE_FILES`` exist."""
        for folder, pattern in TEXT_FOLDERS.items():
            base = self.root / folder
            for path in sorted(base.glob(pattern)) if base.is_dir() else []:
                if path.is_file():
                    self.read_text(path.relative_to(self.root).as_posix(), problems)
        for rel in PRESENCE_FILES:
            there = (self.root / rel).is_file()
            self.every.update(rel.encode() + (b"\1" if there else b"\0"))
            if there:
                self.present.add(rel)

    def read_text(self, rel: str, problems: list[Problem]) -> None:
        path = self.root / rel
        self.every.update(rel.encode() + b"\0")
        if not path.is_file():
            return
        try:
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                problems.append(Problem(rel, 1, 1, "", f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}"))
                return
            raw = path.read_bytes()
            self.texts[rel] = raw.decode("utf-8")
        except OSError as err:
            problems.append(Problem(rel, 0, 0, "", f"cannot read: {err.strerror or err}"))
            return
        except UnicodeDecodeError as err:
            problems.append(Problem(rel, 1, 1, "", f"not UTF-8 text ({err.reason} at byte {err.start})"))
            return
        self.every.update(content_digest(raw, 16))


def load_taxonomy(root: Path | str) -> Taxonomy:
    """Read ``root/taxonomy``; raise :class:`TaxonomyError` listing every problem found."""
    root = Path(root)
    if not (root / SURVEY_FILE).is_file():
        raise TaxonomyError(
            [Problem("taxonomy/survey.yaml", 0, 0, "", "missing: is --root a survey folder?")],
            f"no taxonomy found under {root}",
        )
    problems: list[Problem] = []
    reader = _ConfigReader(root)  # each configuration file is opened here once
    survey_doc = reader.read(SURVEY_FILE)
    assert survey_doc is not None  # checked above
    doc, found = checked("survey", survey_doc, SURVEY_FILE)
    if found:  # shapes first: the code below may then trust every type the schema promises
        raise TaxonomyError(found, "the taxonomy is invalid")
    d = doc.data if isinstance(doc.data, dict) else {}
    # The schema guarantees every shape below (collections a non-empty mapping, field types
    # from PLAIN_TYPES, whole-number bounds, identifiers and placeholders well formed) and its
    # defaults are filled in here, so that no default is written twice; this function checks
    # only what a schema cannot: files named by survey.yaml, regexes, cross-references.
    filled = with_defaults(config_schemas()["survey"].schema, d)
    collections = _collections(filled, doc, reader, problems)
    idents = _identifiers(filled, doc, problems)
    csv_layout = _csv_layout(reader, collections, problems)
    _commands(reader, collections, problems)
    # The data configuration files and the protocol are read here too (not part of the digest,
    # which keys the records' parse cache): their own loaders check them against the taxonomy.
    for rel in data_config_paths(filled["files"]).values():
        reader.read(rel, hashed=False)
    reader.read_texts(problems)
    if collections:
        order = order_file(csv_layout, next(iter(collections)))
        if order:
            reader.read_text(order, problems)
    editions = _load_editions(d.get("editions"), doc, problems)
    problems.extend(_required_when_problems(collections, editions))
    if problems:
        raise TaxonomyError(problems, "the taxonomy is invalid")
    return Taxonomy(
        root=root,
        survey=filled["survey"],  # every documented key, at its default if unset
        na=str(filled["sentinels"]["not_applicable"]),
        untagged=str(filled["sentinels"]["untagged"]),
        files=filled["files"],  # each data file where the survey keeps it, else its default
        collections=collections,
        identifiers=idents,
        csv_layout=csv_layout,
        digest=hex_of(reader.hasher, 16),
        editions=editions,
        outputs=tuple(str(o) for o in d["outputs"]) if "outputs" in d else None,
        placeholders=tuple(str(x) for x in filled["placeholders"]),
        configs=ConfigFiles(root, reader.documents, hex_of(reader.every, 16), reader.texts,
                            frozenset(reader.present)),
    )


def _plain_fields(c: Mapping[str, Any]) -> list[PlainField]:
    out: list[PlainField] = []
    for fname, spec in (c.get("fields") or {}).items():
        spec = spec or {}
        out.append(
            PlainField(
                name=str(fname),
                type=str(spec.get("type", "string")),
                required=bool(spec.get("required", False)),
                label=str(spec.get("label", fname)),
                description=str(spec.get("description", "")),
                min_length=spec.get("min_length"),
                max_length=spec.get("max_length"),
                organisation_field=str(spec.get("organisation_field", "")),
                default=spec.get("default"),
                private=bool(spec.get("private", False)),
                earliest=spec.get("earliest"),
                earliest_by=tuple(
                    (str(cf), str(v), int(y))
                    for cf, by in (spec.get("earliest_by") or {}).items()
                    for v, y in (by or {}).items()
                ),
            )
        )
    return out


def _controlled_fields(
    cname: Any, c: Mapping[str, Any], doc: YamlDocument, reader: _ConfigReader,
    loaded: dict[str, ControlledField | None], problems: list[Problem],
) -> list[ControlledField]:
    """The collection's controlled fields, each file read once (``loaded``) across collections."""
    controlled: list[ControlledField] = []
    for i, fname in enumerate(c.get("controlled") or []):
        rel = f"taxonomy/fields/{fname}.yaml"
        if not (reader.root / rel).is_file():
            line, col = doc.position(("collections", cname, "controlled", i))
            problems.append(
                Problem(
                    "taxonomy/survey.yaml",
                    line,
                    col,
                    f"collections.{cname}.controlled",
                    f"no definition {rel} for field {fname!r}",
                )
            )
            continue
        if fname not in loaded:
            fdoc = reader.read(rel)
            assert fdoc is not None  # is_file() above
            loaded[fname] = _load_field(fdoc, rel, problems)
        cf = loaded[fname]
        if cf is not None:
            controlled.append(cf)
    return controlled


def _collections(
    filled: Mapping[str, Any], doc: YamlDocument, reader: _ConfigReader, problems: list[Problem]
) -> dict[str, Collection]:
    loaded: dict[str, ControlledField | None] = {}
    collections: dict[str, Collection] = {}
    for cname, c in filled["collections"].items():
        plain = _plain_fields(c)
        controlled = _controlled_fields(cname, c, doc, reader, loaded, problems)
        problems.extend(_check_collection(doc, ("collections", cname), c, plain, controlled))
        collections[str(cname)] = Collection(
            name=str(cname),
            label=str(c.get("label", cname)),
            folder=str(c.get("folder", cname)),
            id_field=str(c["id_field"]),
            id_pattern=str(c["id_pattern"]),
            title_field=str(c["title_field"]),
            fields=tuple(plain),
            controlled=tuple(controlled),
        )
    return collections


def _identifiers(filled: Mapping[str, Any], doc: YamlDocument, problems: list[Problem]) -> dict[str, IdentifierKind]:
    idents: dict[str, IdentifierKind] = {}
    for iname, spec in filled["identifiers"].items():
        try:
            re.compile(str(spec["pattern"]))
        except re.error as err:
            line, col = doc.position(("identifiers", iname, "pattern"))
            problems.append(Problem("taxonomy/survey.yaml", line, col,
                                    f"identifiers.{iname}.pattern", f"not a regular expression: {err}"))
            continue
        idents[str(iname)] = IdentifierKind(
            name=str(iname),
            label=str(spec.get("label", iname)),
            normalize=str(spec["normalize"]),
            pattern=str(spec["pattern"]),
            url=str(spec["url"]) if spec.get("url") else None,
        )
    return idents


def _csv_layout(reader: _ConfigReader, collections: Mapping[str, Collection], problems: list[Problem]) -> Mapping[str, Any]:
    """taxonomy/csv.yaml (empty when the survey has none), checked against the collections."""
    csv_raw = reader.read(CSV_FILE)
    if csv_raw is None:
        return {}
    cdoc, found = checked("csv", csv_raw, CSV_FILE)
    problems.extend(found)
    if found or not isinstance(cdoc.data, dict):
        return {}
    if not problems:  # a field that failed to load would be reported again here
        problems.extend(_check_csv_layout(cdoc, collections))
    return cdoc.data


def _commands(reader: _ConfigReader, collections: Mapping[str, Collection], problems: list[Problem]) -> None:
    """taxonomy/commands.yaml, checked against the collections (read later by commands_config)."""
    cmd_raw = reader.read(COMMANDS_FILE)
    if cmd_raw is None:
        return
    before = bool(problems)
    cmd_doc, found = checked("commands", cmd_raw, COMMANDS_FILE)
    problems.extend(found)
    if not found and not before:
        problems.extend(_check_commands(cmd_doc, collections))


def _required_when_problems(collections: Mapping[str, Collection], editions: Editions | None = None) -> list[Problem]:
    """``required_when`` names a controlled field of the same collection, and its values; or
    the editions' field and edition ids (``{edition: [living]}``: required of every record the
    living list adds, not of the closed editions' records)."""
    problems: list[Problem] = []
    for coll in collections.values():
        for cf in coll.controlled:
            for other, vals in cf.required_when.items():
                if editions is not None and other == editions.field and other in {f.name for f in coll.fields}:
                    bad_ids = [v for v in vals if v not in editions.ids]
                    if bad_ids:
                        problems.append(Problem(cf.source, 1, 1, "required_when", f"{bad_ids[0]!r} is not an edition of {other}"))
                    continue
                target = coll.controlled_field(other)
                bad = [v for v in vals if target is not None and v not in target.ids]
                if target is None or bad:
                    problems.append(
                        Problem(
                            cf.source, 1, 1, "required_when",
                            f"{other!r} is not a controlled field of {coll.name}" if target is None
                            else f"{bad[0]!r} is not a value of {other}",
                        )
                    )
    return problems


def _load_editions(raw: Any, doc: YamlDocument, problems: list[Problem]) -> Editions | None:
    """The ``editions:`` block of survey.yaml (absent: the survey has no editions)."""
    if raw is None:
        return None
    rel = "taxonomy/survey.yaml"

    def bad(path: tuple[Any, ...], msg: str) -> None:
        line, col = doc.position(path)
        problems.append(Problem(rel, line, col, ".".join(map(str, path)), msg))

    if not isinstance(raw, dict):
        bad(("editions",), "must be a mapping (field, added_field, living, published)")
        return None

    def edition(spec: Any, path: tuple[Any, ...]) -> Edition | None:
        if not isinstance(spec, dict) or not isinstance(spec.get("id"), str) or not spec["id"].strip():
            bad(path, "an edition needs an id (a string)")
            return None
        cutoff = spec.get("cutoff", "")
        if cutoff:
            try:
                datetime.date.fromisoformat(str(cutoff))
            except ValueError:
                bad((*path, "cutoff"), f"{cutoff!r} is not an ISO date (YYYY-MM-DD)")
        return Edition(
            id=str(spec["id"]),
            label=str(spec.get("label", spec["id"])),
            title=str(spec.get("title", "")),
            url=str(spec.get("url", "")),
            cutoff=str(cutoff),
            description=str(spec.get("description", "")),
        )

    living = edition(raw.get("living"), ("editions", "living"))
    published: list[Edition] = []
    raw_pub = raw.get("published") or []
    if not isinstance(raw_pub, list):
        bad(("editions", "published"), "must be a list of editions, oldest first")
        raw_pub = []
    seen: set[str] = {living.id} if living else set()
    for i, spec in enumerate(raw_pub):
        e = edition(spec, ("editions", "published", i))
        if e is None:
            continue
        if e.id in seen:
            bad(("editions", "published", i, "id"), f"duplicate edition id {e.id!r}")
        seen.add(e.id)
        published.append(e)
    if living is None:
        return None
    return Editions(
        field=str(raw.get("field", "edition")),
        added_field=str(raw.get("added_field", "added")),
        living=living,
        published=tuple(published),
    )


# --- JSON Schema generation -------------------------------------------------------------

def commands_config(tax: Taxonomy) -> Mapping[str, Any]:
    """``taxonomy/commands.yaml`` (command options and output settings) as a mapping; empty when
    the survey has none."""
    doc = tax.document(COMMANDS_FILE)
    if doc is None:
        return {}
    if doc.problems:
        raise InvalidInput(doc.problems, f"{COMMANDS_FILE} cannot be read")
    return doc.data if isinstance(doc.data, dict) else {}
