"""The package version (one place; pyproject.toml reads it too)."""

__version__ = "0.1.0"

# The name on PyPI. "survey-tools" there belongs to an unrelated project, so an adopter's
# `pip install survey-tools` would install someone else's code; this name was free when chosen
# (`pip index versions survey-corpus-tools`: "No matching distribution").
DISTRIBUTION = "survey-corpus-tools"
