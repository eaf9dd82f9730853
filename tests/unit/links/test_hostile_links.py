"""`survey links` against hostile servers: bounded in time and memory, nothing injected.

Each case of HOSTILE is one record whose homepage is a hostile path on the loopback servers
(tests/helpers/links_fixtures.py); the link check must classify it as stated, within the seconds
stated, and the Markdown report (the body of the weekly maintenance issue) must carry no
mention, image or link that came from a server.
"""

from __future__ import annotations

import json
import re
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from helpers.links_fixtures import make_survey
from markdown_it import MarkdownIt

from survey_tools.cli import cli
from survey_tools.curate import links

# record key -> (path, status, detail fragment, most seconds). The seconds bound the whole
# command on a loaded machine (memory tracing on); what proves the deadline is the drip's
# detail: without it the 10 bytes would arrive after 5 s and the link would be ok.
HOSTILE = {
    "bomb": ("/bomb", "ok", "", 30.0),
    "drip": ("/drip", "unreachable", "no answer within 1 s", 30.0),
    "evil": ("/evil", "redirected", "@octocat", 30.0),
    "metadata": ("/to-metadata", "broken",
                 "refused to connect to a link-local address (169.254.169.254)", 30.0),
    "loopback2": ("/to-loopback", "broken", "refused to connect to a loopback address (127.0.0.2)",
                  30.0),
}


def _survey(tmp_path: Path, web: Any, keys: list[str]) -> Path:
    records: dict[str, dict] = {"_template": web.url("/ok/handle/{id}", host=1)}
    for key in keys:
        records[key] = {"homepage": web.url(HOSTILE[key][0])}
    return make_survey(tmp_path / "survey", records)


@pytest.mark.parametrize("key", sorted(HOSTILE))
def test_hostile_link(tmp_path: Path, web: Any, key: str) -> None:
    path, status, detail, most = HOSTILE[key]
    root = _survey(tmp_path, web, [key])
    tracemalloc.start()
    start = time.monotonic()
    res = CliRunner().invoke(cli, ["--root", str(root), "links", "--format", "json", "--timeout",
                                   "1", "--no-cache", "--retries", "0"])
    took = time.monotonic() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    got = next(r for r in json.loads(res.stdout)["links"] if r["url"] == web.url(path))
    assert got["status"] == status, got
    assert detail in got["detail"], got
    assert took < most, f"{key} took {took:.1f} s"
    assert peak < 64 * 1024**2, f"{key} peaked at {peak / 1024**2:.0f} MiB"


def test_no_request_reaches_a_private_address(tmp_path: Path, web: Any) -> None:
    root = _survey(tmp_path, web, ["metadata", "loopback2"])
    CliRunner().invoke(cli, ["--root", str(root), "links", "--timeout", "1", "--no-cache"])
    # 127.0.0.2 is the same servers' loopback: a request there would be counted as a hit.
    assert web.hits["HEAD /ok"] == 0


def test_a_record_link_to_a_private_host_is_refused(tmp_path: Path, web: Any,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SURVEY_NET_ALLOW")
    root = _survey(tmp_path, web, [])
    uses = {web.url("/ok"): [links.Use("r", "x.yaml", "homepage")]}
    report = links.check_urls(uses, links.Settings(timeout=1, use_cache=False))
    (r,) = report.results
    assert (r.status, r.detail) == (
        "broken", "refused to connect to a loopback address (127.0.0.1); SURVEY_NET_ALLOW allows it")
    assert sum(web.hits.values()) == 0
    del root


def test_markdown_report_is_inert(tmp_path: Path, web: Any) -> None:
    root = _survey(tmp_path, web, ["evil"])
    res = CliRunner().invoke(cli, ["--root", str(root), "links", "--format", "md", "--all",
                                   "--timeout", "1", "--no-cache"])
    out = res.stdout
    row = next(ln for ln in out.splitlines() if "octocat" in ln)
    # The Location is shown as a code span (werkzeug sent it percent-encoded): nothing renders.
    assert "moved permanently to `http://127.0.0.1:" in row
    _assert_inert(out)


def _assert_inert(out: str) -> None:
    """Rendered as CommonMark with tables (markdown-it-py): no image, no link but our own
    autolinks; and in the text GitHub post-processes, no "@octocat" mention and no bare
    "https://" for its autolinker (code spans are left alone by both)."""
    html = MarkdownIt("commonmark").enable("table").render(out)
    assert "<img" not in html
    hrefs = re.findall(r'<a href="([^"]*)"', html)
    assert all(h.startswith(("http://127.0.0.1:", "https://a.example/")) for h in hrefs), hrefs
    text = re.sub(r"<code>.*?</code>", "", html)
    text = re.sub(r"<a href=[^>]*>.*?</a>", "", text)
    assert "@octocat" not in text and "https://evil" not in text and "https://tracker" not in text


@pytest.mark.parametrize("status", ["redirected", "broken", "unreachable"])
def test_markdown_of_raw_hostile_text_is_inert(status: str) -> None:
    """The Location exactly as the security test sent it, in every place text can land."""
    evil = ("http://h.example/ok/x> @octocat ![tracker](https://tracker.example/pixel.png) "
            "[Click here](https://evil.example/phish) <")
    r = links.LinkResult(url="https://a.example/p>@octocat", status=status, code=301,
                         detail=f"redirect loop back to {evil}", suggestion=evil,
                         uses=(links.Use("k@octocat", "x.yaml", "homepage"),))
    out = links.to_markdown(links.LinkReport([r]), show_all=True)
    _assert_inert(out)
    assert "@&#8203;octocat" in out or status == "redirected"
    assert "<https://a.example/p%3E%40octocat>" in out  # the autolink cannot be closed early
