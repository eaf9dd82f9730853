#!/usr/bin/env node
// Run awesome-lint (pinned in package.json) on a generated README with every rule but one:
// `awesome-github` asks the GitHub API about the repository's remote (description, topics),
// which needs the network and a repository that already lives on GitHub. Everything else,
// including the list-item, table-of-contents, badge and contributing rules, is enforced.
// Usage: node tools/awesome-lint.mjs [README.md]   (exit 1 on any error)
import process from 'node:process';
import lint from 'awesome-lint/index.js';
import {createConfig} from 'awesome-lint/config.js';
import {createRules} from 'awesome-lint/rules/index.js';

const DISABLED = new Set(['remark-lint:awesome-github']);
const rules = createRules().filter(([rule]) => !DISABLED.has(rule.name));
const filename = process.argv[2] ?? 'README.md';
const vfiles = await lint({filename, config: createConfig(rules)});
let errors = 0;
for (const file of vfiles) {
  for (const m of file.messages) {
    // Spell-check findings are warnings upstream too; they are printed but do not fail.
    const warn = m.ruleId === 'awesome-spell-check';
    if (!warn) errors += 1;
    console.log(`${file.basename}:${m.line ?? 0}:${m.column ?? 0}: ${warn ? 'warning' : 'error'} ${m.ruleId}: ${m.reason}`);
  }
}
console.log(errors ? `awesome-lint: ${errors} error(s)` : 'awesome-lint: ok');
process.exitCode = errors ? 1 : 0;
