// Validation proportional to the edit: the server path (one workspace index and one ParseCache,
// whose memo keeps each block's findings from one version to the next) must publish exactly what
// a fresh validation of the same text publishes, over chained random edits (inserts, deletes,
// replaces of random spans, braces, quotes and semicolons among them) of every nginx corpus file
// and of the generated 5,000-line file, at two target versions. Seeded; every failure names its
// seed and step, so `INCREMENTAL_SEED=N` replays one file's chain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusDir as sharedCorpusDir, corpusSkip } from '../corpusRoot';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ServiceSettings } from '../../server/src/core/types';
import type { ValidationMemo } from '../../server/src/languages/nginx/validation';
// @ts-expect-error a plain .mjs script without type declarations
import { nginxConfig } from '../../scripts/gen-large-config.mjs';
import { chainValidations, spanOrRandomEdit, typingInMiddleServer, VERSION_SETTINGS } from './incrementalHelpers';

const { dir: corpusDir, available: corpusThere } = sharedCorpusDir('nginx');
const needsCorpus = { skip: corpusSkip(corpusThere) };

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

/** `steps` chained edits compared with fresh validations (chainValidations); the validation memo's counts summed. */
function chain(
  text: string,
  seed: number,
  steps: number,
  settings: ServiceSettings,
  name: string,
  next = edit,
): { reused: number; walked: number } {
  const counts = { reused: 0, walked: 0 };
  chainValidations(URI, text, seed, steps, settings, name, next, ({ k, cache }) => {
    const memo = cache.memoOf(URI).nginxValidation as ValidationMemo | undefined;
    if (memo && k > 0) {
      counts.reused += memo.reused;
      counts.walked += memo.walked;
    }
  });
  return counts;
}

const SETTINGS = VERSION_SETTINGS;

const only = process.env.INCREMENTAL_SEED ? Number(process.env.INCREMENTAL_SEED) : undefined;

test('incremental validation equals a fresh one: every nginx corpus file, chained random edits, two versions', needsCorpus, () => {
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
  const typing = typingInMiddleServer(text);
  const counts = chain(typing.start, 90_010, typing.steps, SETTINGS[0][1], 'typing in the generated file', typing.next);
  const blocks = (text.match(/^ {4}(server|upstream|map) /gm) ?? []).length;
  assert.ok(blocks > 300, `${blocks} http-level blocks`);
  // per edit: the edited server and the http block walked, everything else reused
  assert.equal(counts.walked, typing.steps * 2, `blocks walked ${counts.walked}`);
  assert.ok(counts.reused >= typing.steps * (blocks - 1), `blocks reused ${counts.reused}`);
});
