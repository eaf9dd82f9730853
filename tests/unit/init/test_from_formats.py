"""A port per format: `survey init DIR --from FILE` on a messy list made for these tests (blank
header, cells with line breaks, several URLs in a cell, multi-valued fields, identical titles, an
awesome README with nested headings), with no hand-written line. Each port validates, builds,
`build --check` passes twice, the README passes awesome-lint, export and re-import leave the
records as they were, `survey add` and `survey exclude` work, and no word or path of this
repository's survey reaches the adopter's files or help.
"""

from __future__ import annotations

from pathlib import Path

from helpers.from_formats_cases import port as port  # a fixture, found by name
from helpers.init_support import run

from survey_tools.corpus.taxonomy import load_taxonomy
from survey_tools.curate.adding import flag_names

# Words and paths of this repository and its survey that an adopter's files must not carry.
FOREIGN = ("survey claims", "query families", "docs/screening.md", "docs/stats.md", "docs/claims.md",
           "tests/data/tiny-survey", "maintenance.yml", "pip install -e .", "tests/fixtures/SOURCES.md",
           ".ci/run", "npm ci && node tools/awesome-lint.mjs", "claims it moves", "2505.19591",
           'href=""', "Companion to", "orchestration", "survey-tools ", "pip install survey-tools",
           "reward", "credit assignment", "Use the Toolkit")


def _records(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "corpus").glob("*.yaml"))}


def test_export_and_reimport_leave_the_records_as_they_were(port: tuple[str, Path], tmp_path: Path) -> None:
    _, root = port
    before = _records(root)
    res = run(root, "export", "csv", str(tmp_path))
    assert res.exit_code == 0, res.output
    (exported,) = sorted(tmp_path.glob("*.csv"))
    res = run(root, "import", "csv", str(exported), "--overwrite")
    assert res.exit_code == 0, res.output
    assert _records(root) == before
    # and the exported file exports the same again
    again = tmp_path / "again"
    assert run(root, "export", "csv", str(again)).exit_code == 0
    assert (again / exported.name).read_bytes() == exported.read_bytes()


def test_add_and_exclude(port: tuple[str, Path]) -> None:
    fmt, root = port
    tax = load_taxonomy(root)
    coll = tax.retained
    options: list[str] = []
    for flag, cf in sorted(flag_names(tax, coll).items()):
        if cf.required and f"--{cf.name}" not in options and flag == cf.name.replace("_", "-"):
            options += [f"--{flag}", cf.ids[0]]
    sets = ["--set", f"{coll.title_field}=Synthetic: an entry typed in by hand ({fmt})",
            "--set", "links=https://example.org/synthetic/by-hand"]
    if any(f.name == "year" and f.required for f in coll.fields):
        sets += ["--set", "year=2024"]
    res = run(root, "add", *sets, *options)
    assert res.exit_code == 0, res.output
    assert run(root, "validate").exit_code == 0
    first = sorted((root / "corpus").glob("*.yaml"))[0].stem
    res = run(root, "exclude", first, "--reason", "out_of_scope", "--note", "Left out in a test of the port.",
              "--date", "2024-01-02")
    assert res.exit_code == 0, res.output
    # the exclusion's id is derived from the work (X-url-<hash> for a work known by its URL)
    (excl,) = (root / "exclusions").glob("*.yaml")
    assert excl.stem.startswith("X-")
    res = run(root, "build")
    assert res.exit_code == 0, res.output
    assert "## Exclusion Log" in (root / "README.md").read_text(encoding="utf-8")
    res = run(root, "exclude", "--restore", excl.stem)
    assert res.exit_code == 0, res.output
    assert (root / "corpus" / f"{first}.yaml").is_file()


def test_no_foreign_words(port: tuple[str, Path]) -> None:
    _, root = port
    texts = {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*"))
             if p.is_file() and p.suffix in (".md", ".yaml", ".yml", ".html", ".json", ".cff", ".bib", ".csv", ".js")}
    for args in (["--help"], ["init", "--help"], ["add", "--help"], ["exclude", "--help"], ["validate", "--help"],
                 ["build", "--help"], ["export", "csv", "--help"]):
        texts[" ".join(args)] = run(root, *args).output
    found = {name: [w for w in FOREIGN if w.lower() in text.lower()] for name, text in texts.items()}
    assert not {k: v for k, v in found.items() if v}
