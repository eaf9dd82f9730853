// What a facet's value list shows (survey_tools/render/templates/site/js/facetview.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { facetView, LONG, TOP } from "../../survey_tools/render/templates/site/js/facetview.mjs";
import { fold } from "../../survey_tools/render/templates/site/js/text.mjs";

function values(labels, depth) { return labels.map(function (l, i) { return [0, "v" + i, l, depth ? depth[i] : 0, 0]; }); }
function shown(view) { return view.show.map(function (s, i) { return s ? i : -1; }).filter(function (i) { return i >= 0; }); }

test("a short facet shows every value with a paper or selected", () => {
  const v = values(["a", "b", "c"]);
  const r = facetView(v, [2, 0, 0], new Set([2]), { long: false });
  assert.deepEqual(shown(r), [0, 2]);
  assert.deepEqual([r.hidden, r.nonzero, r.boxHidden], [0, 2, true]);
});

test("a long facet folds to its top values by count, then opens", () => {
  const labels = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
  assert.ok(labels.length > LONG);
  const cnt = [1, 9, 3, 3, 0, 5, 7, 2, 4, 1];
  const folded = facetView(values(labels), cnt, new Set([9]), { long: true, open: false, filter: "" });
  // Top six by count (ties by order): b 9, g 7, f 5, i 4, c 3, d 3; j is selected; e has no paper.
  assert.equal(TOP, 6);
  assert.deepEqual(shown(folded), [1, 2, 3, 5, 6, 8, 9]);
  assert.equal(folded.hidden, 2, "a and h are folded away");
  assert.equal(folded.nonzero, 9);
  assert.equal(folded.boxHidden, false, "more than LONG values with papers: the filter box shows");
  const open = facetView(values(labels), cnt, new Set(), { long: true, open: true, filter: "" });
  assert.deepEqual(shown(open), [0, 1, 2, 3, 5, 6, 7, 8, 9]);
  assert.equal(open.hidden, 0);
});

test("folded, a grouped facet shows its top level only", () => {
  const labels = ["G1", "m1", "m2", "G2", "m3", "G3", "m4", "G4", "m5"];
  const depth = [0, 1, 1, 0, 1, 0, 1, 0, 1];
  const r = facetView(values(labels, depth), [5, 9, 9, 4, 9, 3, 9, 2, 9], new Set(), { long: true, open: false, filter: "" });
  assert.deepEqual(shown(r), [0, 3, 5, 7]);
});

test("the filter box keeps values whose words start with it, and the selected ones", () => {
  const labels = ["Shared reward", "Individual reward", "Team-shared", "Other"];
  const r = facetView(values(labels), [1, 1, 1, 0], new Set([3]), { long: true, open: false, filter: fold("shar").trim(), lfold: labels.map(fold) });
  assert.deepEqual(shown(r), [0, 2, 3]);
  assert.equal(r.boxHidden, false, "a box in use stays");
});

test("folded, a value the claims name stays however few papers it has", () => {
  const labels = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
  const cnt = [1, 9, 3, 3, 0, 5, 7, 2, 4, 1];
  const r = facetView(values(labels), cnt, new Set(), { long: true, open: false, filter: "", keep: new Set([0, 4]) });
  // the top six (b g f i c d), and a (1 paper, kept); e is kept but has no paper
  assert.deepEqual(shown(r), [0, 1, 2, 3, 5, 6, 8]);
  assert.equal(r.hidden, 2, "h and j are folded away");
});
