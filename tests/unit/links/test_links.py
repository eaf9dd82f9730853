"""`survey links` against loopback servers: every case classified, limits honoured, cache used."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from helpers.links_fixtures import make_survey

from survey_tools.cli import cli
from survey_tools.corpus.loading import load_corpus
from survey_tools.curate import links

REPO = Path(__file__).resolve().parents[3]
TINY = REPO / "tests" / "data" / "tiny-survey"

# record key -> (path on the first server, expected status, expected code)
CASES = {
    "fine": ("/ok", "ok", 200),
    "chain": ("/chain/1", "redirected", 200),
    "temporary": ("/temporary", "ok", 200),
    "loop": ("/loop/a", "broken", 302),
    "missing": ("/gone-404", "broken", 404),
    "gone": ("/gone-410", "broken", 410),
    "nohead": ("/no-head", "ok", 200),
    "busy": ("/busy", "rate-limited", 429),
    "busylong": ("/busy-long", "rate-limited", 429),
    "flaky": ("/flaky", "ok", 200),
    "down": ("/down", "unreachable", 503),
    "hang": ("/hang", "unreachable", None),
    "large": ("/large", "ok", 200),
}




@pytest.fixture
def survey(tmp_path: Path, web: Any, closed_port: int) -> Path:
    records: dict[str, dict] = {"_template": web.url("/ok/handle/{id}", host=1)}
    for key, (path, _, _) in CASES.items():
        records[key] = {"homepage": web.url(path)}
    records["refused"] = {"homepage": f"http://127.0.0.1:{closed_port}/"}
    # Two records share a URL; one holds a list, an identifier and a malformed link.
    records["shared"] = {"homepage": web.url("/ok"),
                         "links": [web.url("/ok/second"), "http://exa mple.org/bad link"],
                         "identifiers": {"handle": "h-1"}}
    return make_survey(tmp_path / "survey", records)


def run(root: Path, *args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, ["--root", str(root), "links", "--timeout", "1",
                                   "--max-wait", "5", *args])
    return res.exit_code, res.stdout, res.stderr


def by_record(doc: dict) -> dict[str, dict]:
    out = {}
    for link in doc["links"]:
        for use in link["uses"]:
            if use["field"] == "homepage":
                out[use["record"]] = link
    return out


def test_every_case_is_classified(survey: Path, web: Any) -> None:
    started = time.monotonic()
    code, out, err = run(survey, "--format", "json")
    elapsed = time.monotonic() - started
    doc = json.loads(out)
    got = by_record(doc)
    for key, (_, status, http) in CASES.items():
        assert (key, got[key]["status"], got[key]["code"]) == (key, status, http), got[key]
    assert got["refused"]["status"] == "unreachable"
    assert got["refused"]["detail"] == "connection refused"
    assert code == 1  # something is broken

    chain = got["chain"]
    assert [h["code"] for h in chain["redirects"]] == [301, 301, 301]
    assert chain["suggestion"] == chain["final_url"] == web.url("/final")
    assert got["temporary"]["final_url"] == web.url("/final")
    assert got["temporary"]["suggestion"] is None
    assert "redirect loop" in got["loop"]["detail"]
    assert got["nohead"]["method"] == "GET"
    assert web.hits["HEAD /no-head"] == 1 and web.hits["GET /no-head"] == 1
    assert got["flaky"]["tries"] == 2
    assert got["down"]["tries"] == 4  # the first try and three retries
    assert "3600" in got["busylong"]["detail"]
    assert web.hits["HEAD /busy-long"] == 1  # not retried: too long a wait
    assert web.hits["HEAD /busy"] == 4
    assert "within 1 s" in got["hang"]["detail"]
    # The large body was asked for with GET and never read: at most a few socket buffers.
    assert web.hits["GET /large"] == 1
    assert web.large_sent < web.large_total // 20
    # The whole run waits on timeouts and Retry-After, not on the 200 MiB body.
    assert elapsed < 20

    # The shared URL lists both records; the identifier resolves; the malformed link is skipped.
    shared = next(link for link in doc["links"] if link["url"] == web.url("/ok"))
    assert [u["record"] for u in shared["uses"]] == ["fine", "shared"]
    resolved = next(link for link in doc["links"] if link["url"].endswith("/ok/handle/h-1"))
    assert resolved["uses"][0]["field"] == "identifiers.handle (resolved)"
    assert doc["malformed"] == [{"url": "http://exa mple.org/bad link", "record": "shared",
                                 "file": "entries/shared.yaml", "field": "links[1]"}]
    s = doc["summary"]
    assert (s["ok"], s["redirected"], s["broken"], s["unreachable"], s["rate-limited"]) == (
        7, 1, 3, 3, 2)
    assert s["urls"] == 16 and s["malformed"] == 1


def test_malformed_urls_are_reported_by_validate(survey: Path) -> None:
    res = CliRunner().invoke(cli, ["--root", str(survey), "validate"])
    assert res.exit_code == 1
    assert "entries/shared.yaml" in res.stdout + res.stderr
    assert "'http://exa mple.org/bad link' is not a well-formed http(s) URL" in (
        res.stdout + res.stderr)


def test_cache_serves_a_rerun(survey: Path, web: Any, cache_dir: Path) -> None:
    code, out, _ = run(survey, "--format", "json", "--only", "fine,chain", "--only", "missing")
    first = json.loads(out)["summary"]
    assert code == 1 and first["checked"] == 3 and first["from_cache"] == 0
    assert (cache_dir / "links" / "results.json").is_file()
    before = sum(web.hits.values())
    code, out, _ = run(survey, "--format", "json", "--only", "fine,chain,missing,busy")
    second = json.loads(out)
    # fine, chain and missing come from the cache; busy (never cached) is asked.
    assert second["summary"]["from_cache"] == 3 and second["summary"]["checked"] == 1
    assert {link["url"]: link["cached"] for link in second["links"]} == {
        web.url("/ok"): True, web.url("/chain/1"): True, web.url("/gone-404"): True,
        web.url("/busy"): False}
    assert web.hits["HEAD /ok"] == 1 and sum(web.hits.values()) - before == 4
    # --ttl 0: everything is due again; --no-cache neither reads nor writes.
    code, out, _ = run(survey, "--format", "json", "--only", "fine", "--ttl", "0")
    assert json.loads(out)["summary"]["checked"] == 1
    code, out, _ = run(survey, "--format", "json", "--only", "fine", "--no-cache")
    assert json.loads(out)["summary"]["checked"] == 1 and web.hits["HEAD /ok"] == 3


def test_a_damaged_cache_is_ignored(survey: Path, cache_dir: Path) -> None:
    (cache_dir / "links").mkdir(parents=True)
    (cache_dir / "links" / "results.json").write_text("{not json")
    code, out, _ = run(survey, "--format", "json", "--only", "fine")
    assert code == 0 and json.loads(out)["summary"]["ok"] == 1


def test_per_host_limit(tmp_path: Path, web: Any) -> None:
    web.delay = 0.2
    uses = {web.url(f"/ok/{i}", host=i % 3): [links.Use(f"r{i}", "x.yaml", "links")]
            for i in range(24)}
    settings = links.Settings(concurrency=50, per_host=2, timeout=5, use_cache=False)
    started = time.monotonic()
    report = links.check_urls(uses, settings)
    elapsed = time.monotonic() - started
    assert report.counts()["ok"] == 24
    assert set(web.max_in_flight.values()) == {2}  # never more than 2 at one host...
    assert elapsed < 24 * 0.2 / 2  # ...but the three hosts were asked side by side
    web.max_in_flight.clear()
    settings = links.Settings(concurrency=3, per_host=4, timeout=5, use_cache=False)
    uses = {web.url(f"/ok/x{i}"): [links.Use("r", "x.yaml", "links")] for i in range(8)}
    links.check_urls(uses, settings)
    assert web.max_in_flight[web.ports[0]] == 3  # the global limit binds first


def test_table_and_markdown(survey: Path, web: Any) -> None:
    code, out, _ = run(survey, "--only", "fine,missing,chain")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].split() == ["STATUS", "CODE", "URL", "DETAIL", "RECORDS"]
    assert any(ln.startswith("broken") and "HTTP 404 Not Found" in ln and ln.endswith("missing")
               for ln in lines)
    assert any(ln.startswith("redirected") and web.url("/final") in ln for ln in lines)
    assert not any(ln.startswith("ok ") for ln in lines)  # ok rows only with --all
    assert lines[-1].startswith("3 URLs: 1 ok, 1 redirected, 1 broken, 0 unreachable")
    code, out, _ = run(survey, "--only", "fine,missing", "--format", "md", "--all")
    assert "## Broken (1)" in out and "## Ok (1)" in out
    assert f"| <{web.url('/gone-404')}> | 404 | HTTP 404 Not Found | missing |" in out


def test_exit_zero_without_broken_links(survey: Path) -> None:
    code, out, _ = run(survey, "--only", "fine", "--only", "hang")
    assert code == 0
    assert "unreachable" in out


def test_unknown_key(survey: Path) -> None:
    code, _, err = run(survey, "--only", "fien")
    assert code == 2
    assert "no record with the key fien (did you mean fine?)" in err


def test_retry_after_parsing() -> None:
    assert links.retry_after("7") == 7.0
    assert links.retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert links.retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412490.0) == 0.0
    assert links.retry_after("soon") is None
    assert links.retry_after(None) is None


def test_real_corpus_urls_are_collected(frozen_survey: Path) -> None:
    uses, malformed = links.collect(load_corpus(frozen_survey))
    assert not malformed
    fields = {u.field.split(".")[0].split("[")[0] for us in uses.values() for u in us}
    # links, sub-decision evidence, strict-credit evidence, corrections, resolved identifiers
    assert {"links", "subdecisions", "url", "corrections", "identifiers"} <= fields
    assert "https://arxiv.org/abs/2508.03680" in uses
