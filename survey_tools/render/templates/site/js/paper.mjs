// The paper page: copy the BibTeX entry, the theme toggle, and links back to the list that keep
// the filters the reader came with (the list passes them in this page's hash).
import { setupTheme, selectAndCopy, carryFilters, setupSkipLinks } from "./dom.mjs";

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
