"""Every folder's property tests run on the profiles of tests/conftest.py, not Hypothesis's
defaults: no deadline, the slow-data health checks off, derandomized under CI=true."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def test_the_loaded_profile_is_the_suites() -> None:
    current = settings.default
    assert current.deadline is None
    assert HealthCheck.too_slow in current.suppress_health_check
    if os.environ.get("CI", "").lower() == "true" and "HYPOTHESIS_PROFILE" not in os.environ:
        assert current.derandomize and current.database is None


def test_ci_profile_is_derandomized() -> None:
    ci = settings.get_profile("ci")
    assert (ci.derandomize, ci.database, ci.deadline, ci.max_examples) == (True, None, None, 40)


@settings(max_examples=5)
@given(st.integers())
def test_a_tests_own_settings_keep_the_profiles_deadline(n: int) -> None:
    assert settings.default.deadline is None and isinstance(n, int)
