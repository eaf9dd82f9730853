// The list's order (survey_tools/render/templates/site/js/order.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { sorter } from "../../survey_tools/render/templates/site/js/order.mjs";

// Records in title order (the renderer sorts them): 0 "A", 1 "B", 2 "C", 3 "D". One column
// (credit unit: sort keys 2 agent, 1 turn) and the date added.
function data(order) {
  return {
    n: 4, order: order, sort: ["title", "credit_unit", "added"], addedSort: "added",
    columns: [{ values: [["Agent", 2], ["Turn", 1]] }],
    rec: { _c: [[0], [1], [0], [1]], _a: ["2025-01-02", "2025-03-01", "2025-01-02", "2024-12-31"] },
  };
}
function sorted(d, sort, dir, scores) {
  const rows = [0, 1, 2, 3];
  sorter(d)(rows, sort, dir, scores || null);
  return rows;
}

test("without a sort or a search: newest first, titles A-Z within a day; or titles", () => {
  assert.deepEqual(sorted(data("newest"), -1, 1), [1, 0, 2, 3]);
  assert.deepEqual(sorted(data("title"), -1, 1), [0, 1, 2, 3]);
  const noEditions = { ...data("newest"), sort: ["title", "credit_unit"], addedSort: "" };
  assert.deepEqual(sorted(noEditions, -1, 1), [0, 1, 2, 3], "newest needs the date added");
});

test("a search orders by score, ties by title", () => {
  const scores = new Float64Array([2, 5, 5, 1]);
  assert.deepEqual(sorted(data("newest"), -1, 1, scores), [1, 2, 0, 3]);
  assert.deepEqual(sorted(data("newest"), 0, 1, scores), [0, 1, 2, 3], "a chosen sort wins over the score");
});

test("a chosen sort: each key both ways, ties by title", () => {
  assert.deepEqual(sorted(data("newest"), 0, -1), [3, 2, 1, 0]);
  assert.deepEqual(sorted(data("newest"), 1, 1), [1, 3, 0, 2]);
  assert.deepEqual(sorted(data("newest"), 1, -1), [2, 0, 3, 1]);
  assert.deepEqual(sorted(data("title"), 2, 1), [3, 0, 2, 1]);
  assert.deepEqual(sorted(data("title"), 2, -1), [1, 0, 2, 3], "newest first keeps titles A-Z within a day");
});

test("one sorter sorts again with the ranks it computed", () => {
  const sortRows = sorter(data("title"));
  const a = [3, 2, 1, 0], b = [2, 1];
  sortRows(a, 1, 1, null);
  sortRows(b, 1, 1, null);
  assert.deepEqual(a, [1, 3, 0, 2]);
  assert.deepEqual(b, [1, 2]);
});
