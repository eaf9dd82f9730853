"""Issue 56, search that forgives: the queries readers type (tests/data/search/queries.yaml),
ranked by the page's own modules under node over the list's built index (search.mjs,
filter.mjs, order.mjs, through tests/js/helpers/rank.mjs), each with its paper in the first three.
And the taxonomy's words reach every record they describe: ``when to stop`` matches every paper
tagged with the stop sub-decision."""

from __future__ import annotations

import json
import re
import subprocess

import pytest
import yaml
from helpers.external_tools import node
from helpers.render_support import REPO, Built

from survey_tools.render.site import site_files

QUERIES = yaml.safe_load(
    (REPO / "tests" / "data" / "search" / "queries.yaml").read_text(encoding="utf-8")
)
RANK = REPO / "tests" / "js" / "helpers" / "rank.mjs"


@pytest.fixture(scope="module")
def ranked(real: Built, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    if node() is None:
        pytest.skip("Node.js is not installed: apt-get install -y nodejs")
    html = site_files(real.tax, real.corpus, real.stats)["index.html"]
    data = re.search(r'<script type="application/json" id="survey-data">(.*?)</script>', html, re.S)
    assert data is not None
    folder = tmp_path_factory.mktemp("search")
    (folder / "data.json").write_text(data.group(1), encoding="utf-8")
    queries = [q["query"] for q in QUERIES] + ["when to stop"]
    (folder / "queries.json").write_text(json.dumps(queries), encoding="utf-8")
    out = subprocess.run(
        [str(node()), str(RANK), str(folder / "data.json"), str(folder / "queries.json")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(data.group(1)), json.loads(out.stdout)


def test_there_are_at_least_twenty_queries_of_every_kind() -> None:
    assert len(QUERIES) >= 20 and len({q["query"] for q in QUERIES}) == len(QUERIES)
    kinds = " ".join(q["why"] for q in QUERIES)
    for kind in ("typo", "arXiv id", "DOI", "OpenReview", "sub-decision"):
        assert kind in kinds, kind


@pytest.mark.parametrize("case", QUERIES, ids=[q["query"] for q in QUERIES])
def test_the_expected_paper_is_in_the_first_three(case: dict, ranked: tuple[dict, dict]) -> None:
    data, results = ranked
    assert case["expect"] in data["rec"][data["id"]], f"{case['expect']} is not in the list"
    top = results[case["query"]][:3]
    assert case["expect"] in top, f"{case['query']!r} ({case['why']}): first three {top}"


def test_when_to_stop_reaches_every_record_tagged_with_the_stop_sub_decision(
    real: Built, ranked: tuple[dict, dict]
) -> None:
    data, results = ranked
    cf = next(c for c in real.tax.retained.controlled if c.kind == "mapping")
    stop = next(v for v in cf.values if v.name == "stop")
    tagged = {
        r.id
        for r in real.corpus.retained
        if isinstance(r.get(cf.name), dict) and stop.id in r.get(cf.name)
    }
    assert len(tagged) >= 10
    assert tagged <= set(results["when to stop"]), tagged - set(results["when to stop"])
    words = data["words"]
    ids, per = data["rec"][data["id"]], data["rec"]["_w"]
    described = {
        ids[i] for i, ws in enumerate(per) if any(words[k].startswith(stop.label) for k in ws)
    }
    assert described == tagged
