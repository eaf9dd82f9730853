// Which records the list shows, and the facet counts: pure functions of the page's data (the
// JSON the renderer writes: rec, n, facets, columns, search, newLabel) and of the state.

// The texts searched, one column per field: the configured fields (most important first), then
// every tag shown on the row (facet values that are badges, column cells, the "new since" badge).
export function searchColumns(data) {
  const R = data.rec, n = data.n, fs = data.facets, cs = data.columns, NEWS = R._n;
  const columns = data.search.map(function (s) { return R[s[0]] || []; });
  // identifiers and links, after the configured fields; the tags' definitions last
  if (R._i) columns.push(R._i);
  const tags = new Array(n);
  for (let i = 0; i < n; i++) {
    const parts = [];
    for (let fi = 0; fi < fs.length; fi++) {
      const fv = R._f[i][fi];
      for (let k = 0; k < fv.length; k++) { const v = fs[fi].values[fv[k]]; if (!v[4]) parts.push(v[2]); }
    }
    for (let c = 0; c < cs.length; c++) parts.push(cs[c].values[R._c[i][c]][0]);
    if (NEWS && NEWS[i]) parts.push(data.newLabel);
    tags[i] = parts.join(" · ");
  }
  columns.push(tags);
  const words = data.words, W = R._w;
  if (words && W) columns.push(W.map(function (ws) { return ws.map(function (k) { return words[k]; }).join(" · "); }));
  return columns;
}

// Search and year range: the records of `n` that pass, in record order, and for a search
// (`match`: record index -> score, 0 for none) each record's score.
export function baseRecords(n, years, y0, y1, match) {
  const rows = [];
  const scores = match ? new Float64Array(n) : null;
  for (let i = 0; i < n; i++) {
    const y = years[i];
    if (y0 !== null && !(y >= y0)) continue;
    if (y1 !== null && !(y <= y1)) continue;
    if (match) { const s = match(i); if (!s) continue; scores[i] = s; }
    rows.push(i);
  }
  return { rows: rows, scores: scores };
}

// Facets: the values of one combine with OR, facets with AND. `valuesOf[i][f]` are record i's
// value indices in facet f, `sel` one Set per facet. Returns the records of `base` that pass
// every facet, and counts[f][v]: the records with value v that pass every facet other than f.
export function facetFilter(valuesOf, fs, base, sel) {
  const nf = fs.length;
  const active = sel.map(function (s) { return s.size > 0; });
  const cnt = fs.map(function (f) { return new Int32Array(f.values.length); });
  const out = [];
  for (let b = 0; b < base.length; b++) {
    const i = base[b], r = valuesOf[i];
    let fails = 0, failed = -1;
    for (let fi = 0; fi < nf && fails < 2; fi++) {
      if (!active[fi]) continue;
      const vals = r[fi], chosen = sel[fi];
      let hit = false;
      for (let k = 0; k < vals.length; k++) { if (chosen.has(vals[k])) { hit = true; break; } }
      if (!hit) { fails++; failed = fi; }
    }
    if (fails === 0) {
      out.push(i);
      for (let f2 = 0; f2 < nf; f2++) { const v2 = r[f2], c2 = cnt[f2]; for (let k2 = 0; k2 < v2.length; k2++) c2[v2[k2]]++; }
    } else if (fails === 1) {
      const v3 = r[failed], c3 = cnt[failed];
      for (let k3 = 0; k3 < v3.length; k3++) c3[v3[k3]]++;
    }
  }
  return { rows: out, counts: cnt };
}

// A year box's value: the number typed, or null.
export function yearOf(s) { const v = parseInt(s, 10); return isNaN(v) ? null : v; }

// The range the year boxes ask for: swapped into order when "from" is after "to", and a bound
// at or beyond the corpus's own (`span`: [first, last] year, or []) means no bound.
export function yearRange(a, b, span) {
  let swapped = false;
  if (a !== null && b !== null && a > b) { const t = a; a = b; b = t; swapped = true; }
  return {
    y0: a !== null && span.length && a <= span[0] ? null : a,
    y1: b !== null && span.length && b >= span[1] ? null : b,
    swapped: swapped,
    hint: swapped ? "\u201cFrom\u201d was after \u201cto\u201d: showing " + a + "\u2013" + b + "." : "",
  };
}
