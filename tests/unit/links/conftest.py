"""The links tests' fixtures, defined once in tests/helpers/links_fixtures.py for every kind of test
(``import x as x``: a fixture is found by name, not used by the code)."""

from helpers.links_fixtures import arxiv as arxiv
from helpers.links_fixtures import cache_dir as cache_dir
from helpers.links_fixtures import closed_port as closed_port
from helpers.links_fixtures import web as web
