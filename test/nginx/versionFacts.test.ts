// The probed facts per version (server/src/{nginx,haproxy}/data/versions.json) as validation uses
// them, without the binaries: which version's binary speaks for a target, and the cases.
// (test/corpus/versionFacts.test.ts holds the same cases to the real binaries.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { nginxModule } from '../../server/src/languages/nginx/index';
import { haproxyModule } from '../../server/src/languages/haproxy/index';
import { probedFor, PROBED_VERSIONS } from '../../server/src/languages/nginx/data';
import { probedCheck } from '../../server/src/languages/haproxy/data';

function nginxErrors(body: string, version?: string): string[] {
  const text = `events {}\n${body}\n`;
  const doc = TextDocument.create('file:///t.conf', 'nginx', 1, text);
  return nginxModule
    .validate(doc, nginxModule.parse(text), { nginxVersion: version })
    .filter((d) => d.severity === 1)
    .map((d) => `${d.code}: ${d.message}`);
}

function haproxyErrors(text: string, version?: string): string[] {
  const doc = TextDocument.create('file:///t.cfg', 'haproxy', 1, text);
  return haproxyModule
    .validate(doc, haproxyModule.parse(text), { haproxyVersion: version })
    .filter((d) => d.severity === 1)
    .map((d) => `${d.code}: ${d.message}`);
}

test('a target is judged by its own branch, the oldest probed for older ones, both neighbours between, the docs beyond', () => {
  assert.deepEqual(PROBED_VERSIONS, ['1.22.1', '1.26.3', '1.30.6']);
  assert.deepEqual(probedFor('1.26.0'), ['1.26.3']);
  assert.deepEqual(probedFor('1.18.0'), ['1.22.1']);
  assert.deepEqual(probedFor('1.24.0'), ['1.22.1', '1.26.3']);
  assert.deepEqual(probedFor('1.29.7'), ['1.26.3', '1.30.6']);
  assert.deepEqual(probedFor('1.31.0'), []);
  assert.deepEqual(probedFor(undefined), []);
});

test('nginx: arity, values and parameters of the target version', () => {
  const ka = 'http { upstream u { server 127.0.0.1:1; keepalive 16 local; } }';
  assert.match(nginxErrors(ka, '1.22.1').join(), /arg-count/);
  assert.match(nginxErrors(ka, '1.26.3').join(), /arg-count/);
  assert.deepEqual(nginxErrors(ka, '1.30.6'), []);
  assert.deepEqual(nginxErrors(ka), []);
  const zero = 'http { upstream u { server 127.0.0.1:1; keepalive 0; } }';
  assert.match(nginxErrors(zero, '1.22.1').join(), /invalid value "0" in "keepalive"/);
  assert.deepEqual(nginxErrors(zero, '1.30.6'), []);
  const v2 = 'http { server { location / { proxy_http_version 2; proxy_pass http://127.0.0.1:2; } } }';
  assert.match(nginxErrors(v2, '1.26.3').join(), /invalid value "2"/);
  assert.deepEqual(nginxErrors(v2, '1.30.6'), []);
  const resolve = 'http { resolver 127.0.0.1; upstream u { zone u 64k; server localhost:1 resolve; } }';
  assert.match(nginxErrors(resolve, '1.26.3').join(), /"server \.\.\. resolve" is unknown to nginx 1\.26\.3; nginx 1\.30\.6 accepts it/);
  assert.deepEqual(nginxErrors(resolve, '1.30.6'), []);
  const sticky = 'http { upstream u { server 127.0.0.1:1; sticky cookie srv; } }';
  assert.match(nginxErrors(sticky, '1.22.1').join(), /"sticky" is unknown to nginx 1\.22\.1; nginx 1\.30\.6 knows it/);
  assert.deepEqual(nginxErrors(sticky, '1.30.6'), []);
  const geo = 'http { geo $g { volatile; default 1; } }';
  assert.match(nginxErrors(geo, '1.26.3').join(), /"volatile" in a "geo" block is unknown to nginx 1\.26\.3/);
  assert.deepEqual(nginxErrors(geo, '1.30.6'), []);
  // between two probed branches the documented version still counts: `http2` appeared in 1.25.1
  assert.match(nginxErrors('http { server { http2 on; } }', '1.24.0').join(), /needs nginx >= 1\.25\.1/);
  assert.deepEqual(nginxErrors('http { server { http2 on; } }', '1.25.3'), []);
  // removed: `ssl on` after 1.25.1
  assert.deepEqual(nginxErrors('http { server { ssl on; ssl_reject_handshake on; } }', '1.22.1'), []);
  assert.match(nginxErrors('http { server { ssl on; } }', '1.26.3').join(), /removed/);
});

test('nginx: what no version refuses is accepted at every target', () => {
  const cases = [
    'http { server { location / { mirror /a; mirror /b; } } }',
    'stream { server { listen 127.0.0.1:1; error_log stderr; proxy_pass 127.0.0.1:2; } }',
    'mail { server { listen 127.0.0.1:2; protocol smtp; error_log stderr; } }',
  ];
  for (const c of cases)
    for (const v of [undefined, '1.22.1', '1.26.3', '1.30.6', '1.31.0']) assert.deepEqual(nginxErrors(c, v), [], `${c} at ${v}`);
  const quic = 'http { server { listen 127.0.0.1:443 ssl; listen 127.0.0.1:443 quic; ssl_reject_handshake on; } }';
  for (const v of [undefined, '1.26.3', '1.30.6']) assert.deepEqual(nginxErrors(quic, v), [], `quic at ${v}`);
  // two TCP listens on one address stay a duplicate
  assert.match(
    nginxErrors('http { server { listen 127.0.0.1:443 ssl; listen 127.0.0.1:443; ssl_reject_handshake on; } }').join(),
    /a duplicate listen 127\.0\.0\.1:443/,
  );
});

test('HAProxy: stats show-modules, duplicate server names, program sections, backported converters', () => {
  const base = 'defaults\n  mode http\n  timeout client 1s\n  timeout server 1s\n  timeout connect 1s\n';
  const stats = `${base}listen l\n  bind 127.0.0.1:1\n  stats enable\n  stats show-modules\n  server s 127.0.0.1:2\n`;
  for (const v of [undefined, '2.6', '3.0.11', '3.2']) assert.deepEqual(haproxyErrors(stats, v), [], `show-modules at ${v}`);
  const dup = `${base}backend b\n  server s 127.0.0.1:1\n  server s 127.0.0.1:2\n`;
  for (const v of [undefined, '2.6', '3.2'])
    assert.match(haproxyErrors(dup, v).join(), /duplicate-server: backend 'b', another server named 's' was already defined at line 7/);
  assert.deepEqual(haproxyErrors(`${base}backend b\n  server s 127.0.0.1:1\n  server t 127.0.0.1:2\n`), []);
  const program = `global\n  master-worker\n${base}program p\n  command /bin/true\n`;
  assert.equal(probedCheck('program section', '3.0'), 'accepted');
  assert.equal(probedCheck('program section', '3.2.26'), 'refused');
  assert.deepEqual(haproxyErrors(program, '3.0'), []);
  assert.match(haproxyErrors(program, '3.2').join(), /'program' section is deprecated/);
  assert.deepEqual(haproxyErrors(program.replace('master-worker', 'master-worker\n  expose-deprecated-directives'), '3.2'), []);
  // has_ctl is documented since 3.5, but 3.2.26 registers it (a backport); 3.0.11 does not
  const conv = `${base}frontend f\n  bind 127.0.0.1:1\n  http-request set-var(txn.x) req.hdr(x),has_ctl\n  default_backend b\nbackend b\n  server s 127.0.0.1:2\n`;
  assert.deepEqual(haproxyErrors(conv, '3.2.26'), []);
  assert.match(haproxyErrors(conv, '3.0.11').join(), /has_ctl/);
});
