// Search (survey_tools/render/templates/site/js/search.mjs): word starts, optional spaces,
// whole-word ranking, and inputs that once broke the page (a 10,000-character word).
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildIndex, wordMatch, queryTokens, searcher, maxEdits, prefixDistance, fuzzyWords, identifierQuery } from "../../survey_tools/render/templates/site/js/search.mjs";
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
  assert.deepEqual(run("orl"), []);  // (four letters and more forgive an edit: "orld" is "world" mistyped)
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

// --- forgiving (issue 56) ------------------------------------------------------------------------

test("maxEdits grows with the word as MiniSearch's fuzzy 0.2 does, none for short or pasted words", () => {
  assert.deepEqual([3, 4, 5, 7, 8, 12, 24, 25].map(maxEdits), [0, 1, 1, 1, 2, 2, 2, 0]);
});

test("prefixDistance counts edits to the word or to a start of it, swaps as one", () => {
  assert.equal(prefixDistance("orchestraton", "orchestration", 2), 1);
  assert.equal(prefixDistance("rewrad", "reward", 1), 1);
  assert.equal(prefixDistance("orchestr", "orchestration", 2), 0);
  assert.equal(prefixDistance("xyzw", "reward", 1), 2);
});

test("a typo finds its word, below exact matches", () => {
  const idx = buildIndex([["Orchestration policies", "Credit assignment", "Learning to orchestrate"]], 3);
  const typo = searcher(idx, "orchestraton");
  assert.ok(typo(0) > 0 && typo(1) === 0);
  assert.ok(typo(0) < searcher(idx, "orchestration")(0));  // a third of the exact match
  assert.deepEqual(fuzzyWords("credti", idx.vocab), ["credit"]);
  assert.deepEqual(fuzzyWords("cred", idx.vocab), []);  // starts "credit": the exact match finds it
  const both = buildIndex([["Policy optimization", "Policy optimisation"]], 2);
  const s = searcher(both, "policy optimisation");
  assert.ok(s(1) > s(0) && s(0) > 0);  // the spelling as typed first, the other spelling too
  assert.deepEqual(fuzzyWords("01935", new Set(["01955"])), []);  // a number is never a typo
});

test("little words are never required", () => {
  const idx = buildIndex([["Learning when to halt", "Stop signals"], ["", "O5 stop. When the run ends."]], 2);
  const s = searcher(idx, "when to stop");
  assert.ok(s(1) > 0);
  assert.equal(searcher(idx, "the")(0), 0);  // a query of little words alone still needs them
});

test("a pasted address or prefixed id is searched as the identifier", () => {
  for (const [q, want] of [
    ["https://arxiv.org/abs/2103.01955v2", "2103.01955"], ["arxiv.org/pdf/2103.01955.pdf", "2103.01955"],
    ["arXiv:2103.01955", "2103.01955"], ["https://doi.org/10.1145/3442188", "10.1145/3442188"],
    ["https://openreview.net/forum?id=AbC123xyz", "AbC123xyz"], ["doi:10.1/x", "10.1/x"],
    ["multi agent", "multi agent"], ["github.com/owner/repo", "github.com/owner/repo"],
  ]) assert.equal(identifierQuery(q), want, q);
  const idx = buildIndex([["A", "B"], ["2103.01955 arxiv.org/abs/2103.01955", "10.1145/3442188 github.com/o/r"]], 2);
  assert.ok(searcher(idx, "https://arxiv.org/abs/2103.01955v1")(0) > 0);
  assert.equal(searcher(idx, "https://arxiv.org/abs/2103.01955v1")(1), 0);
  assert.ok(searcher(idx, "https://github.com/o/r")(1) > 0);
});
