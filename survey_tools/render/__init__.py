"""Renderers of the published views: README.md, CONTRIBUTING.md and the browsing page.

Each renderer is a pure function of the taxonomy, the corpus and the statistics that returns
text; ``survey build`` decides where it goes and ``--check`` compares it with the disk.
"""

from __future__ import annotations
