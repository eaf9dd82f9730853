// The URL hash (survey_tools/render/templates/site/js/hashstate.mjs): parse, write, carry.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseHash, hashString, filtersOf, carry, dec } from "../../survey_tools/render/templates/site/js/hashstate.mjs";

const schema = {
  facets: [
    { keys: ["reward_family", "reward_type"], values: [[0, "R1", "R1 Shared"], [1, "shared", "Shared"], [0, "R2", "R2 Ind"]] },
    { keys: ["subdecisions"], values: [[0, "O1:learned", "O1 learned"]] },
  ],
  range: "year",
  sort: ["title", "year", "added"],
  tabs: ["papers", "exclusions"],
};

test("a hash round-trips", () => {
  const h = "reward_family=R1,R2&reward_type=shared&subdecisions=O1:learned&q=credit%20assignment&year=2020-&sort=added.desc&tab=exclusions";
  const p = parseHash("#" + h, schema);
  assert.deepEqual(p.sel, [[0, 1, 2], [0]]);
  assert.equal(p.q, "credit assignment");
  assert.equal(p.y0, 2020);
  assert.equal(p.y1, null);
  assert.equal(p.sort, 2);
  assert.equal(p.dir, -1);
  assert.equal(p.tab, "exclusions");
  assert.equal(hashString({ ...p, sel: p.sel.map((s) => new Set(s)) }, schema), h);
});

test("unknown keys, values and malformed parts are reported and skipped", () => {
  const warnings = [];
  const p = parseHash("#q=100%&bogus=1&reward_type=nope&year=abc&sort=zzz&p-c3&stray", schema, (m, d) => warnings.push(m + ": " + d));
  assert.equal(p.q, "100%");
  assert.equal(p.anchor, "c3");
  assert.deepEqual(p.sel, [[], []]);
  assert.equal(p.sort, -1);
  assert.equal(warnings.length, 6, warnings.join("\n"));
});

test("a 10,000-character search survives the hash", () => {
  const q = "x".repeat(10000);
  const p = parseHash("#q=" + q, schema);
  assert.equal(p.q, q);
  assert.equal(dec("%E0%A4%A"), "%E0%A4%A");
});

test("links carry the filters without the row anchor", () => {
  assert.equal(filtersOf("#q=a&p-c3&year=2020-"), "q=a&year=2020-");
  assert.equal(carry("../index.html", "q=a", "c3"), "../index.html#q=a&p-c3");
  assert.equal(carry("../index.html", "", ""), "../index.html");
  assert.equal(carry("", "q=a", "c3"), "#q=a&p-c3");
});
