import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusRoot } from '../corpusRoot';
import { parseHaproxy } from '../../server/src/languages/haproxy/parser';
import { addressesOf, allStatements, findNodeAt, keywordName, walk } from '../../server/src/languages/haproxy/ast';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fixture } from './helpers';
// @ts-expect-error a plain .mjs script without type declarations
import { haproxyConfig } from '../../scripts/gen-large-config.mjs';

test('sections with names, header and body offsets', () => {
  const text = 'global\n  maxconn 10\n\nfrontend web\n  bind :80\nbackend app\n  server s1 127.0.0.1:8080\n';
  const f = parseHaproxy(text);
  assert.deepEqual(
    f.sections.map((s) => [s.keyword, s.name?.value]),
    [
      ['global', undefined],
      ['frontend', 'web'],
      ['backend', 'app'],
    ],
  );
  const fe = f.sections[1];
  assert.equal(text.slice(fe.headerStart, fe.headerEnd), 'frontend web');
  assert.equal(text.slice(fe.bodyStart, fe.bodyEnd), '  bind :80\n');
  assert.equal(fe.statements[0].keyword?.value, 'bind');
  assert.equal(f.errors.length, 0);
});

test('quotes and escapes as HAProxy reads them', () => {
  const f = parseHaproxy(`global\n  x 'a\\ b' "c\\"d" e\\ f "\${HOME}/x" '\${NOPE}' a"b c"d \\#x "\\x41"\n`);
  const w = f.sections[0].statements[0].args;
  assert.deepEqual(
    w.map((x) => x.value),
    ['a\\ b', 'c"d', 'e f', '${HOME}/x', '${NOPE}', 'ab cd', '#x', 'A'],
  );
  assert.deepEqual(w[3].envVars, ['HOME']);
  assert.equal(w[4].envVars, undefined, 'single quotes do not expand variables');
  assert.equal(w[0].quoted, true);
  assert.equal(w[2].quoted, false);
});

test('`#` starts a comment outside quotes only; comments are kept', () => {
  const f = parseHaproxy('global\n  log "a#b" local0 # trailing\n# alone\n');
  const st = f.sections[0].statements[0];
  assert.deepEqual(
    st.args.map((w) => w.value),
    ['a#b', 'local0'],
  );
  assert.equal(st.comment?.text, ' trailing');
  assert.equal(f.comments.length, 2);
});

test('unmatched quote is a syntax issue, parsing goes on', () => {
  const f = parseHaproxy('global\n  log "oops\nfrontend x\n  bind :80\n');
  assert.equal(f.errors.length, 1);
  assert.match(f.errors[0].message, /unmatched quote/);
  assert.equal(f.sections.length, 2);
});

test('conditions: terms, negation, or-groups, anonymous ACLs', () => {
  const f = parseHaproxy('frontend f\n  http-request deny if a !b || { src 10.0.0.0/8 } or ! { path_beg /x }\n');
  const st = f.sections[0].statements[0];
  assert.deepEqual(
    st.args.map((w) => w.value),
    ['deny'],
  );
  const c = st.condition!;
  assert.equal(c.keyword, 'if');
  assert.equal(c.groups.length, 3);
  assert.deepEqual(
    c.groups[0].map((t) => [t.kind, t.name, t.negated]),
    [
      ['acl', 'a', false],
      ['acl', 'b', true],
    ],
  );
  assert.equal(c.groups[1][0].kind, 'anonymous');
  assert.equal(c.groups[1][0].sample?.fetch, 'src');
  assert.equal(c.groups[2][0].negated, true);
  assert.equal(c.groups[2][0].sample?.fetch, 'path_beg');
});

test('broken conditions are reported', () => {
  assert.equal(parseHaproxy('frontend f\n  use_backend b if { src 1.2.3.4\n').errors.length, 1);
  assert.equal(parseHaproxy('frontend f\n  use_backend b if\n').errors.length, 1);
  assert.equal(parseHaproxy('frontend f\n  use_backend b if a ||\n').errors.length, 1);
});

test('sample expressions: fetch, args, converters, %[...] in log-format words', () => {
  const f = parseHaproxy(
    'frontend f\n  acl h req.hdr(host),lower,map_str(/etc/m.map,def) -m str x\n  http-request set-header X %[req.hdr(host),lower]-%[src]\n',
  );
  const [acl, rule] = f.sections[0].statements;
  assert.equal(acl.acl?.name.value, 'h');
  const s = acl.acl!.sample!;
  assert.equal(s.fetch, 'req.hdr');
  assert.deepEqual(s.args, ['host']);
  assert.deepEqual(
    s.converters.map((c) => [c.name, c.args]),
    [
      ['lower', []],
      ['map_str', ['/etc/m.map', 'def']],
    ],
  );
  assert.deepEqual(
    rule.samples.map((x) => x.fetch),
    ['req.hdr', 'src'],
  );
  assert.equal(f.text.slice(rule.samples[0].start, rule.samples[0].end), 'req.hdr(host),lower');
});

test('keyword families and prefixes', () => {
  const f = parseHaproxy('defaults\n  no option httplog\n  timeout client 5s\n');
  const [a, b] = f.sections[0].statements;
  assert.equal(a.prefix?.value, 'no');
  assert.equal(keywordName(a), 'option httplog');
  assert.equal(keywordName(b), 'timeout client');
});

test('findNodeAt finds section, statement, word, term and sample', () => {
  const fx = fixture('frontend f\n  acl a src 1.2.3.4\n  use_backend b if a { req.hdr(x),low<|>er -m found }\n');
  const f = parseHaproxy(fx.text);
  const at = findNodeAt(f, fx.cursorOffset!);
  assert.equal(at.section?.name?.value, 'f');
  assert.equal(at.statement?.keyword?.value, 'use_backend');
  assert.equal(at.word?.value, 'req.hdr(x),lower');
  assert.equal(at.term?.kind, 'anonymous');
  assert.equal(at.sample?.fetch, 'req.hdr');
  assert.equal(findNodeAt(f, 10_000).statement, undefined);
});

test('walk and allStatements visit every node once', () => {
  const f = parseHaproxy('global\n  daemon\nfrontend f\n  bind :80\n  mode http\n');
  const seen: string[] = [];
  walk(f, (n) => void seen.push(n.type));
  assert.deepEqual(seen, ['file', 'section', 'statement', 'statement', 'section', 'statement', 'statement', 'statement']);
  assert.equal(allStatements(f).length, 3);
});

test('statements before any section are orphans; no newline at end is fine; CRLF works', () => {
  const f = parseHaproxy('maxconn 1\r\nglobal\r\n  daemon');
  assert.equal(f.orphans.length, 1);
  assert.equal(f.sections[0].statements[0].keyword?.value, 'daemon');
  assert.equal(f.sections[0].statements[0].line, 2);
});

test('never throws on arbitrary input', () => {
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const alphabet = [
    'global',
    'frontend',
    ' ',
    '\n',
    '"',
    "'",
    '\\',
    '#',
    '{',
    '}',
    '!',
    '||',
    'if',
    '%[',
    ']',
    '(',
    ')',
    ',',
    'acl',
    'x',
    '\r',
    '\t',
    '${',
  ];
  for (let n = 0; n < 300; n++) {
    let s = '';
    const len = Math.floor(rnd() * 80);
    for (let i = 0; i < len; i++) s += alphabet[Math.floor(rnd() * alphabet.length)];
    const f = parseHaproxy(s);
    assert.equal(f.type, 'file');
    for (const sec of f.sections) assert.ok(sec.start <= sec.end);
  }
});

test('a sample expression continues over words after a trailing comma', () => {
  const f = parseHaproxy(
    'frontend f\n  acl a req.hdr(x), lower,  map(a,b) -m found\n  use-server s if { req.ssl_sni, lower -m end .com }\n',
  );
  const [acl, rule] = f.sections[0].statements;
  assert.deepEqual(
    acl.acl!.sample!.converters.map((c) => c.name),
    ['lower', 'map'],
  );
  assert.deepEqual(
    acl.acl!.rest.map((w) => w.value),
    ['-m', 'found'],
  );
  assert.deepEqual(
    rule.condition!.terms[0].sample!.converters.map((c) => c.name),
    ['lower'],
  );
});

test('addressesOf lists listening and connected addresses with their offsets', () => {
  const text =
    'frontend f\n  bind 127.0.0.1:80,:81 ssl crt /x.pem\nbackend b\n  server s1 10.0.0.1:8080 check\n  server-template w 3 app.local:80\npeers p\n  peer me 127.0.0.1:1024\n';
  const refs = addressesOf(parseHaproxy(text));
  assert.deepEqual(
    refs.map((r) => [r.role, r.statement.keyword?.value, text.slice(r.word.start, r.word.end)]),
    [
      ['listen', 'bind', '127.0.0.1:80,:81'],
      ['connect', 'server', '10.0.0.1:8080'],
      ['connect', 'server-template', 'app.local:80'],
      ['connect', 'peer', '127.0.0.1:1024'],
    ],
  );
});

// The tree's nodes are compact (docs/benchmarks.md, "Design notes"): one layout per node kind, so V8 gives every
// node of a kind one hidden class, and derived fields are prototype getters, not stored copies.
test('every node of a kind has the same own fields in the same order, and the getters agree with them', () => {
  const corpusDir = join(corpusRoot, 'haproxy');
  const texts = [
    haproxyConfig({ lines: 3000 }),
    'frontend f # c\n  acl a "x y" \'${Z}\' \\#\n  http-request deny if !a || { src 1.2.3.4 } b\n  log-format "%[src,lower] %{+Q}o"\n"unclosed\n',
  ];
  if (existsSync(corpusDir)) for (const f of readdirSync(corpusDir)) texts.push(readFileSync(join(corpusDir, f), 'latin1'));
  const layouts = new Map<string, Set<string>>();
  const see = (kind: string, node: object) => {
    let s = layouts.get(kind);
    if (!s) layouts.set(kind, (s = new Set()));
    s.add(Object.keys(node).join(','));
  };
  for (const text of texts) {
    const f = parseHaproxy(text);
    for (const sec of f.sections) {
      see('section', sec);
      assert.equal(sec.keyword, sec.header.keyword!.value);
      assert.equal(sec.end, Math.max(sec.headerEnd, sec.bodyEnd));
    }
    for (const st of [...f.orphans, ...f.sections.flatMap((s) => [s.header, ...s.statements])]) {
      see('statement', st);
      assert.equal(st.type, 'statement');
      assert.equal(st.start, st.words[0].start);
      assert.equal(st.end, st.words[st.words.length - 1].end);
      assert.equal(st.prefix, st.keyword === st.words[0] ? undefined : st.words[0]);
      for (const w of st.words) {
        see(Object.keys(w).length === 2 ? 'word' : 'escaped word', w);
        assert.equal(w.end, w.start + w.raw.length);
        assert.equal(text.slice(w.start, w.end), w.raw);
      }
      for (const s of st.samples) see('sample', s);
      if (st.condition) {
        see('condition', st.condition);
        for (const t of st.condition.terms) see('term', t);
      }
      if (st.acl) see('acl', st.acl);
    }
  }
  const one = (kind: string) => assert.equal(layouts.get(kind)?.size, 1, `${kind}: ${[...(layouts.get(kind) ?? [])].join(' | ')}`);
  for (const kind of ['section', 'statement', 'word', 'escaped word', 'sample', 'condition', 'term', 'acl']) one(kind);
  assert.deepEqual([...layouts.get('word')!], ['raw,start']);
});
