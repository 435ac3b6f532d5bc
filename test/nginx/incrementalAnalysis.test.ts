// The analysis after validation proportional to the edit: the navigation entities (cross-file
// definitions, references, undefined and unused names) and the tuning and security diagnostics
// keep each unchanged block's results from one version of an open document to the next. Over
// chained random edits of every nginx corpus file and of generated files, through one workspace
// index and one ParseCache (as the server types), every version's entities must equal a fresh
// walk's, and every diagnostic (validation, tuning, security, navigation, with the quick-fix
// data) a fresh run's. Seeded; `INCREMENTAL_SEED=N` replays one chain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusDir as sharedCorpusDir, corpusSkip } from '../corpusRoot';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ServiceSettings } from '../../server/src/core/types';
import { createNavMemo, nginxNavEntities } from '../../server/src/languages/nginx/navigation';
import type { NginxFile } from '../../server/src/languages/nginx/ast';
import type { NginxTuningMemo } from '../../server/src/languages/nginx/tuning/run';
import { parseNginx } from '../../server/src/languages/nginx/parser';
// @ts-expect-error a plain .mjs script without type declarations
import { nginxConfig } from '../../scripts/gen-large-config.mjs';
import { chainValidations, spanOrRandomEdit, typingInMiddleServer, VERSION_SETTINGS } from './incrementalHelpers';

const { dir: corpusDir, available: corpusThere } = sharedCorpusDir('nginx');
const needsCorpus = { skip: corpusSkip(corpusThere) };

const ALPHABET = 'abcdefgxyz_0123 \t\n;;{{}}"\'#\\$.:/=@';
const SNIPPETS = [
  'proxy_pass http://a;',
  'proxy_pass http://backend_1;',
  'server {',
  '}',
  '{',
  ';',
  '"',
  'location / {\n',
  'location @x { return 204; }\n',
  'try_files $uri @x;\n',
  'error_page 404 @missing;\n',
  'set $v 1;\n',
  'return 301 http://$host$request_uri;\n',
  'listen 443 ssl;\n',
  'listen 80 default_server;\n',
  'server_name a.example.org;\n',
  'upstream u { server 127.0.0.1:1; }\n',
  'upstream a { server 127.0.0.1:2; keepalive 8; }\n',
  'map $a $b {\n  x y;\n}\n',
  'limit_req_zone $binary_remote_addr zone=z:1m rate=1r/s;\n',
  'limit_req zone=z;\n',
  'proxy_cache_path /tmp/c keys_zone=c:1m;\n',
  'proxy_cache c;\n',
  'add_header X-A 1;\n',
  'proxy_set_header Host $host;\n',
  'proxy_pass http://$arg_h/;\n',
  'ssl_protocols TLSv1 TLSv1.2;\n',
  'ssl_certificate /etc/c.pem;\n',
  'sendfile off;\n',
  'gzip on;\n',
  'access_log /var/log/a.log;\n',
  'alias /srv/x;\n',
  'if ($x) { return 404; }\n',
  'location ~ ^/(?<id>\\d+) {\n',
  'content_by_lua_block { a = "}" }',
  '${x}',
];

const edit = (text: string, r: () => number): string => spanOrRandomEdit(text, r, ALPHABET, SNIPPETS);

const URI = 'file:///work/typing-analysis/nginx.conf';

interface Counts {
  navReused: number;
  navWalked: number;
  tuningReused: number;
  tuningWalked: number;
}

/** `steps` chained edits compared with fresh validations (chainValidations), and each version's entities with a fresh walk; the memos' counts summed. */
function chain(text: string, seed: number, steps: number, settings: ServiceSettings, name: string, next = edit): Counts {
  const counts: Counts = { navReused: 0, navWalked: 0, tuningReused: 0, tuningWalked: 0 };
  const navMemo = createNavMemo();
  chainValidations(URI, text, seed, steps, settings, name, next, ({ k, where, text, ws, cache }) => {
    // the entities the index hands to definition, references and rename
    const file = ws.get(URI)!;
    const wantEntities = nginxNavEntities(parseNginx(text));
    assert.deepStrictEqual(ws.entities(file), wantEntities, `entities, ${where}`);
    // the walk's memo on its own, chained over the same re-parses
    assert.deepStrictEqual(nginxNavEntities(file.ast as NginxFile, 'main', navMemo), wantEntities, `memo walk, ${where}`);
    const tuning = cache.memoOf(URI).nginxTuning as NginxTuningMemo | undefined;
    if (k > 0) {
      counts.navReused += navMemo.reused;
      counts.navWalked += navMemo.walked;
      counts.tuningReused += tuning?.reused ?? 0;
      counts.tuningWalked += tuning?.walked ?? 0;
    }
  });
  return counts;
}

const SETTINGS = VERSION_SETTINGS;

const only = process.env.INCREMENTAL_SEED ? Number(process.env.INCREMENTAL_SEED) : undefined;

test('incremental entities and diagnostics equal fresh ones: every nginx corpus file, chained random edits', needsCorpus, () => {
  const files = readdirSync(corpusDir)
    .filter((f) => !f.endsWith('.md'))
    .sort();
  assert.ok(files.length > 100, `corpus at ${corpusDir}`);
  let seed = 5_000;
  for (const f of files) {
    const text = readFileSync(join(corpusDir, f), 'utf8');
    const [label, settings] = SETTINGS[seed % 2];
    const s = seed++;
    if (only !== undefined && s !== only) continue;
    chain(text, s, 8, settings, `${f} at ${label}`);
  }
});

test('incremental entities and diagnostics equal fresh ones: generated files, random edits and typing', () => {
  const text: string = nginxConfig({ lines: 5000 });
  for (const [label, settings] of SETTINGS) {
    const s = 95_001 + (label === 'newest' ? 1 : 0);
    if (only === undefined || only === s) chain(text, s, 25, settings, `generated 5000 at ${label}`);
  }
  const small: string = nginxConfig({ lines: 400 });
  for (let s = 95_100; s < 95_104; s++) if (only === undefined || only === s) chain(small, s, 30, SETTINGS[s % 2][1], 'generated 400');
  // typing and erasing a directive on a new line of the middle server, as bench:lsp does: only the
  // http body and the edited server's body are walked again
  const typing = typingInMiddleServer(text);
  const counts = chain(typing.start, 95_010, typing.steps, SETTINGS[0][1], 'typing in the generated file', typing.next);
  const blocks = (text.match(/^ {4}(server|upstream|map) /gm) ?? []).length;
  assert.ok(blocks > 300, `${blocks} http-level blocks`);
  assert.equal(counts.navWalked, typing.steps * 2, `entity bodies walked ${counts.navWalked}`);
  assert.ok(counts.navReused >= typing.steps * (blocks - 1), `entity bodies reused ${counts.navReused}`);
  // the tuning pass: the edited server judged again, every other http-level server's findings taken over
  const servers = (text.match(/^ {4}server /gm) ?? []).length;
  assert.ok(servers > 100, `${servers} servers`);
  assert.equal(counts.tuningWalked, typing.steps, `servers judged ${counts.tuningWalked}`);
  assert.equal(counts.tuningReused, typing.steps * (servers - 1), `servers taken over ${counts.tuningReused}`);
});

/** An edit inside a random `server { ... }` body (where the memo takes the other servers over), else anywhere. */
function serverEdit(text: string, r: () => number): string {
  const opens: number[] = [];
  for (const m of text.matchAll(/\bserver\s*\{/g)) opens.push(m.index! + m[0].length);
  if (!opens.length) return edit(text, r);
  const from = opens[Math.floor(r() * opens.length)];
  const close = text.indexOf('}', from);
  const to = close < 0 ? text.length : close;
  const at = from + Math.floor(r() * (to - from + 1));
  const k = r();
  if (k < 0.45) return text.slice(0, at) + SNIPPETS[Math.floor(r() * SNIPPETS.length)] + text.slice(at);
  if (k < 0.7) return text.slice(0, at) + ALPHABET[Math.floor(r() * ALPHABET.length)] + text.slice(at);
  return text.slice(0, at) + text.slice(Math.min(to, at + 1 + Math.floor(r() * 12)));
}

test('incremental tuning equals a fresh run: edits inside one server of every corpus file with several servers', needsCorpus, () => {
  const files = readdirSync(corpusDir)
    .filter((f) => !f.endsWith('.md'))
    .sort();
  let seed = 7_000;
  const total: Counts = { navReused: 0, navWalked: 0, tuningReused: 0, tuningWalked: 0 };
  let chains = 0;
  for (const f of files) {
    const text = readFileSync(join(corpusDir, f), 'utf8');
    if ((text.match(/\bserver\s*\{/g) ?? []).length < 2) continue;
    const [label, settings] = SETTINGS[seed % 2];
    const s = seed++;
    if (only !== undefined && s !== only) continue;
    const c = chain(text, s, 10, settings, `${f} at ${label}, edits inside servers`, serverEdit);
    total.tuningReused += c.tuningReused;
    total.tuningWalked += c.tuningWalked;
    chains++;
  }
  if (only === undefined) {
    assert.ok(chains > 50, `${chains} files with several servers`);
    // the chains take servers over often enough to test it (the rest: edits that break a server's
    // braces or listen lines, or a server whose findings point outside it)
    assert.ok(total.tuningReused > 300, `servers taken over ${total.tuningReused}, judged ${total.tuningWalked}`);
  }
});
