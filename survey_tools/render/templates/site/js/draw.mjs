// Drawing the matching rows: up to DATA.allLimit records every row is in the page (made once and
// reused; find-in-page and screen readers see them all), beyond that a window of rows near the
// viewport between two spacer rows, with aria-rowcount and aria-rowindex. A control focused in a
// row keeps (or, when the row is drawn again, gets back) the focus. Print draws every row.
import { elt } from "./dom.mjs";
import { N, KEY, ALL, cols, $, tbody, table, results, view } from "./data.mjs";
import { rowEl, drawBadges } from "./listrow.mjs";
import { rowHeights, windowOf, heightOf } from "./rowwindow.mjs";

const OVERSCAN = 800; // pixels drawn above and below the viewport when windowing

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

// --- every row (ALL) --------------------------------------------------------------------------
const cache = ALL ? new Array(N) : null;
function cachedRow(i) {
  let tr = cache[i];
  if (!tr) { tr = rowEl(i); cache[i] = tr; } else if (tr._v !== view.selVersion) drawBadges(tr, i);
  return tr;
}
function drawAll() {
  const focus = rememberFocus();
  const frag = document.createDocumentFragment();
  const matched = view.matched;
  for (let k = 0; k < matched.length; k++) frag.appendChild(cachedRow(matched[k]));
  tbody.replaceChildren(frag);
  table.removeAttribute("aria-rowcount");
  restoreFocus(focus);
}

// --- a window of rows (beyond DATA.allLimit) ---------------------------------------------------
const heights = rowHeights(N, 160);
let win = { a: -1, b: -1, n: -1 }, printing = false;
function spacer(px) {
  const tr = elt("tr", "spacer");
  tr.setAttribute("aria-hidden", "true");
  const td = elt("td");
  td.colSpan = cols.length + 1;
  td.style.height = px + "px";
  tr.appendChild(td);
  return tr;
}
// force: draw even if the window is unchanged; fresh: the rows changed (no row to keep in place).
export function drawWindow(force, fresh) {
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
  const matched = view.matched, n = matched.length, h = heights.h;
  const w = windowOf(matched, h, -tbody.getBoundingClientRect().top, window.innerHeight || 800, OVERSCAN, 8);
  const a = w.a, b = w.b;
  if (!force && a === win.a && b === win.b && n === win.n) return;
  win = { a: a, b: b, n: n };
  const focus = rememberFocus();
  const frag = document.createDocumentFragment();
  frag.appendChild(spacer(w.top));
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
  for (let m = 0; m < trs.length; m++) heights.measure(matched[a + m], tops[m + 1] - tops[m]);
  heights.settle();
  bottomTr.firstChild.style.height = heightOf(matched, h, b, n) + "px";
  restoreFocus(focus);
  if (anchorI >= 0) {
    const again = $("p-" + KEY[anchorI]);
    if (again) { const d = again.getBoundingClientRect().top - anchorTop; if (Math.abs(d) > 0.5) window.scrollBy(0, d); }
  }
}

// After an update: every row may have changed.
export function redraw() {
  win = { a: -1, b: -1, n: -1 };
  drawWindow(true, true);
}

// Pixels from the list's top to the row at position `pos` of the matching rows (estimated).
export function offsetOf(pos) { return heightOf(view.matched, heights.h, 0, pos); }

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
  if (w !== lastWidth) { lastWidth = w; heights.reset(); }
  drawWindow(true);
}

export function setupDrawing() {
  // Print: every matching row, not only the ones in view.
  window.addEventListener("beforeprint", function () {
    if (ALL) return;
    const frag = document.createDocumentFragment();
    view.matched.forEach(function (i) { frag.appendChild(rowEl(i)); });
    tbody.replaceChildren(frag);
    printing = true;
  });
  window.addEventListener("afterprint", function () { if (!printing) return; printing = false; drawWindow(true); });
  window.addEventListener("scroll", onScroll, { passive: true });
  window.addEventListener("resize", onResize);
}
