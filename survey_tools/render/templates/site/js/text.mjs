// Text helpers shared by every page script: folding for search, counts for people.

// Case-, accent- and punctuation-insensitive form of a text: " word word" (a leading space, so
// that " " + prefix finds the start of any word). Only constant regular expressions are used.
export function fold(s) {
  return " " + String(s).normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

// Words written with hyphens, joined ("multi-agent" gives "multiagent"), so that a query word
// made of two record words is recognised as one.
export function hyphenPairs(raw) {
  const out = [];
  const s = String(raw);
  if (s.indexOf("-") < 0) return out;
  const rx = /([\p{L}\p{N}]+)-(?=([\p{L}\p{N}]+))/gu;
  let m;
  while ((m = rx.exec(s)) !== null) out.push(fold(m[1] + m[2]).trim());
  return out;
}

const COUNTS = typeof Intl !== "undefined" ? new Intl.NumberFormat("en-US") : null;

// 100000 -> "100,000": counts are read, not parsed.
export function formatCount(n) {
  return COUNTS ? COUNTS.format(n) : String(n);
}

// "1 paper", "2 papers" with the count formatted.
export function plural(n, one, many) {
  return formatCount(n) + " " + (n === 1 ? one : many);
}

// A record's link as an href: http(s) only, anything else (javascript:, data:) goes nowhere.
export function safeUrl(u) { return /^https?:\/\//i.test(u) ? u : "#"; }
