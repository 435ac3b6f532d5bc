import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hoverText } from './helpers';

test('hover on a global keyword: syntax, section, versions, description and link', () => {
  const h = hoverText('global\n  nbp<|>roc 4\n', { haproxyVersion: '2.4' })!;
  assert.match(h, /\*\*nbproc \(global\)\*\*/);
  assert.match(h, /nbproc <number>/);
  assert.match(h, /removed in 2\.5/);
  assert.match(h, /nbthread/);
  assert.match(h, /https:\/\/docs\.haproxy\.org\/2\.4\/configuration\.html#3\.1-nbproc/);
});

test('hover on option and timeout names covers both words', () => {
  const h = hoverText('defaults\n  option http<|>log\n', { haproxyVersion: '2.6' })!;
  assert.match(h, /\*\*option httplog\*\*/);
  assert.match(h, /Allowed in: `defaults`, `frontend`, `listen`/);
  assert.match(h, /docs\.haproxy\.org\/2\.6\//);
  const t = hoverText('defaults\n  timeout cl<|>ient 5s\n')!;
  assert.match(t, /\*\*timeout client\*\*/);
  assert.match(t, /inactivity/);
});

test('hover on newer keywords says since when', () => {
  assert.match(hoverText('defaults\n  option https<|>log\n')!, /since HAProxy 2\.5/);
  assert.match(hoverText('crt-st<|>ore s\n')!, /since HAProxy 3\.0/);
});

test('hover on fetches, converters, actions, bind/server options, ACLs and backends', () => {
  assert.match(hoverText('frontend f\n  http-request set-header X %[req.h<|>dr(host),lower]\n')!, /req\.hdr \(sample fetch/);
  assert.match(hoverText('frontend f\n  http-request set-header X %[req.hdr(host),lo<|>wer]\n')!, /lower \(converter\)/);
  assert.match(hoverText('frontend f\n  http-request set-h<|>eader X y\n')!, /set-header \(action\)/);
  assert.match(hoverText('frontend f\n  bind :443 ssl cr<|>t /x.pem\n')!, /crt \(bind option\)/);
  assert.match(hoverText('backend b\n  server s 1.2.3.4:80 ch<|>eck\n')!, /check \(server option\)/);
  assert.match(hoverText('frontend f\n  acl api path_beg /api\n  use_backend b if a<|>pi\n')!, /Declared on line 2/);
  assert.match(hoverText('frontend f\n  use_backend b if METH_G<|>ET\n')!, /predefined ACL/);
  assert.match(hoverText('frontend f\n  use_backend a<|>pp\nbackend app\n')!, /Declared on line 3/);
});

test('no hover on blanks, comments or unknown words', () => {
  assert.equal(hoverText('global\n  <|>\n'), undefined);
  assert.equal(hoverText('global\n  # max<|>conn\n'), undefined);
  assert.equal(hoverText('global\n  foo<|>bar\n'), undefined);
});
