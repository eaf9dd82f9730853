"""Hypothesis profiles for the configuration fuzzing: the same "ci" and "dev" profiles as
tests/stress/hardening/conftest.py (CI=true selects "ci"; HYPOTHESIS_PROFILE overrides)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = {"suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.function_scoped_fixture]}
settings.register_profile("ci", max_examples=40, derandomize=True, deadline=4000, database=None, **_COMMON)
settings.register_profile("dev", max_examples=100, deadline=8000, **_COMMON)
settings.register_profile("long", max_examples=2000, deadline=10000, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI", "").lower() == "true" else "dev"))
