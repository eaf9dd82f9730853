"""`survey refresh --sources`: venue, DOI and authors from Semantic Scholar, DBLP, Crossref and
OpenReview, each answered by a loopback server replaying the service's documented format
(tests/fixtures/scholarly/), each change proposed with its service and page."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers.loopback import LoopbackServer as HTTPServer
from test_refresh import run
from test_refresh import survey as survey  # a fixture, found by name
from werkzeug import Request, Response

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "scholarly"
ROUTING_TITLE = "Routing Example Agents with Learned Orchestrators"


def _json(name: str, status: int = 200) -> Response:
    return Response((FIXTURES / name).read_bytes(), status=status, content_type="application/json")


class Services:
    def __init__(self) -> None:
        self.asked: list[str] = []
        self.override: bytes | None = None  # served for every request when set

    def answer(self, req: Request) -> Response:
        self.asked.append(req.path)
        if self.override is not None:
            return Response(self.override, content_type="application/json")
        if req.path.startswith("/graph/v1/paper/"):
            assert req.args["fields"] == "title,venue,year,externalIds,authors,publicationVenue"
            if req.path.endswith("ARXIV:2501.00003"):
                return _json("s2-paper-2501.00003.json")
            return _json("s2-not-found.json", 404)
        if req.path == "/search/publ/api":
            assert req.args["format"] == "json"
            if req.args["q"] == ROUTING_TITLE:
                return _json("dblp-search-routing.json")
            return _json("dblp-search-empty.json")
        if req.path == "/works/10.5555/example.0001":
            return _json("crossref-work-0001.json")
        if req.path.startswith("/works/"):
            return Response(b"Resource not found.", status=404)
        if req.path == "/notes":
            if req.args.get("id") == "ExampleNote09":
                return _json("openreview-note-vanished.json")
            return Response(json.dumps({"notes": [], "count": 0}), content_type="application/json")
        return Response(b"", status=404)


@pytest.fixture
def services(arxiv: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Services]:
    state = Services()
    srv = HTTPServer(host="127.0.0.1")
    srv.expect_request(__import__("re").compile(".*")).respond_with_handler(state.answer)
    srv.start()
    base = srv.url_for("").rstrip("/")
    for var in ("SURVEY_S2_URL", "SURVEY_DBLP_URL", "SURVEY_CROSSREF_URL", "SURVEY_OPENREVIEW_URL"):
        monkeypatch.setenv(var, base)
    try:
        yield state
    finally:
        srv.clear()
        srv.stop()


def _with_openreview(root: Path) -> None:
    path = root / "corpus" / "vanished.yaml"
    doc = yaml.safe_load(path.read_text())
    doc["identifiers"]["openreview"] = "ExampleNote09"
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))


def test_every_service_proposes_with_its_source(survey: Path, services: Services) -> None:  # noqa: F811
    _with_openreview(survey)
    res = run(survey, "--sources", "all", "--delay", "0", "--format", "json")
    assert res.exit_code == 0, res.stderr
    got = {r["record"]: r for r in json.loads(res.stdout)["records"]}
    # DBLP's conference entry (not its CoRR entry) wins over the venue read from arXiv's comment.
    assert got["routing"]["changes"] == [{
        "field": "venue", "current": "arXiv", "proposed": "ICLR 2026",
        "why": "DBLP lists the paper at 'ICLR 2026'",
        "source": "https://dblp.org/rec/conf/iclr/Example26"}]
    # The survey's edition: Semantic Scholar's venue, as a correction to propose.
    steady = got["steady"]["changes"]
    assert steady == [{"field": "venue", "current": "arXiv",
                       "proposed": "Neural Information Processing Systems",
                       "why": "Semantic Scholar lists the paper at 'Neural Information Processing Systems'",
                       "source": "https://www.semanticscholar.org/arxiv/2501.00003"}]
    # arXiv does not know it; OpenReview gives the venue and the authors.
    vanished = {c["field"]: c for c in got["vanished"]["changes"]}
    assert vanished["venue"]["proposed"] == "ICLR 2026 Poster"
    assert vanished["authors"]["proposed"] == ["Nobody, Ann", "Other, Ben"]
    assert vanished["authors"]["source"] == "https://openreview.net/forum?id=ExampleNote09"
    # arXiv's journal reference stays; Crossref (asked for arXiv's DOI) agrees and is listed.
    revisited = got["revisited"]
    assert [c["field"] for c in revisited["changes"]] == ["title", "authors", "identifiers.doi", "venue"]
    assert {s["source"] for s in revisited["sources"]} == {"Crossref"}
    assert "/works/10.5555/example.0001" in services.asked


def test_written_with_evidence_and_cached(survey: Path, services: Services) -> None:  # noqa: F811
    _with_openreview(survey)
    res = run(survey, "--sources", "dblp,semanticscholar", "--delay", "0", "--write")
    assert res.exit_code == 0, res.stderr
    assert yaml.safe_load((survey / "corpus" / "routing.yaml").read_text())["venue"] == "ICLR 2026"
    corr = yaml.safe_load((survey / "data" / "corrections.yaml").read_text())["corrections"]
    steady = next(c for c in corr if c["record"] == "steady" and c["id"] != "C007")
    assert steady["evidence"] == "https://www.semanticscholar.org/arxiv/2501.00003"
    assert steady["reason"].startswith("Metadata refresh: Semantic Scholar lists the paper at")
    asked = len(services.asked)
    again = run(survey, "--sources", "dblp,semanticscholar", "--delay", "0")
    assert again.exit_code == 0, again.stderr
    # The 200 answers come from the cache; only the 404s are asked again.
    assert all(p.startswith("/graph/") for p in services.asked[asked:]), services.asked[asked:]


def test_unknown_source_is_a_usage_error(survey: Path) -> None:  # noqa: F811
    res = run(survey, "--sources", "arxiv,scholar")
    assert res.exit_code == 2
    assert "--sources: scholar is not a service this tool asks" in res.stderr


@pytest.mark.parametrize(
    ("fixture", "change", "message"),
    [
        ("dblp-search-routing.json", lambda d: d["result"]["hits"].__setitem__("hit", "x"),
         "DBLP's answer is unusable: result.hits.hit is text, not a list"),
        ("dblp-search-routing.json",
         lambda d: d["result"]["hits"]["hit"][1]["info"].__setitem__("title", 5),
         "DBLP's answer is unusable: hit[1].info.title is the number 5, not text"),
        ("dblp-search-routing.json",
         lambda d: d["result"]["hits"]["hit"][1]["info"]["authors"].__setitem__("author", 7),
         "DBLP's answer is unusable: info.authors.author is the number 7, not a list"),
    ],
)
def test_wrong_shapes_are_one_clear_error(survey: Path, services: Services,  # noqa: F811
                                          fixture: str, change: Any, message: str) -> None:
    doc = json.loads((FIXTURES / fixture).read_text())
    change(doc)
    services.override = json.dumps(doc).encode()
    before = {p: p.read_bytes() for p in survey.rglob("*.yaml")}
    res = run(survey, "routing", "--sources", "dblp", "--delay", "0", "--write")
    assert res.exit_code == 1
    assert res.stderr.strip().splitlines() == [f"error: {message}"]
    assert {p: p.read_bytes() for p in survey.rglob("*.yaml")} == before
