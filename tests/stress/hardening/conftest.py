"""Hypothesis profiles: "ci" (fixed, derandomized, bounded) when CI=true, "dev" otherwise.

Select another with HYPOTHESIS_PROFILE=ci|dev|long.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = {"suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}
# Examples per entry point in CI; every example must finish within the deadline.
CI_EXAMPLES = 40
settings.register_profile(
    "ci", max_examples=CI_EXAMPLES, derandomize=True, deadline=2000, database=None, **_COMMON
)
settings.register_profile("dev", max_examples=150, deadline=5000, **_COMMON)
settings.register_profile("long", max_examples=2000, deadline=10000, **_COMMON)
_default = "ci" if os.environ.get("CI", "").lower() == "true" else "dev"
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", _default))
