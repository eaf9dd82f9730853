// The browsing page's list: the entry module that wires the parts together. The state (data.mjs)
// changes through the controls (controls.mjs), the chips and the address; update() then computes
// the matching rows and the facet counts (filter.mjs, order.mjs), redraws the facets (facets.mjs),
// chips and status (chips.mjs) and rows (draw.mjs), and writes the address (address.mjs).
import { buildIndex, searcher } from "./search.mjs";
import { setupTheme, setupSkipLinks } from "./dom.mjs";
import { DATA, R, N, KEY, F, facets, $, tbody, ALL, state, view, warn } from "./data.mjs";
import { searchColumns, baseRecords, facetFilter } from "./filter.mjs";
import { sorter } from "./order.mjs";
import { setupCarriedLinks } from "./listrow.mjs";
import { drawWindow, redraw, offsetOf, setupDrawing } from "./draw.mjs";
import { drawFacets } from "./facets.mjs";
import { drawChips, startAnnouncing } from "./chips.mjs";
import { saveHash, takeAddress } from "./address.mjs";
import { setupBibDialog } from "./bibdialog.mjs";
import { setupExport } from "./download.mjs";
import { setupSheet } from "./sheet.mjs";
import { setupTabs } from "./tabs.mjs";
import { setYears, loadHash, syncControls, setupControls, earlyInput } from "./controls.mjs";

// --- the search index: the configured fields, then every tag shown on the row ---------------
let INDEX = null;
function index() {
  if (!INDEX) INDEX = buildIndex(searchColumns(DATA), N);
  return INDEX;
}

// --- the matching rows: search and year range give the base set (kept until they change);
// facets filter it and count each value over the records that pass every *other* facet ------
let baseKey = null, base = [], baseScores = null;
const sortRows = sorter(DATA);
function compute() {
  const key = state.q + "|" + state.y0 + "|" + state.y1;
  if (key !== baseKey) {
    baseKey = key;
    const b = baseRecords(N, R[DATA.rangeField] || [], state.y0, state.y1, state.q ? searcher(index(), state.q) : null);
    base = b.rows;
    baseScores = b.scores;
  }
  const out = facetFilter(F, facets, base, state.sel);
  sortRows(out.rows, state.sort, state.dir, baseScores);
  view.matched = out.rows;
  view.counts = out.counts;
}

function update(mode) {
  const t0 = performance.now();
  compute();
  view.selVersion++;
  drawFacets();
  drawChips(function () { syncControls(); update("push"); });
  redraw();
  if (mode !== "none") saveHash(mode || "push");
  api.lastUpdateMs = performance.now() - t0;
}

// --- going to one paper: its row, scrolled to and focused (filters that hide it cleared) --------
let keyIndex = null;
function jumpTo(key) {
  if (!keyIndex) { keyIndex = new Map(); for (let i = 0; i < N; i++) keyIndex.set(KEY[i], i); }
  const idx = keyIndex.get(key);
  if (idx === undefined) { warn("no paper with the key", key); return false; }
  let pos = view.matched.indexOf(idx);
  if (pos < 0) {
    state.sel = facets.map(function () { return new Set(); });
    state.q = ""; setYears(null, null);
    syncControls();
    update("replace");
    pos = view.matched.indexOf(idx);
  }
  let tr = ALL ? $("p-" + key) : null;
  // Heights of rows not yet drawn are estimates: scroll, draw, and correct until the row is there.
  for (let tries = 0; tries < 6 && !tr; tries++) {
    window.scrollTo(0, tbody.getBoundingClientRect().top + window.scrollY + offsetOf(pos));
    drawWindow(true, true);
    tr = $("p-" + key);
  }
  if (!tr) return false;
  tr.scrollIntoView({ block: "start" });
  drawWindow(false);
  tr = $("p-" + key) || tr;
  tbody.querySelectorAll("tr.target").forEach(function (t) { t.classList.remove("target"); });
  view.target = idx;
  tr.classList.add("target");
  const link = tr.querySelector("a.title");
  if (link) link.focus({ preventScroll: true });
  return true;
}

// Back, Forward and links within the page.
function fromLocation() {
  if (!takeAddress()) return;
  const anchor = loadHash();
  syncControls();
  update("none");
  if (anchor) jumpTo(anchor);
}

setupCarriedLinks();
setupBibDialog();
setupExport();
setupControls(update);
setupSheet();
setupTheme($("theme"), warn);
setupSkipLinks(document);
setupTabs();
setupDrawing();
window.addEventListener("hashchange", fromLocation);
window.addEventListener("popstate", fromLocation);

const api = {
  update: update, state: state, lastUpdateMs: 0,
  keys: function () { return view.matched.map(function (i) { return KEY[i]; }); },
  jumpTo: jumpTo
};
window.surveyPage = api;

// --- start: the link's state, plus whatever the reader did while the page was loading ---------
const anchor = loadHash();
takeAddress();
const early = earlyInput();
syncControls();
update(early ? "replace" : "none");
startAnnouncing();
const clicks = window.surveyEarlyClicks || [];
window.surveyEarlyClicks = null;
clicks.forEach(function (t) {
  const b = t && t.closest ? t.closest("button") : null;
  if (b && document.contains(b)) b.click(); // checkboxes and links have already acted
});
if (anchor) {
  jumpTo(anchor);
  // The browser's own scroll to the fragment, after parsing, moves the focus: go again.
  window.addEventListener("load", function () { setTimeout(function () { jumpTo(anchor); }, 0); }, { once: true });
}
// Prepare the search index while the reader looks at the page.
if (window.requestIdleCallback) window.requestIdleCallback(index, { timeout: 5000 });
