// What a facet's value list shows: values with no paper are hidden unless selected, and a long
// facet starts folded to the values with the most papers ("Show all" opens it; its filter box
// narrows it). Pure: the counts and the selection in, which values to show out.

export const LONG = 8, TOP = 6; // facets with more than LONG values start folded to their TOP values

// values: the facet's values ([level, id, label, depth, notATag], ...); cnt: the count of each;
// sel: the Set of selected value indices; folded: {long, open, filter (folded text), lfold (each
// value's folded label), keep (optional: the Set of values never folded away: those the survey's
// claims name, however few papers they have)}. Returns {show: [bool per value], hidden: values folded away,
// nonzero: values with a paper or selected, boxHidden: whether the filter box is hidden}.
export function facetView(values, cnt, sel, folded) {
  let top = null;
  if (folded.long && !folded.open && !folded.filter) {
    // Folded: the values with the most papers (a grouped facet: its top level only).
    const order = [];
    for (let v = 0; v < values.length; v++) if (cnt[v] > 0 && values[v][3] === 0) order.push(v);
    order.sort(function (a, b) { return cnt[b] - cnt[a] || a - b; });
    top = new Set(order.slice(0, TOP));
  }
  const show = new Array(values.length);
  let hidden = 0, nonzero = 0;
  for (let vi = 0; vi < values.length; vi++) {
    const on = sel.has(vi);
    let s = cnt[vi] > 0 || on;
    if (s) nonzero++;
    if (s && folded.filter) s = on || folded.lfold[vi].indexOf(folded.filter) >= 0;
    else if (s && top && !on && !top.has(vi) && !(folded.keep && folded.keep.has(vi))) { s = false; hidden++; }
    show[vi] = s;
  }
  return { show: show, hidden: hidden, nonzero: nonzero, boxHidden: nonzero <= LONG && !folded.filter };
}
