"""survey-tools: keep a curated literature corpus honest."""

__version__ = "0.1.0"
