// The paper page: copy the BibTeX entry, and the colour-theme toggle shared with the index.
(function () {
  "use strict";
  var copy = document.getElementById("copy-bib");
  if (copy) {
    copy.addEventListener("click", function () {
      var pre = document.getElementById("bibtex");
      var range = document.createRange();
      range.selectNodeContents(pre);
      var sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      copy.textContent = ok ? "Copied" : "Selected: press Ctrl+C";
      setTimeout(function () { copy.textContent = "Copy BibTeX"; }, 2500);
    });
  }
  var theme = document.getElementById("theme");
  function dark() {
    var t = document.documentElement.getAttribute("data-theme");
    if (t) return t === "dark";
    return !!(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
  }
  function show() { theme.setAttribute("aria-pressed", dark() ? "true" : "false"); }
  if (theme) {
    show();
    theme.addEventListener("click", function () {
      var next = dark() ? "light" : "dark";
      document.documentElement.setAttribute("data-theme", next);
      try { localStorage.setItem("survey-page-theme", next); } catch (e) { /* not remembered */ }
      show();
    });
  }
})();
