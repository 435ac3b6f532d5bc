// Validation proportional to the edit: the server path (one workspace index and one ParseCache,
// whose memo keeps each block's findings from one version to the next) must publish exactly what
// a fresh validation of the same text publishes, over chained random edits (inserts, deletes,
// replaces of random spans, braces, quotes and semicolons among them) of every nginx corpus file
// and of the generated 5,000-line file, at two target versions. Seeded; every failure names its
// seed and step, so `INCREMENTAL_SEED=N` replays one file's chain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { createWorkspaceIndex, ParseCache, validateInWorkspace } from '../../server/src/service/languageService';
import { nodeFileSystem } from '../../server/src/host/nodeHost';
import { resolveSettings } from '../../server/src/service/settings';
import type { ServiceSettings } from '../../server/src/core/types';
import type { ValidationMemo } from '../../server/src/languages/nginx/validation';
// @ts-expect-error a plain .mjs script without type declarations
import { nginxConfig } from '../../scripts/gen-large-config.mjs';
import { rng } from '../reparseChain';
import { freshValidation, spanOrRandomEdit } from './incrementalHelpers';

const corpusDir = resolve(process.env.PROXY_TUNER_CORPUS ?? join(__dirname, '..', '..', '..', 'shared', 'corpus'), 'nginx');

const ALPHABET = 'abcdefgxyz_0123 \t\n;;{{}}"\'#\\$.:/=';
const SNIPPETS = [
  'proxy_pass http://a;',
  'server {',
  '}',
  '{',
  ';',
  '"',
  "'",
  'location / {\n',
  'location @x { return 204; }\n',
  '# note\n',
  'set $v 1;\n',
  'listen 443 ssl;\n',
  'upstream u { server 127.0.0.1:1; }\n',
  'map $a $b {\n  x y;\n}\n',
  'add_header X-A 1;\n',
  'proxy_pass http://$arg_h/;\n',
  'ssl_protocols TLSv1 TLSv1.2;\n',
  'content_by_lua_block { a = "}" }',
  '${x}',
];

const edit = (text: string, r: () => number): string => spanOrRandomEdit(text, r, ALPHABET, SNIPPETS);

const URI = 'file:///work/typing/nginx.conf';

const fresh = (text: string, version: number, settings: ServiceSettings) => freshValidation(URI, text, version, settings);

/**
 * `steps` chained edits of `text` through one index and one cache (as the server types), each
 * version's diagnostics compared with a fresh validation. Returns the memo's counts summed.
 */
function chain(
  text: string,
  seed: number,
  steps: number,
  settings: ServiceSettings,
  name: string,
  next = edit,
): { reused: number; walked: number } {
  const r = rng(seed);
  let doc = TextDocument.create(URI, 'nginx', 1, text);
  const ws = createWorkspaceIndex({ fs: nodeFileSystem, open: { get: (u) => (u === doc.uri ? doc : undefined), all: () => [doc] } });
  const cache = new ParseCache();
  const counts = { reused: 0, walked: 0 };
  for (let k = 0; k <= steps; k++) {
    const got = validateInWorkspace(doc, 'nginx', settings, ws, cache);
    const want = fresh(text, doc.version, settings);
    assert.deepStrictEqual(got, want, `${name}: seed ${seed} step ${k} (INCREMENTAL_SEED=${seed} replays it)`);
    const memo = cache.memoOf(URI).nginxValidation as ValidationMemo | undefined;
    if (memo && k > 0) {
      counts.reused += memo.reused;
      counts.walked += memo.walked;
    }
    text = next(text, r);
    doc = TextDocument.create(URI, 'nginx', doc.version + 1, text);
  }
  return counts;
}

const SETTINGS: [string, ServiceSettings][] = [
  ['1.22.1', resolveSettings({ nginx: { version: '1.22.1' }, haproxy: {} })],
  ['newest', resolveSettings({ nginx: {}, haproxy: {} })],
];

const only = process.env.INCREMENTAL_SEED ? Number(process.env.INCREMENTAL_SEED) : undefined;

test('incremental validation equals a fresh one: every nginx corpus file, chained random edits, two versions', () => {
  const files = readdirSync(corpusDir)
    .filter((f) => !f.endsWith('.md'))
    .sort();
  assert.ok(files.length > 100, `corpus at ${corpusDir}`);
  let seed = 1;
  for (const f of files) {
    const text = readFileSync(join(corpusDir, f), 'utf8');
    for (const [label, settings] of SETTINGS) {
      const s = seed++;
      if (only !== undefined && s !== only) continue;
      chain(text, s, 8, settings, `${f} at ${label}`);
    }
  }
});

test('incremental validation equals a fresh one: the generated 5,000-line file, random edits and typing', () => {
  const text: string = nginxConfig({ lines: 5000 });
  for (const [label, settings] of SETTINGS) {
    const s = 90_001 + (label === 'newest' ? 1 : 0);
    if (only === undefined || only === s) chain(text, s, 25, settings, `generated 5000 at ${label}`);
  }
  // typing and erasing a directive on a new line of the middle server, as bench:lsp does: every
  // block but the edited server and the http block around it is reused
  const lines = text.split('\n');
  const at = lines.findIndex((l, i) => i > lines.length / 2 && l === '    server {') + 3;
  lines.splice(at, 0, '        ');
  const word = 'proxy_read_timeout 30s;';
  let step = 0;
  const typing = (): string => {
    step++;
    const n = step <= word.length ? step : Math.max(0, 2 * word.length - step);
    const ls = [...lines];
    ls[at] = `        ${word.slice(0, n)}`;
    return ls.join('\n');
  };
  const counts = chain(lines.join('\n'), 90_010, word.length * 2, SETTINGS[0][1], 'typing in the generated file', typing);
  const blocks = (text.match(/^ {4}(server|upstream|map) /gm) ?? []).length;
  assert.ok(blocks > 300, `${blocks} http-level blocks`);
  // per edit: the edited server and the http block walked, everything else reused
  assert.equal(counts.walked, word.length * 2 * 2, `blocks walked ${counts.walked}`);
  assert.ok(counts.reused >= word.length * 2 * (blocks - 1), `blocks reused ${counts.reused}`);
});
