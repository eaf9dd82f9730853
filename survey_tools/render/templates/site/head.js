// Runs before the page is drawn: the remembered colour theme (no flash of the wrong one), and a
// record of clicks made before the main script is ready, so that none of them is lost.
(function () {
  // Controls that need this script are shown only once it runs (page.css: .needs-js).
  document.documentElement.classList.add("js");
  try {
    var t = localStorage.getItem("survey-page-theme");
    if (t === "dark" || t === "light") document.documentElement.setAttribute("data-theme", t);
  } catch (e) { /* storage refused (private mode, file:// policy): follow the system */ }
  window.surveyEarlyClicks = [];
  document.addEventListener("click", function (ev) {
    if (window.surveyEarlyClicks) window.surveyEarlyClicks.push(ev.target);
  }, true);
})();
