"""slug: the one rule that turns a name into a file or id name, for the whole package.

Tag pages (``tags/<field>/<value>.html``), the ids ``survey init`` derives from a list's columns
and values, and the ids of excluded works all use it, so that what validate checks for collisions
(two taxonomy values that would share one page) is exactly what the build writes.
"""

from __future__ import annotations

import re

_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def slug(text: str, sep: str = "-", empty: str = "value") -> str:
    """Lowercase ASCII letters and digits, every other run of characters one ``sep``, none at
    either end (``O1:learned`` -> ``o1-learned``); ``empty`` when nothing is left."""
    return _NOT_SLUG.sub(sep, text.strip().lower()).strip(sep) or empty
