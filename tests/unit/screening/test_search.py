"""`survey search` against a loopback arXiv API: paging, deduplication, idempotence, failures."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.search_server import SearchServer
from helpers.support import run, snapshot

FAST = ["--delay", "0", "--backoff", "0", "--timeout", "2"]


def test_the_issue_scenario(living: Path, search_server: SearchServer) -> None:
    url = search_server.url
    r = run(living, "search", "--since", "2025-01-01", "--arxiv-url", url, *FAST)
    assert r.exit_code == 0, r.output
    queue = sorted(p.name for p in (living / "screening/queue").glob("*.yaml"))
    # The retained (2508.03680 served as v2), the excluded (2305.14325 as v4) and the near-copy
    # title are skipped; every other paper is queued once although all seven families found it.
    assert queue == [f"2507.9000{i}.yaml" for i in (1, 2, 3, 4, 6, 7)]
    # Paging: the server got start=0 and later pages of page_size results.
    starts = {q["start"] for q in search_server.requests}
    assert "0" in starts
    runs = (living / "screening/runs.yaml").read_text()
    assert "new: 6" in runs and "unique: 9" in runs
    listing = run(living, "screen", "--format", "json")
    assert listing.exit_code == 0, listing.output
    items = json.loads(listing.stdout)
    assert [i["id"] for i in items] != [] and len(items) == 6
    assert set(items[0]) >= {"id", "title", "score", "families", "first_seen"}
    scores = [i["score"] for i in items]
    assert scores == sorted(scores, reverse=True)
    assert len(items[0]["families"]) == 7
    before = snapshot(living)
    again = run(living, "search", "--since", "2025-01-01", "--arxiv-url", url, *FAST)
    assert again.exit_code == 0, again.output
    after = snapshot(living)
    changed = {k for k in after if before.get(k) != after[k]}
    assert changed == {"screening/runs.yaml"}, changed  # only the run record is appended
    assert "0 new candidates" in again.stdout


def test_paging_uses_start_and_max_results(living: Path, search_server: SearchServer) -> None:
    tax = living / "taxonomy/protocol.yaml"
    tax.write_text(tax.read_text().replace("page_size: 100", "page_size: 4"))
    r = run(living, "search", "--family", "safety", "--since", "2025-01-01", "--arxiv-url",
            search_server.url, *FAST)
    assert r.exit_code == 0, r.output
    assert [(q["start"], q["max_results"]) for q in search_server.requests] == [("0", "4"), ("4", "4"), ("8", "4")]
    assert "Safety: 9 hits" in r.stdout


def test_max_results_stops_early(living: Path, search_server: SearchServer) -> None:
    r = run(living, "search", "--family", "Safety", "--since", "2025-01-01", "--max-results", "3",
            "--arxiv-url", search_server.url, *FAST)
    assert r.exit_code == 0, r.output
    assert "Safety: 3 hits" in r.stdout


def test_empty_result(living: Path, search_server: SearchServer) -> None:
    search_server.mode = "empty"
    r = run(living, "search", "--since", "2025-01-01", "--arxiv-url", search_server.url, *FAST)
    assert r.exit_code == 0, r.output
    assert "0 distinct papers" in r.stdout
    assert not (living / "screening/queue").exists()


def test_503_then_success(living: Path, search_server: SearchServer) -> None:
    search_server.mode = "flaky"
    search_server.failures_left = 2
    r = run(living, "search", "--family", "safety", "--since", "2025-01-01", "--arxiv-url",
            search_server.url, *FAST)
    assert r.exit_code == 0, r.output
    assert len(list((living / "screening/queue").glob("*.yaml"))) == 6


def test_503_for_ever_fails_and_writes_nothing(living: Path, search_server: SearchServer) -> None:
    search_server.mode = "flaky"
    search_server.failures_left = 100
    before = snapshot(living)
    r = run(living, "search", "--since", "2025-01-01", "--arxiv-url", search_server.url, "--retries", "2", *FAST)
    assert r.exit_code == 1
    assert r.stderr.strip().splitlines() == [
        f"error: arXiv failed at {search_server.url} after 3 tries: HTTP 503; nothing written"]
    assert snapshot(living) == before


def test_timeout_is_one_line_and_writes_nothing(living: Path, search_server: SearchServer) -> None:
    search_server.mode = "hang"
    before = snapshot(living)
    r = run(living, "search", "--family", "safety", "--since", "2025-01-01", "--arxiv-url",
            search_server.url, "--delay", "0", "--backoff", "0", "--retries", "0", "--timeout", "0.3")
    assert r.exit_code == 1
    assert "no answer within 0.3 s; nothing written" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert snapshot(living) == before


def test_truncated_feed_fails_and_writes_nothing(living: Path, search_server: SearchServer) -> None:
    search_server.mode = "truncated"
    before = snapshot(living)
    r = run(living, "search", "--since", "2025-01-01", "--arxiv-url", search_server.url, "--retries", "1", *FAST)
    assert r.exit_code == 1
    assert "not well-formed XML" in r.stderr and "nothing written" in r.stderr
    assert snapshot(living) == before


def test_dry_run_sends_nothing(living: Path, search_server: SearchServer) -> None:
    r = run(living, "search", "--dry-run", "--since", "2025-01-01", "--until", "2025-06-30",
            "--arxiv-url", search_server.url)
    assert r.exit_code == 0, r.output
    assert search_server.requests == []
    assert r.stdout.count("submittedDate:[202501010000 TO 202506302359]") == 7
    assert '(ti:"multi-agent LLM" OR abs:"multi-agent LLM"' in r.stdout


def test_since_defaults_to_cutoff_then_last_run(living: Path, search_server: SearchServer) -> None:
    r = run(living, "search", "--dry-run", "--family", "safety")
    assert "submittedDate:[202605040000" in r.stdout
    ok = run(living, "search", "--family", "safety", "--since", "2025-01-01", "--until", "2025-12-31",
             "--arxiv-url", search_server.url, *FAST)
    assert ok.exit_code == 0, ok.output
    r = run(living, "search", "--dry-run", "--family", "safety")
    assert "submittedDate:[202601010000" in r.stdout


def test_bad_input_one_line_each(living: Path, search_server: SearchServer) -> None:
    before = snapshot(living)
    cases = [
        (["search", "--since", "2025-02-30"], 2, "error: --since '2025-02-30' is not an ISO date (YYYY-MM-DD)"),
        (["search", "--until", "soon"], 2, "error: --until 'soon' is not an ISO date (YYYY-MM-DD)"),
        (["search", "--since", "2025-05-01", "--until", "2025-01-01"], 2, "error: --since 2025-05-01 is after --until 2025-01-01"),
        (["search", "--family", "safty"], 2, "error: --family 'safty' is not a query family of the protocol; did you mean 'safety'?"),
    ]
    for args, code, line in cases:
        r = run(living, *args, "--arxiv-url", search_server.url)
        assert r.exit_code == code, (args, r.output)
        assert r.stderr.strip().splitlines() == [line]
    assert search_server.requests == []
    assert snapshot(living) == before


def test_malformed_protocol_is_reported_with_positions(living: Path, search_server: SearchServer) -> None:
    p = living / "taxonomy/protocol.yaml"
    text = p.read_text().replace("query_family: safety\n", "query_family: saftey\n", 1)
    p.write_text(text.replace("    terms: [credit assignment", "    termz: [credit assignment", 1))
    r = run(living, "search", "--dry-run")
    assert r.exit_code == 1
    lines = r.stderr.strip().splitlines()
    assert lines[-1] == "error: taxonomy/protocol.yaml is invalid"
    # The explainer every configuration file goes through (config_schemas/protocol.schema.yaml).
    assert any("families.1.termz: unknown key (did you mean 'terms'?)" in x for x in lines), lines
    p.write_text(text)
    r = run(living, "search", "--dry-run")
    assert r.exit_code == 1
    lines = r.stderr.strip().splitlines()
    assert lines[0].startswith("taxonomy/protocol.yaml:") and lines[0].endswith(
        "families.4.query_family: 'saftey' is not a query family (did you mean 'safety'?)"), lines
    p.write_text("protocol: [unclosed\n")
    r = run(living, "search", "--dry-run")
    assert r.exit_code == 1 and r.stderr.startswith("taxonomy/protocol.yaml:")
