// The words that sum up the list: the active filters (shown as removable chips), the count of
// matching papers and the message when none matches. Pure: the state and the page's data in.
import { formatCount, plural } from "./text.mjs";

// The active filters in the order of the sidebar: {text, drop, search}, where drop() removes the
// filter from `state` (dropRange, if given, is called too when the year range is dropped) and
// search is true for the search (a chip, but not one of the sidebar's filters).
export function activeFilters(state, data, dropRange) {
  const out = [];
  data.facets.forEach(function (f, fi) {
    Array.from(state.sel[fi]).sort(function (a, b) { return a - b; }).forEach(function (vi) {
      out.push({ text: f.label + ": " + f.values[vi][2], drop: function () { state.sel[fi].delete(vi); } });
    });
  });
  if (state.q) out.push({ text: "Search: \u201c" + (state.q.length > 80 ? state.q.slice(0, 80) + "\u2026" : state.q) + "\u201d", drop: function () { state.q = ""; }, search: true });
  if (state.y0 !== null || state.y1 !== null) {
    const a = state.y0 === null ? data.years[0] : state.y0, b = state.y1 === null ? data.years[1] : state.y1;
    out.push({ text: (data.rangeLabel || data.range) + ": " + a + "\u2013" + b, drop: function () { state.y0 = state.y1 = null; if (dropRange) dropRange(); } });
  }
  return out;
}

// "3 of 95 papers match, best matches first." / "95 papers."
export function statusText(n, total, filtered, searching) {
  return (filtered ? formatCount(n) + " of " + plural(total, "paper", "papers") + " match" : plural(total, "paper", "papers")) + (searching && n > 1 ? ", best matches first." : ".");
}

// The message of an empty list, naming the filters.
export function emptyText(active) {
  return "No papers match " + (active.length ? active.map(function (x) { return x.text; }).join(" and ") : "these filters") + ".";
}
