// The facet lists in the sidebar: counts (with thousands separators), values with no paper hidden,
// long facets folded with "Show all" and a filter box (facetview.mjs decides what shows).
import { fold, formatCount } from "./text.mjs";
import { elt } from "./dom.mjs";
import { facets, state, view } from "./data.mjs";
import { LONG, facetView } from "./facetview.mjs";

// One group per facet: its fieldset, items, count elements and checkboxes, and its fold state.
export const groups = facets.map(function (f, fi) {
  const fs = document.querySelector('fieldset[data-fi="' + fi + '"]');
  const lis = Array.prototype.slice.call(fs.querySelectorAll("li"));
  const g = { fs: fs, lis: lis, ns: lis.map(function (li) { return li.querySelector(".n"); }), boxes: lis.map(function (li) { return li.querySelector("input"); }), long: f.values.length > LONG, open: false, filter: "", keep: new Set(f.keep || []), nsel: document.querySelector('[data-nsel="' + fi + '"]') };
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

export function drawFacets() {
  facets.forEach(function (f, fi) {
    const g = groups[fi], cnt = view.counts[fi], sel = state.sel[fi];
    const shown = facetView(f.values, cnt, sel, g);
    for (let vi = 0; vi < f.values.length; vi++) {
      const txt = formatCount(cnt[vi]), show = shown.show[vi], on = sel.has(vi);
      if (g.ns[vi].textContent !== txt) g.ns[vi].textContent = txt;
      if (g.lis[vi].hidden === show) g.lis[vi].hidden = !show;
      if (g.boxes[vi].checked !== on) g.boxes[vi].checked = on;
    }
    if (g.more) {
      g.more.hidden = !g.open && shown.hidden === 0;
      g.more.textContent = g.open ? "Show fewer" : "Show all (" + formatCount(shown.hidden) + " more)";
      g.more.setAttribute("aria-expanded", g.open ? "true" : "false");
    }
    if (g.fbox) g.fbox.hidden = shown.boxHidden;
    const det = g.fs.parentNode;
    if (det.hidden !== (shown.nonzero === 0)) det.hidden = shown.nonzero === 0;
    const ns = sel.size ? sel.size + " selected" : "";
    if (g.nsel.textContent !== ns) g.nsel.textContent = ns;
  });
}

// The checkboxes as the state says.
export function syncBoxes() {
  for (let fi = 0; fi < groups.length; fi++) {
    const g = groups[fi];
    for (let vi = 0; vi < g.boxes.length; vi++) g.boxes[vi].checked = state.sel[fi].has(vi);
  }
}
