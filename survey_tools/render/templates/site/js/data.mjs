// The list's data, parsed once from the page, and what every part of the list shares: the
// reader's state (what the URL hash holds) and the view (the matching rows and their counts).
// Every record string reaches the page through textContent or an attribute, never as HTML.

const dataEl = document.getElementById("survey-data");
export const DATA = JSON.parse(dataEl.textContent);
dataEl.textContent = ""; // the parsed copy is the only one kept
export const R = DATA.rec, N = DATA.n;
export const KEY = R[DATA.id], TITLE = R[DATA.title], AUTH = R.authors || [], SUMM = R.summary || [];
export const F = R._f, C = R._c, L = R._l, ADDED = R._a, NEW = R._n;
export const facets = DATA.facets, cols = DATA.columns;
export const $ = function (id) { return document.getElementById(id); };
export const tbody = $("rows"), table = $("papers"), results = $("results"), status = $("status"), q = $("q");
export const ALL = N <= DATA.allLimit; // every matching row is drawn
if (!ALL) table.classList.add("windowed");
else if (N >= DATA.skipFrom) table.classList.add("skip-offscreen");
export const schema = { facets: facets, range: DATA.range, sort: DATA.sort, tabs: ["papers", "exclusions"] };

export const state = { sel: facets.map(function () { return new Set(); }), q: "", y0: null, y1: null, sort: -1, dir: 1, tab: "papers" };
// matched: record indices in the shown order; counts: per facet, per value; selVersion: bumped
// on every update (rows redraw their badges when theirs is older); target: the row of #p-<key>;
// swapped: the year boxes were given in the wrong order.
export const view = { matched: [], counts: null, selVersion: 0, target: -1, swapped: false };

export function warn(msg, detail) { if (window.console) console.warn("survey page: " + msg, detail === undefined ? "" : detail); }
