// The window of drawn rows (survey_tools/render/templates/site/js/rowwindow.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { rowHeights, windowOf, heightOf } from "../../survey_tools/render/templates/site/js/rowwindow.mjs";

test("unmeasured rows have the guess until the first measures fix the estimate", () => {
  const hs = rowHeights(5, 160);
  assert.equal(hs.h(3), 160);
  hs.measure(0, 100);
  hs.measure(1, 200);
  hs.measure(2, 0); // not laid out: ignored
  hs.settle();
  assert.deepEqual([hs.h(0), hs.h(1), hs.h(2), hs.h(3)], [100, 200, 150, 150]);
  hs.measure(3, 300);
  hs.measure(0, 120); // measured again: replaces the first height
  hs.settle();
  assert.equal(hs.h(4), 150, "the estimate is fixed once");
  assert.equal(hs.h(0), 120);
  hs.reset();
  assert.deepEqual([hs.h(0), hs.h(4)], [150, 150], "reset forgets the heights, not the estimate");
  hs.measure(4, 50);
  hs.settle();
  assert.equal(hs.h(0), 50, "and the estimate is taken again");
});

test("the window covers the viewport and the overscan, at least `least` rows", () => {
  const order = [5, 4, 3, 2, 1, 0, 6, 7, 8, 9];
  const h = function () { return 100; };
  assert.deepEqual(windowOf(order, h, 0, 300, 100, 2), { a: 0, b: 4, top: 0 });
  assert.deepEqual(windowOf(order, h, 450, 100, 100, 2), { a: 3, b: 7, top: 300 });
  assert.deepEqual(windowOf(order, h, 2000, 100, 100, 2), { a: 10, b: 10, top: 1000 }, "below the end: nothing");
  assert.deepEqual(windowOf(order, h, 0, 0, 0, 5), { a: 0, b: 5, top: 0 });
  assert.deepEqual(windowOf([], h, 0, 800, 800, 8), { a: 0, b: 0, top: 0 });
});

test("heights of a stretch of rows", () => {
  const h = function (i) { return i * 10; };
  assert.equal(heightOf([3, 1, 2], h, 0, 3), 60);
  assert.equal(heightOf([3, 1, 2], h, 1, 3), 30);
  assert.equal(heightOf([3, 1, 2], h, 2, 2), 0);
});
