// The rows of the CSV export: the shown records in the shown order, one column per field the
// list shows (key, title, authors, by-line, link, columns, date added, badge facets). A column the
// by-line already holds (the year) is written once.

// data: the page's JSON (DATA); order: record indices as shown.
export function exportRows(data, order) {
  const R = data.rec, facets = data.facets;
  const cols = data.columns.filter(function (c) { return !c.inByline; });
  const colAt = data.columns.map(function (c, ci) { return c.inByline ? -1 : ci; }).filter(function (ci) { return ci >= 0; });
  const head = [data.id, data.title, "authors"].concat(data.byline, ["url"], cols.map(function (c) { return c.label; }));
  if (R._a) head.push(data.addedLabel);
  const bf = [];
  facets.forEach(function (f, fi) { if (f.badges) { bf.push(fi); head.push(f.label); } });
  const rows = [head];
  order.forEach(function (i) {
    const row = [R[data.id][i], R[data.title][i], (R.authors || [])[i]];
    data.byline.forEach(function (name) { row.push(R[name] ? R[name][i] : ""); });
    row.push(R._l[i][0][0]);
    for (let c = 0; c < cols.length; c++) row.push(cols[c].values[R._c[i][colAt[c]]][0]);
    if (R._a) row.push(R._a[i]);
    bf.forEach(function (fi) { row.push(R._f[i][fi].map(function (v) { return facets[fi].values[v][2]; }).join("; ")); });
    rows.push(row);
  });
  return rows;
}
