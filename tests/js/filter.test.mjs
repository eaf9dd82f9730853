// Which records the list shows and the facet counts (survey_tools/render/templates/site/js/filter.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { searchColumns, baseRecords, facetFilter, yearOf, yearRange } from "../../survey_tools/render/templates/site/js/filter.mjs";

// Two facets: "unit" (agent, turn) and "rl" (yes, no, and an untagged value that is no tag).
const facets = [
  { values: [[0, "agent", "Agent", 0, 0], [0, "turn", "Turn", 0, 0]] },
  { values: [[0, "yes", "RL", 0, 0], [0, "no", "Not RL", 0, 0], [0, "untagged", "Untagged", 0, 1]] },
];
// Records: 0 agent+RL, 1 turn+RL, 2 agent+turn, not RL, 3 untagged unit, RL untagged.
const valuesOf = [[[0], [0]], [[1], [0]], [[0, 1], [1]], [[], [2]]];

test("values of a facet combine with OR, facets with AND", () => {
  const none = [new Set(), new Set()];
  assert.deepEqual(facetFilter(valuesOf, facets, [0, 1, 2, 3], none).rows, [0, 1, 2, 3]);
  assert.deepEqual(facetFilter(valuesOf, facets, [0, 1, 2, 3], [new Set([0, 1]), new Set()]).rows, [0, 1, 2]);
  assert.deepEqual(facetFilter(valuesOf, facets, [0, 1, 2, 3], [new Set([0]), new Set([0])]).rows, [0]);
  assert.deepEqual(facetFilter(valuesOf, facets, [1, 3], none).rows, [1, 3], "only the base set is filtered");
});

test("a value's count is over the records that pass every other facet", () => {
  const { counts } = facetFilter(valuesOf, facets, [0, 1, 2, 3], [new Set([0]), new Set()]);
  // unit: every record passes the other facet (rl has no selection), so its counts are plain.
  assert.deepEqual(Array.from(counts[0]), [2, 2]);
  // rl: over the records with unit = agent (0 and 2).
  assert.deepEqual(Array.from(counts[1]), [1, 1, 0]);
  const both = facetFilter(valuesOf, facets, [0, 1, 2, 3], [new Set([0]), new Set([1])]);
  assert.deepEqual(both.rows, [2]);
  assert.deepEqual(Array.from(both.counts[0]), [1, 1], "unit counted over the records with rl = no");
  assert.deepEqual(Array.from(both.counts[1]), [1, 1, 0], "rl counted over the records with unit = agent");
});

test("search and year range give the base set and the scores", () => {
  const years = [2019, 2020, 2024, undefined];
  assert.deepEqual(baseRecords(4, years, null, null, null), { rows: [0, 1, 2, 3], scores: null });
  assert.deepEqual(baseRecords(4, years, 2020, null, null).rows, [1, 2], "a record without a year is outside any range");
  assert.deepEqual(baseRecords(4, years, null, 2020, null).rows, [0, 1]);
  const b = baseRecords(4, years, 2020, null, function (i) { return i === 2 ? 5 : i === 0 ? 1 : 0; });
  assert.deepEqual(b.rows, [2]);
  assert.equal(b.scores[2], 5);
  assert.equal(b.scores[0], 0, "records outside the range are not scored");
});

test("the searched texts: configured fields, then the tags shown on the row", () => {
  const data = {
    n: 2, search: [["title"], ["venue"]], newLabel: "New since 2025",
    facets: facets, columns: [{ values: [["Agent-level", 1], ["Turn-level", 2]] }],
    rec: { title: ["A", "B"], _f: [[[0], [2]], [[1, 0], [0]]], _c: [[1], [0]], _n: [0, 1] },
  };
  const cols = searchColumns(data);
  assert.equal(cols.length, 3);
  assert.deepEqual(cols[0], ["A", "B"]);
  assert.deepEqual(cols[1], [], "a field the records lack is searched as empty");
  assert.deepEqual(cols[2], ["Agent · Turn-level", "Turn · Agent · RL · Agent-level · New since 2025"], "untagged is no tag");
});

test("year boxes: numbers or nothing, swapped into order, the corpus's own bounds are no bound", () => {
  assert.equal(yearOf("2020"), 2020);
  assert.equal(yearOf(""), null);
  assert.equal(yearOf("abc"), null);
  assert.deepEqual(yearRange(2020, 2022, [2018, 2025]), { y0: 2020, y1: 2022, swapped: false, hint: "" });
  assert.deepEqual(yearRange(2018, 2030, [2018, 2025]), { y0: null, y1: null, swapped: false, hint: "" });
  const r = yearRange(2024, 2021, [2018, 2025]);
  assert.deepEqual([r.y0, r.y1, r.swapped], [2021, 2024, true]);
  assert.equal(r.hint, "\u201cFrom\u201d was after \u201cto\u201d: showing 2021\u20132024.");
  assert.deepEqual(yearRange(1900, null, []), { y0: 1900, y1: null, swapped: false, hint: "" }, "no years in the corpus: kept as typed");
});
