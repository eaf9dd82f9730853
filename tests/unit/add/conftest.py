"""The add tests' fixtures, defined once in tests/helpers/add_fixtures.py for every kind of test
(``import x as x``: a fixture is found by name, not used by the code)."""

from helpers.add_fixtures import arxiv_server as arxiv_server
from helpers.add_fixtures import survey as survey
