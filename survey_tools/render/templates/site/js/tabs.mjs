// The papers and exclusions tabs (arrow keys move between them, as in the WAI-ARIA tabs pattern).
import { ALL, $, state } from "./data.mjs";
import { drawWindow } from "./draw.mjs";
import { saveHash } from "./address.mjs";

const tabs = Array.prototype.slice.call(document.querySelectorAll("[role=tab]"));

// save: false when the state comes from the address (nothing to write back).
export function showTab(name, save) {
  state.tab = name;
  tabs.forEach(function (t) {
    const on = t.dataset.tab === name;
    t.setAttribute("aria-selected", on ? "true" : "false");
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute("aria-controls")).hidden = !on;
  });
  if (name === "papers" && !ALL) drawWindow(true);
  if (save !== false) saveHash("push");
}

export function setupTabs() {
  tabs.forEach(function (t, i) {
    t.addEventListener("click", function () { showTab(t.dataset.tab); });
    t.addEventListener("keydown", function (ev) {
      if (ev.key !== "ArrowRight" && ev.key !== "ArrowLeft") return;
      const next = tabs[(i + (ev.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
      next.focus();
      showTab(next.dataset.tab);
    });
  });
}
