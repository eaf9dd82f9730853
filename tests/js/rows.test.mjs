// The CSV export's rows (survey_tools/render/templates/site/js/rows.mjs) from the page's data.
import { test } from "node:test";
import assert from "node:assert/strict";
import { exportRows } from "../../survey_tools/render/templates/site/js/rows.mjs";
import { csvText, BOM } from "../../survey_tools/render/templates/site/js/csv.mjs";

const data = {
  id: "key", title: "title", byline: ["year"], addedLabel: "Added",
  columns: [{ label: "Credit unit", values: [["Agent", 4], ["Turn", 3]] }],
  facets: [{ label: "Sub-decisions", badges: true, values: [[0, "O1:learned", "O1 spawn · learned"], [0, "O2:designed", "O2 delegate · designed"]] },
    { label: "Category", badges: false, values: [[0, "rl", "RL"]] }],
  rec: {
    key: ["a", "b"], title: ["=cmd()", "Müller's paper"], authors: ["X, Y", "Müller, J"], year: [2025, 2026],
    _l: [[["https://arxiv.org/abs/1"]], [["https://arxiv.org/abs/2"]]], _c: [[1], [0]], _a: ["", "2026-11-22"],
    _f: [[[0, 1], [0]], [[], [0]]],
  },
};

test("one row per shown record, in the shown order, with every shown field", () => {
  const rows = exportRows(data, [1, 0]);
  assert.deepEqual(rows[0], ["key", "title", "authors", "year", "url", "Credit unit", "Added", "Sub-decisions"]);
  assert.deepEqual(rows[1], ["b", "Müller's paper", "Müller, J", 2026, "https://arxiv.org/abs/2", "Agent", "2026-11-22", ""]);
  assert.deepEqual(rows[2], ["a", "=cmd()", "X, Y", 2025, "https://arxiv.org/abs/1", "Turn", "", "O1 spawn · learned; O2 delegate · designed"]);
});

test("the exported file neutralises the formula-like title", () => {
  const text = csvText(exportRows(data, [0]));
  assert.ok(text.startsWith(BOM + "key,title,"));
  assert.ok(text.includes("\r\na,'=cmd(),"));
});

test("a column the by-line already holds (the year) is written once", () => {
  const withYear = { ...data, columns: [{ label: "Year", inByline: true, values: [["2025", 2025], ["2026", 2026]] }, ...data.columns] };
  withYear.rec = { ...data.rec, _c: [[0, 1], [1, 0]] };
  const rows = exportRows(withYear, [1, 0]);
  assert.deepEqual(rows[0], ["key", "title", "authors", "year", "url", "Credit unit", "Added", "Sub-decisions"]);
  assert.deepEqual(rows[1].slice(3, 6), [2026, "https://arxiv.org/abs/2", "Agent"]);
  assert.deepEqual(rows[2].slice(3, 6), [2025, "https://arxiv.org/abs/1", "Turn"]);
});
