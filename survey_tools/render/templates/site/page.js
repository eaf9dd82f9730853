// The browsing page: filters, counts, search, sort, the URL hash, and a list that draws only the
// rows in view. Records arrive once, column by column, in the JSON block; every record string
// reaches the page through textContent or an attribute, never as HTML.
(function () {
  "use strict";
  var dataEl = document.getElementById("survey-data");
  var DATA = JSON.parse(dataEl.textContent);
  dataEl.textContent = ""; // the parsed copy is the only one kept
  var R = DATA.rec, N = DATA.n;
  var KEY = R[DATA.id], TITLE = R[DATA.title], AUTH = R.authors || [], SUMM = R.summary || [];
  var F = R._f, C = R._c, L = R._l;
  var facets = DATA.facets, cols = DATA.columns;
  var $ = function (id) { return document.getElementById(id); };
  var tbody = $("rows"), table = $("papers"), results = $("results"), status = $("status");
  var q = $("q"), y0 = $("y0"), y1 = $("y1"), yearHint = $("year-hint");
  var OVERSCAN = 800; // pixels drawn above and below the viewport
  var LONG = 8, TOP = 6; // facets with more values start folded to their top values

  var state = { sel: facets.map(function () { return new Set(); }), q: "", y0: null, y1: null, sort: -1, dir: 1, tab: "papers" };
  var matched = [], scores = null, counts = null;
  var baseKey = null, base = [], baseScores = null;
  var swapped = false;

  function warn(msg, detail) { if (window.console) console.warn("survey page: " + msg, detail === undefined ? "" : detail); }

  // --- search: case-, accent- and hyphen-insensitive prefixes of words -------------------
  function fold(s) {
    return " " + String(s).normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, " ").trim();
  }
  var SF = DATA.search.map(function (s) { return s[0]; });
  var W = SF.map(function (_, i) { return SF.length - i; }); // earlier fields weigh more
  var NORM = null, VOCAB = null;
  function norms() {
    if (NORM) return NORM;
    // Words of the searched text, and hyphenated pairs written together ("multi-agent" gives
    // "multiagent"): two query words that form one of these are searched as one word.
    VOCAB = new Set();
    NORM = SF.map(function (name) {
      var src = R[name] || [];
      var out = new Array(N);
      for (var i = 0; i < N; i++) {
        var raw = src[i] === undefined ? "" : String(src[i]);
        out[i] = fold(raw);
        var words = out[i].split(" ");
        for (var w = 0; w < words.length; w++) VOCAB.add(words[w]);
        if (raw.indexOf("-") >= 0) {
          var m, rx = /([\p{L}\p{N}]+)-(?=([\p{L}\p{N}]+))/gu;
          while ((m = rx.exec(raw)) !== null) VOCAB.add(fold(m[1] + m[2]).trim());
        }
      }
      return out;
    });
    return NORM;
  }
  // A query word matches where a record word starts; spaces inside it are optional, so
  // "multiagent" finds "multi-agent" and "multi agent".
  function wordRe(tok, whole) {
    return new RegExp(" " + Array.from(tok).join(" ?") + (whole ? "(?= |$)" : ""), "u");
  }
  function searcher(text) {
    var words = fold(text).split(" ").filter(Boolean);
    if (!words.length) return null;
    var nf = norms();
    var toks = [];
    for (var wi = 0; wi < words.length; wi++) {
      var t = words[wi];
      while (wi + 1 < words.length && VOCAB.has(t + words[wi + 1])) t += words[++wi];
      toks.push(t);
    }
    var parts = toks.map(function (t) { return [wordRe(t, false), wordRe(t, true)]; });
    var joined = toks.length > 1 ? [wordRe(toks.join(""), false), wordRe(toks.join(""), true)] : null;
    function best(i, re) {
      var b = 0;
      for (var f = 0; f < nf.length; f++) {
        var s = nf[f][i];
        if (re[0].test(s)) { var w = W[f] * (re[1].test(s) ? 2 : 1); if (w > b) b = w; }
      }
      return b;
    }
    return function (i) {
      var score = 0;
      for (var t = 0; t < parts.length; t++) {
        var b = best(i, parts[t]);
        if (!b) { score = 0; break; }
        score += b;
      }
      if (!score && joined) score = best(i, joined) * toks.length;
      return score;
    };
  }

  // --- filtering and counts ---------------------------------------------------------------
  // Search and year range give the base set (kept until they change); facets filter it and
  // count each value over the records that pass every *other* facet.
  function baseSet() {
    var key = state.q + "|" + state.y0 + "|" + state.y1;
    if (key === baseKey) return;
    baseKey = key;
    var match = searcher(state.q);
    var yf = R[DATA.rangeField] || [];
    base = [];
    baseScores = match ? new Float64Array(N) : null;
    for (var i = 0; i < N; i++) {
      var y = yf[i];
      if (state.y0 !== null && !(y >= state.y0)) continue;
      if (state.y1 !== null && !(y <= state.y1)) continue;
      if (match) { var s = match(i); if (!s) continue; baseScores[i] = s; }
      base.push(i);
    }
  }

  function compute() {
    baseSet();
    var nf = facets.length;
    var active = state.sel.map(function (s) { return s.size > 0; });
    var cnt = facets.map(function (f) { return new Int32Array(f.values.length); });
    var out = [];
    for (var b = 0; b < base.length; b++) {
      var i = base[b], r = F[i];
      var fails = 0, failed = -1;
      for (var fi = 0; fi < nf && fails < 2; fi++) {
        if (!active[fi]) continue;
        var vals = r[fi], sel = state.sel[fi], hit = false;
        for (var k = 0; k < vals.length; k++) { if (sel.has(vals[k])) { hit = true; break; } }
        if (!hit) { fails++; failed = fi; }
      }
      if (fails === 0) {
        out.push(i);
        for (var f2 = 0; f2 < nf; f2++) { var v2 = r[f2], c2 = cnt[f2]; for (var k2 = 0; k2 < v2.length; k2++) c2[v2[k2]]++; }
      } else if (fails === 1) {
        var v3 = r[failed], c3 = cnt[failed];
        for (var k3 = 0; k3 < v3.length; k3++) c3[v3[k3]]++;
      }
    }
    sortRows(out);
    matched = out;
    counts = cnt;
    scores = baseScores;
  }

  var ranks = [];
  function rankOf(c) {
    // Position of each record when sorted by column c (ties by title, the records' own order).
    if (ranks[c]) return ranks[c];
    var table = cols[c - 1].values, idx = new Array(N);
    for (var i = 0; i < N; i++) idx[i] = i;
    idx.sort(function (a, b) {
      var ka = table[C[a][c - 1]][1], kb = table[C[b][c - 1]][1];
      return ka < kb ? -1 : ka > kb ? 1 : a - b;
    });
    var r = new Int32Array(N);
    for (var j = 0; j < N; j++) r[idx[j]] = j;
    ranks[c] = r;
    return r;
  }
  function sortRows(out) {
    var sc = baseScores, c = state.sort, dir = state.dir;
    var rank = c > 0 ? rankOf(c) : null;
    if (!sc && c <= 0 && dir > 0) return; // already in title order
    out.sort(function (a, b) {
      if (sc && sc[a] !== sc[b]) return sc[b] - sc[a];
      if (rank) return dir * (rank[a] - rank[b]);
      return c === 0 ? dir * (a - b) : a - b;
    });
  }

  // --- drawing: only the rows near the viewport exist ---------------------------------------
  var H = new Float64Array(N), est = 160, estFixed = false, measuredN = 0, measuredSum = 0;
  var win = { a: -1, b: -1, n: -1 }, printing = false, targetI = -1;
  function h(i) { return H[i] || est; }

  function safeUrl(u) { return /^https?:\/\//i.test(u) ? u : "#"; }
  function elt(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function rowEl(i) {
    var tr = elt("tr", i === targetI ? "target" : "");
    tr.id = "p-" + KEY[i];
    tr.dataset.i = i;
    var td = elt("td", "paper");
    var a = elt("a", "title", TITLE[i]);
    a.href = safeUrl(L[i][0][0]);
    td.appendChild(a);
    if (AUTH[i]) td.appendChild(elt("div", "authors", AUTH[i]));
    if (SUMM[i]) td.appendChild(elt("div", "summary", SUMM[i]));
    var badges = null;
    facets.forEach(function (f, fi) {
      if (!f.badges) return;
      F[i][fi].forEach(function (v) {
        var val = f.values[v];
        if (val[4]) return; // "not applicable" and "untagged" are no badges
        if (!badges) badges = elt("div", "badges");
        var on = state.sel[fi].has(v);
        var b = elt("span", on ? "badge hit" : "badge", val[2]);
        if (on) b.appendChild(elt("span", "sr-only", " (matches a filter)"));
        badges.appendChild(b);
      });
    });
    if (badges) td.appendChild(badges);
    var meta = elt("div", "meta");
    var by = DATA.byline.map(function (name) { return R[name] ? R[name][i] : ""; }).filter(function (x) { return x !== "" && x !== null; });
    if (by.length) meta.appendChild(elt("span", "byline", by.join(" · ")));
    var perm = elt("a", "perm");
    perm.href = "#p-" + KEY[i];
    perm.appendChild(elt("code", "", KEY[i]));
    perm.title = "Link to this row";
    meta.appendChild(perm);
    for (var k = 1; k < L[i].length; k++) {
      var l = elt("a", "", L[i][k][1]);
      l.href = safeUrl(L[i][k][0]);
      meta.appendChild(l);
    }
    var det = elt("a", "details", "Details");
    det.href = DATA.papers + encodeURIComponent(KEY[i]) + ".html";
    det.setAttribute("aria-label", "Details of " + TITLE[i]);
    meta.appendChild(det);
    if (DATA.bib) {
      var bb = elt("button", "linkish rowtools bibbtn", "BibTeX");
      bb.type = "button";
      bb.dataset.i = i;
      bb.setAttribute("aria-haspopup", "dialog");
      bb.setAttribute("aria-label", "BibTeX of " + TITLE[i]);
      meta.appendChild(bb);
    }
    td.appendChild(meta);
    tr.appendChild(td);
    for (var c = 0; c < cols.length; c++) {
      var cell = elt("td", cols[c].inByline ? "cell inbyline" : "cell", cols[c].values[C[i][c]][0]);
      cell.setAttribute("data-label", cols[c].label);
      tr.appendChild(cell);
    }
    return tr;
  }
  function spacer(px) {
    var tr = elt("tr", "spacer");
    tr.setAttribute("aria-hidden", "true");
    var td = elt("td");
    td.colSpan = cols.length + 1;
    td.style.height = px + "px";
    tr.appendChild(td);
    return tr;
  }

  function drawWindow(force, fresh) {
    if (printing) return;
    // Keep the first row on screen where it is, whatever the heights measured above it.
    var anchorI = -1, anchorTop = 0;
    if (!fresh) {
      for (var c0 = tbody.firstChild; c0; c0 = c0.nextSibling) {
        if (c0.className === "spacer") continue;
        var rc = c0.getBoundingClientRect();
        if (rc.bottom > 0) { anchorI = +c0.dataset.i; anchorTop = rc.top; break; }
      }
    }
    var n = matched.length;
    var y = -tbody.getBoundingClientRect().top, vh = window.innerHeight || 800;
    var i = 0, pos = 0;
    while (i < n && pos + h(matched[i]) < y - OVERSCAN) { pos += h(matched[i]); i++; }
    var a = i, top = pos;
    while (i < n && (pos < y + vh + OVERSCAN || i - a < 8)) { pos += h(matched[i]); i++; }
    var b = i;
    if (!force && a === win.a && b === win.b && n === win.n) return;
    win = { a: a, b: b, n: n };
    // A focused control in a row that is drawn again gets the focus back.
    var fa = document.activeElement, focusI = -1, focusCls = "";
    if (fa && tbody.contains(fa)) { focusI = +fa.closest("tr").dataset.i; focusCls = fa.className; }
    var frag = document.createDocumentFragment();
    frag.appendChild(spacer(top));
    var trs = [];
    for (var k = a; k < b; k++) { var tr = rowEl(matched[k]); trs.push(tr); frag.appendChild(tr); }
    var bottomTr = spacer(0);
    frag.appendChild(bottomTr);
    tbody.replaceChildren(frag);
    // Measure what was drawn: the spacer below then holds the estimate for the rest.
    var tops = trs.map(function (t) { return t.offsetTop; });
    tops.push(bottomTr.offsetTop);
    for (var m = 0; m < trs.length; m++) {
      var idx = matched[a + m], hh = tops[m + 1] - tops[m];
      if (hh > 0) {
        if (!H[idx]) { measuredN++; measuredSum += hh; } else { measuredSum += hh - H[idx]; }
        H[idx] = hh;
      }
    }
    // The estimate for rows not yet drawn is fixed once: changing it would move every row.
    if (measuredN && !estFixed) { est = measuredSum / measuredN; estFixed = true; }
    var rest = 0;
    for (var r = b; r < n; r++) rest += h(matched[r]);
    bottomTr.firstChild.style.height = rest + "px";
    if (focusI >= 0) {
      var fr = $("p-" + KEY[focusI]);
      var fe = fr && (focusCls ? fr.getElementsByClassName(focusCls.split(" ")[0])[0] : null);
      if (fe) fe.focus({ preventScroll: true });
    }
    if (anchorI >= 0) {
      var again = $("p-" + KEY[anchorI]);
      if (again) { var d = again.getBoundingClientRect().top - anchorTop; if (Math.abs(d) > 0.5) window.scrollBy(0, d); }
    }
  }
  var ticking = false;
  function onScroll() {
    if (ticking) return;
    ticking = true;
    requestAnimationFrame(function () { ticking = false; drawWindow(false); });
  }
  var lastWidth = results.clientWidth;
  function onResize() {
    var w = results.clientWidth;
    if (w !== lastWidth) { lastWidth = w; H = new Float64Array(N); measuredN = 0; measuredSum = 0; estFixed = false; }
    drawWindow(true);
  }

  // --- facet list: counts, zero values hidden, long groups folded -----------------------------
  var groups = facets.map(function (f, fi) {
    var fs = document.querySelector('fieldset[data-fi="' + fi + '"]');
    var lis = Array.prototype.slice.call(fs.querySelectorAll("li"));
    var g = { fs: fs, lis: lis, ns: lis.map(function (li) { return li.querySelector(".n"); }), boxes: lis.map(function (li) { return li.querySelector("input"); }), long: f.values.length > LONG, open: false, filter: "", nsel: document.querySelector('[data-nsel="' + fi + '"]') };
    if (g.long) {
      var box = elt("input");
      box.type = "search";
      box.placeholder = "Filter values";
      box.setAttribute("aria-label", "Filter the values of " + f.label);
      box.addEventListener("input", function () { g.filter = fold(box.value).trim(); drawFacets(); });
      fs.insertBefore(box, fs.querySelector("ul"));
      g.fbox = box;
      var more = elt("button", "linkish more");
      more.type = "button";
      more.setAttribute("aria-expanded", "false");
      more.addEventListener("click", function () { g.open = !g.open; drawFacets(); });
      fs.appendChild(more);
      g.more = more;
      g.lfold = f.values.map(function (v) { return fold(v[2]); });
    }
    return g;
  });
  function drawFacets() {
    facets.forEach(function (f, fi) {
      var g = groups[fi], cnt = counts[fi], sel = state.sel[fi];
      var top = null;
      if (g.long && !g.open && !g.filter) {
        // Folded: the values with the most papers (a grouped facet: its top level only).
        var order = [];
        for (var v = 0; v < f.values.length; v++) if (cnt[v] > 0 && f.values[v][3] === 0) order.push(v);
        order.sort(function (a, b) { return cnt[b] - cnt[a] || a - b; });
        top = new Set(order.slice(0, TOP));
      }
      var hiddenN = 0, nonzero = 0;
      for (var vi = 0; vi < f.values.length; vi++) {
        var c = cnt[vi], on = sel.has(vi);
        var txt = String(c);
        if (g.ns[vi].textContent !== txt) g.ns[vi].textContent = txt;
        var show = c > 0 || on;
        if (show) nonzero++;
        if (show && g.filter) show = on || g.lfold[vi].indexOf(" " + g.filter) >= 0 || g.lfold[vi].indexOf(g.filter) >= 0;
        else if (show && top && !on && !top.has(vi)) { show = false; hiddenN++; }
        if (g.lis[vi].hidden === show) g.lis[vi].hidden = !show;
        if (g.boxes[vi].checked !== on) g.boxes[vi].checked = on;
      }
      if (g.more) {
        g.more.hidden = !g.open && hiddenN === 0;
        g.more.textContent = g.open ? "Show fewer" : "Show all (" + (hiddenN) + " more)";
        g.more.setAttribute("aria-expanded", g.open ? "true" : "false");
      }
      if (g.fbox) g.fbox.hidden = nonzero <= LONG && !g.filter;
      var det = g.fs.parentNode;
      if (det.hidden !== (nonzero === 0)) det.hidden = nonzero === 0;
      var ns = sel.size ? sel.size + " selected" : "";
      if (g.nsel.textContent !== ns) g.nsel.textContent = ns;
    });
  }

  // --- chips, status, empty message ----------------------------------------------------------
  function activeFilters() {
    var out = [];
    facets.forEach(function (f, fi) {
      Array.from(state.sel[fi]).sort(function (a, b) { return a - b; }).forEach(function (vi) {
        out.push({ text: f.label + ": " + f.values[vi][2], drop: function () { state.sel[fi].delete(vi); } });
      });
    });
    if (state.q) out.push({ text: "Search: \u201c" + state.q + "\u201d", drop: function () { state.q = ""; } });
    if (state.y0 !== null || state.y1 !== null) {
      var a = state.y0 === null ? DATA.years[0] : state.y0, b = state.y1 === null ? DATA.years[1] : state.y1;
      out.push({ text: (DATA.rangeLabel || DATA.range) + ": " + a + "\u2013" + b, drop: function () { state.y0 = state.y1 = null; swapped = false; } });
    }
    return out;
  }
  function drawChips() {
    var act = activeFilters();
    var ul = $("chips");
    var frag = document.createDocumentFragment();
    act.forEach(function (x) {
      var li = elt("li"), b = elt("button", "chip", x.text);
      b.type = "button";
      b.setAttribute("aria-label", "Remove filter " + x.text);
      var xx = elt("span", "", "\u00d7");
      xx.setAttribute("aria-hidden", "true");
      b.appendChild(xx);
      b.addEventListener("click", function () {
        x.drop();
        syncControls();
        update();
        var next = ul.querySelector(".chip") || q;
        next.focus();
      });
      li.appendChild(b);
      frag.appendChild(li);
    });
    ul.replaceChildren(frag);
    $("chipbar").hidden = act.length === 0;
    var ac = $("active-count");
    ac.textContent = String(act.length);
    ac.hidden = act.length === 0;
    $("filter-open").setAttribute("aria-label", "Filters" + (act.length ? ", " + act.length + " active" : ""));
    var none = matched.length === 0;
    $("empty").hidden = !none;
    table.hidden = none;
    if (none) {
      $("empty-text").textContent = "No papers match " + (act.length ? act.map(function (x) { return x.text; }).join(" and ") : "these filters") + ".";
    }
    var n = matched.length;
    status.textContent = (act.length ? n + " of " + N + " papers match" : N + " papers") + (state.q && n > 1 ? ", best matches first." : ".");
    $("filter-close").textContent = "Show " + n + (n === 1 ? " paper" : " papers");
  }

  var lastHash = null;
  function update(writeHash) {
    var t0 = performance.now();
    compute();
    drawFacets();
    drawChips();
    win = { a: -1, b: -1, n: -1 };
    drawWindow(true, true);
    if (writeHash !== false) saveHash();
    api.lastUpdateMs = performance.now() - t0;
  }

  // --- the URL hash: facet=value,value&q=...&year=a-b&sort=col.dir&tab=... ------------------
  function enc(s) { return encodeURIComponent(s).replace(/%3A/g, ":"); }
  function dec(s) {
    try { return decodeURIComponent(s); } catch (e) {
      warn("ignored a malformed escape in the link", s);
      return s.replace(/(%[0-9A-Fa-f]{2})+/g, function (m) { try { return decodeURIComponent(m); } catch (e2) { return m; } });
    }
  }
  function hashString() {
    var parts = [];
    facets.forEach(function (f, fi) {
      if (!state.sel[fi].size) return;
      f.keys.forEach(function (key, k) {
        var ids = Array.from(state.sel[fi]).sort(function (a, b) { return a - b; })
          .filter(function (vi) { return f.values[vi][0] === k; }).map(function (vi) { return enc(f.values[vi][1]); });
        if (ids.length) parts.push(enc(key) + "=" + ids.join(","));
      });
    });
    if (state.q) parts.push("q=" + enc(state.q));
    if (DATA.range && (state.y0 !== null || state.y1 !== null)) {
      parts.push(enc(DATA.range) + "=" + (state.y0 === null ? "" : state.y0) + "-" + (state.y1 === null ? "" : state.y1));
    }
    if (state.sort >= 0) parts.push("sort=" + enc(DATA.sort[state.sort]) + "." + (state.dir > 0 ? "asc" : "desc"));
    if (state.tab !== "papers") parts.push("tab=" + state.tab);
    return parts.join("&");
  }
  function saveHash() {
    var h = hashString();
    lastHash = h;
    if (h !== location.hash.replace(/^#/, "")) {
      try { history.replaceState(null, "", h ? "#" + h : location.pathname + location.search); } catch (e) { warn("cannot update the address", e); }
    }
  }
  function yearOf(s) { var v = parseInt(s, 10); return isNaN(v) ? null : v; }
  function setYears(a, b) {
    swapped = false;
    if (a !== null && b !== null && a > b) { var t = a; a = b; b = t; swapped = true; }
    state.y0 = a !== null && DATA.years.length && a <= DATA.years[0] ? null : a;
    state.y1 = b !== null && DATA.years.length && b >= DATA.years[1] ? null : b;
    if (yearHint) yearHint.textContent = swapped ? "\u201cFrom\u201d was after \u201cto\u201d: showing " + a + "\u2013" + b + "." : "";
  }
  function loadHash() {
    var anchor = null, params = {};
    var known = { q: 1, sort: 1, tab: 1 };
    if (DATA.range) known[DATA.range] = 1;
    facets.forEach(function (f) { f.keys.forEach(function (k) { known[k] = 1; }); });
    location.hash.replace(/^#/, "").split("&").forEach(function (p) {
      if (!p) return;
      var eq = p.indexOf("=");
      var key = dec(eq < 0 ? p : p.slice(0, eq));
      if (eq < 0) {
        if (key.slice(0, 2) === "p-") anchor = key.slice(2); else warn("ignored an unknown part of the link", key);
        return;
      }
      if (!known[key]) { warn("ignored an unknown key in the link", key); return; }
      params[key] = p.slice(eq + 1);
    });
    facets.forEach(function (f, fi) {
      state.sel[fi] = new Set();
      f.keys.forEach(function (key, k) {
        if (params[key] === undefined) return;
        params[key].split(",").forEach(function (v) {
          var id = dec(v), found = -1;
          for (var vi = 0; vi < f.values.length; vi++) if (f.values[vi][0] === k && f.values[vi][1] === id) found = vi;
          if (found >= 0) state.sel[fi].add(found); else if (id) warn("ignored an unknown value in the link", key + "=" + id);
        });
      });
    });
    state.q = params.q ? dec(params.q).trim() : "";
    setYears(null, null);
    if (DATA.range && params[DATA.range]) {
      var m = /^(\d*)-(\d*)$/.exec(dec(params[DATA.range]));
      if (m) setYears(m[1] ? +m[1] : null, m[2] ? +m[2] : null); else warn("ignored a malformed year range", params[DATA.range]);
    }
    state.sort = -1;
    state.dir = 1;
    if (params.sort) {
      var s = dec(params.sort).split(".");
      var si = DATA.sort.indexOf(s[0]);
      if (si >= 0) { state.sort = si; state.dir = s[1] === "desc" ? -1 : 1; } else warn("ignored an unknown sort", s[0]);
    }
    state.tab = params.tab === "exclusions" ? "exclusions" : "papers";
    return anchor;
  }

  function syncControls() {
    for (var fi = 0; fi < groups.length; fi++) {
      var g = groups[fi];
      for (var vi = 0; vi < g.boxes.length; vi++) g.boxes[vi].checked = state.sel[fi].has(vi);
    }
    if (q.value.trim() !== state.q) q.value = state.q;
    if (y0) {
      var a = state.y0 === null ? DATA.years[0] : state.y0, b = state.y1 === null ? DATA.years[1] : state.y1;
      if (yearOf(y0.value) !== a) y0.value = a;
      if (yearOf(y1.value) !== b) y1.value = b;
      if (!swapped && yearHint) yearHint.textContent = "";
    }
    document.querySelectorAll("#papers th").forEach(function (th) {
      var b = th.querySelector("button[data-sort]");
      var on = b && +b.dataset.sort === state.sort;
      th.setAttribute("aria-sort", on ? (state.dir > 0 ? "ascending" : "descending") : "none");
    });
    var sel = $("sort-select"), want = state.sort < 0 ? "-1" : state.sort + "." + state.dir;
    if (state.sort === 0 && state.dir < 0) want = "-1";
    sel.value = want;
    showTab(state.tab, false);
  }

  // --- going to one paper ------------------------------------------------------------------------
  var keyIndex = null;
  function jumpTo(key) {
    if (!keyIndex) { keyIndex = new Map(); for (var i = 0; i < N; i++) keyIndex.set(KEY[i], i); }
    var idx = keyIndex.get(key);
    if (idx === undefined) { warn("no paper with the key", key); return false; }
    var pos = matched.indexOf(idx);
    if (pos < 0) {
      // Filtered out: clear the filters so the paper can be shown.
      state.sel = facets.map(function () { return new Set(); });
      state.q = ""; setYears(null, null);
      syncControls();
      update(false);
      pos = matched.indexOf(idx);
    }
    // Heights of rows not yet drawn are estimates: scroll, draw, and correct until the row is there.
    var tr = null;
    for (var tries = 0; tries < 6 && !tr; tries++) {
      var off = 0;
      for (var k = 0; k < pos; k++) off += h(matched[k]);
      window.scrollTo(0, tbody.getBoundingClientRect().top + window.scrollY + off);
      drawWindow(true, true);
      tr = $("p-" + key);
    }
    if (!tr) return false;
    tr.scrollIntoView({ block: "start" });
    drawWindow(false);
    tr = $("p-" + key) || tr;
    tbody.querySelectorAll("tr.target").forEach(function (t) { t.classList.remove("target"); });
    targetI = idx;
    tr.classList.add("target");
    var link = tr.querySelector("a.title");
    if (link) link.focus({ preventScroll: true });
    return true;
  }

  // --- BibTeX: loaded from bibtex.js on first use (a script element also works from file://) ---
  var BIB = null, bibWaiting = [];
  window.surveyBibtex = function (map) { BIB = map; var w = bibWaiting; bibWaiting = []; w.forEach(function (f) { f(null); }); };
  function withBib(cb) {
    if (BIB) { cb(null); return; }
    bibWaiting.push(cb);
    if (bibWaiting.length > 1) return;
    var s = document.createElement("script");
    s.onerror = function () { var w = bibWaiting; bibWaiting = []; w.forEach(function (f) { f("BibTeX could not be loaded (" + DATA.bib + " is missing)."); }); };
    s.src = DATA.bib;
    document.head.appendChild(s);
  }
  var dlg = $("bib-dialog"), bibOpener = null;
  function showBib(i, opener) {
    withBib(function (err) {
      $("bib-title").textContent = "BibTeX: " + KEY[i];
      $("bib-text").textContent = err || BIB[KEY[i]] || "";
      $("bib-copy").textContent = "Copy";
      bibOpener = opener;
      if (dlg.showModal) dlg.showModal(); else dlg.setAttribute("open", "");
      $("bib-copy").focus();
    });
  }
  $("bib-close").addEventListener("click", function () { dlg.close(); });
  dlg.addEventListener("close", function () { if (bibOpener && document.contains(bibOpener)) bibOpener.focus(); });
  $("bib-copy").addEventListener("click", function () {
    var pre = $("bib-text"), btn = $("bib-copy");
    var range = document.createRange();
    range.selectNodeContents(pre);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
    btn.textContent = ok ? "Copied" : "Selected: press Ctrl+C";
    if (!ok && navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(pre.textContent).then(function () { btn.textContent = "Copied"; }, function () {});
    }
  });
  tbody.addEventListener("click", function (ev) {
    var b = ev.target.closest ? ev.target.closest("button.bibbtn") : null;
    if (b) showBib(+b.dataset.i, b);
  });

  // --- export of the filtered set --------------------------------------------------------------
  function download(name, text, type) {
    var url = URL.createObjectURL(new Blob([text], { type: type }));
    var a = elt("a");
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
  }
  function csvCell(v) {
    var s = v === null || v === undefined ? "" : String(v);
    return /[",\r\n]/.test(s) ? "\"" + s.replace(/"/g, "\"\"") + "\"" : s;
  }
  function exportName(ext) { return (activeFilters().length ? "papers-filtered." : "papers.") + ext; }
  $("export-csv").addEventListener("click", function () {
    var head = [DATA.id, DATA.title, "authors"].concat(DATA.byline, ["url"], cols.map(function (c) { return c.label; }));
    var bf = [];
    facets.forEach(function (f, fi) { if (f.badges) { bf.push(fi); head.push(f.label); } });
    var lines = [head.map(csvCell).join(",")];
    matched.forEach(function (i) {
      var row = [KEY[i], TITLE[i], AUTH[i]];
      DATA.byline.forEach(function (name) { row.push(R[name] ? R[name][i] : ""); });
      row.push(L[i][0][0]);
      for (var c = 0; c < cols.length; c++) row.push(cols[c].values[C[i][c]][0]);
      bf.forEach(function (fi) { row.push(F[i][fi].map(function (v) { return facets[fi].values[v][2]; }).join("; ")); });
      lines.push(row.map(csvCell).join(","));
    });
    download(exportName("csv"), lines.join("\r\n") + "\r\n", "text/csv;charset=utf-8");
  });
  $("export-bib").addEventListener("click", function () {
    withBib(function (err) {
      if (err) { status.textContent = err; return; }
      var out = matched.map(function (i) { return BIB[KEY[i]].replace(/\s+$/, "") + "\n"; });
      download(exportName("bib"), out.join("\n"), "application/x-bibtex;charset=utf-8");
    });
  });

  // --- controls --------------------------------------------------------------------------------
  groups.forEach(function (g, fi) {
    g.boxes.forEach(function (b, vi) {
      b.addEventListener("change", function () {
        if (b.checked) state.sel[fi].add(vi); else state.sel[fi].delete(vi);
        update();
      });
    });
  });
  q.addEventListener("input", function () { state.q = q.value.trim(); update(); });
  function yearInput() {
    setYears(yearOf(y0.value), yearOf(y1.value));
    update();
  }
  if (y0) { y0.addEventListener("input", yearInput); y1.addEventListener("input", yearInput); }
  function clearAll() {
    state.sel = facets.map(function () { return new Set(); });
    state.q = ""; setYears(null, null);
    syncControls();
    update();
  }
  $("reset").addEventListener("click", clearAll);
  $("clear-chips").addEventListener("click", function () { clearAll(); q.focus(); });
  $("empty-clear").addEventListener("click", function () { clearAll(); q.focus(); });
  document.querySelectorAll("#papers th button[data-sort]").forEach(function (b) {
    b.addEventListener("click", function () {
      var c = +b.dataset.sort;
      if (state.sort === c) state.dir = -state.dir; else { state.sort = c; state.dir = 1; }
      syncControls();
      update();
    });
  });
  $("sort-select").addEventListener("change", function (ev) {
    var v = ev.target.value.split(".");
    state.sort = +v[0];
    state.dir = v[1] === "-1" ? -1 : 1;
    syncControls();
    update();
  });

  // --- the phone's filter sheet -------------------------------------------------------------------
  var sidebar = $("sidebar"), openBtn = $("filter-open");
  var phone = window.matchMedia ? window.matchMedia("(max-width: 760px)") : null;
  function openSheet() {
    sidebar.classList.add("open");
    sidebar.setAttribute("role", "dialog");
    sidebar.setAttribute("aria-modal", "true");
    document.body.classList.add("sheet-open");
    openBtn.setAttribute("aria-expanded", "true");
    $("filter-close").focus();
  }
  function closeSheet(toResults) {
    if (!sidebar.classList.contains("open")) return;
    sidebar.classList.remove("open");
    sidebar.removeAttribute("role");
    sidebar.removeAttribute("aria-modal");
    document.body.classList.remove("sheet-open");
    openBtn.setAttribute("aria-expanded", "false");
    if (toResults) { results.scrollIntoView({ block: "start" }); results.focus({ preventScroll: true }); } else openBtn.focus();
  }
  openBtn.addEventListener("click", openSheet);
  $("filter-close").addEventListener("click", function () { closeSheet(true); });
  document.addEventListener("keydown", function (ev) { if (ev.key === "Escape" && sidebar.classList.contains("open")) closeSheet(false); });
  if (phone && phone.addEventListener) phone.addEventListener("change", function () { if (!phone.matches) closeSheet(false); });

  // --- theme: follows the system until the reader chooses; the choice is remembered ----------------
  var themeBtn = $("theme");
  function isDark() {
    var t = document.documentElement.getAttribute("data-theme");
    if (t) return t === "dark";
    return !!(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
  }
  function showTheme() { themeBtn.setAttribute("aria-pressed", isDark() ? "true" : "false"); }
  themeBtn.addEventListener("click", function () {
    var next = isDark() ? "light" : "dark";
    document.documentElement.setAttribute("data-theme", next);
    try { localStorage.setItem("survey-page-theme", next); } catch (e) { warn("the theme cannot be remembered", e); }
    showTheme();
  });
  showTheme();

  // --- tabs (arrow keys move between them, as in the WAI-ARIA tabs pattern) ------------------
  var tabs = Array.prototype.slice.call(document.querySelectorAll("[role=tab]"));
  function showTab(name, save) {
    state.tab = name;
    tabs.forEach(function (t) {
      var on = t.dataset.tab === name;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      $(t.getAttribute("aria-controls")).hidden = !on;
    });
    if (name === "papers") drawWindow(true);
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

  // --- print: every matching row, not only the ones in view ---------------------------------------
  window.addEventListener("beforeprint", function () {
    var frag = document.createDocumentFragment();
    matched.forEach(function (i) { frag.appendChild(rowEl(i)); });
    tbody.replaceChildren(frag);
    printing = true;
  });
  window.addEventListener("afterprint", function () { printing = false; drawWindow(true); });

  window.addEventListener("scroll", onScroll, { passive: true });
  window.addEventListener("resize", onResize);
  window.addEventListener("hashchange", function () {
    if (location.hash.replace(/^#/, "") === lastHash) return;
    var anchor = loadHash();
    syncControls();
    update(false);
    if (anchor) jumpTo(anchor);
  });

  var api = {
    update: update, state: state, lastUpdateMs: 0,
    keys: function () { return matched.map(function (i) { return KEY[i]; }); },
    jumpTo: jumpTo
  };
  window.surveyPage = api;
  DATA.rangeLabel = y0 ? y0.closest("fieldset").querySelector("legend").textContent : "";

  // --- start: the link's state, plus whatever the reader did while the page was loading ---------
  var anchor = loadHash();
  var early = false;
  groups.forEach(function (g, fi) {
    g.boxes.forEach(function (b, vi) {
      if (b.checked !== b.defaultChecked) { early = true; if (b.checked) state.sel[fi].add(vi); else state.sel[fi].delete(vi); }
    });
  });
  if (q.value.trim() && q.value !== q.defaultValue) { early = true; state.q = q.value.trim(); }
  if (y0 && (y0.value !== y0.defaultValue || y1.value !== y1.defaultValue)) { early = true; setYears(yearOf(y0.value), yearOf(y1.value)); }
  syncControls();
  update(early);
  var clicks = window.surveyEarlyClicks || [];
  window.surveyEarlyClicks = null;
  clicks.forEach(function (t) {
    var b = t && t.closest ? t.closest("button") : null;
    if (b && document.contains(b)) b.click(); // checkboxes and links have already acted
  });
  if (anchor) {
    jumpTo(anchor);
    // The browser's own scroll to the fragment, after parsing, moves the focus: go again.
    window.addEventListener("load", function () { setTimeout(function () { jumpTo(anchor); }, 0); }, { once: true });
  }
  // Prepare the search index while the reader looks at the page.
  if (window.requestIdleCallback) window.requestIdleCallback(norms, { timeout: 5000 });
})();
