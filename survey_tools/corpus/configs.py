"""Schemas for every configuration file, and the checks and documentation built from them.

Each configuration file (``taxonomy/survey.yaml``, ``taxonomy/fields/*.yaml``,
``taxonomy/csv.yaml``, ``taxonomy/commands.yaml``, ``data/reports.yaml``, ...) has a JSON Schema
in ``config_schemas/<name>.schema.yaml`` beside this module. A new configuration file plugs in
by adding its schema there: ``x-file`` names its default path, ``x-files-key`` the key of
``survey.yaml``'s ``files:`` that may move it. Every mistake becomes one
``file:line:col: key: message (did you mean ...)`` problem through the same explainer as records;
``defaults`` fills in the documented defaults; ``reference`` lists every key for the reference
that ``render`` writes to ``taxonomy/README.md``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from survey_tools.corpus.schema_validator import SchemaValidator
from survey_tools.corpus.yamlio import YamlDocument, load_yaml_file, xml_illegal_problems
from survey_tools.errors import Problem
from survey_tools.net.hrefs import href_problem
from survey_tools.schema_words import explain_all, problems


@dataclass(frozen=True)
class ConfigSchema:
    name: str
    file: str  # default path relative to the survey folder (a glob for field files)
    files_key: str  # key of survey.yaml `files:` that relocates it ("" when fixed)
    order: int
    schema: Mapping[str, Any]


@cache
def config_schemas() -> dict[str, ConfigSchema]:
    """Every configuration schema shipped with the toolkit, by name, in documentation order."""
    out = []
    folder = resources.files("survey_tools.corpus").joinpath("config_schemas")
    for entry in folder.iterdir():
        if not entry.name.endswith(".schema.yaml"):
            continue
        # The toolkit's own files (tests/unit/config checks them against the meta-schema), read with
        # libyaml when PyYAML has it: they are parsed at every start of the CLI.
        schema = yaml.load(entry.read_text(encoding="utf-8"), Loader=_LOADER)
        out.append(ConfigSchema(
            name=entry.name.removesuffix(".schema.yaml"),
            file=str(schema.get("x-file", "")),
            files_key=str(schema.get("x-files-key", "")),
            order=int(schema.get("x-order", 100)),
            schema=schema,
        ))
    return {c.name: c for c in sorted(out, key=lambda c: (c.order, c.name))}


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@cache
def _validator(name: str) -> SchemaValidator:
    return SchemaValidator(config_schemas()[name].schema)


def check_document(name: str, doc: YamlDocument, rel: str) -> list[Problem]:
    """Every way ``doc`` breaks the schema ``name``, one problem each, in file order."""
    data = {} if doc.data is None else doc.data  # an empty file is an empty mapping
    if _validator(name).is_valid(data):
        return []
    said, _ = explain_all(_validator(name).iter_errors(data))
    return sorted(set(problems(said, rel, doc.position)))


def read_config(name: str, path: Path, rel: str) -> tuple[YamlDocument, list[Problem]]:
    """Parse ``path`` and check it against schema ``name``; problems include unreadable YAML."""
    return checked(name, load_yaml_file(path, rel), rel)


def checked(name: str, doc: YamlDocument, rel: str) -> tuple[YamlDocument, list[Problem]]:
    """``doc`` (already read) and its problems: unreadable YAML, else every schema mistake."""
    if doc.problems:
        return doc, list(doc.problems)
    problems = check_document(name, doc, rel) + xml_illegal_problems(doc, rel)
    schema = config_schemas()[name].schema
    return doc, problems + href_problems(schema, doc, rel)


def href_problems(schema: Mapping[str, Any], doc: YamlDocument, rel: str) -> list[Problem]:
    """Every value of ``doc`` that its schema marks ``x-href: true`` (it becomes a link on a
    page, in a feed, in CITATION.cff or README.md) and that is no public web address: the one
    href rule (net/hrefs.py), with the value's file and line. An empty value is unset."""
    out: list[Problem] = []
    stack: list[tuple[Mapping[str, Any], tuple[Any, ...], Any]] = [(schema, (), doc.data)]
    while stack:
        node, path, value = stack.pop()
        node = _resolve(node, schema)
        if node.get("x-href") and isinstance(value, str) and value:
            # An identifier kind's url is a template: `{id}` stands for the id.
            url = value.replace("{id}", "id")
            why = href_problem(url)
            if why:
                line, col = doc.position(path)
                out.append(Problem(rel, line, col, ".".join(map(str, path)), why.replace(repr(url), repr(value))))
        elif isinstance(value, dict):
            for keys in node.get("x-href-paths") or ():
                inner: Any = value
                for k in keys:
                    inner = inner.get(k) if isinstance(inner, dict) else None
                stack.append(({"x-href": True}, (*path, *keys), inner))
            props = node.get("properties") or {}
            extra = node.get("additionalProperties")
            for k, v in value.items():
                sub = props.get(k, extra if isinstance(extra, dict) else None)
                if isinstance(sub, dict):
                    stack.append((sub, (*path, k), v))
        elif isinstance(value, list) and isinstance(node.get("items"), dict):
            stack.extend((node["items"], (*path, i), v) for i, v in enumerate(value))
    return sorted(out)


@dataclass(frozen=True)
class ConfigFiles:
    """Every configuration file of one survey as read by ``load_taxonomy``: each file is opened
    once per load, and every later reader (report configuration, claims, corrections, protocol,
    command options, output checks) takes the parsed document from here."""

    root: Path
    # By path relative to the survey folder; None records a file looked for and absent.
    documents: Mapping[str, YamlDocument | None] = field(default_factory=dict)
    # Changes whenever any of these files changes (the incremental build's key).
    digest: str = ""
    # The survey's own text the outputs draw on (its Markdown for README.md and CONTRIBUTING.md,
    # template overrides, the imported list's order), by path: read here, so that a renderer
    # never opens a file.
    texts: Mapping[str, str] = field(default_factory=dict)
    # Files the outputs mention only when the survey has them (docs/traces.md, tools/ci.sh).
    present: frozenset[str] = frozenset()

    def text(self, rel: str) -> str | None:
        """The survey's text file ``rel`` as read by the load (None: absent or not looked for)."""
        return self.texts.get(rel)

    def texts_under(self, folder: str) -> dict[str, str]:
        """The text files read under ``folder``, by path relative to it, in path order."""
        prefix = folder.rstrip("/") + "/"
        return {rel.removeprefix(prefix): t for rel, t in sorted(self.texts.items()) if rel.startswith(prefix)}

    def document(self, rel: str) -> YamlDocument | None:
        """The parsed file ``rel`` (None when absent); a path the load did not look for (a
        hand-built taxonomy in a test, a file moved by ``files:``) is read now."""
        if rel in self.documents:
            return self.documents[rel]
        path = self.root / rel
        return load_yaml_file(path, rel) if path.is_file() else None


def config_path(name: str, files: Mapping[str, Any]) -> str:
    """Where the survey keeps the configuration file ``name`` (``files:`` may move it)."""
    c = config_schemas()[name]
    moved = files.get(c.files_key) if c.files_key else None
    return str(moved) if isinstance(moved, str) and moved else c.file


# Checked by the taxonomy loader itself (it cannot go on without them).
TAXONOMY_CONFIGS = frozenset({"survey", "field", "csv", "commands"})


def data_config_paths(files: Mapping[str, Any]) -> dict[str, str]:
    """Schema name -> where the survey keeps that data configuration file (reports, claims,
    corrections, ...): every configuration file the taxonomy loader does not check itself."""
    return {
        name: config_path(name, files)
        for name, c in config_schemas().items()
        if name not in TAXONOMY_CONFIGS and "*" not in c.file
    }


def data_config_problems(document: Callable[[str], YamlDocument | None], files: Mapping[str, Any]) -> list[Problem]:
    """Every schema problem in the survey's other configuration files (reports, claims,
    corrections, a protocol, ...) that exist; a missing optional file is no problem."""
    out: list[Problem] = []
    for name, rel in data_config_paths(files).items():
        doc = document(rel)
        if doc is not None:
            out.extend(checked(name, doc, rel)[1])
    return out


def _resolve(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target[part]
        return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def with_defaults(schema: Mapping[str, Any], data: Any, root: Mapping[str, Any] | None = None) -> Any:
    """``data`` with every documented default filled in where a key is missing (a deep copy).

    Each value is copied once, where the walk reaches it (copying every level before walking
    into it copied the deepest values once per level)."""
    root = root or schema
    schema = _resolve(schema, root)
    if not isinstance(data, dict):
        return copy.deepcopy(data)
    props = schema.get("properties") or {}
    extra = schema.get("additionalProperties")
    out: dict[Any, Any] = {}
    for key, value in data.items():
        if key in props:
            out[key] = with_defaults(props[key], value, root)
        elif isinstance(extra, dict):  # a mapping of named entries (collections, identifiers, ...)
            out[key] = with_defaults(extra, value, root)
        else:
            out[key] = copy.deepcopy(value)
    for key, sub in props.items():
        sub = _resolve(sub, root)
        if key not in out and "default" in sub:
            out[key] = with_defaults(sub, sub["default"], root)
    return out


def defaults(name: str, data: Any, *path: str) -> Any:
    """The part of config ``name`` at ``path`` (e.g. ``"survey", "readme"``) with its defaults."""
    c = config_schemas()[name]
    schema: Mapping[str, Any] = c.schema
    for p in path:
        schema = _resolve((schema.get("properties") or {}).get(p, {}), c.schema)
        data = data.get(p) if isinstance(data, dict) else None
        if data is None:
            data = copy.deepcopy(schema.get("default", {}))
    return with_defaults(schema, data, c.schema)


# --- documentation ---------------------------------------------------------------------------


def _type_of(s: Mapping[str, Any], root: Mapping[str, Any]) -> str:
    s = _resolve(s, root)
    if "enum" in s:
        return " \\| ".join(f"`{v}`" for v in s["enum"])
    for alternatives in ("anyOf", "oneOf"):  # e.g. `source`: a mapping or a list of them
        if alternatives in s:
            return " or ".join(dict.fromkeys(_type_of(x, root) for x in s[alternatives]))
    t = s.get("type")
    if isinstance(t, list):
        return " or ".join(str(x) for x in t)
    if t == "array":
        return f"list of {_type_of(s.get('items', {}), root)}"
    if t == "object":
        return "mapping"
    return str(t) if t else "any"


def _default_text(s: Mapping[str, Any]) -> str:
    if "default" not in s:
        return ""
    d = s["default"]
    if d == {} or d == []:
        return "empty"
    text = yaml.safe_dump(d, default_flow_style=True, allow_unicode=True).strip()
    text = text.removesuffix("...").strip()
    return f"`{text}`" if text else "`''`"


Row = tuple[str, str, str, str, str]
"""One key of a configuration file: key, type, required, default (Markdown cells) and meaning
(the schema's description, Markdown on several lines)."""


@dataclass(frozen=True)
class ConfigReference:
    """What ``taxonomy/README.md`` documents of one configuration file (rendered in ``render``)."""

    name: str  # the schema's name (Taxonomy.has_config)
    file: str
    description: str
    files_key: str  # "" when the file cannot be moved
    rows: tuple[Row, ...]


def _rows(schema: Mapping[str, Any], root: Mapping[str, Any], prefix: str, required: set[str],
          out: list[Row]) -> None:
    schema = _resolve(schema, root)
    for key, sub in (schema.get("properties") or {}).items():
        sub = _resolve(sub, root)
        name = f"{prefix}{key}"
        req = "yes" if key in required else ""
        out.append((f"`{name}`", _type_of(sub, root), req, _default_text(sub), str(sub.get("description", ""))))
        _children(sub, root, name, out)


def _children(sub: Mapping[str, Any], root: Mapping[str, Any], name: str, out: list[Row]) -> None:
    sub = _resolve(sub, root)
    if sub.get("type") == "object" or "properties" in sub:
        _rows(sub, root, name + ".", set(sub.get("required") or []), out)
        extra = sub.get("additionalProperties")
        if isinstance(extra, dict):
            extra = _resolve(extra, root)
            if extra.get("properties"):
                _rows(extra, root, f"{name}.<name>.", set(extra.get("required") or []), out)
    items = sub.get("items")
    if sub.get("type") == "array" and isinstance(items, dict):
        items = _resolve(items, root)
        if items.get("properties"):
            _rows(items, root, f"{name}[].", set(items.get("required") or []), out)


def reference() -> list[ConfigReference]:
    """Every key of every configuration file, with its type, default and meaning."""
    parts: list[ConfigReference] = []
    for c in config_schemas().values():
        s = c.schema
        rows: list[Row] = []
        _rows(s, s, "", set(s.get("required") or []), rows)
        extra = s.get("additionalProperties")
        if isinstance(extra, dict):
            _children({"type": "object", **_resolve(extra, s)}, s, "<name>", rows)
        parts.append(ConfigReference(c.name, c.file, str(s.get("description", "")), c.files_key, tuple(rows)))
    return parts


__all__ = ["ConfigFiles", "ConfigReference", "ConfigSchema", "check_document", "checked", "config_path", "config_schemas",
           "defaults", "data_config_paths", "data_config_problems", "read_config", "reference", "with_defaults"]
