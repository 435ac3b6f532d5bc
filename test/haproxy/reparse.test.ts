// Re-parsing an edited HAProxy text from the previous parse (reparseHaproxy) must give exactly
// what a fresh parse gives: chained random edits of every HAProxy file of the corpus, a generated
// config typed into, and the server path (one workspace index over successive versions) giving
// the diagnostics of a fresh index.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusDir as sharedCorpusDir, corpusSkip } from '../corpusRoot';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { parseHaproxy, reparseHaproxy } from '../../server/src/languages/haproxy/parser';
import { completeHaproxy } from '../../server/src/languages/haproxy/completion';
import { hoverHaproxy } from '../../server/src/languages/haproxy/hover';
import type { HaproxyFile } from '../../server/src/languages/haproxy/ast';
import { createWorkspaceIndex, ParseCache, validateInWorkspace } from '../../server/src/service/languageService';
import { resolveSettings } from '../../server/src/service/settings';
// @ts-expect-error a plain .mjs script without type declarations
import { haproxyConfig } from '../../scripts/gen-large-config.mjs';
import { chainEdits, randomEdit, rng } from '../reparseChain';
import { nodeFileSystem } from '../../server/src/host/nodeHost';

const { dir: corpusDir, available: corpusThere } = sharedCorpusDir('haproxy');
const needsCorpus = { skip: corpusSkip(corpusThere) };

const ALPHABET = 'abcxyz_0123 \t\n\n"\'#\\${}().,:-!|';
const SNIPPETS = [
  'backend b\n',
  'frontend f\n  bind :80\n',
  '\n    server s1 127.0.0.1:80 check\n',
  'defaults\n',
  '.if version_atleast(2.4)\n',
  '.endif\n',
  '.else\n',
  '# c\n',
  '"',
  'acl a hdr(host) -i x\n',
  'use_backend b if a !{ path_beg /x }\n',
  '\r\n',
  'global\n',
];

const edit = (text: string, r: () => number): string => randomEdit(text, r, ALPHABET, SNIPPETS, 20);

function same(got: HaproxyFile, text: string, where: string): void {
  assert.deepStrictEqual(got, parseHaproxy(text), where);
}

function chain(text: string, seed: number, steps: number, name: string): void {
  chainEdits(text, seed, steps, edit, parseHaproxy, reparseHaproxy, same, name);
}

test('re-parse after an edit equals a fresh parse: every HAProxy corpus file, 12 chained random edits each', needsCorpus, () => {
  const files = readdirSync(corpusDir).filter((f) => !f.endsWith('.md'));
  assert.ok(files.length > 100, `corpus at ${corpusDir}`);
  let seed = 1;
  for (const f of files) chain(readFileSync(join(corpusDir, f), 'utf8'), seed++, 12, f);
});

test('re-parse: a generated config typed into in its middle, and long chains of edits', () => {
  const text: string = haproxyConfig({ lines: 1500 });
  const lines = text.split('\n');
  const at = lines.findIndex((l, i) => i > lines.length / 2 && l.startsWith('backend ')) + 1;
  const word = 'timeout server 30s';
  let prev = parseHaproxy(text);
  for (let k = 0; k < word.length * 2; k++) {
    const n = k < word.length ? k + 1 : 2 * word.length - k - 1;
    const l = lines.slice();
    l.splice(at, 0, `    ${word.slice(0, n)}`);
    const next = l.join('\n');
    const got = reparseHaproxy(prev, next);
    same(got, next, `typing step ${k}`);
    prev = got;
  }
  for (let s = 0; s < 4; s++) chain(text, 900 + s, 30, 'generated');
});

test('re-parse reuses the sections before the changed line (the same objects)', () => {
  const text = 'global\n  maxconn 10\n\nfrontend f\n  bind :80\n  default_backend b\n\nbackend b\n  server s 127.0.0.1:8080\n';
  const prev = parseHaproxy(text);
  const edited = text.replace('server s 127.0.0.1:8080', 'server s 127.0.0.1:8081');
  const next = reparseHaproxy(prev, edited);
  same(next, edited, 'reuse');
  assert.equal(next.sections[0], prev.sections[0]);
  assert.equal(next.sections[1], prev.sections[1]);
  assert.notEqual(next.sections[2], prev.sections[2]);
});

test('re-parse takes over the sections after the edit (the same objects, moved) and reads only the edited one', () => {
  const text =
    'global\n  maxconn 10\n\nfrontend f\n  bind :80 # c\n  default_backend b\n\nbackend b # hc\n  server s 127.0.0.1:8080\n  acl a req.hdr(host),lower -m str x\n  use-server s if a !{ path_beg /x }\n\nbackend c\n  server s 127.0.0.1:8080\n';
  const prev = parseHaproxy(text);
  const old = prev.sections.slice();
  const edited = text.replace('bind :80', 'bind :8080\n  bind :81');
  const next = reparseHaproxy(prev, edited);
  same(next, edited, 'moved');
  assert.equal(next.sections[0], old[0]);
  assert.notEqual(next.sections[1], old[1]);
  assert.equal(next.sections[2], old[2]);
  assert.equal(next.sections[3], old[3]);
  // the moved nodes hold the new text's offsets and lines
  assert.equal(next.sections[2].header.line, 8);
  assert.equal(
    edited.slice(next.sections[2].statements[1].samples[0].start, next.sections[2].statements[1].samples[0].end),
    'req.hdr(host),lower',
  );
  // `prev` changed with it: a second re-parse of it (another text) is a fresh parse, of the same text the tree made first
  const other = text.replace('maxconn 10', 'maxconn 20');
  same(reparseHaproxy(prev, other), other, 'second re-parse of a changed tree');
  assert.equal(reparseHaproxy(prev, edited), next);
  // and so on along a chain where every edit moves the sections after it, each version compared
  let cur = next;
  let t = edited;
  for (let k = 0; k < 6; k++) {
    t = t.replace('\nbackend c', `\n  # ${k}\nbackend c`);
    cur = reparseHaproxy(cur, t);
    same(cur, t, `chain step ${k}`);
  }
  assert.equal(cur.sections[3], old[3]);
});

test('re-parse: branching edits of one tree (two caches re-parsing the same version) each equal a fresh parse', needsCorpus, () => {
  const files = readdirSync(corpusDir).filter((f, i) => !f.endsWith('.md') && i % 4 === 0);
  let seed = 3000;
  for (const f of files) {
    const r = rng(seed++);
    let text = readFileSync(join(corpusDir, f), 'utf8');
    let prev = parseHaproxy(text);
    for (let k = 0; k < 6; k++) {
      // two different successors of one tree, then a third of the tree the first one made
      const a = edit(text, r);
      const b = edit(text, r);
      const ta = reparseHaproxy(prev, a);
      const tb = reparseHaproxy(prev, b);
      same(tb, b, `${f} seed ${seed - 1} step ${k} (second successor)`);
      same(ta, a, `${f} seed ${seed - 1} step ${k} (first successor, after the second)`);
      text = edit(a, r);
      prev = reparseHaproxy(ta, text);
      same(prev, text, `${f} seed ${seed - 1} step ${k}`);
    }
  }
});

test('completion and hover on re-parsed versions (sections taken over and moved) equal those on a fresh parse', () => {
  const lines = (haproxyConfig({ lines: 800 }) as string).split('\n');
  // ACLs declared and used in every backend (the per-section ACL items), a `use_backend` to complete at the end (backend items)
  const body = lines.map((l) => (l.startsWith('backend ') ? `${l}\n    acl is_api path_beg /api\n    http-request deny if is_api` : l));
  let t = `${body.join('\n')}\nfrontend z\n    bind :1\n    use_backend `;
  const r = rng(4242);
  let prev = parseHaproxy(t);
  const same = (next: HaproxyFile, fresh: HaproxyFile, doc: TextDocument, pos: { line: number; character: number }, where: string) => {
    assert.deepStrictEqual(completeHaproxy(doc, next, pos, {}), completeHaproxy(doc, fresh, pos, {}), `${where}: completion`);
    assert.deepStrictEqual(hoverHaproxy(doc, next, pos, {}), hoverHaproxy(doc, fresh, pos, {}), `${where}: hover`);
  };
  for (let k = 0; k < 25; k++) {
    // lines added or removed before most of the file, so the sections after move (offsets and lines)
    const at = Math.floor(r() * t.length * 0.3);
    const nl = t.indexOf('\n', at);
    t =
      r() < 0.6
        ? `${t.slice(0, nl + 1)}    timeout server 3${k}s\n${t.slice(nl + 1)}`
        : t.slice(0, nl + 1) + t.slice(t.indexOf('\n', nl + 1) + 1);
    const next = reparseHaproxy(prev, t);
    const fresh = parseHaproxy(t);
    const doc = TextDocument.create('file:///c/haproxy.cfg', 'haproxy', k + 1, t);
    const tl = t.split('\n');
    same(next, fresh, doc, doc.positionAt(t.length), `step ${k} at the end (backends)`);
    const uses = tl.map((l, i) => (l === '    http-request deny if is_api' ? i : -1)).filter((i) => i >= 0);
    for (let q = 0; q < 3; q++) {
      const line = uses[Math.floor(r() * uses.length)];
      same(next, fresh, doc, { line, character: 25 }, `step ${k} line ${line} (ACLs)`);
      const any = Math.floor(r() * tl.length);
      same(next, fresh, doc, { line: any, character: Math.min(tl[any].length, 4 + Math.floor(r() * 12)) }, `step ${k} line ${any}`);
    }
    prev = next;
  }
});

test('the server path: diagnostics of re-parsed versions through one index equal a fresh validation', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pt-reparse-'));
  try {
    const settings = resolveSettings({ nginx: {}, haproxy: { version: '2.6' } });
    const files = (corpusThere ? readdirSync(corpusDir) : []).filter((f) => !f.endsWith('.md'));
    const picked = files.filter((_, i) => i % 5 === 0).map((f) => readFileSync(join(corpusDir, f), 'utf8'));
    picked.push(haproxyConfig({ lines: 600 }));
    let seed = 7000;
    for (const start of picked) {
      const r = rng(seed++);
      let text = start;
      const path = join(dir, 'haproxy.cfg');
      writeFileSync(path, text);
      const uri = pathToFileURL(path).href;
      let doc = TextDocument.create(uri, 'haproxy', 1, text);
      const ws = createWorkspaceIndex({
        fs: nodeFileSystem,
        open: { get: (u: string) => (u === doc.uri ? doc : undefined), all: () => [doc] },
      });
      const cache = new ParseCache();
      for (let k = 0; k < 8; k++) {
        const got = validateInWorkspace(doc, 'haproxy', settings, ws, cache);
        const fresh = TextDocument.create(uri, 'haproxy', doc.version, text);
        const want = validateInWorkspace(
          fresh,
          'haproxy',
          settings,
          createWorkspaceIndex({ fs: nodeFileSystem, open: { get: (u) => (u === fresh.uri ? fresh : undefined), all: () => [fresh] } }),
        );
        assert.deepStrictEqual(got, want, `seed ${seed - 1} step ${k}`);
        text = edit(text, r);
        doc = TextDocument.create(uri, 'haproxy', doc.version + 1, text);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
