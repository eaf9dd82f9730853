// Search (survey_tools/render/templates/site/js/search.mjs): word starts, optional spaces,
// whole-word ranking, and inputs that once broke the page (a 10,000-character word).
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildIndex, wordMatch, queryTokens, searcher } from "../../survey_tools/render/templates/site/js/search.mjs";
import { fold } from "../../survey_tools/render/templates/site/js/text.mjs";

const titles = ["Multi-Agent Credit Assignment", "A world model", "Multi agent debate", "MultiAgentBench", "RL for orchestration"];
const keys = ["c3", "world", "debate", "mab", "orch"];
const index = buildIndex([titles, keys], titles.length);
function run(q) {
  const s = searcher(index, q);
  if (!s) return null;
  return titles.map((_, i) => i).filter((i) => s(i) > 0).map((i) => keys[i]);
}

test("a query word matches the start of a word, not its inside", () => {
  assert.deepEqual(run("rl"), ["orch"]);
  assert.deepEqual(run("orld"), []);
  assert.deepEqual(run("wor"), ["world"]);
});

test("spaces and hyphens inside a word are optional", () => {
  const want = ["c3", "debate", "mab"];
  for (const q of ["multiagent", "multi-agent", "multi agent", "MULTI AGENT"]) assert.deepEqual(run(q), want, q);
});

test("wordMatch: 2 for a whole word, 1 for a prefix, 0 for none", () => {
  assert.equal(wordMatch(fold("credit assignment"), "credit"), 2);
  assert.equal(wordMatch(fold("credit assignment"), "cred"), 1);
  assert.equal(wordMatch(fold("multi agent rl"), "multiagent"), 2);
  assert.equal(wordMatch(fold("multi agentic"), "multiagent"), 1);
  assert.equal(wordMatch(fold("a multiplier"), "multiagent"), 0);
});

test("a whole-word match and an earlier field score higher", () => {
  const s = searcher(index, "debate");
  const byKey = searcher(index, "orch");
  assert.ok(s(2) > 0);
  assert.ok(byKey(4) > 0);
  const idx2 = buildIndex([["agent", "agents"]], 2);
  const s2 = searcher(idx2, "agent");
  assert.ok(s2(0) > s2(1));
});

test("neighbouring words forming a known word are one token", () => {
  assert.deepEqual(queryTokens("multi agent credit", index.vocab), ["multiagent", "credit"]);
});

test("any input of any length gives a result and never throws", () => {
  const long = "a".repeat(10000);
  assert.deepEqual(run(long), []);
  assert.deepEqual(run("(" + "x[".repeat(5000) + "*+?\\"), []);
  assert.deepEqual(run("a ".repeat(5000)), ["c3", "world", "debate"]);
  // Only punctuation is no query at all: every record is shown.
  assert.equal(run("([*+?"), null);
  assert.equal(run("   "), null);
});
