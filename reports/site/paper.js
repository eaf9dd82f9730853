(function () {
"use strict";
// --- hashstate.mjs
// The list's state in the URL hash: facet=value,value&q=...&year=a-b&sort=col.dir&tab=...&p-key.
// Parsing never throws: unknown keys, values and malformed escapes are reported and skipped.

function enc(s) { return encodeURIComponent(s).replace(/%3A/g, ":"); }

// decodeURIComponent that keeps what it cannot decode (a stray "%") instead of throwing.
function dec(s, warn) {
  try { return decodeURIComponent(s); } catch (e) {
    if (warn) warn("ignored a malformed escape in the link", s);
    return s.replace(/(%[0-9A-Fa-f]{2})+/g, function (m) { try { return decodeURIComponent(m); } catch (e2) { return m; } });
  }
}

// schema: {facets: [{keys: [hash key per level], values: [[level, id, label, ...], ...]}],
//          range: hash key of the range ("" for none), sort: [sortable names], tabs: [names]}.
// Returns {sel: [[value index, ...] per facet], q, y0, y1, sort (-1: default), dir, tab, anchor}.
function parseHash(hash, schema, warn) {
  warn = warn || function () {};
  const out = { sel: schema.facets.map(function () { return []; }), q: "", y0: null, y1: null, sort: -1, dir: 1, tab: schema.tabs[0], anchor: null };
  const params = {};
  const known = { q: 1, sort: 1, tab: 1 };
  if (schema.range) known[schema.range] = 1;
  schema.facets.forEach(function (f) { f.keys.forEach(function (k) { known[k] = 1; }); });
  String(hash).replace(/^#/, "").split("&").forEach(function (p) {
    if (!p) return;
    const eq = p.indexOf("=");
    const key = dec(eq < 0 ? p : p.slice(0, eq), warn);
    if (eq < 0) {
      if (key.slice(0, 2) === "p-") out.anchor = key.slice(2); else warn("ignored an unknown part of the link", key);
      return;
    }
    if (!Object.prototype.hasOwnProperty.call(known, key)) { warn("ignored an unknown key in the link", key); return; }
    params[key] = p.slice(eq + 1);
  });
  schema.facets.forEach(function (f, fi) {
    const index = new Map();
    f.values.forEach(function (v, vi) { index.set(v[0] + "\u0000" + v[1], vi); });
    f.keys.forEach(function (key, k) {
      if (params[key] === undefined) return;
      params[key].split(",").forEach(function (v) {
        const id = dec(v, warn);
        const found = index.get(k + "\u0000" + id);
        if (found !== undefined) { if (out.sel[fi].indexOf(found) < 0) out.sel[fi].push(found); } else if (id) warn("ignored an unknown value in the link", key + "=" + id);
      });
    });
    out.sel[fi].sort(function (a, b) { return a - b; });
  });
  out.q = params.q ? dec(params.q, warn).trim() : "";
  if (schema.range && params[schema.range]) {
    const m = /^(\d*)-(\d*)$/.exec(dec(params[schema.range], warn));
    if (m) { out.y0 = m[1] ? +m[1] : null; out.y1 = m[2] ? +m[2] : null; } else warn("ignored a malformed year range", params[schema.range]);
  }
  if (params.sort) {
    const s = dec(params.sort, warn).split(".");
    const si = schema.sort.indexOf(s[0]);
    if (si >= 0) { out.sort = si; out.dir = s[1] === "desc" ? -1 : 1; } else warn("ignored an unknown sort", s[0]);
  }
  if (params.tab && schema.tabs.indexOf(params.tab) >= 0) out.tab = params.tab;
  return out;
}

// The hash of a state (without "#"); `sel` holds one array or Set of value indices per facet.
function hashString(state, schema) {
  const parts = [];
  schema.facets.forEach(function (f, fi) {
    const chosen = Array.from(state.sel[fi]).sort(function (a, b) { return a - b; });
    if (!chosen.length) return;
    f.keys.forEach(function (key, k) {
      const ids = chosen.filter(function (vi) { return f.values[vi][0] === k; }).map(function (vi) { return enc(f.values[vi][1]); });
      if (ids.length) parts.push(enc(key) + "=" + ids.join(","));
    });
  });
  if (state.q) parts.push("q=" + enc(state.q));
  if (schema.range && (state.y0 !== null || state.y1 !== null)) {
    parts.push(enc(schema.range) + "=" + (state.y0 === null ? "" : state.y0) + "-" + (state.y1 === null ? "" : state.y1));
  }
  if (state.sort >= 0) parts.push("sort=" + enc(schema.sort[state.sort]) + "." + (state.dir > 0 ? "asc" : "desc"));
  if (state.tab && state.tab !== schema.tabs[0]) parts.push("tab=" + enc(state.tab));
  return parts.join("&");
}

// The filters of a hash without its row anchor: what a link to another page carries.
function filtersOf(hash) {
  return String(hash).replace(/^#/, "").split("&").filter(function (p) { return p && p.slice(0, 2) !== "p-"; }).join("&");
}

// `href` (no fragment) with the filters and, optionally, a row anchor as its fragment.
function carry(href, filters, anchor) {
  const parts = [];
  if (filters) parts.push(filters);
  if (anchor) parts.push("p-" + anchor);
  return href + (parts.length ? "#" + parts.join("&") : "");
}

// --- dom.mjs
// Small DOM helpers shared by the list and the paper pages: the colour theme, copying a block of
// text, a focus trap for modal sheets, and links that carry the list's filters.

function elt(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// The theme follows the system until the reader chooses; the choice is remembered (head.js
// applies it before the first paint).
function setupTheme(button, warn) {
  if (!button) return;
  function isDark() {
    const t = document.documentElement.getAttribute("data-theme");
    if (t) return t === "dark";
    return !!(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
  }
  function show() { button.setAttribute("aria-pressed", isDark() ? "true" : "false"); }
  button.addEventListener("click", function () {
    const next = isDark() ? "light" : "dark";
    document.documentElement.setAttribute("data-theme", next);
    try { localStorage.setItem("survey-page-theme", next); } catch (e) { if (warn) warn("the theme cannot be remembered", e); }
    show();
  });
  show();
}

// Select the text of `el` and copy it; true when the browser copied it. The selection stays, so
// a reader can press Ctrl+C when copying is refused (file:// pages have no clipboard API).
function selectAndCopy(el) {
  const range = document.createRange();
  range.selectNodeContents(el);
  const sel = window.getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
  try { return document.execCommand("copy"); } catch (e) { return false; }
}

function focusables(root) {
  return Array.prototype.filter.call(
    root.querySelectorAll("a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])"),
    function (e) { return !e.disabled && e.getClientRects().length > 0; }
  );
}

// Keep Tab and Shift+Tab inside `root` while active() is true.
function trapFocus(root, active) {
  root.addEventListener("keydown", function (ev) {
    if (ev.key !== "Tab" || !active()) return;
    const f = focusables(root);
    if (!f.length) return;
    const first = f[0], last = f[f.length - 1];
    if (ev.shiftKey && (document.activeElement === first || !root.contains(document.activeElement))) { ev.preventDefault(); last.focus(); }
    else if (!ev.shiftKey && document.activeElement === last) { ev.preventDefault(); first.focus(); }
  });
}

// Skip links move the focus to their target without navigating: the address keeps the list's
// filters and search (or the filters a page carries), no history entry is made, and the list
// never reads "#results" as a state it does not know. Without a script they are plain links.
function setupSkipLinks(root) {
  root.querySelectorAll("a.skip").forEach(function (a) {
    a.addEventListener("click", function (ev) {
      const id = (a.getAttribute("href") || "").replace(/^#/, "");
      const target = id ? document.getElementById(id) : null;
      if (!target) return;
      ev.preventDefault();
      if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
      target.scrollIntoView({ block: "start" });
      target.focus({ preventScroll: true });
    });
  });
}

// Every link marked data-carry gets the filters of `hash`; data-anchor adds its row anchor.
function carryFilters(root, hash) {
  const filters = filtersOf(hash);
  root.querySelectorAll("a[data-carry]").forEach(function (a) {
    const base = a.getAttribute("data-carry");
    a.setAttribute("href", carry(base, filters, a.getAttribute("data-anchor")));
  });
}

// --- paper.mjs
// The paper page: copy the BibTeX entry, the theme toggle, and links back to the list that keep
// the filters the reader came with (the list passes them in this page's hash).

const copy = document.getElementById("copy-bib");
if (copy) {
  copy.addEventListener("click", function () {
    copy.textContent = selectAndCopy(document.getElementById("bibtex")) ? "Copied" : "Selected: press Ctrl+C";
    setTimeout(function () { copy.textContent = "Copy BibTeX"; }, 2500);
  });
}
setupTheme(document.getElementById("theme"));
setupSkipLinks(document);
carryFilters(document, location.hash);
window.addEventListener("hashchange", function () { carryFilters(document, location.hash); });
})();
