// CSV export: UTF-8 with a byte-order mark (Excel then reads "Müller" right), RFC 4180 quoting,
// and the toolkit's spreadsheet rule (survey_tools/csvcells.py): a text cell that starts with
// =, +, -, @, a tab or a carriage return gets a leading ' unless it is a plain number.

export const BOM = "\ufeff";
const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

export function needsQuote(s) {
  if (!s) return false;
  const c = s.charAt(0);
  return (c === "=" || c === "+" || c === "-" || c === "@" || c === "\t" || c === "\r") && !NUMERIC.test(s);
}

export function spreadsheetSafe(s) { return needsQuote(s) ? "'" + s : s; }

export function csvCell(v) {
  if (v === null || v === undefined) return "";
  if (typeof v === "number") return String(v);
  const s = spreadsheetSafe(String(v));
  return /[",\r\n]/.test(s) ? "\"" + s.replace(/"/g, "\"\"") + "\"" : s;
}

// rows: arrays of cells, the first the header. The whole file, BOM first, CRLF line ends.
export function csvText(rows) {
  return BOM + rows.map(function (r) { return r.map(csvCell).join(","); }).join("\r\n") + "\r\n";
}
