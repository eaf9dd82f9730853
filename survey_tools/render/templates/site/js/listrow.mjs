// One row of the list (a table row, shown as a card on narrow screens): title, authors, summary,
// by-line, links, the column cells and the badges, which mark the values a filter selects.
import { safeUrl } from "./text.mjs";
import { hashString, filtersOf, carry } from "./hashstate.mjs";
import { elt } from "./dom.mjs";
import { DATA, R, KEY, TITLE, AUTH, SUMM, F, C, L, ADDED, NEW, facets, cols, tbody, schema, state, view } from "./data.mjs";

export function drawBadges(tr, i) {
  const old = tr.querySelector(".badges");
  let badges = null;
  if (NEW && NEW[i]) { badges = elt("div", "badges"); badges.appendChild(elt("span", "badge new", DATA.newLabel)); }
  facets.forEach(function (f, fi) {
    if (!f.badges) return;
    F[i][fi].forEach(function (v) {
      const val = f.values[v];
      if (val[4]) return; // "not applicable" and "untagged" are no badges
      if (!badges) badges = elt("div", "badges");
      const on = state.sel[fi].has(v);
      const b = elt("span", on ? "badge hit" : "badge", val[2]);
      if (on) b.appendChild(elt("span", "sr-only", " (matches a filter)"));
      badges.appendChild(b);
    });
  });
  if (old) old.remove();
  if (badges) tr.firstChild.insertBefore(badges, tr.firstChild.querySelector(".meta"));
  tr._v = view.selVersion;
}

export function rowEl(i) {
  const tr = elt("tr", i === view.target ? "target" : "");
  tr.id = "p-" + KEY[i];
  tr.dataset.i = i;
  const td = elt("td", "paper");
  const a = elt("a", "title", TITLE[i]);
  a.href = safeUrl(L[i][0][0]);
  td.appendChild(a);
  if (AUTH[i]) td.appendChild(elt("div", "authors", AUTH[i]));
  if (SUMM[i]) td.appendChild(elt("div", "summary", SUMM[i]));
  const meta = elt("div", "meta");
  const by = DATA.byline.map(function (name) { return R[name] ? R[name][i] : ""; }).filter(function (x) { return x !== "" && x !== null; });
  if (by.length) meta.appendChild(elt("span", "byline", by.join(" · ")));
  if (ADDED && ADDED[i] && NEW[i]) meta.appendChild(elt("span", "added", DATA.addedLabel + " " + ADDED[i]));
  const perm = elt("a", "perm");
  perm.href = "#p-" + KEY[i];
  perm.dataset.carry = "";
  perm.dataset.anchor = KEY[i];
  perm.appendChild(elt("code", "", KEY[i]));
  perm.title = "Link to this row";
  meta.appendChild(perm);
  for (let k = 1; k < L[i].length; k++) {
    const l = elt("a", "", L[i][k][1]);
    l.href = safeUrl(L[i][k][0]);
    meta.appendChild(l);
  }
  const det = elt("a", "details", "Details");
  det.href = DATA.papers + encodeURIComponent(KEY[i]) + ".html";
  det.dataset.carry = det.getAttribute("href");
  det.setAttribute("aria-label", "Details of " + TITLE[i]);
  meta.appendChild(det);
  if (DATA.bib) {
    const bb = elt("button", "linkish rowtools bibbtn", "BibTeX");
    bb.type = "button";
    bb.dataset.i = i;
    bb.setAttribute("aria-haspopup", "dialog");
    bb.setAttribute("aria-label", "BibTeX of " + TITLE[i]);
    meta.appendChild(bb);
  }
  td.appendChild(meta);
  tr.appendChild(td);
  for (let c = 0; c < cols.length; c++) {
    const cell = elt("td", cols[c].inByline ? "cell inbyline" : "cell", cols[c].values[C[i][c]][0]);
    cell.setAttribute("data-label", cols[c].label);
    tr.appendChild(cell);
  }
  drawBadges(tr, i);
  return tr;
}

// Links in rows carry the current filters; set when they are used, so a redraw costs nothing.
function carryLink(ev) {
  const a = ev.target.closest ? ev.target.closest("a[data-carry]") : null;
  if (!a) return;
  const target = a.dataset.carry || "";
  a.setAttribute("href", carry(target, filtersOf(hashString(state, schema)), target ? "" : a.dataset.anchor));
}
export function setupCarriedLinks() {
  ["click", "auxclick", "contextmenu", "focusin", "pointerdown"].forEach(function (t) { tbody.addEventListener(t, carryLink); });
}
