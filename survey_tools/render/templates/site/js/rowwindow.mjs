// Beyond DATA.allLimit rows the list draws only a window of rows near the viewport, between two
// spacer rows. Pure: which rows to draw, and the heights it reckons with (measured rows, an
// estimate for the others).

// Heights of n rows: h(i) is row i's measured height, else the estimate, which is fixed at the
// mean of the first rows measured (changing it later would move every row); reset() forgets them.
export function rowHeights(n, guess) {
  let H = new Float64Array(n), est = guess, fixed = false, count = 0, sum = 0;
  return {
    h: function (i) { return H[i] || est; },
    measure: function (i, px) {
      if (!(px > 0)) return;
      if (!H[i]) { count++; sum += px; } else { sum += px - H[i]; }
      H[i] = px;
    },
    settle: function () { if (count && !fixed) { est = sum / count; fixed = true; } },
    reset: function () { H = new Float64Array(n); count = 0; sum = 0; fixed = false; },
  };
}

// The rows of `order` to draw for a viewport `vh` high, `y` pixels below the list's top: those
// within `overscan` pixels of it, and at least `least`. Rows a to b - 1; top: the height above a.
export function windowOf(order, h, y, vh, overscan, least) {
  const n = order.length;
  let i = 0, pos = 0;
  while (i < n && pos + h(order[i]) < y - overscan) { pos += h(order[i]); i++; }
  const a = i, top = pos;
  while (i < n && (pos < y + vh + overscan || i - a < least)) { pos += h(order[i]); i++; }
  return { a: a, b: i, top: top };
}

// The height of rows `from` to `to` - 1 of `order`.
export function heightOf(order, h, from, to) {
  let sum = 0;
  for (let k = from; k < to; k++) sum += h(order[k]);
  return sum;
}
