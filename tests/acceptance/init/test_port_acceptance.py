"""The tests of test_port.py that build the whole real survey or run the `survey` command end to end."""

from __future__ import annotations

from pathlib import Path

from helpers.init_support import run
from helpers.port_cases import port as port  # a fixture, found by name


def test_it_validates_and_builds(port: Path) -> None:
    res = run(port, "validate")
    assert res.exit_code == 0, res.output
    assert "44 files checked, 0 problems" in res.output
    assert run(port, "build", "--check").exit_code == 0
    for rel in (
        "README.md",
        "CONTRIBUTING.md",
        "reports/site/index.html",
        "reports/papers.bib",
        "reports/STATS.md",
        "reports/GAPS.md",
        "taxonomy/README.md",
        ".github/workflows/survey.yml",
        ".pre-commit-config.yaml",
        "taxonomy/fields/methods.yaml",
    ):
        assert (port / rel).is_file(), rel
    readme = (port / "README.md").read_text(encoding="utf-8")
    # No exclusion log: the README leaves that part out instead of printing an empty one.
    assert "Exclusion" not in readme and "screened" not in readme
    assert "It holds 44 entries" in readme
    # CSV strings that are not ids are shown as the list wrote them.
    assert "### Batch (offline)" in readme and "Integer programming" in readme
    bib = (port / "reports" / "papers.bib").read_text(encoding="utf-8")
    assert "author = {{Anonymous}}" in bib  # rows without authors: braced, as for an organisation
