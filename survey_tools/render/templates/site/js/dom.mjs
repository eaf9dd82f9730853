// Small DOM helpers shared by the list and the paper pages: the colour theme, copying a block of
// text, a focus trap for modal sheets, and links that carry the list's filters.
import { carry, filtersOf } from "./hashstate.mjs";

export function elt(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// The theme follows the system until the reader chooses; the choice is remembered (head.js
// applies it before the first paint).
export function setupTheme(button, warn) {
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
export function selectAndCopy(el) {
  const range = document.createRange();
  range.selectNodeContents(el);
  const sel = window.getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
  try { return document.execCommand("copy"); } catch (e) { return false; }
}

export function focusables(root) {
  return Array.prototype.filter.call(
    root.querySelectorAll("a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])"),
    function (e) { return !e.disabled && e.getClientRects().length > 0; }
  );
}

// Keep Tab and Shift+Tab inside `root` while active() is true.
export function trapFocus(root, active) {
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
export function setupSkipLinks(root) {
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
export function carryFilters(root, hash) {
  const filters = filtersOf(hash);
  root.querySelectorAll("a[data-carry]").forEach(function (a) {
    const base = a.getAttribute("data-carry");
    a.setAttribute("href", carry(base, filters, a.getAttribute("data-anchor")));
  });
}
