"""``survey trace ...`` commands."""

from __future__ import annotations

import click


@click.group()
def trace() -> None:
    """Validate and measure orchestration traces."""
