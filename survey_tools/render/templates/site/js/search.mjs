// Search: every query word must match the start of a word of a searched field (any case, accent
// or punctuation); spaces inside a query word are optional in the record ("multiagent" finds
// "multi-agent" and "multi agent"). It forgives: a word that starts no word of the list is
// matched within an edit distance scaled to its length, as MiniSearch's `fuzzy: 0.2` does
// ("retreival" finds "retrieval") and ranks below exact matches; little words ("to",
// "the") count when they match and are never required; a pasted arXiv, DOI or OpenReview address
// is searched as its identifier. Matching uses indexOf and character comparison only: no
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

// A pasted address or prefixed identifier as the identifier the records hold: the scheme and
// the resolver's path dropped ("https://arxiv.org/abs/2103.01955v2" -> "2103.01955",
// "doi:10.1/x" -> "10.1/x"), an arXiv version and ".pdf" too. Any other text is returned as is.
export function identifierQuery(text) {
  let q = String(text).trim();
  if (q.indexOf(" ") >= 0) return text;
  q = q.replace(/^https?:\/\//i, "").replace(/^www\./i, "");
  q = q.replace(/^(arxiv\.org\/(abs|pdf|html)\/|(dx\.)?doi\.org\/|openreview\.net\/(forum|pdf)\?id=|arxiv:|doi:)/i, "");
  q = q.replace(/\.pdf$/i, "").replace(/^(\d{4}\.\d{4,5})v\d+$/, "$1");
  return q;
}

// Little words a reader types between the ones that matter: they add to a record's score when
// they match and never leave a record out (unless the query has nothing else).
export const STOP_WORDS = new Set(["a", "an", "and", "are", "as", "at", "be", "by", "do", "for", "from", "how", "in", "is", "it", "of", "on", "or", "the", "to", "what", "which", "with"]);

// The edits a word of `n` characters may be away from a word of the list: 20% of its length,
// rounded (MiniSearch's fuzzy: 0.2), at most 2; none under 4 characters or over 24 (a long
// paste is not a typo, and the work grows with its length).
export function maxEdits(n) {
  if (n < 4 || n > 24) return 0;
  return Math.min(2, Math.max(1, Math.round(n * 0.2)));
}

// A word with a digit (an id's part, a year, "k2") is matched as typed: 2103.01955 is not a
// typo of 2103.01935.
function forgivable(tok) {
  for (let i = 0; i < tok.length; i++) { const c = tok.charCodeAt(i); if (c >= 48 && c <= 57) return false; }
  return true;
}

// The fewest edits (insertions, deletions, substitutions, swaps of neighbours) from `a` to `b`
// or to a start of `b` (a word being typed); max + 1 once that is over `max`.
export function prefixDistance(a, b, max) {
  const m = a.length, n = Math.min(b.length, m + max);
  let prev2 = null, prev = new Array(n + 1), cur;
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= m; i++) {
    cur = new Array(n + 1);
    cur[0] = i;
    let low = i;
    for (let j = 1; j <= n; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (prev2 && i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) v = Math.min(v, prev2[j - 2] + 1);
      cur[j] = v;
      if (v < low) low = v;
    }
    if (low > max) return max + 1;
    prev2 = prev;
    prev = cur;
  }
  let best = max + 1;
  for (let j = Math.max(0, m - max); j <= n; j++) if (prev[j] < best) best = prev[j];
  return best;
}

// The list's words within `maxEdits` of `tok` or of its start, those that `tok` starts left out
// (the exact match finds them). A word can be both typed right and a typo of another
// ("optimisation" beside "optimization"): both are searched, the exact one ranked first.
export function fuzzyWords(tok, vocab) {
  const max = forgivable(tok) ? maxEdits(tok.length) : 0;
  if (!max) return [];
  const near = [];
  for (const w of vocab) {
    if (w.length >= tok.length - max && !w.startsWith(tok) && prefixDistance(tok, w, max) <= max) near.push(w);
  }
  return near;
}

// The query's words; two neighbours that form one record word ("multi agent" as "multiagent")
// are searched as that word.
export function queryTokens(text, vocab) {
  const words = fold(identifierQuery(text)).split(" ").filter(Boolean);
  const toks = [];
  for (let wi = 0; wi < words.length; wi++) {
    let t = words[wi];
    while (wi + 1 < words.length && vocab.has(t + words[wi + 1])) t += words[++wi];
    toks.push(t);
  }
  return toks;
}

// A scoring function for `text` (record index -> score, 0 for no match), or null for an empty
// query. A match in an earlier field and a whole-word match score higher; a word matched only
// within its edits scores a third; a little word (STOP_WORDS) is never required.
export function searcher(index, text) {
  const toks = queryTokens(text, index.vocab);
  if (!toks.length) return null;
  const nf = index.norm, W = index.weights;
  const joined = toks.length > 1 ? toks.join("") : "";
  const allLittle = toks.every(function (t) { return STOP_WORDS.has(t); });
  const needed = toks.map(function (t) { return allLittle || !STOP_WORDS.has(t); });
  const near = toks.map(function (t) { return STOP_WORDS.has(t) ? [] : fuzzyWords(t, index.vocab); });
  function best(i, tok) {
    let b = 0;
    for (let f = 0; f < nf.length; f++) {
      const m = wordMatch(nf[f][i], tok);
      if (m) { const w = W[f] * m; if (w > b) b = w; }
    }
    return b;
  }
  function bestNear(i, words) {
    let b = 0;
    for (let k = 0; k < words.length; k++) { const v = best(i, words[k]) / 3; if (v > b) b = v; }
    return b;
  }
  return function (i) {
    let score = 0;
    for (let t = 0; t < toks.length; t++) {
      let b = best(i, toks[t]);
      if (!b && near[t].length) b = bestNear(i, near[t]);
      if (!b && needed[t]) { score = 0; break; }
      score += b;
    }
    if (!score && joined) score = best(i, joined) * toks.length;
    return score;
  };
}
