// The phone's filter sheet (up to 760 px): a modal dialog that keeps the focus inside and gives
// it back to the Filters button when it closes (Escape or "Show N papers").
import { trapFocus } from "./dom.mjs";
import { $, results } from "./data.mjs";

const sidebar = $("sidebar"), openBtn = $("filter-open");
function sheetOpen() { return sidebar.classList.contains("open"); }
function openSheet() {
  sidebar.classList.add("open");
  sidebar.setAttribute("role", "dialog");
  sidebar.setAttribute("aria-modal", "true");
  document.body.classList.add("sheet-open");
  openBtn.setAttribute("aria-expanded", "true");
  $("filter-close").focus();
}
function closeSheet(toResults) {
  if (!sheetOpen()) return;
  sidebar.classList.remove("open");
  sidebar.removeAttribute("role");
  sidebar.removeAttribute("aria-modal");
  document.body.classList.remove("sheet-open");
  openBtn.setAttribute("aria-expanded", "false");
  if (toResults) results.scrollIntoView({ block: "start" });
  openBtn.focus({ preventScroll: true });
}

export function setupSheet() {
  const phone = window.matchMedia ? window.matchMedia("(max-width: 760px)") : null;
  trapFocus(sidebar, sheetOpen);
  openBtn.addEventListener("click", openSheet);
  $("filter-close").addEventListener("click", function () { closeSheet(true); });
  document.addEventListener("keydown", function (ev) { if (ev.key === "Escape" && sheetOpen()) closeSheet(false); });
  if (phone && phone.addEventListener) phone.addEventListener("change", function () { if (!phone.matches) closeSheet(false); });
}
