"""The readings figures of a survey folder (issue 55), for a curation round's log.

    python3 tools/reading_figures.py [ROOT]

Prints, for the living list's records: how many place every tag they set (each with a
``where``), how many place at least one reading beyond the abstract that is not someone else's
notes (``secondary``), how many rest a reading on code; the retentions' screening stages; and
the newest retained arXiv ids. The field names are this survey's (taxonomy/fields/readings.yaml,
screening/decisions.yaml); the script reads files only, never the network.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import yaml


def _tags(d: dict[str, Any], tag_ids: list[str]) -> list[str]:
    keys = set(d.get("subdecisions") or {}) if isinstance(d.get("subdecisions"), dict) else set()
    return [t for t in tag_ids if (t in d and d[t] not in ("untagged", None)) or t in keys]


def main(root: Path) -> None:
    field = yaml.safe_load((root / "taxonomy/fields/readings.yaml").read_text(encoding="utf-8"))
    tag_ids = [v["id"] for v in field["values"]]
    living, newest = [], []
    for f in sorted((root / "corpus").glob("*.yaml")):
        d = yaml.safe_load(f.read_text(encoding="utf-8"))
        arxiv = str((d.get("identifiers") or {}).get("arxiv") or "")
        if arxiv:
            newest.append((arxiv, d["key"]))
        if d.get("edition") == "living":
            living.append(d)
    full = beyond = code = 0
    for d in living:
        placed = d.get(field["name"]) or {}
        tags = _tags(d, tag_ids)
        full += bool(tags) and all(t in placed and placed[t].get("where") for t in tags)
        wheres = [str(v.get("where", "")).lower() for v in placed.values()]
        beyond += any(not re.match(r"abstract", w) and "secondary" not in w for w in wheres)
        code += any(v.get("how") == "code" for v in placed.values())
    n = len(living) or 1
    print(f"living records: {len(living)}")
    print(f"  place every tag they set: {full} ({full / n:.0%})")
    print(f"  a reading beyond the abstract, not secondary: {beyond} ({beyond / n:.0%})")
    print(f"  a reading on code: {code}")
    decisions = yaml.safe_load((root / "screening/decisions.yaml").read_text(encoding="utf-8")) or []
    stages = Counter(e.get("stage") for e in decisions if e.get("decision") == "retained")
    print("retentions by stage:", dict(sorted(stages.items())))
    print("newest retained arXiv ids:", ", ".join(f"{a} ({k})" for a, k in sorted(newest)[-3:]))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("."))
