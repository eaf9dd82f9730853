"""The render tests' fixtures, defined once in tests/helpers/render_fixtures.py for every kind of test
(``import x as x``: a fixture is found by name, not used by the code)."""

from helpers.render_fixtures import browser as browser
from helpers.render_fixtures import hostile as hostile
from helpers.render_fixtures import pages as pages
from helpers.render_fixtures import real as real
