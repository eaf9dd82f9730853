"""How big the browsing page is and how fast it answers, at the real corpus's size, 10,000 and 100,000 records.

    python3 benchmarks/bench_page.py [--records real,10000,100000] [--repeat 7]

Builds the real page, with BibTeX, from a synthetic corpus (the real retained records cycled
under new keys, years spread over a decade; ``real`` means the real corpus itself, however many
records it holds today), writes the index,
its stylesheet and bibtex.js to a temporary folder (the paper, tag and statistics pages play no
part in the index's speed), opens ``index.html`` from ``file://`` in Debian's headless Chromium
and measures:

* the page's size in bytes, raw and gzipped;
* DOMContentLoaded, from the navigation's own timing entry;
* the time until the first click is honoured: from the start of navigation a poller clicks the
  "credit unit = agent" checkbox every 25 ms until the page has applied it (the box stays
  ticked and the URL hash names the filter), so a click the script later undoes does not count;
* filter, sort, search and year range: median and worst of ``--repeat`` runs, each timed inside
  the page from the input event to a finished layout;
* script time per keystroke: "credit assignment" typed key by key (80 ms apart, a fast
  typist) into the search box; Chromium's ScriptDuration over the whole typing and the settled
  result, divided by the keys, and the longest single update of the list;
* the renderer's memory: resident set size of the page's renderer process (``/proc``), and the
  JavaScript heap Chromium reports.

Prints one Markdown table. Targets (issue 26): usable (first click honoured) under 1 s at
10,000 records and under 3 s at 100,000; script per keystroke under 50 ms at 10,000 and under
200 ms at 100,000.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from survey_tools.corpus.loading import load_corpus  # noqa: E402
from survey_tools.corpus.records import Corpus, Record  # noqa: E402
from survey_tools.corpus.taxonomy import load_taxonomy  # noqa: E402
from survey_tools.render import site as site_mod  # noqa: E402
from survey_tools.render.bibtex import bibtex_entry  # noqa: E402
from survey_tools.reports.report_config import load_config  # noqa: E402
from survey_tools.reports.stats import compute_stats  # noqa: E402

CHROMIUM = os.environ.get("SURVEY_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

AGENT = "fieldset[data-facet=credit_granularity] input[value=agent]"
# Installed before the page's own scripts: clicks the checkbox as soon as it exists and again
# whenever it is found unticked, and notes when the click has been applied by the page.
POLLER = """(() => {
  const t = setInterval(() => {
    const b = document.querySelector('%s');
    if (!b) return;
    if (!b.checked) { b.click(); return; }
    if (location.hash.indexOf('credit_granularity=agent') >= 0) {
      window.__honoured = performance.now();
      clearInterval(t);
    }
  }, 25);
})();""".replace("%s", AGENT)

TIMED = """(step) => {
  const t0 = performance.now();
  step();
  document.body.offsetHeight;  // force style and layout so the cost of the new rows counts
  return performance.now() - t0;
}"""
RESET = "() => document.getElementById('reset').click()"
# (name, set-up run before each repetition, timed step)
STEPS: list[tuple[str, str, str]] = [
    ("filter: credit unit = agent", RESET, f"() => document.querySelector('{AGENT}').click()"),
    ("sort by year", RESET, "() => document.querySelector('#papers th button[data-sort=\"1\"]').click()"),
    ("search 'credit'", RESET,
     "() => { const q = document.getElementById('q'); q.value = 'credit'; q.dispatchEvent(new Event('input')); }"),
    ("year range from 2020", RESET,
     "() => { const y = document.getElementById('y0'); y.value = '2020'; y.dispatchEvent(new Event('input')); }"),
]


TYPED = "credit assignment"


def synthetic(corpus: Corpus, n: int) -> Corpus:
    base = corpus.retained
    if n == len(base):
        return corpus
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


def site_files(tax: Any, corpus: Corpus, stats: Any) -> dict[str, str]:
    """The index, its stylesheet and the BibTeX it loads, relative to their folder."""
    s = site_mod._Site(tax, corpus, stats, bibtex_entry)
    return {"index.html": s.index(), site_mod.CSS_FILE: site_mod._asset("page.css"), site_mod.BIB_FILE: s.bib_js()}


def _children(pid: int) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == pid:
                out.append(int(d))
    return out


def renderer_rss_mb(marker: str) -> float:
    """Largest resident set among the renderer processes of the browser started with ``marker``."""
    browser = None
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                cmd = Path(f"/proc/{d}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if marker.encode() in cmd and not any(a.startswith(b"--type=") for a in cmd):
                browser = int(d)
    if browser is None:
        return float("nan")
    todo, best = [browser], 0.0
    while todo:
        pid = todo.pop()
        kids = _children(pid)
        todo.extend(kids)
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        if b"--type=renderer" in cmd:
            for line in status.splitlines():
                if line.startswith("VmRSS:"):
                    best = max(best, int(line.split()[1]) / 1024)
    return best


def measure(n: int, repeat: int, pw: Any) -> dict[str, Any]:
    tax = load_taxonomy(REPO)
    corpus = synthetic(load_corpus(REPO, tax), n)
    stats = compute_stats(corpus, load_config(tax))
    t0 = time.perf_counter()
    files = site_files(tax, corpus, stats)
    index_s = render_s = time.perf_counter() - t0
    html = files["index.html"].encode("utf-8")
    res: dict[str, Any] = {
        "n": n, "render_s": render_s, "index_s": index_s, "bytes": len(html), "gzip": len(gzip.compress(html, 6)),
    }
    marker = f"--bench-marker={uuid.uuid4().hex}"
    with tempfile.TemporaryDirectory() as tmp:
        for rel, text in files.items():
            p = Path(tmp) / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
        url = (Path(tmp) / "index.html").as_uri()
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[*ARGS, marker])
        try:
            ctx = browser.new_context(viewport={"width": 1366, "height": 900})
            ctx.add_init_script(POLLER)
            page = ctx.new_page()
            page.goto(url, wait_until="load", timeout=120_000)
            page.wait_for_function("window.__honoured !== undefined", timeout=120_000, polling=50)
            res["dcl_ms"] = page.evaluate("performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd")
            res["click_ms"] = page.evaluate("window.__honoured")
            ctx.close()

            page = browser.new_page(viewport={"width": 1366, "height": 900})
            page.goto(url, wait_until="load", timeout=120_000)
            page.wait_for_timeout(300)
            for name, setup, step in STEPS:
                times: list[float] = []
                for _ in range(repeat):
                    page.evaluate(setup)
                    times.append(float(page.evaluate(f"({TIMED})({step})")))
                res[name] = (statistics.median(times), max(times))
            cdp = page.context.new_cdp_session(page)
            cdp.send("Performance.enable")
            page.evaluate(RESET)
            page.wait_for_timeout(300)
            page.focus("#q")

            def script_s() -> float:
                return float(next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] == "ScriptDuration"))

            before = script_s()
            worst = 0.0
            for ch in TYPED:
                page.keyboard.type(ch)
                page.wait_for_timeout(80)
                worst = max(worst, float(page.evaluate("surveyPage.lastUpdateMs")))
            page.wait_for_timeout(1000)  # the debounced search and the announcement settle
            worst = max(worst, float(page.evaluate("surveyPage.lastUpdateMs")))
            res["key_ms"] = (script_s() - before) * 1000 / len(TYPED)
            res["key_worst_ms"] = worst
            metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
            res["heap_mb"] = metrics.get("JSHeapUsedSize", 0) / 2**20
            res["rss_mb"] = renderer_rss_mb(marker)
        finally:
            browser.close()
    return res


def table(results: list[dict[str, Any]]) -> str:
    head = ["records", "HTML (gzip)", "render index + bibtex.js", "DOMContentLoaded", "usable (first click honoured)"]
    head += [f"{name} (median / worst)" for name, _, _ in STEPS]
    head += ["script per keystroke (longest update)", "renderer RSS (JS heap)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        cells = [
            f"{r['n']:,}",
            f"{r['bytes'] / 1e6:.2f} MB ({r['gzip'] / 1e6:.2f} MB)",
            f"{r['render_s'] * 1000:.0f} ms",
            f"{r['dcl_ms']:.0f} ms",
            f"{r['click_ms']:.0f} ms",
        ]
        cells += [f"{r[name][0]:.1f} / {r[name][1]:.1f} ms" for name, _, _ in STEPS]
        cells.append(f"{r['key_ms']:.1f} ms ({r['key_worst_ms']:.0f} ms)")
        cells.append(f"{r['rss_mb']:.0f} MB ({r['heap_mb']:.0f} MB)")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def record_counts(spec: str) -> list[int]:
    """``real,10000`` -> [the real corpus's retained records, 10000]."""
    real = len(load_corpus(REPO, load_taxonomy(REPO)).retained)
    return [real if x.strip() == "real" else int(x) for x in spec.split(",")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", default="real,10000,100000",
                    help="comma-separated record counts; real: the real corpus, counted when the script runs")
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    results = []
    with sync_playwright() as pw:
        for n in record_counts(args.records):
            results.append(measure(n, args.repeat, pw))
            print(f"measured {n} records", file=sys.stderr, flush=True)
    print(table(results))


if __name__ == "__main__":
    main()
