"""`survey search` against hostile or unusual arXiv answers: one clear error and nothing written,
or every distinct paper queued."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers.search_server import SearchServer

from survey_tools.cli import cli

FAST = ["--delay", "0", "--backoff", "0", "--timeout", "5", "--family", "safety",
        "--since", "2025-01-01"]


def entry(arxiv_id: str, title: str) -> str:
    return f"""  <entry>
    <id>http://arxiv.org/abs/{arxiv_id}</id>
    <title>{title}</title>
    <updated>2025-08-05T12:00:00Z</updated>
    <summary>An invented abstract for a test of the search.</summary>
    <category term="cs.AI" scheme="http://arxiv.org/schemas/atom"/>
    <published>2025-08-05T12:00:00Z</published>
    <arxiv:primary_category term="cs.AI"/>
    <author>
      <name>Ann Example</name>
    </author>
  </entry>
"""


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    ("arxiv_id", "message"),
    [
        ("2507.90001v" + "9" * 300, "is not an arXiv abs URL with a well-formed id"),
        ("9" * 300, "is not an arXiv abs URL with a well-formed id"),
        ("..", "the id 'http://arxiv.org/abs/..' is not an arXiv abs URL"),
        ("", "the id 'http://arxiv.org/abs/' is not an arXiv abs URL"),
        ("2507.90001/../../x", "is not an arXiv abs URL with a well-formed id"),
    ],
)
def test_a_bad_id_stops_the_run_before_anything_is_written(
        living: Path, search_server: SearchServer, arxiv_id: str, message: str) -> None:
    search_server.entries = [entry("2507.90002v1", "A fine paper about agents"),
                             entry(arxiv_id, "A hostile entry")]
    before = snapshot(living)
    r = CliRunner().invoke(cli, ["--root", str(living), "search", "--arxiv-url",
                                 search_server.url, *FAST])
    assert r.exit_code == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: arXiv's answer for the query, entry 2 is unusable:")
    assert message in lines[0] and lines[0].endswith("; nothing written")
    assert len(lines[0]) < 400
    assert snapshot(living) == before  # no queue file, no runs.yaml entry


# search dedupes through corpus.duplicates.KnownIndex.match, the one matcher; its rule for
# titles that differ in a number is the house developer's change (issue 27). Strict: when that
# change is merged this test passes and the marker must go.
def test_titles_differing_by_a_number_are_distinct_papers(
        living: Path, search_server: SearchServer) -> None:
    search_server.entries = [entry(f"2507.{90100 + n}v1", f"Paper number {n} about agents")
                             for n in range(100)]
    r = CliRunner().invoke(cli, ["--root", str(living), "search", "--arxiv-url",
                                 search_server.url, *FAST])
    assert r.exit_code == 0, r.output
    queued = list((living / "screening/queue").glob("*.yaml"))
    assert len(queued) == 100
    assert "100 new candidates" in r.stdout
