// Folding and counts (survey_tools/render/templates/site/js/text.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { fold, hyphenPairs, formatCount, plural, safeUrl } from "../../survey_tools/render/templates/site/js/text.mjs";

test("fold drops case, accents and punctuation and starts with a space", () => {
  assert.equal(fold("Tramèr, F."), " tramer f");
  assert.equal(fold("Multi-Agent RL!"), " multi agent rl");
  assert.equal(fold("  "), " ");
  assert.equal(fold("Ünïcödé—ÇA"), " unicode ca");
});

test("hyphenated words are also known joined", () => {
  assert.deepEqual(hyphenPairs("multi-agent and role-play-based"), ["multiagent", "roleplay", "playbased"]);
  assert.deepEqual(hyphenPairs("no hyphen"), []);
});

test("counts get thousands separators", () => {
  assert.equal(formatCount(100000), "100,000");
  assert.equal(formatCount(95), "95");
  assert.equal(plural(1, "paper", "papers"), "1 paper");
  assert.equal(plural(10000, "paper", "papers"), "10,000 papers");
});

test("only http(s) links are followed", () => {
  assert.equal(safeUrl("https://arxiv.org/abs/1"), "https://arxiv.org/abs/1");
  assert.equal(safeUrl("HTTP://example.org"), "HTTP://example.org");
  assert.equal(safeUrl("javascript:alert(1)"), "#");
  assert.equal(safeUrl(" https://x.org"), "#");
  assert.equal(safeUrl(""), "#");
});
