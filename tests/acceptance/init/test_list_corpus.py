"""The corpus of real lists (tests/fixtures/lists/corpus.yaml, and the second held-out batch of
tests/fixtures/lists-heldout2/corpus.yaml): each adopted with
`survey init DIR --from FILE --title T` and nothing else, then validated, built, checked, exported
and imported again; a BibTeX list publishes none of its reference manager's private fields,
decodes TeX, links what has a DOI and keeps its entry types in papers.bib; no list of any format
publishes a field off the allowlist or loses one.
benchmarks/list_corpus.py prints the same lists as a table (docs/new-survey.md)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import bibtexparser
import pytest
import yaml
from helpers.init_support import REPO, run

from benchmarks.list_corpus import (
    fields_lost,
    leaked,
    private_values,
    published_off_allowlist,
    published_text,
    source_fields,
)
from survey_tools.render.bibtex import unescape

LISTS = REPO / "tests" / "fixtures" / "lists"
# the lists fixed against, and round 6's second held-out batch (run once before any fix for it)
FOLDERS = (LISTS, REPO / "tests" / "fixtures" / "lists-heldout2")
CORPUS: list[dict[str, Any]] = [
    {**e, "folder": folder}
    for folder in FOLDERS
    for e in yaml.safe_load((folder / "corpus.yaml").read_text(encoding="utf-8"))["lists"]
]


def _source(entry: dict[str, Any]) -> Path:
    return Path(entry["folder"]) / entry["file"]


def _adopt(entry: dict[str, Any], tmp_path: Path) -> tuple[Path, str]:
    root = tmp_path / "survey"
    res = run(
        tmp_path,
        "init",
        str(root),
        "--from",
        str(_source(entry)),
        "--title",
        "Synthetic Adoption",
    )
    assert res.exit_code == 0, res.output
    return root, res.output


def _records(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "corpus").glob("*.yaml"))}


@pytest.mark.parametrize("entry", CORPUS, ids=lambda e: e["name"])
def test_adopted_as_kept(entry: dict[str, Any], tmp_path: Path) -> None:
    root, _ = _adopt(entry, tmp_path)
    assert run(root, "validate").exit_code == 0
    res = run(root, "build", "--check")
    assert res.exit_code == 0, res.output
    records = _records(root)
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert all(
        f"`{Path(name).stem}`" in readme for name in records
    )  # every entry reaches the README
    out = tmp_path / "exported"
    assert run(root, "export", "csv", str(out)).exit_code == 0
    (exported,) = sorted(out.glob("*.csv"))
    res = run(root, "import", "csv", str(exported), "--overwrite")
    assert res.exit_code == 0, res.output
    assert _records(root) == records


BIBTEX = [e for e in CORPUS if e["format"] == "bibtex"]
# every list whose entries have named fields: the allowlist is checked on each format
FIELDED = [e for e in CORPUS if e["format"] != "markdown"]


@pytest.mark.parametrize("entry", FIELDED, ids=lambda e: e["name"])
def test_no_private_field_of_any_format_is_published(entry: dict[str, Any], tmp_path: Path) -> None:
    """The values of the fields off the allowlist (read from the file without the toolkit's
    readers: benchmarks/list_corpus.source_fields) appear in no output: README, site pages,
    papers.bib, the CSV export; and init names every field of the source in its report."""
    root, output = _adopt(entry, tmp_path)
    fields = source_fields(_source(entry), entry["format"])
    private = private_values(fields, output)
    text = published_text(root)
    assert leaked(private, text) == []
    assert published_off_allowlist(output) == []
    assert fields_lost(fields, output) == 0


@pytest.mark.parametrize("entry", BIBTEX, ids=lambda e: e["name"])
def test_a_bibtex_port_publishes_no_private_field_and_keeps_entry_types(
    entry: dict[str, Any], tmp_path: Path
) -> None:
    root, output = _adopt(entry, tmp_path)
    source = _source(entry)
    published = [
        root / "README.md",
        root / "reports" / "papers.bib",
        *sorted((root / "reports").rglob("*.html")),
    ]
    text = "\n".join(p.read_text(encoding="utf-8") for p in published)
    assert leaked(private_values(source_fields(source, "bibtex"), output), text) == []
    bib = bibtexparser.parse_string((root / "reports" / "papers.bib").read_text(encoding="utf-8"))
    kinds = {
        e.key: e.entry_type.lower()
        for e in bibtexparser.parse_string(source.read_text(encoding="utf-8")).entries
    }
    written = {e.key: e.entry_type.lower() for e in bib.entries}
    assert {k: written[k] for k in kinds if k in written} == {
        k: v for k, v in kinds.items() if k in written
    }
    # TeX decoded on import: what papers.bib writes is escaped text, with no TeX command of the source left
    shown = "".join(
        unescape(str(f.value))
        for e in bib.entries
        for f in e.fields
        if f.key in ("title", "author")
    )
    assert "\\" not in shown
    for record in (root / "corpus").glob("*.yaml"):
        data = yaml.safe_load(record.read_text(encoding="utf-8"))
        if (data.get("identifiers") or {}).get("doi"):
            assert data.get("links"), record.name  # what has a DOI is linked


def test_jabref_names_and_dois(tmp_path: Path) -> None:
    entry = next(e for e in CORPUS if e["name"] == "jabref-complex")
    root, output = _adopt(entry, tmp_path)
    private = next(ln for ln in output.splitlines() if ln.startswith("private fields"))
    assert private.endswith(
        ": note, groups, priority, file, readstatus, abstract, date_added, date_modified, rating"
    )
    # BibDesk's bdsk-url-1 holds URLs only: by its values, the entries' links
    assert (
        "'doi', 'bdsk-url-1' hold addresses" in output and "folded into links: bdsk-url-1" in output
    )
    record = yaml.safe_load((root / "corpus" / "1137631.yaml").read_text(encoding="utf-8"))
    assert record["authors"][:3] == ["Gustav Boström", "Jaana Wäyrynen", "Marine Bodén"]
    assert record["identifiers"] == {
        "doi": "10.1145/1137627.1137631"
    }  # from http://doi.acm.org/10.1145/...
    assert record["links"] == ["https://doi.org/10.1145/1137627.1137631"]
    bib = (root / "reports" / "papers.bib").read_text(encoding="utf-8")
    block = bib[bib.index("@article{1102917,") :].split("\n}\n")[0]
    assert (
        re.search(r"journal = \{Personal Ubiquitous Comput\.\}", block) and "volume = {9}" in block
    )
    assert (
        "number = {6}" in block
        and "pages = {357--367}" in block
        and "publisher = {Springer-Verlag}" in block
    )


def test_kept_private_field_stays_out_of_every_output(tmp_path: Path) -> None:
    entry = next(e for e in CORPUS if e["name"] == "zotero-better-bibtex")
    root = tmp_path / "survey"
    res = run(
        tmp_path,
        "init",
        str(root),
        "--from",
        str(LISTS / entry["file"]),
        "--title",
        "Synthetic Adoption",
        "--keep-field",
        "groups",
    )
    assert res.exit_code == 0, res.output
    survey = yaml.safe_load((root / "taxonomy" / "survey.yaml").read_text(encoding="utf-8"))
    assert survey["collections"]["entries"]["fields"]["groups"]["private"] is True
    assert "Probabilités" in (root / "corpus" / "Agazzi-1988-ProbabilitySciences.yaml").read_text(
        encoding="utf-8"
    )
    outputs = [
        p
        for p in root.rglob("*")
        if p.is_file() and "corpus" not in p.parts and p.suffix != ".yaml"
    ]
    assert not [
        p for p in outputs if "Probabilités" in p.read_text(encoding="utf-8", errors="replace")
    ]
    out = tmp_path / "exported"
    assert run(root, "export", "csv", str(out)).exit_code == 0
    assert "Probabilités" not in "".join(p.read_text(encoding="utf-8") for p in out.glob("*.csv"))
