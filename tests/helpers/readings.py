"""Readings for a test's living record: the taxonomy requires one for every tag a new record
sets (where it was read), so a test that writes a record by hand places each, as a contributor
following the CONTRIBUTING template does. Which fields are placed comes from the taxonomy, not
from a list here."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from survey_tools.corpus.taxonomy import load_taxonomy


def readings_for(data: Mapping[str, Any], root: Path, where: str = "Section 3") -> dict[str, Any]:
    """One paper reading at ``where`` for each tag ``data`` sets (sub-decision keys too)."""
    tax = load_taxonomy(root)
    coll = next(iter(tax.collections.values()))
    field = next(c for c in coll.controlled if c.where_words)
    subs = data.get("subdecisions")
    set_here = {k for k, v in data.items() if v not in (None, tax.untagged)}
    if isinstance(subs, Mapping):
        set_here |= set(subs)
    return {t: {"how": field.mode_ids[0], "where": where} for t in field.ids if t in set_here}


def readings_yaml(data: Mapping[str, Any], root: Path, where: str = "Section 3") -> str:
    """The same, as the lines of a record's ``readings:`` block."""
    lines = ["readings:"]
    for tag, r in readings_for(data, root, where).items():
        lines += [f"  {tag}:", f"    how: {r['how']}", f'    where: "{r["where"]}"']
    return "\n".join(lines) + "\n"
