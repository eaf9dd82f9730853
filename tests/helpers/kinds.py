"""The kinds of tests: the first folder under tests/ says what a test needs and how long it takes."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

# Tests live in folders by kind; the kind is the first folder under tests/:
#   unit/        in this process (the CLI through click's runner), on small inputs or one copy
#                of this survey's records: the developers' quick loop (`pytest tests/unit`)
#   acceptance/  `survey` as a subprocess or a user runs it: whole builds shared by a module
#                (the `built` fixture), git repositories and pull requests, whole lists adopted,
#                a wheel and a core-only venv, the crash-safety kills
#   browser/     the built pages driven in headless Chromium (the `browser` fixture)
#   tools/       a test whose point is a real outside program (ASReview, cffconvert, awesome-lint,
#                actionlint, Node, zizmor, pre-commit, the OpenTelemetry and Agents SDKs, Ray)
#   stress/      property-based fuzzing, 100 MiB inputs, commands that wait for a deadline
# Beside them: helpers/ (code the tests share), data/ and fixtures/ (inputs), and js/, the page
# scripts' own unit tests under Node's test runner (`node --test tests/js/`, not pytest).
# Every kind but unit is marked `slow`, so `-m "not slow"` and `tests/unit` select the same tests.
KINDS = ("unit", "acceptance", "browser", "tools", "stress")
QUICK = "unit"
# A test that takes one of these fixtures builds the whole real corpus first, or drives Chromium:
# it cannot be in the quick loop.
SLOW_FIXTURES = {"built": "acceptance", "browser": "browser"}


def kind_of(path: Path) -> str:
    """The kind of the test module at ``path`` (a folder of tests/), or "" outside them."""
    parts = path.resolve().relative_to(TESTS).parts
    return parts[0] if len(parts) > 1 and parts[0] in KINDS else ""
