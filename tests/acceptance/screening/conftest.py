"""The screening tests' fixtures, defined once in tests/helpers/screening_fixtures.py for every kind of test
(``import x as x``: a fixture is found by name, not used by the code)."""

from helpers.screening_fixtures import living as living
from helpers.screening_fixtures import search_server as search_server
