"""The JSON Schema of ``taxonomy/protocol.yaml`` (the search and screening protocol).

Kept apart from :mod:`survey_tools.corpus.protocol` so that the taxonomy's schema generator can
write it to ``taxonomy/schema/`` without importing the protocol loader.
"""

from __future__ import annotations

from typing import Any

PROTOCOL_FILE = "taxonomy/protocol.yaml"
SCHEMA_FILE = "taxonomy/schema/protocol.schema.json"

_TEXT = {"type": "string", "minLength": 1}
_DATE = {"type": "string", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}
_SLUG = {"type": "string", "pattern": r"^[a-z0-9][a-z0-9-]*$"}
_TERMS = {"type": "array", "items": _TEXT, "minItems": 1}

SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "survey-tools:protocol.schema.json",
    "title": "Search and screening protocol",
    "type": "object",
    "additionalProperties": False,
    "required": ["protocol", "fields", "sources", "families", "inclusion", "exclusion"],
    "properties": {
        "protocol": {
            "type": "object",
            "additionalProperties": False,
            "required": ["title", "edition_cutoff"],
            "properties": {
                "title": _TEXT,
                "document": {"type": "string", "pattern": r"^https?://"},
                "dated": _DATE,
                "edition_cutoff": _DATE,
                "design": _TEXT,
            },
        },
        "fields": {
            "type": "object",
            "additionalProperties": False,
            "required": ["source", "query_family", "reason", "stage"],
            "properties": {k: _TEXT for k in ("source", "query_family", "reason", "stage")},
        },
        "sources": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["id", "label"],
                "properties": {
                    "id": _SLUG,
                    "label": _TEXT,
                    "value": _TEXT,
                    "search": {"enum": ["arxiv"]},
                },
            },
        },
        "families": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["id", "label", "terms", "query"],
                "properties": {
                    "id": _SLUG,
                    "label": _TEXT,
                    "query_family": _TEXT,
                    "terms": _TERMS,
                    "query": {"type": "array", "minItems": 1, "items": _TERMS},
                },
            },
        },
        "inclusion": {"type": "array", "minItems": 1, "items": _TEXT},
        "exclusion": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["text"],
                "properties": {"reason": _TEXT, "text": _TEXT},
            },
        },
        "search": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "page_size": {"type": "integer", "minimum": 1, "maximum": 2000},
                "max_results": {"type": "integer", "minimum": 1},
                "delay": {"type": "number", "minimum": 0},
            },
        },
        "screening": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"exclude_stage": _TEXT, "retain_stage": _TEXT},
        },
    },
}
