// The browsing page: filters, counts, search, sort, the URL hash and the browser history, and the
// list itself. Up to DATA.allLimit matching records every row is in the page (find-in-page and
// screen readers see them all; `content-visibility` lets the browser skip rows off screen);
// beyond that only the rows near the viewport are drawn, and the table says how many rows it has
// (aria-rowcount, aria-rowindex). Every record string reaches the page through textContent or
// an attribute, never as HTML.
import { fold, formatCount, plural } from "./text.mjs";
import { buildIndex, searcher } from "./search.mjs";
import { parseHash, hashString, filtersOf, carry } from "./hashstate.mjs";
import { csvText } from "./csv.mjs";
import { elt, setupTheme, selectAndCopy, trapFocus } from "./dom.mjs";
import { bibLoader } from "./bib.mjs";
import { exportRows } from "./rows.mjs";

const dataEl = document.getElementById("survey-data");
const DATA = JSON.parse(dataEl.textContent);
dataEl.textContent = ""; // the parsed copy is the only one kept
const R = DATA.rec, N = DATA.n;
const KEY = R[DATA.id], TITLE = R[DATA.title], AUTH = R.authors || [], SUMM = R.summary || [];
const F = R._f, C = R._c, L = R._l, ADDED = R._a, NEW = R._n;
const facets = DATA.facets, cols = DATA.columns;
const $ = function (id) { return document.getElementById(id); };
const tbody = $("rows"), table = $("papers"), results = $("results"), status = $("status"), announcer = $("announce");
const q = $("q"), y0 = $("y0"), y1 = $("y1"), yearHint = $("year-hint");
const ALL = N <= DATA.allLimit; // every matching row is drawn
const OVERSCAN = 800; // pixels drawn above and below the viewport when windowing
const LONG = 8, TOP = 6; // facets with more values start folded to their top values
const TYPE_DELAY = ALL ? 0 : 160; // search and year boxes wait for a pause in typing at scale
const ANNOUNCE_MS = 700; // the result is announced once it has settled this long
const SORT_ADDED = DATA.sort.indexOf(DATA.addedSort);
if (!ALL) table.classList.add("windowed");
else if (N >= DATA.skipFrom) table.classList.add("skip-offscreen");
const schema = { facets: facets, range: DATA.range, sort: DATA.sort, tabs: ["papers", "exclusions"] };

const state = { sel: facets.map(function () { return new Set(); }), q: "", y0: null, y1: null, sort: -1, dir: 1, tab: "papers" };
let matched = [], counts = null;
let baseKey = null, base = [], baseScores = null;
let swapped = false;

function warn(msg, detail) { if (window.console) console.warn("survey page: " + msg, detail === undefined ? "" : detail); }

// --- search index: the configured fields, then every tag shown on the row --------------------
let INDEX = null;
function index() {
  if (INDEX) return INDEX;
  const columns = DATA.search.map(function (s) { return R[s[0]] || []; });
  const tags = new Array(N);
  for (let i = 0; i < N; i++) {
    const parts = [];
    for (let fi = 0; fi < facets.length; fi++) {
      const fv = F[i][fi];
      for (let k = 0; k < fv.length; k++) { const v = facets[fi].values[fv[k]]; if (!v[4]) parts.push(v[2]); }
    }
    for (let c = 0; c < cols.length; c++) parts.push(cols[c].values[C[i][c]][0]);
    if (NEW && NEW[i]) parts.push(DATA.newLabel);
    tags[i] = parts.join(" · ");
  }
  columns.push(tags);
  INDEX = buildIndex(columns, N);
  return INDEX;
}

// --- filtering and counts -------------------------------------------------------------------
// Search and year range give the base set (kept until they change); facets filter it and
// count each value over the records that pass every *other* facet.
function baseSet() {
  const key = state.q + "|" + state.y0 + "|" + state.y1;
  if (key === baseKey) return;
  baseKey = key;
  const match = state.q ? searcher(index(), state.q) : null;
  const yf = R[DATA.rangeField] || [];
  base = [];
  baseScores = match ? new Float64Array(N) : null;
  for (let i = 0; i < N; i++) {
    const y = yf[i];
    if (state.y0 !== null && !(y >= state.y0)) continue;
    if (state.y1 !== null && !(y <= state.y1)) continue;
    if (match) { const s = match(i); if (!s) continue; baseScores[i] = s; }
    base.push(i);
  }
}

function compute() {
  baseSet();
  const nf = facets.length;
  const active = state.sel.map(function (s) { return s.size > 0; });
  const cnt = facets.map(function (f) { return new Int32Array(f.values.length); });
  const out = [];
  for (let b = 0; b < base.length; b++) {
    const i = base[b], r = F[i];
    let fails = 0, failed = -1;
    for (let fi = 0; fi < nf && fails < 2; fi++) {
      if (!active[fi]) continue;
      const vals = r[fi], sel = state.sel[fi];
      let hit = false;
      for (let k = 0; k < vals.length; k++) { if (sel.has(vals[k])) { hit = true; break; } }
      if (!hit) { fails++; failed = fi; }
    }
    if (fails === 0) {
      out.push(i);
      for (let f2 = 0; f2 < nf; f2++) { const v2 = r[f2], c2 = cnt[f2]; for (let k2 = 0; k2 < v2.length; k2++) c2[v2[k2]]++; }
    } else if (fails === 1) {
      const v3 = r[failed], c3 = cnt[failed];
      for (let k3 = 0; k3 < v3.length; k3++) c3[v3[k3]]++;
    }
  }
  sortRows(out);
  matched = out;
  counts = cnt;
}

// --- order: an explicit sort, else best match for a search, else the configured default --------
const ranks = [];
function rankOf(c) {
  // Position of each record in the order of sort key c (ties by title: the records' own order).
  if (ranks[c]) return ranks[c];
  const idx = new Array(N);
  for (let i = 0; i < N; i++) idx[i] = i;
  let keyOf;
  if (c === SORT_ADDED) keyOf = function (i) { return ADDED[i]; };
  else { const t = cols[c - 1].values; keyOf = function (i) { return t[C[i][c - 1]][1]; }; }
  idx.sort(function (a, b) { const ka = keyOf(a), kb = keyOf(b); return ka < kb ? -1 : ka > kb ? 1 : a - b; });
  const r = new Int32Array(N);
  for (let j = 0; j < N; j++) r[idx[j]] = j;
  ranks[c] = r;
  return r;
}
function effectiveSort() {
  if (state.sort >= 0) return [state.sort, state.dir];
  if (baseScores) return [-1, 1];
  if (DATA.order === "newest" && SORT_ADDED >= 0) return [SORT_ADDED, -1];
  return [0, 1];
}
function sortRows(out) {
  const sc = baseScores, es = effectiveSort(), c = es[0], dir = es[1];
  if (c === 0 && dir > 0 && (!sc || state.sort === 0)) return; // already in title order
  if (c < 0) { out.sort(function (a, b) { return sc[b] - sc[a] || a - b; }); return; }
  if (c === 0) { out.sort(function (a, b) { return dir * (a - b); }); return; }
  const rank = rankOf(c);
  // Newest first keeps titles A-Z among papers added on the same day.
  if (c === SORT_ADDED && dir < 0) {
    out.sort(function (a, b) { const ka = ADDED[a], kb = ADDED[b]; return ka < kb ? 1 : ka > kb ? -1 : a - b; });
    return;
  }
  out.sort(function (a, b) { return dir * (rank[a] - rank[b]); });
}

// --- one row ----------------------------------------------------------------------------------
let targetI = -1, selVersion = 0;
function safeUrl(u) { return /^https?:\/\//i.test(u) ? u : "#"; }
function drawBadges(tr, i) {
  const old = tr.querySelector(".badges");
  let badges = null;
  if (NEW && NEW[i]) { badges = elt("div", "badges"); badges.appendChild(elt("span", "badge new", DATA.newLabel)); }
  facets.forEach(function (f, fi) {
    if (!f.badges) return;
    F[i][fi].forEach(function (v) {
      const val = f.values[v];
      if (val[4]) return; // "not applicable" and "untagged" are no badges
      if (!badges) badges = elt("div", "badges");
      const on = state.sel[fi].has(v);
      const b = elt("span", on ? "badge hit" : "badge", val[2]);
      if (on) b.appendChild(elt("span", "sr-only", " (matches a filter)"));
      badges.appendChild(b);
    });
  });
  if (old) old.remove();
  if (badges) tr.firstChild.insertBefore(badges, tr.firstChild.querySelector(".meta"));
  tr._v = selVersion;
}
function rowEl(i) {
  const tr = elt("tr", i === targetI ? "target" : "");
  tr.id = "p-" + KEY[i];
  tr.dataset.i = i;
  const td = elt("td", "paper");
  const a = elt("a", "title", TITLE[i]);
  a.href = safeUrl(L[i][0][0]);
  td.appendChild(a);
  if (AUTH[i]) td.appendChild(elt("div", "authors", AUTH[i]));
  if (SUMM[i]) td.appendChild(elt("div", "summary", SUMM[i]));
  const meta = elt("div", "meta");
  const by = DATA.byline.map(function (name) { return R[name] ? R[name][i] : ""; }).filter(function (x) { return x !== "" && x !== null; });
  if (by.length) meta.appendChild(elt("span", "byline", by.join(" · ")));
  if (ADDED && ADDED[i] && NEW[i]) meta.appendChild(elt("span", "added", DATA.addedLabel + " " + ADDED[i]));
  const perm = elt("a", "perm");
  perm.href = "#p-" + KEY[i];
  perm.dataset.carry = "";
  perm.dataset.anchor = KEY[i];
  perm.appendChild(elt("code", "", KEY[i]));
  perm.title = "Link to this row";
  meta.appendChild(perm);
  for (let k = 1; k < L[i].length; k++) {
    const l = elt("a", "", L[i][k][1]);
    l.href = safeUrl(L[i][k][0]);
    meta.appendChild(l);
  }
  const det = elt("a", "details", "Details");
  det.href = DATA.papers + encodeURIComponent(KEY[i]) + ".html";
  det.dataset.carry = det.getAttribute("href");
  det.setAttribute("aria-label", "Details of " + TITLE[i]);
  meta.appendChild(det);
  if (DATA.bib) {
    const bb = elt("button", "linkish rowtools bibbtn", "BibTeX");
    bb.type = "button";
    bb.dataset.i = i;
    bb.setAttribute("aria-haspopup", "dialog");
    bb.setAttribute("aria-label", "BibTeX of " + TITLE[i]);
    meta.appendChild(bb);
  }
  td.appendChild(meta);
  tr.appendChild(td);
  for (let c = 0; c < cols.length; c++) {
    const cell = elt("td", cols[c].inByline ? "cell inbyline" : "cell", cols[c].values[C[i][c]][0]);
    cell.setAttribute("data-label", cols[c].label);
    tr.appendChild(cell);
  }
  drawBadges(tr, i);
  return tr;
}
// Links in rows carry the current filters; set when they are used, so a redraw costs nothing.
function carryLink(ev) {
  const a = ev.target.closest ? ev.target.closest("a[data-carry]") : null;
  if (!a) return;
  const target = a.dataset.carry || "";
  a.setAttribute("href", carry(target, filtersOf(hashString(state, schema)), target ? "" : a.dataset.anchor));
}
["click", "auxclick", "contextmenu", "focusin", "pointerdown"].forEach(function (t) { tbody.addEventListener(t, carryLink); });

// --- focus kept through redraws -------------------------------------------------------------
function rememberFocus() {
  const fa = document.activeElement;
  if (!fa || !tbody.contains(fa)) return null;
  const tr = fa.closest("tr");
  return { el: fa, i: +tr.dataset.i, k: Array.prototype.indexOf.call(tr.querySelectorAll("a, button"), fa) };
}
function restoreFocus(m) {
  if (!m) return;
  if (document.contains(m.el)) { if (document.activeElement !== m.el) m.el.focus({ preventScroll: true }); return; }
  const tr = $("p-" + KEY[m.i]);
  const again = tr ? tr.querySelectorAll("a, button")[m.k] : null;
  if (again) again.focus({ preventScroll: true }); else results.focus({ preventScroll: true });
}

// --- drawing every row (ALL) ------------------------------------------------------------------
const cache = ALL ? new Array(N) : null;
function cachedRow(i) {
  let tr = cache[i];
  if (!tr) { tr = rowEl(i); cache[i] = tr; } else if (tr._v !== selVersion) drawBadges(tr, i);
  return tr;
}
function drawAll() {
  const focus = rememberFocus();
  const frag = document.createDocumentFragment();
  for (let k = 0; k < matched.length; k++) frag.appendChild(cachedRow(matched[k]));
  tbody.replaceChildren(frag);
  table.removeAttribute("aria-rowcount");
  restoreFocus(focus);
}

// --- drawing a window of rows (beyond DATA.allLimit) -------------------------------------------
let H = new Float64Array(N), est = 160, estFixed = false, measuredN = 0, measuredSum = 0;
let win = { a: -1, b: -1, n: -1 }, printing = false;
function h(i) { return H[i] || est; }
function spacer(px) {
  const tr = elt("tr", "spacer");
  tr.setAttribute("aria-hidden", "true");
  const td = elt("td");
  td.colSpan = cols.length + 1;
  td.style.height = px + "px";
  tr.appendChild(td);
  return tr;
}
function drawWindow(force, fresh) {
  if (printing) return;
  if (ALL) { if (force) drawAll(); return; }
  // Keep the first row on screen where it is, whatever the heights measured above it.
  let anchorI = -1, anchorTop = 0;
  if (!fresh) {
    for (let c0 = tbody.firstChild; c0; c0 = c0.nextSibling) {
      if (c0.className === "spacer") continue;
      const rc = c0.getBoundingClientRect();
      if (rc.bottom > 0) { anchorI = +c0.dataset.i; anchorTop = rc.top; break; }
    }
  }
  const n = matched.length;
  const y = -tbody.getBoundingClientRect().top, vh = window.innerHeight || 800;
  let i = 0, pos = 0;
  while (i < n && pos + h(matched[i]) < y - OVERSCAN) { pos += h(matched[i]); i++; }
  const a = i, top = pos;
  while (i < n && (pos < y + vh + OVERSCAN || i - a < 8)) { pos += h(matched[i]); i++; }
  const b = i;
  if (!force && a === win.a && b === win.b && n === win.n) return;
  win = { a: a, b: b, n: n };
  const focus = rememberFocus();
  const frag = document.createDocumentFragment();
  frag.appendChild(spacer(top));
  const trs = [];
  for (let k = a; k < b; k++) {
    const tr = rowEl(matched[k]);
    tr.setAttribute("aria-rowindex", String(k + 2)); // row 1 is the header
    trs.push(tr);
    frag.appendChild(tr);
  }
  const bottomTr = spacer(0);
  frag.appendChild(bottomTr);
  tbody.replaceChildren(frag);
  table.setAttribute("aria-rowcount", String(n + 1));
  // Measure what was drawn: the spacer below then holds the estimate for the rest.
  const tops = trs.map(function (t) { return t.offsetTop; });
  tops.push(bottomTr.offsetTop);
  for (let m = 0; m < trs.length; m++) {
    const idx = matched[a + m], hh = tops[m + 1] - tops[m];
    if (hh > 0) {
      if (!H[idx]) { measuredN++; measuredSum += hh; } else { measuredSum += hh - H[idx]; }
      H[idx] = hh;
    }
  }
  // The estimate for rows not yet drawn is fixed once: changing it would move every row.
  if (measuredN && !estFixed) { est = measuredSum / measuredN; estFixed = true; }
  let rest = 0;
  for (let r = b; r < n; r++) rest += h(matched[r]);
  bottomTr.firstChild.style.height = rest + "px";
  restoreFocus(focus);
  if (anchorI >= 0) {
    const again = $("p-" + KEY[anchorI]);
    if (again) { const d = again.getBoundingClientRect().top - anchorTop; if (Math.abs(d) > 0.5) window.scrollBy(0, d); }
  }
}
let ticking = false;
function onScroll() {
  if (ALL || ticking) return;
  ticking = true;
  requestAnimationFrame(function () { ticking = false; drawWindow(false); });
}
let lastWidth = results.clientWidth;
function onResize() {
  if (ALL) return;
  const w = results.clientWidth;
  if (w !== lastWidth) { lastWidth = w; H = new Float64Array(N); measuredN = 0; measuredSum = 0; estFixed = false; }
  drawWindow(true);
}

// --- facet list: counts, zero values hidden, long groups folded --------------------------------
const groups = facets.map(function (f, fi) {
  const fs = document.querySelector('fieldset[data-fi="' + fi + '"]');
  const lis = Array.prototype.slice.call(fs.querySelectorAll("li"));
  const g = { fs: fs, lis: lis, ns: lis.map(function (li) { return li.querySelector(".n"); }), boxes: lis.map(function (li) { return li.querySelector("input"); }), long: f.values.length > LONG, open: false, filter: "", nsel: document.querySelector('[data-nsel="' + fi + '"]') };
  if (g.long) {
    const box = elt("input");
    box.type = "search";
    box.placeholder = "Filter values";
    box.setAttribute("aria-label", "Filter the values of " + f.label);
    box.addEventListener("input", function () { g.filter = fold(box.value).trim(); drawFacets(); });
    fs.insertBefore(box, fs.querySelector("ul"));
    g.fbox = box;
    const more = elt("button", "linkish more");
    more.type = "button";
    more.setAttribute("aria-expanded", "false");
    more.addEventListener("click", function () { g.open = !g.open; drawFacets(); });
    fs.appendChild(more);
    g.more = more;
    g.lfold = f.values.map(function (v) { return fold(v[2]); });
  }
  return g;
});
function drawFacets() {
  facets.forEach(function (f, fi) {
    const g = groups[fi], cnt = counts[fi], sel = state.sel[fi];
    let top = null;
    if (g.long && !g.open && !g.filter) {
      // Folded: the values with the most papers (a grouped facet: its top level only).
      const order = [];
      for (let v = 0; v < f.values.length; v++) if (cnt[v] > 0 && f.values[v][3] === 0) order.push(v);
      order.sort(function (a, b) { return cnt[b] - cnt[a] || a - b; });
      top = new Set(order.slice(0, TOP));
    }
    let hiddenN = 0, nonzero = 0;
    for (let vi = 0; vi < f.values.length; vi++) {
      const c = cnt[vi], on = sel.has(vi);
      const txt = formatCount(c);
      if (g.ns[vi].textContent !== txt) g.ns[vi].textContent = txt;
      let show = c > 0 || on;
      if (show) nonzero++;
      if (show && g.filter) show = on || g.lfold[vi].indexOf(" " + g.filter) >= 0 || g.lfold[vi].indexOf(g.filter) >= 0;
      else if (show && top && !on && !top.has(vi)) { show = false; hiddenN++; }
      if (g.lis[vi].hidden === show) g.lis[vi].hidden = !show;
      if (g.boxes[vi].checked !== on) g.boxes[vi].checked = on;
    }
    if (g.more) {
      g.more.hidden = !g.open && hiddenN === 0;
      g.more.textContent = g.open ? "Show fewer" : "Show all (" + formatCount(hiddenN) + " more)";
      g.more.setAttribute("aria-expanded", g.open ? "true" : "false");
    }
    if (g.fbox) g.fbox.hidden = nonzero <= LONG && !g.filter;
    const det = g.fs.parentNode;
    if (det.hidden !== (nonzero === 0)) det.hidden = nonzero === 0;
    const ns = sel.size ? sel.size + " selected" : "";
    if (g.nsel.textContent !== ns) g.nsel.textContent = ns;
  });
}

// --- chips, status, empty message, one announcement per settled result ---------------------------
function activeFilters() {
  const out = [];
  facets.forEach(function (f, fi) {
    Array.from(state.sel[fi]).sort(function (a, b) { return a - b; }).forEach(function (vi) {
      out.push({ text: f.label + ": " + f.values[vi][2], drop: function () { state.sel[fi].delete(vi); } });
    });
  });
  if (state.q) out.push({ text: "Search: \u201c" + (state.q.length > 80 ? state.q.slice(0, 80) + "\u2026" : state.q) + "\u201d", drop: function () { state.q = ""; } });
  if (state.y0 !== null || state.y1 !== null) {
    const a = state.y0 === null ? DATA.years[0] : state.y0, b = state.y1 === null ? DATA.years[1] : state.y1;
    out.push({ text: (DATA.rangeLabel || DATA.range) + ": " + a + "\u2013" + b, drop: function () { state.y0 = state.y1 = null; swapped = false; } });
  }
  return out;
}
let announceTimer = 0, announced = "", started = false;
function announce(text) {
  if (!started) { announced = text; return; } // the page's first count is read with the page
  clearTimeout(announceTimer);
  announceTimer = setTimeout(function () {
    if (text === announced) return;
    announced = text;
    announcer.textContent = text;
  }, ANNOUNCE_MS);
}
function drawChips() {
  const act = activeFilters();
  const ul = $("chips");
  const frag = document.createDocumentFragment();
  act.forEach(function (x) {
    const li = elt("li"), b = elt("button", "chip", x.text);
    b.type = "button";
    b.setAttribute("aria-label", "Remove filter " + x.text);
    const xx = elt("span", "", "\u00d7");
    xx.setAttribute("aria-hidden", "true");
    b.appendChild(xx);
    b.addEventListener("click", function () {
      x.drop();
      syncControls();
      update("push");
      const next = ul.querySelector(".chip") || q;
      next.focus();
    });
    li.appendChild(b);
    frag.appendChild(li);
  });
  ul.replaceChildren(frag);
  $("chipbar").hidden = act.length === 0;
  const ac = $("active-count");
  ac.textContent = String(act.length);
  ac.hidden = act.length === 0;
  $("filter-open").setAttribute("aria-label", "Filters" + (act.length ? ", " + act.length + " active" : ""));
  const n = matched.length;
  const none = n === 0;
  $("empty").hidden = !none;
  table.hidden = none;
  if (none) {
    $("empty-text").textContent = "No papers match " + (act.length ? act.map(function (x) { return x.text; }).join(" and ") : "these filters") + ".";
  }
  const text = (act.length ? formatCount(n) + " of " + plural(N, "paper", "papers") + " match" : plural(N, "paper", "papers")) + (state.q && n > 1 ? ", best matches first." : ".");
  status.textContent = text;
  $("filter-close").textContent = "Show " + plural(n, "paper", "papers");
  announce(none ? $("empty-text").textContent : text);
}

// --- the URL hash and the history: each filter step is an entry; typing is one, written once
// the reader pauses (the address is not rewritten on every key) --------------------------------
let lastHash = null, urlTimer = 0;
const URL_PAUSE_MS = 500;
function saveHash(mode) {
  clearTimeout(urlTimer);
  if (mode === "type") { urlTimer = setTimeout(function () { saveHash("push"); }, URL_PAUSE_MS); return; }
  const hash = hashString(state, schema);
  if (hash === lastHash && hash === location.hash.replace(/^#/, "")) return;
  lastHash = hash;
  const url = hash ? "#" + hash : location.pathname + location.search;
  try {
    if (mode === "push" && hash !== location.hash.replace(/^#/, "")) history.pushState(null, "", url); else history.replaceState(null, "", url);
  } catch (e) { warn("cannot update the address", e); }
}

function update(mode) {
  const t0 = performance.now();
  compute();
  selVersion++;
  drawFacets();
  drawChips();
  win = { a: -1, b: -1, n: -1 };
  drawWindow(true, true);
  if (mode !== "none") saveHash(mode || "push");
  api.lastUpdateMs = performance.now() - t0;
}

function yearOf(s) { const v = parseInt(s, 10); return isNaN(v) ? null : v; }
function setYears(a, b) {
  swapped = false;
  if (a !== null && b !== null && a > b) { const t = a; a = b; b = t; swapped = true; }
  state.y0 = a !== null && DATA.years.length && a <= DATA.years[0] ? null : a;
  state.y1 = b !== null && DATA.years.length && b >= DATA.years[1] ? null : b;
  if (yearHint) yearHint.textContent = swapped ? "\u201cFrom\u201d was after \u201cto\u201d: showing " + a + "\u2013" + b + "." : "";
}
function loadHash() {
  const p = parseHash(location.hash, schema, warn);
  state.sel = p.sel.map(function (s) { return new Set(s); });
  state.q = p.q;
  setYears(p.y0, p.y1);
  state.sort = p.sort;
  state.dir = p.dir;
  state.tab = p.tab;
  return p.anchor;
}

function syncControls() {
  for (let fi = 0; fi < groups.length; fi++) {
    const g = groups[fi];
    for (let vi = 0; vi < g.boxes.length; vi++) g.boxes[vi].checked = state.sel[fi].has(vi);
  }
  if (q.value.trim() !== state.q) q.value = state.q;
  if (y0) {
    const a = state.y0 === null ? DATA.years[0] : state.y0, b = state.y1 === null ? DATA.years[1] : state.y1;
    if (yearOf(y0.value) !== a) y0.value = a;
    if (yearOf(y1.value) !== b) y1.value = b;
    if (!swapped && yearHint) yearHint.textContent = "";
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

// --- going to one paper ------------------------------------------------------------------------
let keyIndex = null;
function jumpTo(key) {
  if (!keyIndex) { keyIndex = new Map(); for (let i = 0; i < N; i++) keyIndex.set(KEY[i], i); }
  const idx = keyIndex.get(key);
  if (idx === undefined) { warn("no paper with the key", key); return false; }
  let pos = matched.indexOf(idx);
  if (pos < 0) {
    // Filtered out: clear the filters so the paper can be shown.
    state.sel = facets.map(function () { return new Set(); });
    state.q = ""; setYears(null, null);
    syncControls();
    update("replace");
    pos = matched.indexOf(idx);
  }
  let tr = ALL ? $("p-" + key) : null;
  // Heights of rows not yet drawn are estimates: scroll, draw, and correct until the row is there.
  for (let tries = 0; tries < 6 && !tr; tries++) {
    let off = 0;
    for (let k = 0; k < pos; k++) off += h(matched[k]);
    window.scrollTo(0, tbody.getBoundingClientRect().top + window.scrollY + off);
    drawWindow(true, true);
    tr = $("p-" + key);
  }
  if (!tr) return false;
  tr.scrollIntoView({ block: "start" });
  drawWindow(false);
  tr = $("p-" + key) || tr;
  tbody.querySelectorAll("tr.target").forEach(function (t) { t.classList.remove("target"); });
  targetI = idx;
  tr.classList.add("target");
  const link = tr.querySelector("a.title");
  if (link) link.focus({ preventScroll: true });
  return true;
}

// --- BibTeX: loaded on first use, with a message while it loads ----------------------------
const withBib = bibLoader(DATA.bib, DATA.bibSize, $("bib-loading"));
const dlg = $("bib-dialog");
let bibOpener = null;
function showBib(i, opener) {
  withBib(function (err, BIB) {
    $("bib-title").textContent = "BibTeX: " + KEY[i];
    $("bib-text").textContent = err || BIB[KEY[i]] || "";
    $("bib-copy").textContent = "Copy";
    bibOpener = opener;
    if (dlg.showModal) dlg.showModal(); else dlg.setAttribute("open", "");
    $("bib-copy").focus();
  });
}
$("bib-close").addEventListener("click", function () { dlg.close(); });
dlg.addEventListener("close", function () { if (bibOpener && document.contains(bibOpener)) bibOpener.focus(); });
$("bib-copy").addEventListener("click", function () {
  const pre = $("bib-text"), btn = $("bib-copy");
  const ok = selectAndCopy(pre);
  btn.textContent = ok ? "Copied" : "Selected: press Ctrl+C";
  if (!ok && navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(pre.textContent).then(function () { btn.textContent = "Copied"; }, function () {});
  }
});
tbody.addEventListener("click", function (ev) {
  const b = ev.target.closest ? ev.target.closest("button.bibbtn") : null;
  if (b) showBib(+b.dataset.i, b);
});

// --- export of the filtered set --------------------------------------------------------------
function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type: type }));
  const a = elt("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
}
function exportName(ext) { return (activeFilters().length ? "papers-filtered." : "papers.") + ext; }
$("export-csv").addEventListener("click", function () {
  download(exportName("csv"), csvText(exportRows(DATA, matched)), "text/csv;charset=utf-8");
});
$("export-bib").addEventListener("click", function () {
  withBib(function (err, BIB) {
    if (err) { status.textContent = err; return; }
    const out = matched.map(function (i) { return BIB[KEY[i]].replace(/\s+$/, "") + "\n"; });
    download(exportName("bib"), out.join("\n"), "application/x-bibtex;charset=utf-8");
  });
});

// --- controls --------------------------------------------------------------------------------
groups.forEach(function (g, fi) {
  g.boxes.forEach(function (b, vi) {
    b.addEventListener("change", function () {
      if (b.checked) state.sel[fi].add(vi); else state.sel[fi].delete(vi);
      update("push");
    });
  });
});
let typeTimer = 0;
function typed(apply) {
  apply();
  if (!TYPE_DELAY) { update("type"); return; }
  clearTimeout(typeTimer);
  typeTimer = setTimeout(function () { update("type"); }, TYPE_DELAY);
}
q.addEventListener("input", function () { typed(function () { state.q = q.value.trim(); }); });
function yearInput() { typed(function () { setYears(yearOf(y0.value), yearOf(y1.value)); }); }
if (y0) { y0.addEventListener("input", yearInput); y1.addEventListener("input", yearInput); }
function clearAll() {
  state.sel = facets.map(function () { return new Set(); });
  state.q = ""; setYears(null, null);
  syncControls();
  update("push");
}
$("reset").addEventListener("click", clearAll);
$("clear-chips").addEventListener("click", function () { clearAll(); q.focus(); });
$("empty-clear").addEventListener("click", function () { clearAll(); q.focus(); });
document.querySelectorAll("#papers th button[data-sort]").forEach(function (b) {
  b.addEventListener("click", function () {
    const c = +b.dataset.sort;
    if (state.sort === c) state.dir = -state.dir; else { state.sort = c; state.dir = 1; }
    syncControls();
    update("push");
  });
});
$("sort-select").addEventListener("change", function (ev) {
  const v = ev.target.value.split(".");
  state.sort = +v[0];
  state.dir = v[1] === "-1" ? -1 : 1;
  syncControls();
  update("push");
});

// --- the phone's filter sheet: a modal dialog that keeps the focus and gives it back -------------
const sidebar = $("sidebar"), openBtn = $("filter-open");
const phone = window.matchMedia ? window.matchMedia("(max-width: 760px)") : null;
function sheetOpen() { return sidebar.classList.contains("open"); }
function openSheet() {
  sidebar.classList.add("open");
  sidebar.setAttribute("role", "dialog");
  sidebar.setAttribute("aria-modal", "true");
  document.body.classList.add("sheet-open");
  openBtn.setAttribute("aria-expanded", "true");
  $("filter-close").focus();
}
function closeSheet(toResults) {
  if (!sheetOpen()) return;
  sidebar.classList.remove("open");
  sidebar.removeAttribute("role");
  sidebar.removeAttribute("aria-modal");
  document.body.classList.remove("sheet-open");
  openBtn.setAttribute("aria-expanded", "false");
  if (toResults) results.scrollIntoView({ block: "start" });
  openBtn.focus({ preventScroll: true });
}
trapFocus(sidebar, sheetOpen);
openBtn.addEventListener("click", openSheet);
$("filter-close").addEventListener("click", function () { closeSheet(true); });
document.addEventListener("keydown", function (ev) { if (ev.key === "Escape" && sheetOpen()) closeSheet(false); });
if (phone && phone.addEventListener) phone.addEventListener("change", function () { if (!phone.matches) closeSheet(false); });

setupTheme($("theme"), warn);

// --- tabs (arrow keys move between them, as in the WAI-ARIA tabs pattern) ------------------
const tabs = Array.prototype.slice.call(document.querySelectorAll("[role=tab]"));
function showTab(name, save) {
  state.tab = name;
  tabs.forEach(function (t) {
    const on = t.dataset.tab === name;
    t.setAttribute("aria-selected", on ? "true" : "false");
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute("aria-controls")).hidden = !on;
  });
  if (name === "papers" && !ALL) drawWindow(true);
  if (save !== false) saveHash("push");
}
tabs.forEach(function (t, i) {
  t.addEventListener("click", function () { showTab(t.dataset.tab); });
  t.addEventListener("keydown", function (ev) {
    if (ev.key !== "ArrowRight" && ev.key !== "ArrowLeft") return;
    const next = tabs[(i + (ev.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
    next.focus();
    showTab(next.dataset.tab);
  });
});

// --- print: every matching row, not only the ones in view ---------------------------------------
window.addEventListener("beforeprint", function () {
  if (ALL) return;
  const frag = document.createDocumentFragment();
  matched.forEach(function (i) { frag.appendChild(rowEl(i)); });
  tbody.replaceChildren(frag);
  printing = true;
});
window.addEventListener("afterprint", function () { if (!printing) return; printing = false; drawWindow(true); });

window.addEventListener("scroll", onScroll, { passive: true });
window.addEventListener("resize", onResize);
function fromLocation() {
  clearTimeout(urlTimer);
  if (location.hash.replace(/^#/, "") === lastHash) return;
  lastHash = location.hash.replace(/^#/, "");
  const anchor = loadHash();
  syncControls();
  update("none");
  if (anchor) jumpTo(anchor);
}
window.addEventListener("hashchange", fromLocation);
window.addEventListener("popstate", fromLocation);

const api = {
  update: update, state: state, lastUpdateMs: 0,
  keys: function () { return matched.map(function (i) { return KEY[i]; }); },
  jumpTo: jumpTo
};
window.surveyPage = api;
DATA.rangeLabel = y0 ? y0.closest("fieldset").querySelector("legend").textContent : "";

// --- start: the link's state, plus whatever the reader did while the page was loading ---------
const anchor = loadHash();
lastHash = location.hash.replace(/^#/, "");
let early = false;
groups.forEach(function (g, fi) {
  g.boxes.forEach(function (b, vi) {
    if (b.checked !== b.defaultChecked) { early = true; if (b.checked) state.sel[fi].add(vi); else state.sel[fi].delete(vi); }
  });
});
if (q.value.trim() && q.value !== q.defaultValue) { early = true; state.q = q.value.trim(); }
if (y0 && (y0.value !== y0.defaultValue || y1.value !== y1.defaultValue)) { early = true; setYears(yearOf(y0.value), yearOf(y1.value)); }
syncControls();
update(early ? "replace" : "none");
started = true;
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
