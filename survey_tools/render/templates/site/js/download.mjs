// Export of the matching records in the shown order: CSV (rows.mjs, csv.mjs) and BibTeX.
import { csvText } from "./csv.mjs";
import { elt } from "./dom.mjs";
import { exportRows } from "./rows.mjs";
import { DATA, KEY, $, status, view } from "./data.mjs";
import { withBib } from "./bibdialog.mjs";
import { filtersNow } from "./chips.mjs";

function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type: type }));
  const a = elt("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
}
function exportName(ext) { return (filtersNow().length ? "papers-filtered." : "papers.") + ext; }

export function setupExport() {
  $("export-csv").addEventListener("click", function () {
    download(exportName("csv"), csvText(exportRows(DATA, view.matched)), "text/csv;charset=utf-8");
  });
  $("export-bib").addEventListener("click", function () {
    withBib(function (err, BIB) {
      if (err) { status.textContent = err; return; }
      const out = view.matched.map(function (i) { return BIB[KEY[i]].replace(/\s+$/, "") + "\n"; });
      download(exportName("bib"), out.join("\n"), "application/x-bibtex;charset=utf-8");
    });
  });
}
