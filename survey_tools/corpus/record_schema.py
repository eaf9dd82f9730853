"""The JSON Schema of a collection's records, generated from the taxonomy, and the schema files
``survey build`` writes to ``taxonomy/schema/`` (records and protocol) for editors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from survey_tools.corpus.protocol_schema import PROTOCOL_FILE, protocol_schema
from survey_tools.corpus.protocol_schema import SCHEMA_FILE as PROTOCOL_SCHEMA_FILE
from survey_tools.corpus.taxonomy import (
    WAIVABLE_CHECKS,
    Collection,
    ControlledField,
    PlainField,
    Taxonomy,
)
from survey_tools.fileio import atomic_write

_URL_PATTERN = r"^https?://[^\s/$.?#][^\s]*$"

# Default length limits of every value (a field's own min_length/max_length wins). Records come
# from strangers' pull requests: without limits one 1 MB title made validation take minutes, and
# every later check (duplicate titles are compared pairwise) may rely on these bounds.
MAX_STRING = 1_000  # one-line values: titles, venues, names, list items
MAX_TEXT = 10_000  # prose: summaries, notes
MAX_URL = 2_048
MAX_REASON = 2_000
MAX_IDENTIFIER = 256
MAX_ITEMS = 5_000  # authors of the largest collaborations stay well below this

# The years a year field may hold at all; checks.py holds a record to the taxonomy's narrower ones.
YEAR_BOUNDS = (1900, 2100)


def _url() -> dict[str, Any]:
    return {"type": "string", "pattern": _URL_PATTERN, "maxLength": MAX_URL}


def _reason() -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": MAX_REASON}


def _plain_schema(f: PlainField, tax: Taxonomy) -> dict[str, Any]:
    t = f.type
    if t in ("string", "text"):
        out: dict[str, Any] = {
            "type": "string",
            "minLength": 1 if t == "string" else 0,
            "maxLength": MAX_STRING if t == "string" else MAX_TEXT,
        }
        if f.min_length is not None:
            out["minLength"] = f.min_length
        if f.max_length is not None:
            out["maxLength"] = f.max_length
        return out
    if t == "edition":
        return {"enum": list(tax.editions.ids) if tax.editions else []}
    if t == "waivers":
        return {
            "type": "object",
            "propertyNames": {"enum": list(WAIVABLE_CHECKS)},
            "additionalProperties": _reason(),
        }
    if t == "key_reasons":
        return {
            "type": "object",
            "propertyNames": {"maxLength": MAX_IDENTIFIER},
            "additionalProperties": _reason(),
        }
    if t == "integer":
        return {"type": "integer"}
    if t == "year":
        return {"type": "integer", "minimum": YEAR_BOUNDS[0], "maximum": YEAR_BOUNDS[1]}
    if t == "boolean":
        return {"type": "boolean"}
    if t == "date":
        return {"type": "string", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}
    if t == "url":
        return _url()
    if t in ("string_list", "person_list"):
        return {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_ITEMS,
            "items": {"type": "string", "minLength": 1, "maxLength": MAX_STRING},
        }
    if t == "url_list":
        return {"type": "array", "minItems": 1, "maxItems": MAX_ITEMS, "items": _url()}
    if t == "identifiers":
        return {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                k: {"type": "string", "pattern": v.pattern, "maxLength": MAX_IDENTIFIER}
                for k, v in tax.identifiers.items()
            },
        }
    if t == "evidence":
        return {
            "type": "object",
            "additionalProperties": False,
            "required": ["source"],
            "properties": {
                "source": {"type": "string", "minLength": 1, "maxLength": MAX_STRING},
                "url": _url(),
                "reason": _reason(),
            },
        }
    return {"type": "object"}


def _controlled_schema(c: ControlledField, tax: Taxonomy) -> dict[str, Any]:
    specials: list[str] = []
    if c.not_applicable:
        specials.append(tax.na)
    if not c.required:
        specials.append(tax.untagged)
    if c.kind == "single":
        return {"enum": [*c.ids, *specials]}
    if c.kind == "multi":
        items = {"type": "array", "uniqueItems": True, "items": {"enum": list(c.ids)}}
        return {"anyOf": [items, {"enum": specials}]} if specials else items
    mode = {"enum": list(c.mode_ids)}
    detailed = {
        "type": "object",
        "additionalProperties": False,
        "required": ["how"],
        "properties": {
            "how": mode,
            "evidence": _url(),
            # Where in the source the reading was made: a section, figure, table, equation,
            # appendix, or a code file at a commit.
            "where": {"type": "string", "minLength": 1, "maxLength": MAX_STRING},
            "reason": _reason(),
            # A second, separate reading of the same decision: who read what, when, and the mode
            # they reached. It is kept even when it disagrees with `how`, so a disagreement stays
            # visible in the record (and on its page) instead of being settled silently.
            "second_reading": {
                "type": "object",
                "additionalProperties": False,
                "required": ["how", "by", "date", "read"],
                "properties": {
                    "how": mode,
                    "by": {"type": "string", "minLength": 1, "maxLength": MAX_STRING},
                    "date": {"type": "string", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
                    "read": {"type": "string", "minLength": 1, "maxLength": MAX_REASON},
                    "reason": _reason(),
                },
            },
        },
    }
    if c.where_words:
        # A placed reading is written in full: what it rests on (`how`) and where it was read.
        entry: dict[str, Any] = {
            **detailed,
            "required": ["how", "where"],
            "x-messages": {
                "type": "a placed reading is written in full, {how: <what it rests on>, where: "
                "<the section, figure, table, ... or code file at a commit>}, not as its mode alone",
                "required": "a placed reading needs `how` (what it rests on) and `where` (where it was read)",
            },
        }
    else:
        entry = {"anyOf": [mode, detailed]}
    mapping = {
        "type": "object",
        "additionalProperties": False,
        "properties": {v: entry for v in c.ids},
    }
    return {"anyOf": [mapping, {"enum": specials}]} if specials else mapping


def record_schema(tax: Taxonomy, collection: str) -> dict[str, Any]:
    """The JSON Schema (Draft 2020-12) a record of ``collection`` must satisfy."""
    coll = tax.collection(collection)
    props: dict[str, Any] = {}
    required: list[str] = []
    for f in coll.fields:
        props[f.name] = (
            {**_plain_schema(f, tax), "description": f.description}
            if f.description
            else _plain_schema(f, tax)
        )
        if f.required:
            required.append(f.name)
    props[coll.id_field] = {
        **props.get(coll.id_field, {}),
        "type": "string",
        "pattern": coll.id_pattern,
    }
    for c in coll.controlled:
        props[c.name] = {**_controlled_schema(c, tax), "description": c.description}
        if c.required:
            required.append(c.name)
    schema: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"survey-tools:{collection}.schema.json",
        "title": f"{tax.survey.get('short_title', 'survey')}: {coll.label}",
        "type": "object",
        "additionalProperties": False,
        "required": required,
        "properties": props,
    }
    conditions = conditional_requirements(tax, coll)
    if conditions:
        schema["allOf"] = [
            {
                "description": f"{field_} is required {when}",
                "if": {"required": [name], "properties": {name: {"enum": list(values)}}},
                "then": {
                    "required": [field_],
                    "properties": {field_: {"not": {"enum": [tax.untagged]}}},
                },
            }
            for field_, name, values, when in conditions
        ]
    return schema


def conditional_requirements(
    tax: Taxonomy, coll: Collection
) -> list[tuple[str, str, tuple[str, ...], str]]:
    """Fields required only when another field has given values: (field, other, values, why)."""
    out: list[tuple[str, str, tuple[str, ...], str]] = []
    ed = tax.editions
    names = {f.name for f in coll.fields}
    if ed is not None and ed.field in names and ed.added_field in names:
        out.append((ed.added_field, ed.field, (ed.living.id,), f"when {ed.field} is {ed.living.id}"))
    for c in coll.controlled:
        for other, values in c.required_when.items():
            shown = ", ".join(values[:-1]) + (" or " if len(values) > 1 else "") + values[-1]
            out.append((c.name, other, values, f"when {other} is {shown}"))
    return out


def schema_files(tax: Taxonomy) -> dict[str, str]:
    """Generated schema files, relative to the survey folder, with their exact text."""
    out: dict[str, str] = {}
    for name in tax.collections:
        text = json.dumps(record_schema(tax, name), indent=2, ensure_ascii=False) + "\n"
        out[f"taxonomy/schema/{name}.schema.json"] = text
    if tax.document(PROTOCOL_FILE) is not None:
        out[PROTOCOL_SCHEMA_FILE] = json.dumps(protocol_schema(), indent=2, ensure_ascii=False) + "\n"
    return out


def refresh_schema_files(root: Path, tax: Taxonomy, check: bool = False) -> list[str]:
    """The generated schema files that differ from :func:`schema_files` (relative paths), each
    written again unless ``check`` (``survey taxonomy schema [--check]``)."""
    stale = []
    for rel, text in schema_files(tax).items():
        path = root / rel
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(rel)
        if not check:
            atomic_write(path, text)
    return stale
