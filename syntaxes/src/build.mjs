// Writes syntaxes/*.tmLanguage.json from the grammar sources next to this file.
// `--check` writes nothing and exits 1 when a JSON file differs from its source.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import haproxy from './haproxy.grammar.mjs';
import nginx from './nginx.grammar.mjs';

const out = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
let stale = 0;
for (const [file, grammar] of [['nginx.tmLanguage.json', nginx], ['haproxy.tmLanguage.json', haproxy]]) {
  const path = join(out, file);
  const text = JSON.stringify(grammar, null, 2) + '\n';
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    // missing: written below, or reported as stale
  }
  if (current === text) continue;
  if (check) {
    console.error(`${file} is out of date: run npm run build:grammars`);
    stale++;
  } else {
    writeFileSync(path, text);
    console.log(`wrote ${file}`);
  }
}
process.exit(stale ? 1 : 0);
