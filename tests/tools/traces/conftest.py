"""The traces tests' fixtures, defined once in tests/helpers/traces_fixtures.py for every kind of test
(``import x as x``: a fixture is found by name, not used by the code)."""

from helpers.traces_fixtures import survey_example as survey_example
