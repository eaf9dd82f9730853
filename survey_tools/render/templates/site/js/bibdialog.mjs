// BibTeX in the list: a row's entry in a modal dialog with Copy, bibtex.js loaded on first use
// (bib.mjs) with a message while it loads.
import { selectAndCopy } from "./dom.mjs";
import { bibLoader } from "./bib.mjs";
import { DATA, KEY, $, tbody } from "./data.mjs";

export const withBib = bibLoader(DATA.bib, DATA.bibSize, $("bib-loading"));
const dlg = $("bib-dialog");
let bibOpener = null;

function showBib(i, opener) {
  withBib(function (err, BIB) {
    $("bib-title").textContent = "BibTeX: " + KEY[i];
    $("bib-text").textContent = err || BIB[KEY[i]] || "";
    $("bib-copy").textContent = "Copy";
    bibOpener = opener;
    if (dlg.showModal) dlg.showModal(); else dlg.setAttribute("open", "");
    $("bib-copy").focus();
  });
}

export function setupBibDialog() {
  $("bib-close").addEventListener("click", function () { dlg.close(); });
  dlg.addEventListener("close", function () { if (bibOpener && document.contains(bibOpener)) bibOpener.focus(); });
  $("bib-copy").addEventListener("click", function () {
    const pre = $("bib-text"), btn = $("bib-copy");
    const ok = selectAndCopy(pre);
    btn.textContent = ok ? "Copied" : "Selected: press Ctrl+C";
    if (!ok && navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(pre.textContent).then(function () { btn.textContent = "Copied"; }, function () {});
    }
  });
  tbody.addEventListener("click", function (ev) {
    const b = ev.target.closest ? ev.target.closest("button.bibbtn") : null;
    if (b) showBib(+b.dataset.i, b);
  });
}
