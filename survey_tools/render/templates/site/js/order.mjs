// The list's order: an explicit sort, else best match for a search, else the configured default
// (`order`: "newest" first, or by title). Pure: built from the page's data, unit-tested in node.
// Sort keys are data.sort: the title (the records' own order), each column, then the date added.

// Returns sortRows(rows, sort, dir, scores), which orders `rows` (record indices) in place:
// `sort` is a sort key's index (-1: none chosen), `dir` 1 or -1, `scores` a search's scores or null.
export function sorter(data) {
  const n = data.n, added = data.rec._a, cells = data.rec._c, columns = data.columns;
  const sortAdded = data.sort.indexOf(data.addedSort);
  const ranks = [];
  function rankOf(c) {
    // Position of each record in the order of sort key c (ties by title: the records' own order).
    if (ranks[c]) return ranks[c];
    const idx = new Array(n);
    for (let i = 0; i < n; i++) idx[i] = i;
    let keyOf;
    if (c === sortAdded) keyOf = function (i) { return added[i]; };
    else { const t = columns[c - 1].values; keyOf = function (i) { return t[cells[i][c - 1]][1]; }; }
    idx.sort(function (a, b) { const ka = keyOf(a), kb = keyOf(b); return ka < kb ? -1 : ka > kb ? 1 : a - b; });
    const r = new Int32Array(n);
    for (let j = 0; j < n; j++) r[idx[j]] = j;
    ranks[c] = r;
    return r;
  }
  function effective(sort, dir, scores) {
    if (sort >= 0) return [sort, dir];
    if (scores) return [-1, 1];
    if (data.order === "newest" && sortAdded >= 0) return [sortAdded, -1];
    return [0, 1];
  }
  return function sortRows(rows, sort, dir, scores) {
    const es = effective(sort, dir, scores), c = es[0], d = es[1];
    if (c === 0 && d > 0 && (!scores || sort === 0)) return; // already in title order
    if (c < 0) { rows.sort(function (a, b) { return scores[b] - scores[a] || a - b; }); return; }
    if (c === 0) { rows.sort(function (a, b) { return d * (a - b); }); return; }
    const rank = rankOf(c);
    // Newest first keeps titles A-Z among papers added on the same day.
    if (c === sortAdded && d < 0) {
      rows.sort(function (a, b) { const ka = added[a], kb = added[b]; return ka < kb ? 1 : ka > kb ? -1 : a - b; });
      return;
    }
    rows.sort(function (a, b) { return d * (rank[a] - rank[b]); });
  };
}
