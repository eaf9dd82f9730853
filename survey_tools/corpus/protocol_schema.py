"""Where the protocol lives and its JSON Schema, as written to ``taxonomy/schema/``.

The schema itself is ``config_schemas/protocol.schema.yaml``. Kept apart from :mod:`survey_tools.corpus.protocol` so that the taxonomy's schema generator can
write it to ``taxonomy/schema/`` without importing the protocol loader.
"""

from __future__ import annotations

from typing import Any

from survey_tools.corpus.configs import config_schemas

PROTOCOL_FILE = "taxonomy/protocol.yaml"
SCHEMA_FILE = "taxonomy/schema/protocol.schema.json"


def protocol_schema() -> dict[str, Any]:
    """The JSON Schema of the protocol: ``config_schemas/protocol.schema.yaml`` (one schema
    source, as for every configuration file), without the toolkit's own ``x-`` keys."""
    return {k: v for k, v in config_schemas()["protocol"].schema.items() if not k.startswith("x-")}
