"""The build tests' fixtures, defined once in tests/helpers/build_fixtures.py for every kind of test
(``import x as x``: a fixture is found by name, not used by the code)."""

from helpers.build_fixtures import built as built
from helpers.build_fixtures import survey as survey
