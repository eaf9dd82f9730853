"""Port a second, different list with `survey init --from-csv` plus a few hand-written lines:
it validates, builds (README passes awesome-lint in tests/tools, the page opens in Chromium in
tests/browser), exports the CSV
back byte for byte, and takes a new entry with `survey add` (DOI and OpenReview id answered by a
loopback server replaying recorded answers). Nothing of the main survey's prose leaks into it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.init_support import FIXTURES, replay, run, survey_words
from helpers.port_cases import HAND_WRITTEN, SOURCE
from helpers.port_cases import port as port  # a fixture, found by name


def hand_written_lines() -> int:
    return sum(len(new) for _, _, new in HAND_WRITTEN)


def test_the_port_needs_at_most_20_hand_written_lines() -> None:
    assert hand_written_lines() <= 20


def test_no_prose_from_the_main_survey(port: Path) -> None:
    texts = {rel: (port / rel).read_text(encoding="utf-8")
             for rel in ("README.md", "CONTRIBUTING.md", "reports/site/index.html")}
    for args in (["--help"], ["add", "--help"], ["exclude", "--help"], ["init", "--help"],
                 ["validate", "--help"], ["build", "--help"], ["import", "csv", "--help"]):
        texts[" ".join(args)] = run(port, *args).output
    for name, text in texts.items():
        if name == "--help":  # the root help lists the trace commands, a separate feature
            text = "\n".join(line for line in text.splitlines() if not line.strip().startswith("trace"))
        assert not survey_words(text), (name, survey_words(text))
    # The examples come from this survey's own taxonomy.
    assert "--gran batch_offline" in texts["add --help"]
    assert "--gran batch_offline" in texts["CONTRIBUTING.md"]


def test_export_is_byte_identical(port: Path, tmp_path: Path) -> None:
    res = run(port, "export", "csv", str(tmp_path))
    assert res.exit_code == 0, res.output
    assert (tmp_path / SOURCE.name).read_bytes() == SOURCE.read_bytes()


def test_add_by_doi_and_openreview_through_loopback(port: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SURVEY_NET_ALLOW", "127.0.0.1")  # the loopback server, allowed explicitly
    routes = {
        "/works/10.5555/12345678": (FIXTURES / "crossref-work.json").read_bytes(),
        "/notes?id=SyntheticNote01": (FIXTURES / "openreview-note.json").read_bytes(),
    }
    tags = ["--gran", "machine", "--method", "local_search", "--method", "learned_policy",
            "--setting", "simulation", "--tags", "code"]
    with replay(routes) as url:
        res = run(port, "add", "https://doi.org/10.5555/12345678", "--crossref-url", url, *tags,
                  "--set", "summary=A placeholder entry added through a recorded Crossref answer.")
        assert res.exit_code == 0, res.output
        rel = "corpus/author2024-synthetic-placeholder-record.yaml"
        assert f"wrote {rel}" in res.output
        text = (port / rel).read_text(encoding="utf-8")
        assert "venue: Journal of Synthetic Examples" in text
        assert "- Author, Example\n- Example Consortium" in text
        assert "doi: 10.5555/12345678" in text
        assert "- local_search\n- learned_policy" in text
        # The same DOI again is refused, before any request.
        again = run(port, "add", "10.5555/12345678", "--crossref-url", url, *tags)
        assert again.exit_code == 1 and "already in the survey" in again.output
        # An OpenReview id, a --set for a field outside the controlled taxonomy.
        res = run(port, "add", "openreview:SyntheticNote01", "--openreview-url", url, *tags,
                  "--set", "summary=A placeholder entry added through a recorded OpenReview answer.",
                  "--set", "year=2024")
        assert res.exit_code == 0, res.output
        # A --set value that breaks the field's schema names the field and writes nothing.
        bad = run(port, "add", "--set", "title=Synthetic: by hand", "--set", "year=soon", *tags)
        assert bad.exit_code != 0 and "year" in bad.output
    assert run(port, "validate").exit_code == 0
    assert run(port, "build").exit_code == 0
