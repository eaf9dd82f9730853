// Chips, status and the empty message: the active filters as removable chips with "Clear all",
// the count of matching papers, and one announcement per settled result to a polite live region
// (the visible count is not a live region), none when the page first loads.
import { plural } from "./text.mjs";
import { elt } from "./dom.mjs";
import { DATA, N, $, table, status, q, state, view } from "./data.mjs";
import { activeFilters, statusText, emptyText } from "./summary.mjs";

const ANNOUNCE_MS = 700; // the result is announced once it has settled this long
const announcer = $("announce");
let announceTimer = 0, announced = "", started = false;
function announce(text) {
  if (!started) { announced = text; return; } // the page's first count is read with the page
  clearTimeout(announceTimer);
  announceTimer = setTimeout(function () {
    if (text === announced) return;
    announced = text;
    announcer.textContent = text;
  }, ANNOUNCE_MS);
}
// From now on a settled result is announced.
export function startAnnouncing() { started = true; }

export function filtersNow() {
  return activeFilters(state, DATA, function () { view.swapped = false; });
}

// dropped(): what follows removing a filter with its chip (the controls and the list updated).
export function drawChips(dropped) {
  const act = filtersNow();
  const ul = $("chips");
  const frag = document.createDocumentFragment();
  act.forEach(function (x) {
    const li = elt("li"), b = elt("button", "chip", x.text);
    b.type = "button";
    b.setAttribute("aria-label", "Remove filter " + x.text);
    const xx = elt("span", "", "\u00d7");
    xx.setAttribute("aria-hidden", "true");
    b.appendChild(xx);
    b.addEventListener("click", function () {
      x.drop();
      dropped();
      const next = ul.querySelector(".chip") || q;
      next.focus();
    });
    li.appendChild(b);
    frag.appendChild(li);
  });
  ul.replaceChildren(frag);
  $("chipbar").hidden = act.length === 0;
  // The Filters button counts what its sheet holds: the facets and the range, not the search.
  const inSheet = act.filter(function (x) { return !x.search; }).length;
  const ac = $("active-count");
  ac.textContent = String(inSheet);
  ac.hidden = inSheet === 0;
  $("filter-open").setAttribute("aria-label", "Filters" + (inSheet ? ", " + inSheet + " active" : ""));
  const n = view.matched.length;
  const none = n === 0;
  $("empty").hidden = !none;
  table.hidden = none;
  if (none) $("empty-text").textContent = emptyText(act);
  const text = statusText(n, N, act.length > 0, !!state.q);
  status.textContent = text;
  $("filter-close").textContent = "Show " + plural(n, "paper", "papers");
  announce(none ? $("empty-text").textContent : text);
}
