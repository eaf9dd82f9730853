"""The configuration schemas shipped with the toolkit are valid JSON Schemas (Draft 2020-12).

The CLI reads them at every start without checking them against the meta-schema (that costs
a third of a second); this test is that check.
"""

from __future__ import annotations

import jsonschema

from survey_tools.corpus.configs import config_schemas


def test_every_config_schema_is_a_valid_draft_2020_12_schema() -> None:
    schemas = config_schemas()
    assert {"survey", "field", "csv", "commands", "reports", "claims", "corrections"} <= set(schemas)
    for c in schemas.values():
        jsonschema.Draft202012Validator.check_schema(c.schema)
