"""The orchestration-trace JSON Schema (Draft 2020-12) shipped in the package.

The schema file is the single source of truth: event types, edge types and
topologies used elsewhere are read from it, so the two cannot drift apart.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import jsonschema_rs

SCHEMA_VERSION = "1.0"
SCHEMA_FILE = f"orchestration-trace-{SCHEMA_VERSION}.schema.json"


@cache
def schema_text() -> str:
    return (resources.files("survey_tools.traces") / "schemas" / SCHEMA_FILE).read_text("utf-8")


@cache
def _schema() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(schema_text())
    return data


def schema() -> dict[str, Any]:
    """A fresh copy of the schema as a dict (callers may mutate it)."""
    copy: dict[str, Any] = json.loads(schema_text())
    return copy


def _enum(*path: str) -> tuple[str, ...]:
    node: Any = _schema()
    for key in path:
        node = node[key]
    return tuple(node["enum"])


EVENT_TYPES: tuple[str, ...] = _enum("$defs", "event", "properties", "type")
EDGE_TYPES: tuple[str, ...] = _enum("$defs", "edge", "properties", "type")
TOPOLOGIES: tuple[str, ...] = _enum("properties", "topology")
SUPPORTED_VERSIONS: tuple[str, ...] = _enum("properties", "schema_version")

# Edges that say "this event needed that one": they must go forward in time, form no
# cycle, and carry the critical path. Temporal edges only order; safety_flow edges
# route content through a screen and may be drawn either way by some tools.
DEPENDENCY_EDGE_TYPES: frozenset[str] = frozenset(
    {"causal", "spawn", "message", "return", "tool_dependency", "aggregate"}
)


@cache
def compiled_validator() -> Any:
    """The Rust-backed validator (jsonschema-rs), compiled once per process."""
    return jsonschema_rs.validator_for(_schema())
