// Chips, count and empty message (survey_tools/render/templates/site/js/summary.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { activeFilters, statusText, emptyText } from "../../survey_tools/render/templates/site/js/summary.mjs";

const data = {
  facets: [{ label: "Credit unit", values: [[0, "agent", "Agent"], [0, "turn", "Turn"]] }],
  years: [2018, 2025], range: "year", rangeLabel: "Year",
};
function state() { return { sel: [new Set([1, 0])], q: "", y0: null, y1: null }; }

test("active filters in the sidebar's order, each removable", () => {
  const s = state();
  s.q = "x".repeat(90);
  s.y0 = 2020;
  let dropped = false;
  const act = activeFilters(s, data, function () { dropped = true; });
  assert.deepEqual(act.map(function (a) { return a.text; }), [
    "Credit unit: Agent", "Credit unit: Turn", "Search: \u201c" + "x".repeat(80) + "\u2026\u201d", "Year: 2020\u20132025",
  ]);
  assert.deepEqual(act.map(function (a) { return !!a.search; }), [false, false, true, false], "the search is marked: the Filters badge leaves it out");
  act[1].drop();
  assert.deepEqual(Array.from(s.sel[0]), [0]);
  act[2].drop();
  assert.equal(s.q, "");
  act[3].drop();
  assert.deepEqual([s.y0, s.y1, dropped], [null, null, true]);
});

test("without a range label the range's key names it", () => {
  const s = state();
  s.sel = [new Set()];
  s.y1 = 2021;
  assert.deepEqual(activeFilters(s, { ...data, rangeLabel: "" }).map(function (a) { return a.text; }), ["year: 2018\u20132021"]);
});

test("the count and the empty message", () => {
  assert.equal(statusText(95, 95, false, false), "95 papers.");
  assert.equal(statusText(1, 1, false, false), "1 paper.");
  assert.equal(statusText(3, 10000, true, true), "3 of 10,000 papers match, best matches first.");
  assert.equal(statusText(1, 95, true, true), "1 of 95 papers match.");
  assert.equal(emptyText([]), "No papers match these filters.");
  assert.equal(emptyText([{ text: "A: b" }, { text: "Search: \u201cz\u201d" }]), "No papers match A: b and Search: \u201cz\u201d.");
});
