// Writes docs/rules.md from the rule rows (the registries of server/src/languages/*/rules.ts).
// Run with `npm run docs:rules` (node --import tsx, so the TypeScript rows load directly);
// `--check` exits 1 when the committed file is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'docs', 'rules.md');
const { renderRulesDoc } = await import('../server/src/service/rulesDoc.ts');
const text = renderRulesDoc();

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing: out of date
  }
  if (current !== text) {
    console.error('docs/rules.md is out of date: run npm run docs:rules');
    process.exit(1);
  }
  console.log('docs/rules.md is up to date');
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
