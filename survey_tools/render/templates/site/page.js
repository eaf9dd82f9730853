// Filtering, facet counts, sorting, tabs and the shareable URL hash of the browsing page.
// Rows are rendered on the server; this script only moves existing <tr> elements, so no
// record text is ever parsed as HTML here.
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("survey-data").textContent);
  var PAGE = 100; // rows attached at once: laying out rows, not filtering, is what costs time
  var facets = DATA.facets;
  var recs = DATA.records;
  var tbody = document.querySelector("#papers tbody");
  var rows = Array.prototype.slice.call(tbody.rows);
  var status = document.getElementById("status");
  var more = document.getElementById("more");
  var q = document.getElementById("q");
  var y0 = document.getElementById("y0");
  var y1 = document.getElementById("y1");
  var boxes = Array.prototype.slice.call(document.querySelectorAll("#facets input[type=checkbox]"));
  var countEls = facets.map(function (f, fi) {
    return f.values.map(function (v, vi) { return document.querySelector('[data-n="' + fi + "-" + vi + '"]'); });
  });
  var state = { sel: facets.map(function () { return new Set(); }), q: "", y0: null, y1: null, sort: -1, dir: 1, shown: PAGE, tab: "papers" };
  var titles = rows.map(function (tr) { return tr.querySelector("td.paper > a").textContent.toLowerCase(); });
  var matched = [];

  function words(s) { return s.toLowerCase().split(/\s+/).filter(Boolean); }

  function compute() {
    var active = state.sel.map(function (s) { return s.size > 0; });
    var counts = facets.map(function (f) { return new Int32Array(f.values.length); });
    var terms = words(state.q);
    var out = [];
    for (var i = 0; i < recs.length; i++) {
      var r = recs[i];
      var ok = true;
      for (var t = 0; t < terms.length; t++) { if (r.s.indexOf(terms[t]) < 0) { ok = false; break; } }
      if (!ok) continue;
      if (state.y0 !== null && (r.y === null || r.y < state.y0)) continue;
      if (state.y1 !== null && (r.y === null || r.y > state.y1)) continue;
      // A record counts towards a facet's values when it passes every *other* facet, so the
      // numbers say how many rows a click would add or keep.
      var fails = 0, failed = -1;
      for (var fi = 0; fi < facets.length && fails < 2; fi++) {
        if (!active[fi]) continue;
        var vals = r.f[fi], sel = state.sel[fi], hit = false;
        for (var k = 0; k < vals.length; k++) { if (sel.has(vals[k])) { hit = true; break; } }
        if (!hit) { fails++; failed = fi; }
      }
      if (fails === 0) {
        out.push(i);
        for (var f2 = 0; f2 < facets.length; f2++) { var v2 = r.f[f2]; for (var k2 = 0; k2 < v2.length; k2++) counts[f2][v2[k2]]++; }
      } else if (fails === 1) {
        var v3 = r.f[failed];
        for (var k3 = 0; k3 < v3.length; k3++) counts[failed][v3[k3]]++;
      }
    }
    if (state.sort >= 0) {
      var c = state.sort, dir = state.dir;
      out.sort(function (a, b) {
        var ka = c === 0 ? titles[a] : recs[a].k[c - 1], kb = c === 0 ? titles[b] : recs[b].k[c - 1];
        if (ka < kb) return -dir;
        if (ka > kb) return dir;
        return titles[a] < titles[b] ? -1 : titles[a] > titles[b] ? 1 : a - b;
      });
    }
    return { rows: out, counts: counts };
  }

  function draw(res) {
    matched = res.rows;
    var n = Math.min(matched.length, state.shown);
    var frag = document.createDocumentFragment();
    for (var i = 0; i < n; i++) frag.appendChild(rows[matched[i]]);
    tbody.replaceChildren(frag);
    for (var fi = 0; fi < facets.length; fi++) {
      for (var vi = 0; vi < facets[fi].values.length; vi++) {
        var el = countEls[fi][vi], cnt = res.counts[fi][vi];
        el.textContent = String(cnt);
        el.parentNode.classList.toggle("zero", cnt === 0 && !state.sel[fi].has(vi));
      }
    }
    status.textContent = "Showing " + n + " of " + matched.length + " matching (" + recs.length + " in all).";
    more.hidden = matched.length <= n;
    more.textContent = "Show " + Math.min(PAGE, matched.length - n) + " more";
  }

  function update(writeHash) {
    var t0 = performance.now();
    draw(compute());
    if (writeHash !== false) saveHash();
    window.surveyPage.lastUpdateMs = performance.now() - t0;
  }

  // --- the URL hash: facet=value,value&q=...&year=a-b&sort=col.dir&tab=... ------------------
  function saveHash() {
    var parts = [];
    facets.forEach(function (f, fi) {
      if (state.sel[fi].size) {
        var ids = Array.from(state.sel[fi]).sort(function (a, b) { return a - b; }).map(function (vi) { return encodeURIComponent(f.values[vi]); });
        parts.push(encodeURIComponent(f.name) + "=" + ids.join(","));
      }
    });
    if (state.q) parts.push("q=" + encodeURIComponent(state.q));
    if (DATA.range && (state.y0 !== null || state.y1 !== null)) {
      parts.push(encodeURIComponent(DATA.range) + "=" + (state.y0 === null ? "" : state.y0) + "-" + (state.y1 === null ? "" : state.y1));
    }
    if (state.sort >= 0) parts.push("sort=" + encodeURIComponent(DATA.sort[state.sort]) + "." + (state.dir > 0 ? "asc" : "desc"));
    if (state.tab !== "papers") parts.push("tab=" + state.tab);
    var h = parts.join("&");
    if (h !== location.hash.replace(/^#/, "")) history.replaceState(null, "", h ? "#" + h : location.pathname + location.search);
  }

  function loadHash() {
    var params = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (p) {
      if (!p) return;
      var eq = p.indexOf("=");
      var key = decodeURIComponent(eq < 0 ? p : p.slice(0, eq));
      params[key] = eq < 0 ? "" : p.slice(eq + 1);
    });
    facets.forEach(function (f, fi) {
      state.sel[fi] = new Set();
      if (params[f.name] === undefined) return;
      params[f.name].split(",").forEach(function (v) {
        var vi = f.values.indexOf(decodeURIComponent(v));
        if (vi >= 0) state.sel[fi].add(vi);
      });
    });
    state.q = params.q ? decodeURIComponent(params.q) : "";
    state.y0 = state.y1 = null;
    if (DATA.range && params[DATA.range]) {
      var ys = params[DATA.range].split("-");
      state.y0 = ys[0] ? parseInt(ys[0], 10) : null;
      state.y1 = ys[1] ? parseInt(ys[1], 10) : null;
    }
    state.sort = -1;
    if (params.sort) {
      var s = decodeURIComponent(params.sort).split(".");
      state.sort = DATA.sort.indexOf(s[0]);
      state.dir = s[1] === "desc" ? -1 : 1;
    }
    state.tab = params.tab === "exclusions" ? "exclusions" : "papers";
    syncControls();
  }

  function syncControls() {
    boxes.forEach(function (b) { b.checked = state.sel[+b.dataset.f].has(+b.dataset.v); });
    q.value = state.q;
    if (y0) { y0.value = state.y0 === null ? DATA.years[0] : state.y0; y1.value = state.y1 === null ? DATA.years[1] : state.y1; }
    document.querySelectorAll("#papers th").forEach(function (th) {
      var b = th.querySelector("button[data-sort]");
      var on = b && +b.dataset.sort === state.sort;
      th.setAttribute("aria-sort", on ? (state.dir > 0 ? "ascending" : "descending") : "none");
    });
    showTab(state.tab, false);
  }

  // --- controls ----------------------------------------------------------------------------
  boxes.forEach(function (b) {
    b.addEventListener("change", function () {
      var s = state.sel[+b.dataset.f];
      if (b.checked) s.add(+b.dataset.v); else s.delete(+b.dataset.v);
      state.shown = PAGE;
      update();
    });
  });
  q.addEventListener("input", function () { state.q = q.value.trim(); state.shown = PAGE; update(); });
  function yearInput() {
    var a = parseInt(y0.value, 10), b = parseInt(y1.value, 10);
    state.y0 = isNaN(a) || a <= DATA.years[0] ? null : a;
    state.y1 = isNaN(b) || b >= DATA.years[1] ? null : b;
    state.shown = PAGE;
    update();
  }
  if (y0) { y0.addEventListener("input", yearInput); y1.addEventListener("input", yearInput); }
  document.getElementById("reset").addEventListener("click", function () {
    state.sel = facets.map(function () { return new Set(); });
    state.q = ""; state.y0 = state.y1 = null; state.shown = PAGE;
    syncControls();
    update();
  });
  more.addEventListener("click", function () { state.shown += PAGE; update(false); });
  document.querySelectorAll("#papers th button[data-sort]").forEach(function (b) {
    b.addEventListener("click", function () {
      var c = +b.dataset.sort;
      if (state.sort === c) state.dir = -state.dir; else { state.sort = c; state.dir = 1; }
      syncControls();
      update();
    });
  });
  tbody.addEventListener("click", function (ev) {
    var btn = ev.target.closest ? ev.target.closest("button.copy") : null;
    if (!btn) return;
    // Select the entry first: the reader sees what is copied, and the synchronous copy command
    // works from disk (file://), where the asynchronous clipboard API may wait for a permission.
    selectText(btn);
    var copied = false;
    try { copied = document.execCommand("copy"); } catch (e) { copied = false; }
    if (copied) {
      btn.textContent = "Copied";
    } else if (navigator.clipboard && window.isSecureContext) {
      var text = btn.parentNode.querySelector("pre").textContent;
      navigator.clipboard.writeText(text).then(function () { btn.textContent = "Copied"; }, function () {});
    }
    setTimeout(function () { btn.textContent = "Copy"; }, 2500);
  });
  function selectText(btn) {
    // From disk (file://) the clipboard API may be refused: select the entry for Ctrl+C.
    var range = document.createRange();
    range.selectNodeContents(btn.parentNode.querySelector("pre"));
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    btn.textContent = "Selected: press Ctrl+C";
  }

  // --- tabs (arrow keys move between them, as in the WAI-ARIA tabs pattern) ------------------
  var tabs = Array.prototype.slice.call(document.querySelectorAll("[role=tab]"));
  function showTab(name, save) {
    state.tab = name;
    tabs.forEach(function (t) {
      var on = t.dataset.tab === name;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
    });
    if (save !== false) saveHash();
  }
  tabs.forEach(function (t, i) {
    t.addEventListener("click", function () { showTab(t.dataset.tab); });
    t.addEventListener("keydown", function (ev) {
      if (ev.key !== "ArrowRight" && ev.key !== "ArrowLeft") return;
      var next = tabs[(i + (ev.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
      next.focus();
      showTab(next.dataset.tab);
    });
  });

  window.addEventListener("hashchange", function () { loadHash(); update(false); });
  window.surveyPage = { update: update, state: state, lastUpdateMs: 0 };
  if (window.matchMedia && window.matchMedia("(max-width: 760px)").matches) {
    document.getElementById("filters").open = false;
  }
  loadHash();
  update(false);
})();
