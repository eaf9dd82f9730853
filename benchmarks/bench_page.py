"""How fast the README and the browsing page render, and how fast the page filters 10k records.

    python3 benchmarks/bench_page.py [--records 10000] [--repeat 7]

Builds a synthetic corpus by cycling the real retained records under new keys with years spread
over a decade (tags and text as in the real records), renders the page, opens it in Debian's
headless Chromium and times each interaction inside the page: from the input event to the
table and counts being updated, layout included. Prints one table; the target is < 100 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from survey_tools.corpus.loading import load_corpus  # noqa: E402
from survey_tools.corpus.records import Corpus, Record  # noqa: E402
from survey_tools.corpus.taxonomy import load_taxonomy  # noqa: E402
from survey_tools.render.markdown import gap_tables, render_readme  # noqa: E402
from survey_tools.render.site import render_site  # noqa: E402
from survey_tools.reports.gaps import compute_gaps  # noqa: E402
from survey_tools.reports.stats import compute_stats, load_config  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# Each step runs in the page and returns the milliseconds from the event to a finished layout.
TIMED = """(step) => {
  const t0 = performance.now();
  step();
  document.body.offsetHeight;  // force style and layout so the cost of the new rows counts
  return performance.now() - t0;
}"""
STEPS: list[tuple[str, str]] = [
    ("facet: credit unit = agent", "() => { const b = document.querySelector('fieldset[data-facet=credit_granularity] input[value=agent]'); b.click(); }"),
    ("facet: + reward family R8", "() => document.querySelector('fieldset[data-facet=reward_family] input[value=R8]').click()"),
    ("clear filters", "() => document.getElementById('reset').click()"),
    ("search 'credit'", "() => { const q = document.getElementById('q'); q.value = 'credit'; q.dispatchEvent(new Event('input')); }"),
    ("sort by year", "() => document.querySelector('#papers th button[data-sort=\"1\"]').click()"),
    ("year from 2020", "() => { const y = document.getElementById('y0'); y.value = '2020'; y.dispatchEvent(new Event('input')); }"),
    ("reset", "() => document.getElementById('reset').click()"),
]


def synthetic(corpus: Corpus, n: int) -> Corpus:
    base = corpus.retained
    recs = []
    for i in range(n):
        src = base[i % len(base)]
        data = dict(src.data)
        data["key"] = f"{src.id}-{i}"
        data["title"] = f"{src.title} ({i})"
        data["year"] = 2017 + (i % 10)
        recs.append(Record(src.collection, data["key"], src.path, data))
    records = dict(corpus.records)
    records[corpus.taxonomy.retained.name] = tuple(sorted(recs, key=lambda r: r.id))
    return replace(corpus, records=records)


def run(n: int, repeat: int) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    tax = load_taxonomy(REPO)
    corpus = load_corpus(REPO, tax)
    config = load_config(tax)
    stats = compute_stats(corpus, config)
    gaps = gap_tables(compute_gaps(corpus, config))
    t0 = time.perf_counter()
    render_readme(tax, corpus, stats, gaps)
    t1 = time.perf_counter()
    render_site(tax, corpus, stats)
    t2 = time.perf_counter()
    rows.append((f"render README ({len(corpus.retained)} records)", f"{(t1 - t0) * 1000:.1f} ms"))
    rows.append((f"render page ({len(corpus.retained)} records)", f"{(t2 - t1) * 1000:.1f} ms"))

    big = synthetic(corpus, n)
    big_stats = compute_stats(big, config)
    t0 = time.perf_counter()
    html = render_site(tax, big, big_stats)
    rows.append((f"render page ({n} records)", f"{(time.perf_counter() - t0) * 1000:.0f} ms, {len(html.encode()) / 1e6:.1f} MB"))

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        page_path = Path(tmp) / "index.html"
        page_path.write_text(html, encoding="utf-8")
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        t0 = time.perf_counter()
        page.goto(page_path.as_uri())
        rows.append((f"load page ({n} records)", f"{(time.perf_counter() - t0) * 1000:.0f} ms"))
        worst = 0.0
        for name, step in STEPS:
            times: list[float] = []
            for _ in range(repeat):
                page.evaluate("() => document.getElementById('reset').click()") if name not in ("clear filters", "reset", "facet: + reward family R8") else None
                if name == "facet: + reward family R8":
                    page.evaluate("() => { document.getElementById('reset').click(); document.querySelector('fieldset[data-facet=credit_granularity] input[value=agent]').click(); }")
                if name in ("clear filters",):
                    page.evaluate("() => document.querySelector('fieldset[data-facet=credit_granularity] input[value=agent]').click()")
                ms: Any = page.evaluate(f"({TIMED})({step})")
                times.append(float(ms))
            med = statistics.median(times)
            worst = max(worst, med)
            shown = page.locator("#status").text_content()
            rows.append((f"filter {n}: {name}", f"{med:.1f} ms median of {repeat} ({shown})"))
        rows.append((f"filter {n}: slowest step (target < 100 ms)", f"{worst:.1f} ms"))
        browser.close()
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    rows = run(args.records, args.repeat)
    w = max(len(r[0]) for r in rows)
    print(f"| {'measure'.ljust(w)} | result |")
    print(f"| {'-' * w} | ------ |")
    for name, value in rows:
        print(f"| {name.ljust(w)} | {value} |")


if __name__ == "__main__":
    main()
