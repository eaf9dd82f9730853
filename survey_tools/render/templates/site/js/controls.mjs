// The search box, the year boxes, the facet checkboxes, the sort controls and "Clear all": the
// state into the controls (syncControls), the controls into the state, and the state from the
// address (loadHash). setupControls(update) is given the entry module's update(mode).
import { parseHash } from "./hashstate.mjs";
import { DATA, facets, $, q, ALL, schema, state, view, warn } from "./data.mjs";
import { yearOf, yearRange } from "./filter.mjs";
import { groups, syncBoxes } from "./facets.mjs";
import { showTab } from "./tabs.mjs";

const y0 = $("y0"), y1 = $("y1"), yearHint = $("year-hint");
const TYPE_DELAY = ALL ? 0 : 160; // search and year boxes wait for a pause in typing at scale
let updateList = null; // set by setupControls

export function setYears(a, b) {
  const r = yearRange(a, b, DATA.years);
  view.swapped = r.swapped;
  state.y0 = r.y0;
  state.y1 = r.y1;
  if (yearHint) yearHint.textContent = r.hint;
}
export function loadHash() {
  const p = parseHash(location.hash, schema, warn);
  state.sel = p.sel.map(function (s) { return new Set(s); });
  state.q = p.q;
  setYears(p.y0, p.y1);
  state.sort = p.sort;
  state.dir = p.dir;
  state.tab = p.tab;
  return p.anchor;
}

// --- the controls as the state says --------------------------------------------------------------
export function syncControls() {
  syncBoxes();
  if (q.value.trim() !== state.q) q.value = state.q;
  if (y0) {
    const a = state.y0 === null ? DATA.years[0] : state.y0, b = state.y1 === null ? DATA.years[1] : state.y1;
    if (yearOf(y0.value) !== a) y0.value = a;
    if (yearOf(y1.value) !== b) y1.value = b;
    if (!view.swapped && yearHint) yearHint.textContent = "";
  }
  document.querySelectorAll("#papers th").forEach(function (th) {
    const b = th.querySelector("button[data-sort]");
    const on = b && +b.dataset.sort === state.sort;
    th.setAttribute("aria-sort", on ? (state.dir > 0 ? "ascending" : "descending") : "none");
  });
  const sel = $("sort-select");
  sel.value = state.sort < 0 ? "-1" : state.sort + "." + state.dir;
  if (sel.selectedIndex < 0) sel.value = "-1";
  showTab(state.tab, false);
}

// --- the controls ------------------------------------------------------------------------------
function clearAll() {
  state.sel = facets.map(function () { return new Set(); });
  state.q = ""; setYears(null, null);
  syncControls();
  updateList("push");
}
let typeTimer = 0;
function typed(apply) {
  apply();
  if (!TYPE_DELAY) { updateList("type"); return; }
  clearTimeout(typeTimer);
  typeTimer = setTimeout(function () { updateList("type"); }, TYPE_DELAY);
}
function yearInput() { typed(function () { setYears(yearOf(y0.value), yearOf(y1.value)); }); }
function sortBy(sort, dir) {
  state.sort = sort;
  state.dir = dir;
  syncControls();
  updateList("push");
}
export function setupControls(update) {
  updateList = update;
  DATA.rangeLabel = y0 ? y0.closest("fieldset").querySelector("legend").textContent : "";
  groups.forEach(function (g, fi) {
    g.boxes.forEach(function (b, vi) {
      b.addEventListener("change", function () {
        if (b.checked) state.sel[fi].add(vi); else state.sel[fi].delete(vi);
        updateList("push");
      });
    });
  });
  q.addEventListener("input", function () { typed(function () { state.q = q.value.trim(); }); });
  if (y0) { y0.addEventListener("input", yearInput); y1.addEventListener("input", yearInput); }
  $("reset").addEventListener("click", clearAll);
  $("clear-chips").addEventListener("click", function () { clearAll(); q.focus(); });
  $("empty-clear").addEventListener("click", function () { clearAll(); q.focus(); });
  document.querySelectorAll("#papers th button[data-sort]").forEach(function (b) {
    b.addEventListener("click", function () {
      const c = +b.dataset.sort;
      sortBy(c, state.sort === c ? -state.dir : 1);
    });
  });
  $("sort-select").addEventListener("change", function (ev) {
    const v = ev.target.value.split(".");
    sortBy(+v[0], v[1] === "-1" ? -1 : 1);
  });
}

// What the reader did while the page was loading (boxes checked, text typed), into the state:
// true when there was anything.
export function earlyInput() {
  let early = false;
  groups.forEach(function (g, fi) {
    g.boxes.forEach(function (b, vi) {
      if (b.checked !== b.defaultChecked) { early = true; if (b.checked) state.sel[fi].add(vi); else state.sel[fi].delete(vi); }
    });
  });
  if (q.value.trim() && q.value !== q.defaultValue) { early = true; state.q = q.value.trim(); }
  if (y0 && (y0.value !== y0.defaultValue || y1.value !== y1.defaultValue)) { early = true; setYears(yearOf(y0.value), yearOf(y1.value)); }
  return early;
}
