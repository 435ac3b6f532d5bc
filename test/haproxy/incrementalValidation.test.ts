// Incremental HAProxy validation (docs/benchmarks.md, "Incremental HAProxy validation"): a document
// validated at each of its versions reuses the results of the sections an edit did not touch.
// Every step of chained random edits must give exactly what a fresh document, parsed and
// validated from nothing at the same settings, gives: the module's diagnostics and the tuning
// and security ones (the facade's `validate`), deep-equal, in order, and the navigation entities. Seeded; a failure names the
// file, the seed and the step (PT_INCREMENTAL_SEED=N reruns from another seed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusDir as sharedCorpusDir, corpusSkip } from '../corpusRoot';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { ParseCache, validate } from '../../server/src/service/languageService';
import { haproxyValidationMemo } from '../../server/src/languages/haproxy/validation';
import { haproxyNavEntities } from '../../server/src/languages/haproxy/navigation';
import type { HaproxyFile } from '../../server/src/languages/haproxy/ast';
import type { ServiceSettings } from '../../server/src/core/types';
// @ts-expect-error a plain .mjs script without type declarations
import { haproxyConfig } from '../../scripts/gen-large-config.mjs';
import { rng } from '../reparseChain';

const { dir: corpusDir, available: corpusThere } = sharedCorpusDir('haproxy');
const needsCorpus = { skip: corpusSkip(corpusThere) };
const SEED = Number(process.env.PT_INCREMENTAL_SEED ?? 1);

const ALPHABET = 'abcxyz_0123 \t\n\n\n"\'#\\${}().,:-!|%[]';
/** Section headers, lines that define or use names, `.if` blocks, quotes and backslashes. */
const SNIPPETS = [
  'backend b\n',
  'frontend f\n  bind :80\n  default_backend b\n',
  'defaults\n  mode tcp\n',
  'defaults named\n  mode http\n  http-request deny\n',
  'listen l\n  bind 127.0.0.1:81\n  server s 127.0.0.1:80\n',
  'global\n  nbproc 2\n  splice auto\n',
  '\n    server s1 127.0.0.1:80 check\n',
  '    server s1 127.0.0.1:80 resolvers dns\n',
  'resolvers dns\n  nameserver n 127.0.0.1:53\n',
  'peers p\n  table t type ip size 1k\n',
  'userlist u\n  user a insecure-password b\n',
  '  http-request track-sc0 src table p/t\n',
  '  acl a hdr(host) -i x\n',
  '  use_backend b if a !{ path_beg /x }\n',
  '  use_backend %[req.hdr(host),lower]\n',
  '  option httplog\n',
  '  no option forwardfor\n',
  '  timeout client 30s\n',
  '  stats enable\n',
  '  stick-table type ip size 1m\n',
  '.if version_atleast(2.4)\n',
  '.endif\n',
  '.else\n',
  '# c\n',
  '"',
  "'",
  '\\',
  '\\\n',
  '\r\n',
];

function edit(text: string, r: () => number): string {
  const at = Math.floor(r() * (text.length + 1));
  const kind = r();
  if (kind < 0.3) {
    // a few characters typed
    let s = '';
    const n = 1 + Math.floor(r() * 4);
    for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(r() * ALPHABET.length)];
    return text.slice(0, at) + s + text.slice(at);
  }
  if (kind < 0.5) return text.slice(0, at) + text.slice(Math.min(text.length, at + 1 + Math.floor(r() * 30))); // a span deleted
  if (kind < 0.75) return text.slice(0, at) + SNIPPETS[Math.floor(r() * SNIPPETS.length)] + text.slice(at); // a snippet pasted
  if (kind < 0.9) {
    // a span replaced by a snippet
    const end = Math.min(text.length, at + Math.floor(r() * 60));
    return text.slice(0, at) + SNIPPETS[Math.floor(r() * SNIPPETS.length)] + text.slice(end);
  }
  // a line moved elsewhere (what cut and paste does)
  const lines = text.split('\n');
  const from = Math.floor(r() * lines.length);
  const [moved] = lines.splice(from, 1);
  lines.splice(Math.floor(r() * (lines.length + 1)), 0, moved);
  return lines.join('\n');
}

const SETTINGS: ServiceSettings[] = [{}, { haproxyVersion: '2.6' }, { haproxyVersion: '3.0' }, { haproxyVersion: '3.2' }];

/** `steps` chained edits of one document, each version's diagnostics against a fresh validation's. */
function chain(name: string, text: string, seed: number, steps: number): { computed: number; sections: number } {
  const r = rng(seed);
  const settings = SETTINGS[seed % SETTINGS.length];
  const uri = `file:///incremental/${name}`;
  const doc = TextDocument.create(uri, 'haproxy', 1, text);
  const cache = new ParseCache();
  let computed = 0;
  let sections = 0;
  for (let k = 0; k <= steps; k++) {
    if (k > 0) {
      text = edit(text, r);
      TextDocument.update(doc, [{ text }], doc.version + 1);
    }
    const got = validate(doc, 'haproxy', settings, cache);
    const fresh = TextDocument.create(uri, 'haproxy', doc.version, text);
    const freshCache = new ParseCache();
    const want = validate(fresh, 'haproxy', settings, freshCache);
    assert.deepStrictEqual(
      got,
      want,
      `${name}: seed ${seed} step ${k} (settings ${JSON.stringify(settings)}) differs from a fresh validation`,
    );
    // the navigation entities (per section, taken over for the sections the edit did not touch)
    assert.deepStrictEqual(
      haproxyNavEntities(cache.get(doc, 'haproxy') as HaproxyFile),
      haproxyNavEntities(freshCache.get(fresh, 'haproxy') as HaproxyFile),
      `${name}: seed ${seed} step ${k}: navigation entities differ from a fresh run's`,
    );
    const memo = haproxyValidationMemo(cache.memoOf(doc.uri));
    if (k > 0 && memo) {
      computed += memo.computed;
      sections += memo.computed + memo.reused;
    }
  }
  return { computed, sections };
}

test('incremental validation equals a fresh one: every HAProxy corpus file, 10 chained random edits each', needsCorpus, () => {
  const files = readdirSync(corpusDir)
    .filter((f) => !f.endsWith('.md'))
    .sort();
  assert.ok(files.length > 100, `corpus at ${corpusDir}`);
  let seed = SEED;
  let computed = 0;
  let sections = 0;
  for (const f of files) {
    const n = chain(f, readFileSync(join(corpusDir, f), 'utf8'), seed++, 10);
    computed += n.computed;
    sections += n.sections;
  }
  // random edits land anywhere, so most sections of a file are taken over from its previous version
  assert.ok(computed < sections * 0.5, `sections computed again: ${computed} of ${sections}`);
});

test('incremental validation equals a fresh one: a generated 5,000-line file, typed into and edited at random', () => {
  const text: string = haproxyConfig({ lines: 5000 });
  const lines = text.split('\n');
  const at = lines.findIndex((l, i) => i > lines.length / 2 && l.startsWith('backend ')) + 1;
  // typing a line in the middle: only the section typed into is checked again
  const doc = TextDocument.create('file:///incremental/typed.cfg', 'haproxy', 1, text);
  const cache = new ParseCache();
  validate(doc, 'haproxy', {}, cache);
  const word = '    timeout server 30s';
  for (let n = 1; n <= word.length; n++) {
    const l = lines.slice();
    l.splice(at, 0, word.slice(0, n));
    const next = l.join('\n');
    TextDocument.update(doc, [{ text: next }], doc.version + 1);
    const got = validate(doc, 'haproxy', {}, cache);
    assert.deepStrictEqual(got, validate(TextDocument.create(doc.uri, 'haproxy', doc.version, next), 'haproxy', {}), `typing step ${n}`);
    const memo = haproxyValidationMemo(cache.memoOf(doc.uri))!;
    assert.equal(memo.computed, 1, `typing step ${n}: ${memo.computed} sections computed, ${memo.reused} reused`);
  }
  for (let s = 0; s < 3; s++) chain('generated-5000.cfg', text, SEED + 5000 + s, 12);
});

test('incremental validation equals a fresh one when several re-parses run between two validations (the sections they moved)', () => {
  const files = (corpusThere ? readdirSync(corpusDir) : []).filter((f, i) => !f.endsWith('.md') && i % 3 === 0).sort();
  let seed = SEED + 9000;
  const texts = files.map((f) => ({ name: f, text: readFileSync(join(corpusDir, f), 'utf8') }));
  texts.push({ name: 'generated-1500.cfg', text: haproxyConfig({ lines: 1500 }) });
  for (const { name, text: start } of texts) {
    const r = rng(seed++);
    const settings = SETTINGS[seed % SETTINGS.length];
    const uri = `file:///incremental/between/${name}`;
    let text = start;
    const doc = TextDocument.create(uri, 'haproxy', 1, text);
    const cache = new ParseCache();
    for (let k = 0; k < 6; k++) {
      // versions parsed (as completion or hover would) but not validated
      const between = Math.floor(r() * 3);
      for (let b = 0; b <= between; b++) {
        text = edit(text, r);
        TextDocument.update(doc, [{ text }], doc.version + 1);
        if (b < between) cache.get(doc, 'haproxy');
      }
      const got = validate(doc, 'haproxy', settings, cache);
      const fresh = TextDocument.create(uri, 'haproxy', doc.version, text);
      const freshCache = new ParseCache();
      const want = validate(fresh, 'haproxy', settings, freshCache);
      assert.deepStrictEqual(got, want, `${name}: seed ${seed - 1} step ${k} differs from a fresh validation`);
      assert.deepStrictEqual(
        haproxyNavEntities(cache.get(doc, 'haproxy') as HaproxyFile),
        haproxyNavEntities(freshCache.get(fresh, 'haproxy') as HaproxyFile),
        `${name}: seed ${seed - 1} step ${k}: navigation entities differ from a fresh run's`,
      );
    }
  }
});
