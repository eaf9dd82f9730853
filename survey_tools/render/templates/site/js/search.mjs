// Search: every query word must match the start of a word of a searched field (any case, accent
// or punctuation); spaces inside a query word are optional in the record ("multiagent" finds
// "multi-agent" and "multi agent"). Matching uses indexOf and character comparison only: no
// regular expression is built from the query, so any input of any length gives a result.
import { fold, hyphenPairs } from "./text.mjs";

// The searchable texts: `columns` is one array of raw values per field (earlier fields weigh
// more), `n` the number of records. Returns {norm, vocab, weights}.
export function buildIndex(columns, n) {
  const vocab = new Set();
  const norm = columns.map(function (src) {
    const out = new Array(n);
    for (let i = 0; i < n; i++) {
      const v = src[i];
      const raw = v === undefined || v === null ? "" : String(v);
      const f = fold(raw);
      out[i] = f;
      const words = f.split(" ");
      for (let w = 0; w < words.length; w++) vocab.add(words[w]);
      const pairs = hyphenPairs(raw);
      for (let p = 0; p < pairs.length; p++) vocab.add(pairs[p]);
    }
    return out;
  });
  const weights = columns.map(function (_, i) { return columns.length - i; });
  return { norm: norm, vocab: vocab, weights: weights };
}

// How `tok` matches the folded text `s`: 0 not at all, 1 at the start of a word, 2 as whole
// words. Spaces of `s` may fall between the characters of `tok`.
export function wordMatch(s, tok) {
  if (!tok) return 0;
  const probe = " " + tok;
  let best = 0;
  for (let p = s.indexOf(probe); p >= 0; p = s.indexOf(probe, p + 1)) {
    const e = p + probe.length;
    if (e === s.length || s.charCodeAt(e) === 32) return 2;
    best = 1;
  }
  if (best || tok.length < 2) return best;
  // Across spaces: the match starts at a word that is a proper prefix of `tok`.
  const first = " " + tok.charAt(0);
  for (let st = s.indexOf(first); st >= 0; st = s.indexOf(first, st + 1)) {
    let i = st + 1, k = 0, crossed = false;
    while (k < tok.length && i < s.length) {
      const c = s.charCodeAt(i);
      if (c === tok.charCodeAt(k)) { i++; k++; } else if (c === 32 && k > 0 && s.charCodeAt(i + 1) === tok.charCodeAt(k)) { i++; crossed = true; } else break;
    }
    if (k === tok.length && crossed) {
      if (i === s.length || s.charCodeAt(i) === 32) return 2;
      best = 1;
    }
  }
  return best;
}

// The query's words; two neighbours that form one record word ("multi agent" as "multiagent")
// are searched as that word.
export function queryTokens(text, vocab) {
  const words = fold(text).split(" ").filter(Boolean);
  const toks = [];
  for (let wi = 0; wi < words.length; wi++) {
    let t = words[wi];
    while (wi + 1 < words.length && vocab.has(t + words[wi + 1])) t += words[++wi];
    toks.push(t);
  }
  return toks;
}

// A scoring function for `text` (record index -> score, 0 for no match), or null for an empty
// query. A match in an earlier field and a whole-word match score higher.
export function searcher(index, text) {
  const toks = queryTokens(text, index.vocab);
  if (!toks.length) return null;
  const nf = index.norm, W = index.weights;
  const joined = toks.length > 1 ? toks.join("") : "";
  function best(i, tok) {
    let b = 0;
    for (let f = 0; f < nf.length; f++) {
      const m = wordMatch(nf[f][i], tok);
      if (m) { const w = W[f] * m; if (w > b) b = w; }
    }
    return b;
  }
  return function (i) {
    let score = 0;
    for (let t = 0; t < toks.length; t++) {
      const b = best(i, toks[t]);
      if (!b) { score = 0; break; }
      score += b;
    }
    if (!score && joined) score = best(i, joined) * toks.length;
    return score;
  };
}
