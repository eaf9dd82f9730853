// The list's ranking of queries over a built page's data, as the page computes it (search
// index, base records, best-match order): `node rank.mjs data.json queries.json` prints, per
// query, the ids of the papers it matches, best first. Used by
// tests/tools/render/test_search_queries.py on the survey's own built index.
import { readFileSync } from "node:fs";
import { buildIndex, searcher } from "../../../survey_tools/render/templates/site/js/search.mjs";
import { searchColumns, baseRecords } from "../../../survey_tools/render/templates/site/js/filter.mjs";
import { sorter } from "../../../survey_tools/render/templates/site/js/order.mjs";

const data = JSON.parse(readFileSync(process.argv[2], "utf-8"));
const queries = JSON.parse(readFileSync(process.argv[3], "utf-8"));
const index = buildIndex(searchColumns(data), data.n);
const sortRows = sorter(data);
const ids = data.rec[data.id];
const out = {};
for (const q of queries) {
  const b = baseRecords(data.n, [], null, null, searcher(index, q));
  sortRows(b.rows, -1, 1, b.scores);
  out[q] = b.rows.map(function (i) { return ids[i]; });
}
process.stdout.write(JSON.stringify(out) + "\n");
