"""Crossref and OpenReview answers of the wrong shape: one clear error, exit 1, nothing written.

Each case takes the documented answer (tests/fixtures/init/, in the formats of Crossref's
``/works/{doi}`` and OpenReview API 2's ``/notes``), changes one value, serves it on a loopback
server and runs ``survey add``. The answer must be refused with one line naming the service and
the value; never a traceback, never a silently wrong record (a title string is not a list of
its letters, an author string not one author per letter).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from helpers.loopback import LoopbackServer as HTTPServer
from helpers.metadata_cases import DOI, TAGS
from helpers.metadata_cases import server as server  # a fixture, found by name

from survey_tools.cli import cli
from survey_tools.errors import UsageError
from survey_tools.net.client import HttpClient, Limits
from survey_tools.scholarly.metadata import CrossrefClient, OpenReviewClient

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "init"
CROSSREF = json.loads((FIXTURES / "crossref-work.json").read_text(encoding="utf-8"))
NOTE = json.loads((FIXTURES / "openreview-note.json").read_text(encoding="utf-8"))


def crossref(change: Callable[[dict[str, Any]], None]) -> bytes:
    doc = json.loads(json.dumps(CROSSREF))
    change(doc["message"])
    return json.dumps(doc).encode()


def note(change: Callable[[dict[str, Any]], None]) -> bytes:
    doc = json.loads(json.dumps(NOTE))
    change(doc)
    return json.dumps(doc).encode()


def setitem(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda d: d.__setitem__(key, value)


def content(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda d: d["notes"][0]["content"].__setitem__(key, value)


DEEP = b'{"status": "ok", "message": ' + b"[" * 5000 + b"]" * 5000 + b"}"

# name -> (service, served body, the error line after "error: ")
CASES: dict[str, tuple[str, bytes, str]] = {
    "crossref title 5": ("crossref", crossref(setitem("title", 5)),
                         "Crossref's answer is unusable: message.title is the number 5, not a list of text"),
    "crossref title string": ("crossref", crossref(setitem("title", "Attention")),
                              "Crossref's answer is unusable: message.title is text, not a list of text"),
    "crossref author 7": ("crossref", crossref(setitem("author", 7)),
                          "Crossref's answer is unusable: message.author is the number 7, not a list"),
    "crossref author not an object": ("crossref", crossref(setitem("author", ["Ada Lovelace"])),
                                      "Crossref's answer is unusable: message.author[0] is text, not an object"),
    "crossref message a list": ("crossref", json.dumps({"status": "ok", "message": []}).encode(),
                                "Crossref's answer is unusable: message is a list, not an object"),
    "crossref deep nesting": ("crossref", DEEP, "Crossref's answer for {url}/works/10.5555/12345678 is not JSON"),
    "crossref huge title": ("crossref", crossref(setitem("title", ["x" * 5000])),
                            "Crossref's answer is unusable: message.title[0] is longer than 1000 characters"),
    "openreview notes a dict": ("openreview", note(setitem("notes", {"id": "x"})),
                                "OpenReview's answer is unusable: notes is an object, not a list"),
    "openreview pdate 1e20": ("openreview", note(lambda d: d["notes"][0].__setitem__("pdate", 1e20)),
                              "OpenReview's answer is unusable: notes[0].pdate is the number 1e+20, not a time in milliseconds"),
    "openreview pdate NaN": ("openreview", note(lambda d: d["notes"][0].__setitem__("pdate", float("nan"))),
                             "OpenReview's answer for {url}/notes is not JSON"),
    "openreview pdate text": ("openreview", note(lambda d: d["notes"][0].__setitem__("pdate", "2024")),
                              "OpenReview's answer is unusable: notes[0].pdate is text, not a time in milliseconds"),
    "openreview authors 5": ("openreview", note(content("authors", {"value": 5})),
                             "OpenReview's answer is unusable: notes[0].content.authors is the number 5, not a list"),
    "openreview authors a string": ("openreview", note(content("authors", {"value": "Ada Lovelace"})),
                                    "OpenReview's answer is unusable: notes[0].content.authors is text, not a list"),
    "openreview title a list": ("openreview", note(content("title", {"value": ["T"]})),
                                "OpenReview's answer is unusable: notes[0].content.title is a list, not text"),
}


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.yaml"))}


@pytest.mark.parametrize("case", sorted(CASES))
def test_wrong_shapes_are_one_clear_error(server: HTTPServer, survey: Path, case: str) -> None:
    service, body, message = CASES[case]
    url = server.url_for("").rstrip("/")
    if service == "crossref":
        server.expect_request(f"/works/{DOI}").respond_with_data(body, content_type="application/json")
        args = [DOI, "--crossref-url", url]
    else:
        server.expect_request("/notes").respond_with_data(body, content_type="application/json")
        args = ["openreview:SyntheticNote01", "--openreview-url", url]
    before = snapshot(survey)
    res = CliRunner().invoke(cli, ["--root", str(survey), "add", *args, *TAGS])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert res.exit_code == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("error: " + message.format(url=url)), lines[0]
    assert snapshot(survey) == before


def test_the_documented_answers_still_parse(server: HTTPServer) -> None:
    url = server.url_for("").rstrip("/")
    server.expect_request(f"/works/{DOI}").respond_with_json(CROSSREF)
    server.expect_request("/notes").respond_with_json(NOTE)
    http = HttpClient(Limits.from_env(timeout=5))
    w = CrossrefClient(url, 5, http).fetch(DOI)
    assert (w.title, w.authors, w.year, w.venue) == (
        "Synthetic: Placeholder record added through a recorded Crossref answer",
        ("Author, Example", "Example Consortium"), 2024, "Journal of Synthetic Examples")
    n = OpenReviewClient(url, 5, http).fetch("SyntheticNote01")
    assert (n.authors, n.year, n.venue) == (
        ("Author, Example", "Example, Second"), 2024, "Example Conference 2024")


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("10.5555/../../members", "is not a DOI this tool can look up"),
        ("10.5555/" + "x" * 300, "is not a DOI this tool can look up"),
        ("openreview:../notes", "is not an OpenReview id"),
        ("openreview:", "is not an OpenReview id"),
        ("openreview:" + "a" * 65, "is not an OpenReview id"),
    ],
)
def test_identifiers_are_parsed_strictly(survey: Path, ref: str, message: str) -> None:
    res = CliRunner().invoke(cli, ["--root", str(survey), "add", ref, *TAGS])
    assert res.exit_code == UsageError.exit_code
    assert message in res.stderr and "Traceback" not in res.output


def test_a_dripping_server_does_not_hold_add_past_the_timeout(server: HTTPServer, survey: Path) -> None:
    """Crossref's answer sent one byte every half second: `survey add --timeout 1` gives up
    after about a second (the deadline covers the whole answer, not each read)."""
    import threading
    import time

    from werkzeug import Response

    stop = threading.Event()

    def drip(_req: object) -> Response:
        def body() -> Iterator[bytes]:
            for b in json.dumps(CROSSREF).encode():
                yield bytes([b])
                if stop.wait(0.5):
                    return

        return Response(body(), content_type="application/json")

    server.expect_request(f"/works/{DOI}").respond_with_handler(drip)
    start = time.monotonic()
    try:
        res = CliRunner().invoke(cli, ["--root", str(survey), "add", DOI, "--crossref-url",
                                       server.url_for("").rstrip("/"), "--timeout", "1", *TAGS])
        took = time.monotonic() - start
    finally:
        stop.set()
    assert res.exit_code == 1
    assert res.stderr.startswith("error: Crossref did not answer within 1 s")
    assert took < 30, took  # without the deadline: 20 minutes (2.5 KB at 2 bytes a second)


