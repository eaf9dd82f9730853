// BibTeX for the list: bibtex.js is loaded on first use through a script element (which works
// from file://, where fetch does not), with a visible message while it loads.

// Returns withBib(cb): cb(null, entries) once loaded, cb(message) when the file is missing.
export function bibLoader(src, sizeLabel, statusEl) {
  let entries = null, waiting = [];
  function done(err) {
    statusEl.hidden = true;
    const w = waiting; waiting = [];
    w.forEach(function (f) { f(err, entries); });
  }
  window.surveyBibtex = function (map) { entries = map; done(null); };
  return function withBib(cb) {
    if (entries) { cb(null, entries); return; }
    waiting.push(cb);
    if (waiting.length > 1) return;
    statusEl.textContent = "Loading BibTeX (" + sizeLabel + ")\u2026";
    statusEl.hidden = false;
    const s = document.createElement("script");
    s.onerror = function () { done("BibTeX could not be loaded (" + src + " is missing)."); };
    s.src = src;
    document.head.appendChild(s);
  };
}
