"""Roles read from the content in the lists people keep as tables (tests/data/list-roles/): a
column of addresses (URLs, DOIs, arXiv ids), whatever its header (``DOI/URL``, ``pdf``,
al-folio's ``arxiv`` and ``code``), becomes the entries' links and identifiers, not a field
under its own name; a row of group names above the header is found in CSV as in Excel; authors
are split cell by cell, with a warning only for a cell that reads two ways; look-alike
spaces (a no-break space in a title) are made spaces, said once a column.

Each ``NAME.csv``, ``NAME.tsv`` or ``NAME.bib`` (al-folio's papers.bib: names marked ``Doe*``)
is adopted with ``survey init DIR --from FILE --title T`` and nothing else; ``NAME.expected`` holds, exactly, the warnings init gives about the file, its
published and private fields, and one line a record: key | title | authors | year | links |
identifiers.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from helpers.init_support import REPO, run

DATA = REPO / "tests" / "data" / "list-roles"
CASES = sorted(p for p in DATA.iterdir() if p.suffix in (".csv", ".tsv", ".bib"))


def _lines(tmp_path: Path, source: Path) -> list[str]:
    root = tmp_path / "survey"
    res = run(tmp_path, "init", str(root), "--from", str(source), "--title", "Synthetic Roles")
    assert res.exit_code == 0, res.output
    assert run(root, "validate").exit_code == 0
    said = [
        ln
        for ln in res.output.splitlines()
        if ln.startswith((f"warning: {source.name}", "published fields", "private fields"))
    ]
    records = []
    for path in sorted((root / "corpus").glob("*.yaml")):
        r = yaml.safe_load(path.read_text(encoding="utf-8"))
        ids = ", ".join(f"{k}={v}" for k, v in sorted((r.get("identifiers") or {}).items()))
        records.append(
            " | ".join(
                [
                    path.stem,
                    str(r["title"]),
                    "; ".join(r.get("authors") or []),
                    str(r.get("year", "")),
                    " ".join(r.get("links") or []),
                    ids,
                ]
            )
        )
    return said + records


@pytest.mark.parametrize("source", CASES, ids=[p.name for p in CASES])
def test_roles_from_the_content(tmp_path: Path, source: Path) -> None:
    expected = source.with_suffix(".expected").read_text(encoding="utf-8").splitlines()
    assert _lines(tmp_path, source) == expected
