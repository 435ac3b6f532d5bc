// Re-parsing an edited text from the previous parse (reparseNginx) must give exactly what a fresh
// parse gives: random edits, chained as typing chains them, over every nginx file of the corpus,
// generated configs and hand-picked tricky texts; the tree, the comments and the errors compared
// whole (node:assert's deep equality, offsets included).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusDir as sharedCorpusDir, corpusSkip } from '../corpusRoot';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseNginx, reparseNginx } from '../../server/src/languages/nginx/parser';
import type { NginxFile } from '../../server/src/languages/nginx/ast';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { createWorkspaceIndex, ParseCache, validateInWorkspace } from '../../server/src/service/languageService';
import { resolveSettings } from '../../server/src/service/settings';
// @ts-expect-error a plain .mjs script without type declarations
import { nginxConfig } from '../../scripts/gen-large-config.mjs';
import { chainEdits, randomEdit, rng } from '../reparseChain';
import { nodeFileSystem } from '../../server/src/host/nodeHost';

const { dir: corpusDir, available: corpusThere } = sharedCorpusDir('nginx');
const needsCorpus = { skip: corpusSkip(corpusThere) };

// what typing brings: letters, blanks, every character nginx's reader treats specially
const ALPHABET = 'abcdefgxyz_0123 \t\n;;{{}}"\'#\\$.:/=';
const SNIPPETS = [
  'proxy_pass http://a;',
  'server {',
  '}',
  'location / {\n',
  '"',
  "'",
  '# note\n',
  'content_by_lua_block { a = "}" }',
  '\\',
  '${x}',
  ';',
  'map $a $b {\n  x y;\n}\n',
  // blocks without a name and stray braces: the grammar keeps their statements but not their braces
  '{',
  '{ a; }',
  ' } ',
];
const edit = (text: string, r: () => number): string => randomEdit(text, r, ALPHABET, SNIPPETS, 12);

function same(got: NginxFile, text: string, where: string): void {
  const want = parseNginx(text);
  assert.equal(got.text, text, where);
  assert.deepStrictEqual(got.directives, want.directives, `${where}: directives`);
  assert.deepStrictEqual(got.comments, want.comments, `${where}: comments`);
  assert.deepStrictEqual(got.errors, want.errors, `${where}: errors`);
}

function chain(text: string, seed: number, steps: number, name: string): void {
  chainEdits(text, seed, steps, edit, parseNginx, reparseNginx, same, name);
}

test('re-parse after an edit equals a fresh parse: every corpus file, 12 chained random edits each', needsCorpus, () => {
  const files = readdirSync(corpusDir).filter((f) => !f.endsWith('.md'));
  assert.ok(files.length > 100, `corpus at ${corpusDir}`);
  let seed = 1;
  for (const f of files) chain(readFileSync(join(corpusDir, f), 'utf8'), seed++, 12, f);
});

test('re-parse after an edit equals a fresh parse: a generated config, typing in its middle', () => {
  const text: string = nginxConfig({ lines: 2000 });
  const r = rng(7);
  let prev = parseNginx(text);
  let cur = text;
  // type and erase a directive on a new line in the middle, as the editing benchmark does
  const at = cur.indexOf('    server {', cur.length >> 1) + '    server {\n'.length;
  cur = `${cur.slice(0, at)}        \n${cur.slice(at)}`;
  const word = 'proxy_read_timeout 30s;';
  for (let k = 0; k < word.length * 2; k++) {
    const n = k < word.length ? k + 1 : 2 * word.length - k - 1;
    const next = `${cur.slice(0, at + 8)}${word.slice(0, n)}${cur.slice(at + 8)}`;
    const got = reparseNginx(prev, next);
    same(got, next, `typing step ${k}`);
    prev = got;
  }
  chain(text, Math.floor(r() * 1e6), 40, 'generated');
});

test('re-parse: tricky texts (quotes, raw Lua bodies, entry blocks, stray braces, comments)', () => {
  const texts = [
    'http {\n  server {\n    listen 80;\n    location / { return 200 "a;b}"; }\n  }\n}\n',
    'http { map $a $b { default 0; ~x 1; } server { content_by_lua_block { ngx.say("}") } } }',
    '# top\nevents { worker_connections 1024; } # after\nhttp { include a/*.conf; }\n',
    'a "unterminated\nb;\n',
    'server { listen 80 }\n} extra;\n{ nameless }\n',
    'http {\n  server { listen 1; }\n  server { listen 2; }\n  server { listen 3; }\n}',
  ];
  let seed = 100;
  for (const t of texts) for (let k = 0; k < 30; k++) chain(t, seed++, 8, JSON.stringify(t.slice(0, 20)));
});

test('re-parse reuses the statements before the change (the same objects) and reads the rest anew', () => {
  const text = 'http {\n  server { listen 1; }\n  server { listen 2; }\n}\n';
  const prev = parseNginx(text);
  const edited = text.replace('listen 2;', 'listen 22;');
  const next = reparseNginx(prev, edited);
  same(next, edited, 'reuse');
  const [oldHttp, newHttp] = [prev.directives[0], next.directives[0]];
  assert.notEqual(newHttp, oldHttp, 'the block holding the change is rebuilt');
  assert.equal(newHttp.block!.children[0], oldHttp.block!.children[0], 'the server before the change is reused');
  assert.notEqual(newHttp.block!.children[1], oldHttp.block!.children[1]);
});

test('re-parse takes over the statements after the change too, moved to their new offsets', () => {
  const text = 'http {\n  server { listen 1; }\n  server { listen 2; }\n  server { listen 3; } # three\n}\nevents { }\n';
  const prev = parseNginx(text);
  const [oldHttp, oldEvents] = prev.directives;
  const oldThird = oldHttp.block!.children[2];
  const edited = text.replace('listen 2;', 'listen 22;');
  const next = reparseNginx(prev, edited);
  same(next, edited, 'tail');
  const newHttp = next.directives[0];
  assert.equal(newHttp.block!.children[2], oldThird, 'the server after the change is the same object');
  assert.equal(next.directives[1], oldEvents, 'and so is the statement after the enclosing block');
  assert.equal(oldThird.start, edited.indexOf('server { listen 3;'), 'moved to its offset in the new text');
  assert.equal(next.comments[0].start, edited.indexOf('# three'));
  // typing a brace that closes the block early: the statements after it are read again
  const closed = edited.replace('listen 22;', 'listen 22; }');
  same(reparseNginx(next, closed), closed, 'a brace typed');
});

test('re-parse: a block without a name before the change keeps its closing brace in the tail', () => {
  // the grammar reports the nameless block at its `{` and keeps its statements in the enclosing
  // list, so the tree holds no statement for its `}`: a tail taken over would lose that brace
  const text = 'http {\n  server {\n    a 1;\n    {\n    b 2;\n    c 3;\n    }\n  }\n}\n';
  const prev = parseNginx(text);
  assert.ok(prev.errors.some((e) => e.message === 'unexpected "{"'));
  const edited = text.replace('{\n    b 2;\n', '');
  same(reparseNginx(prev, edited), edited, 'the nameless block removed');
  const typed = text.replace('a 1;', 'a 11;');
  same(reparseNginx(parseNginx(text), typed), typed, 'an edit before it');
});

test('a tree re-parsed once answers the same text with its successor and any other text with a fresh parse', () => {
  const text = 'http {\n  server { listen 1; }\n  server { listen 2; }\n  server { listen 3; }\n}\n';
  const prev = parseNginx(text);
  const a = text.replace('listen 2;', 'listen 22;');
  const first = reparseNginx(prev, a);
  assert.equal(reparseNginx(prev, a), first, 'the same text: the same tree (the parse cache and the index share it)');
  const b = text.replace('listen 1;', 'listen 11;');
  same(reparseNginx(prev, b), b, 'another text from the same tree');
  const c = a.replace('listen 3;', 'listen 33;');
  const second = reparseNginx(first, c);
  same(second, c, 'the successor re-parsed');
  same(reparseNginx(prev, a), a, 'the first tree again, its successor re-parsed meanwhile');
});

test('the server path: diagnostics of re-parsed versions through one index equal a fresh validation', () => {
  // what the server does while typing: one workspace index and one parse cache over an open
  // document whose versions follow each other; every version's diagnostics (fixes included) must
  // be those of a fresh index, so nothing derived from a reused statement goes stale
  const settings = resolveSettings({ nginx: { version: '1.22.1' }, haproxy: {} });
  const files = (corpusThere ? readdirSync(corpusDir) : []).filter((f) => !f.endsWith('.md'));
  const picked = files.filter((_, i) => i % 5 === 0).map((f) => readFileSync(join(corpusDir, f), 'utf8'));
  picked.push(nginxConfig({ lines: 600 }));
  let seed = 5000;
  for (const start of picked) {
    const r = rng(seed++);
    let text = start;
    let doc = TextDocument.create('file:///work/typing/nginx.conf', 'nginx', 1, text);
    const open = { get: (u: string) => (u === doc.uri ? doc : undefined), all: () => [doc] };
    const ws = createWorkspaceIndex({ fs: nodeFileSystem, open });
    const cache = new ParseCache();
    for (let k = 0; k < 8; k++) {
      const got = validateInWorkspace(doc, 'nginx', settings, ws, cache);
      const fresh = TextDocument.create(doc.uri, 'nginx', doc.version, text);
      const want = validateInWorkspace(
        fresh,
        'nginx',
        settings,
        createWorkspaceIndex({ fs: nodeFileSystem, open: { get: (u) => (u === fresh.uri ? fresh : undefined), all: () => [fresh] } }),
      );
      assert.deepStrictEqual(got, want, `seed ${seed - 1} step ${k}`);
      text = edit(text, r);
      doc = TextDocument.create(doc.uri, 'nginx', doc.version + 1, text);
    }
  }
});
