// CSV export cells (survey_tools/render/templates/site/js/csv.mjs): the same spreadsheet rule as
// survey_tools/csvcells.py, quoting, and the byte-order mark.
import { test } from "node:test";
import assert from "node:assert/strict";
import { csvCell, csvText, needsQuote, BOM } from "../../survey_tools/render/templates/site/js/csv.mjs";

test("formula triggers are neutralised with a leading quote", () => {
  for (const s of ["=1+1", "+SUM(A1)", "-cmd", "@import", "\tx", "\rx"]) assert.equal(needsQuote(s), true, JSON.stringify(s));
  assert.equal(csvCell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
  assert.equal(csvCell("@title"), "'@title");
});

test("numbers and ordinary text are left alone", () => {
  for (const s of ["-1", "+0.5", "1e5", "Müller", ""]) assert.equal(needsQuote(s), false, s);
  assert.equal(csvCell(2024), "2024");
  assert.equal(csvCell(null), "");
  assert.equal(csvCell("a, b"), "\"a, b\"");
});

test("the file starts with a BOM and ends lines with CRLF", () => {
  assert.equal(csvText([["key", "title"], ["k", "=x"]]), BOM + "key,title\r\nk,'=x\r\n");
});
