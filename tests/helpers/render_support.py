"""Helpers shared by the render tests (imported by conftest.py and the test modules)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from helpers.external_tools import chromium as find_chromium
from helpers.survey_copy import SURVEY
from survey_tools.corpus.loading import load_corpus
from survey_tools.corpus.records import Corpus
from survey_tools.corpus.taxonomy import Taxonomy, load_taxonomy
from survey_tools.reports.gaps import GapReport, compute_gaps
from survey_tools.reports.report_config import load_config
from survey_tools.reports.stats import Stats, compute_stats

REPO = Path(__file__).resolve().parents[2]
# The browser tests drive Debian's Chromium, found on PATH; SURVEY_CHROMIUM names another binary
# (Google Chrome on GitHub's runners, or a missing path to see how the suite runs without one).
CHROMIUM = find_chromium()
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Every Markdown-significant character, plus markup that would run if it were not escaped.
HOSTILE_TITLE = "Pipes | [brackets] *stars* `ticks` <script>window.__pwned = 1</script> <img src=x onerror=\"window.__pwned = 2\"> & more_under_scores"
HOSTILE_SUMMARY = "Checks that a | b, [c](d), *e*, `f` and <b>g</b> stay text in every table and list."


@dataclass(frozen=True)
class Built:
    root: Path
    tax: Taxonomy
    corpus: Corpus
    stats: Stats
    gaps: GapReport


def build_inputs(root: Path) -> Built:
    tax = load_taxonomy(root)
    corpus = load_corpus(root, tax, use_cache=False)
    assert not corpus.problems, [p.format() for p in corpus.problems]
    config = load_config(tax)
    return Built(root, tax, corpus, compute_stats(corpus, config), compute_gaps(corpus, config))


def make_hostile_survey(root: Path) -> Path:
    """A small survey folder: three real records, one with a hostile title, two exclusions."""
    shutil.copytree(SURVEY / "taxonomy", root / "taxonomy")
    if (SURVEY / "data" / "reports.yaml").is_file():
        (root / "data").mkdir(parents=True)
        shutil.copy(SURVEY / "data" / "reports.yaml", root / "data" / "reports.yaml")
    (root / "corpus").mkdir()
    (root / "exclusions").mkdir()
    for key in ("c3", "debate-as-reward", "puppeteer"):
        shutil.copy(SURVEY / "corpus" / f"{key}.yaml", root / "corpus" / f"{key}.yaml")
    for eid in ("E001", "E002"):
        shutil.copy(SURVEY / "exclusions" / f"{eid}.yaml", root / "exclusions" / f"{eid}.yaml")
    data: dict[str, Any] = yaml.safe_load((SURVEY / "corpus" / "c3.yaml").read_text(encoding="utf-8"))
    data.update(
        key="hostile",
        title=HOSTILE_TITLE,
        summary=HOSTILE_SUMMARY,
        identifiers={"arxiv": "2601.00001"},
        links=["https://arxiv.org/abs/2601.00001", "https://github.com/example/has_(parens)"],
        year=2026,
    )
    (root / "corpus" / "hostile.yaml").write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return root


def write_site(folder: Path, b: Built, bibtex: bool = True, **kwargs: Any) -> Path:
    """Every file of the browsing site (index, paper pages, stylesheet, BibTeX) in ``folder``;
    ``kwargs`` go to ``site_files`` (corrections, figures, all_rows_limit)."""
    from survey_tools.render.bibtex import bibtex_entry
    from survey_tools.render.site import site_files

    fn = bibtex_entry if bibtex else None
    for rel, text in site_files(b.tax, b.corpus, b.stats, fn, **kwargs).items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder / "index.html"


def synthetic(b: Built, n: int) -> Built:
    """``n`` records made by cycling the real ones under new keys, years spread over a decade."""
    from dataclasses import replace

    from survey_tools.corpus.records import Record

    base = b.corpus.retained
    recs = []
    for i in range(n):
        src = base[i % len(base)]
        data = dict(src.data)
        data["key"] = f"{src.id}-{i}"
        data["title"] = f"{src.title} ({i})"
        data["year"] = 2017 + (i % 10)
        recs.append(Record(src.collection, data["key"], src.path, data))
    records = dict(b.corpus.records)
    records[b.tax.retained.name] = tuple(sorted(recs, key=lambda r: r.id))
    corpus = replace(b.corpus, records=records)
    config = load_config(b.tax)
    return Built(b.root, b.tax, corpus, compute_stats(corpus, config), b.gaps)


AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"


def open_page(browser: Any, url: str, **ctx_args: Any) -> Any:
    ctx = browser.new_context(**({"viewport": {"width": 1366, "height": 900}} | ctx_args))
    pg = ctx.new_page()
    pg.errors = []
    pg.warnings = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    pg.on("console", lambda m: pg.warnings.append(m.text) if m.type == "warning" else None)
    # Offline: any request other than a file fails.
    pg.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file://") else route.abort())
    pg.goto(url)
    return pg


def keys(pg: Any) -> list[str]:
    return list(pg.evaluate("surveyPage.keys()"))


def watch_typing(pg: Any, box: str = "q") -> None:
    """Note when each keystroke reaches the page's ``box`` (for :func:`pauses_over`)."""
    pg.evaluate(f"window.__typed = []; document.getElementById({box!r})"
                ".addEventListener('input', () => window.__typed.push(performance.now()));")


def pauses_over(pg: Any, ms: float, keystrokes: int) -> int:
    """How many gaps between the watched keystrokes, as the page saw them, were longer than
    ``ms``. A busy host can hold a keystroke back longer than the page waits before it acts on
    what was typed (announcing it, writing the address), and the page then rightly acts on the
    word typed so far: a test allows one more action per such pause."""
    typed = pg.evaluate("window.__typed")
    assert len(typed) == keystrokes, typed
    return sum(1 for a, b in zip(typed, typed[1:], strict=False) if b - a > ms)


def axe_violations(pg: Any) -> list[dict[str, Any]]:
    if not AXE.is_file():
        pytest.skip("axe-core is not installed: run `npm ci` at the repository root")
    pg.add_script_tag(path=str(AXE))
    result = pg.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return [{"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]][:5]} for v in result]
