import { test } from 'node:test';
import assert from 'node:assert/strict';
import { haproxyModule } from '../../server/src/languages/haproxy/index';
import { fixture, labels } from './helpers';

test('section keywords at the top level', () => {
  const l = labels('<|>');
  for (const s of ['global', 'defaults', 'frontend', 'backend', 'listen', 'resolvers', 'peers', 'userlist']) assert.ok(l.includes(s), s);
});

test('global keywords, filtered by version', () => {
  const newest = labels('global\n  <|>\n');
  assert.ok(newest.includes('maxconn') && newest.includes('nbthread') && newest.includes('tune.bufsize'));
  assert.ok(!newest.includes('nbproc'), 'removed keyword not offered for the newest version');
  assert.ok(labels('global\n  <|>\n', { haproxyVersion: '2.4' }).includes('nbproc'));
  assert.ok(!labels('global\n  <|>\n', { haproxyVersion: '2.6' }).includes('ocsp-update.mode'));
  assert.ok(!newest.includes('option'), 'proxy keywords are not offered in global');
});

test('proxy keywords by section kind', () => {
  const fe = labels('frontend f\n  <|>\n');
  assert.ok(fe.includes('bind') && fe.includes('use_backend') && fe.includes('option') && fe.includes('timeout'));
  assert.ok(!fe.includes('server'), 'server is a backend keyword');
  const be = labels('backend b\n  <|>\n');
  assert.ok(be.includes('server') && be.includes('balance'));
  assert.ok(!be.includes('bind'));
});

test('option names and timeout kinds for the section', () => {
  const fe = labels('frontend f\n  option <|>\n');
  assert.ok(fe.includes('httplog') && fe.includes('forwardfor'));
  assert.ok(!fe.includes('httpchk'), 'httpchk is a backend option');
  const t = labels('backend b\n  timeout <|>\n');
  assert.ok(t.includes('connect') && t.includes('server') && t.includes('queue'));
  assert.ok(!t.includes('client'));
});

test('rule actions by rule set', () => {
  const hr = labels('frontend f\n  http-request <|>\n');
  assert.ok(hr.includes('set-header') && hr.includes('deny') && hr.includes('redirect'));
  const tc = labels('frontend f\n  tcp-request connection <|>\n');
  assert.ok(tc.includes('accept') && tc.includes('reject'));
  assert.ok(!tc.includes('set-header'));
});

test('bind and server options', () => {
  const b = labels('frontend f\n  bind :443 ssl <|>\n');
  assert.ok(b.includes('crt') && b.includes('alpn'));
  const s = labels('backend b\n  server s1 10.0.0.1:80 <|>\n');
  assert.ok(s.includes('check') && s.includes('inter') && s.includes('weight'));
  assert.deepEqual(labels('backend b\n  server <|>\n'), [], 'no options before the server name and address');
});

test('backend names after use_backend and default_backend', () => {
  assert.deepEqual(labels('frontend f\n  use_backend <|>\nbackend api\nlisten app\n  bind :1\nfrontend g\n').sort(), ['api', 'app']);
  assert.deepEqual(labels('frontend f\n  default_backend a<|>\nbackend api\n'), ['api']);
});

test('ACL names in conditions: declared before the cursor, then predefined ones', () => {
  const l = labels('frontend f\n  acl is_api path_beg /api\n  http-request deny if !<|>\n  acl later src 1.2.3.4\n');
  assert.equal(l[0], 'is_api');
  assert.ok(l.includes('METH_GET') && l.includes('TRUE'));
  assert.ok(!l.includes('later'));
});

test('sample fetches and converters in %[...], ACL criteria and anonymous ACLs', () => {
  const fetches = labels('frontend f\n  http-request set-header X %[req.<|>\n');
  assert.ok(fetches.includes('req.hdr') && fetches.includes('src'));
  const conv = labels('frontend f\n  http-request set-header X %[req.hdr(host),<|>\n');
  assert.ok(conv.includes('lower') && conv.includes('map'));
  assert.ok(!conv.includes('req.hdr'));
  const crit = labels('frontend f\n  acl a <|>\n');
  assert.ok(crit.includes('path_beg') && crit.includes('hdr'));
  const anon = labels('frontend f\n  http-request deny if { <|>\n');
  assert.ok(anon.includes('src') && anon.includes('path_beg'));
});

test('the completion replaces the word being typed', () => {
  const f = fixture('defaults\n  timeout cli<|>\n');
  const list = haproxyModule.complete(f.doc, haproxyModule.parse(f.text), f.cursor!, {});
  const it = list.items.find((i) => i.label === 'client')!;
  const edit = it.textEdit as { range: { start: { line: number; character: number } }; newText: string };
  assert.deepEqual(edit.range.start, { line: 1, character: 10 });
  assert.equal(edit.newText, 'client');
});

test('nothing inside comments; half-typed input never throws', () => {
  assert.deepEqual(labels('global\n  # max<|>\n'), []);
  for (const t of ['<|>"', 'frontend "<|>', 'frontend f\n  acl <|>', 'x { <|>', 'frontend f\n  use_backend b if { <|>'])
    assert.ok(Array.isArray(labels(t)));
});

test('log-format aliases after % in format strings', () => {
  const l = labels('frontend f\n  log-format "%ci:%<|>\n');
  assert.ok(l.includes('cp') && l.includes('Tr') && l.includes('ST'));
  assert.ok(labels('frontend f\n  log-format "%{+Q}<|>\n').includes('r'));
});

test('each answer has its own items and ranges: a caller changing one does not change the next', () => {
  const complete = (marked: string) => {
    const f = fixture(marked);
    return { f, items: haproxyModule.complete(f.doc, haproxyModule.parse(f.text), f.cursor!, {}).items };
  };
  const a = complete('backend b\n  server s1 10.0.0.1:80 ch<|>\n');
  const check = a.items.find((i) => i.label === 'check')!;
  const doc = (check.documentation as { value: string }).value;
  check.label = 'changed';
  check.detail = 'changed';
  const b = complete('backend b\n  server s1 10.0.0.1:80 check in<|>\n');
  const again = b.items.find((i) => i.label === 'check')!;
  assert.ok(again && !b.items.some((i) => i.label === 'changed'));
  assert.equal(again.detail, 'check');
  assert.equal((again.documentation as { value: string }).value, doc);
  const edit = b.items.find((i) => i.label === 'inter')!.textEdit as { range: Parameters<typeof b.f.doc.getText>[0]; newText: string };
  assert.equal(b.f.doc.getText(edit.range), 'in');
  assert.equal(edit.newText, 'inter');
});

test('shared documentation of a completion item cannot be changed by a caller', () => {
  const f = fixture('backend b\n  server s1 10.0.0.1:80 <|>\n');
  const items = haproxyModule.complete(f.doc, haproxyModule.parse(f.text), f.cursor!, {}).items;
  const doc = items.find((i) => i.label === 'check')!.documentation as { value: string };
  const before = doc.value;
  assert.throws(() => {
    doc.value = 'changed';
  }, TypeError);
  const again = haproxyModule.complete(f.doc, haproxyModule.parse(f.text), f.cursor!, {}).items;
  assert.equal((again.find((i) => i.label === 'check')!.documentation as { value: string }).value, before);
});
