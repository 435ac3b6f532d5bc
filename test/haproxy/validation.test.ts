import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { codes, diagnose, textOf } from './helpers';
import { applyEdits } from '../../server/src/core/rules';
import type { DiagnosticData } from '../../server/src/core/rules';

const BASE = `defaults
  mode http
  timeout connect 5s
  timeout client 30s
  timeout server 30s
`;

test('a clean config has no diagnostics', () => {
  const { diags } = diagnose(
    `global
  maxconn 1000
  nbthread 2
  log stdout format raw local0
${BASE}frontend web
  bind :80
  bind :443 ssl crt /etc/ssl/x.pem alpn h2,http/1.1
  acl is_api path_beg /api
  http-request set-header X-Host %[req.hdr(host),lower] if is_api
  http-request deny if { src 10.0.0.0/8 } !is_api METH_POST
  use_backend api if is_api || { hdr(host) -i api.example.com }
  use_backend %[req.hdr(host),lower,map(/etc/haproxy/hosts.map,app)]
  default_backend app
backend api
  balance roundrobin
  server a1 127.0.0.1:8081 check inter 2s fall 3 rise 2 weight 10
backend app
  default-server check maxconn 100
  server a2 127.0.0.1:8082
`,
    { haproxyVersion: '2.6' },
  );
  assert.deepEqual(
    diags.map((d) => `${d.code}: ${d.message}`),
    [],
  );
});

test('unknown keyword with did-you-mean and a replace fix', () => {
  const { f, diags } = diagnose(`global\n  <|maxconnn|> 10\n`);
  assert.deepEqual(codes(diags), ['haproxy/unknown-keyword']);
  assert.equal(diags[0].severity, 1);
  assert.match(diags[0].message, /did you mean 'maxconn'/);
  assert.equal(textOf(f, diags[0]), f.text.slice(f.ranges[0].start, f.ranges[0].end));
  const fix = (diags[0].data as DiagnosticData).fixes![0];
  assert.equal(applyEdits(f.doc, fix.edits), 'global\n  maxconn 10\n');
});

test('unknown option and timeout kinds', () => {
  const { diags } = diagnose(`${BASE}  option forwardfr\n  timeout clinet 5s\n`);
  assert.deepEqual(codes(diags), ['haproxy/unknown-keyword', 'haproxy/unknown-keyword']);
  assert.match(diags[0].message, /did you mean 'forwardfor'/);
  assert.match(diags[1].message, /did you mean 'client'/);
});

test('nbproc: fine in 2.4, removed in 2.5 with nbthread as the replacement', () => {
  const text = 'global\n  nbproc 4\n';
  assert.deepEqual(codes(diagnose(text, { haproxyVersion: '2.4' }).diags), []);
  const { f, diags } = diagnose(text, { haproxyVersion: '2.6' });
  assert.deepEqual(codes(diags), ['haproxy/removed-keyword']);
  assert.match(diags[0].message, /removed in HAProxy 2\.5: use `nbthread`/);
  const fix = (diags[0].data as DiagnosticData).fixes![0];
  assert.equal(applyEdits(f.doc, fix.edits), 'global\n  nbthread 4\n');
  assert.deepEqual(codes(diagnose(text).diags), ['haproxy/removed-keyword'], 'no version: judged as the newest');
});

test('splice lines and `no log` in global are not keywords; the fix moves them to defaults as options', () => {
  const { f, diags } = diagnose(`global\n  splice request\n  splice auto\n  no log\n${BASE}`);
  assert.deepEqual(codes(diags), ['haproxy/unknown-keyword', 'haproxy/unknown-keyword', 'haproxy/unknown-keyword']);
  assert.deepEqual(
    diags.map((d) => d.severity),
    [1, 1, 3],
    'HAProxy accepts `no log` in global (it drops the global log targets)',
  );
  assert.match(diags[2].message, /only removes the global log targets/);
  assert.match(diags[0].message, /option splice-request/);
  assert.match(diags[1].message, /option splice-auto/);
  const fix = (diags[1].data as DiagnosticData).fixes![0];
  const fixed = applyEdits(f.doc, fix.edits);
  assert.equal(
    fixed,
    `global\n  splice request\n  no log\ndefaults\n  option splice-auto\n  mode http\n  timeout connect 5s\n  timeout client 30s\n  timeout server 30s\n`,
  );
  const again = diagnose(fixed).diags.map((d) => d.message);
  assert.equal(again.length, 2, 'the moved line is valid where it landed');
});

test('keyword not allowed here: error in defaults, ignored warning in a backend', () => {
  const { diags } = diagnose(`${BASE}  bind :80\nbackend b\n  bind :81\n  server s 127.0.0.1:1\n`);
  assert.deepEqual(codes(diags), ['haproxy/not-allowed-here', 'haproxy/ignored-here']);
  assert.deepEqual(
    diags.map((d) => d.severity),
    [1, 2],
  );
  const g = diagnose(`frontend f\n  nbthread 4\n  bind :80\n  timeout client 1s\n`).diags;
  assert.deepEqual(codes(g), ['haproxy/not-allowed-here']);
  assert.match(g[0].message, /'global' keyword/);
});

test('named-defaults-only keywords in an anonymous defaults section', () => {
  const { diags } = diagnose(`defaults\n  http-response set-header X y\n`);
  assert.deepEqual(codes(diags), ['haproxy/not-allowed-here']);
  assert.deepEqual(codes(diagnose(`defaults d\n  http-response set-header X y\n`).diags), []);
});

test('version awareness: newer keyword, option, section, bind option', () => {
  const text = `${BASE}  option httpslog\ncrt-store s\n  load crt a.pem\n`;
  const at24 = diagnose(text, { haproxyVersion: '2.4' }).diags;
  assert.deepEqual(codes(at24), ['haproxy/needs-newer-version', 'haproxy/needs-newer-version']);
  assert.match(at24[0].message, /needs HAProxy >= 2\.5/);
  assert.match(at24[1].message, /'crt-store' section needs HAProxy >= 3\.0/);
  assert.deepEqual(codes(diagnose(text, { haproxyVersion: '3.0' }).diags), []);
  assert.deepEqual(codes(diagnose(text).diags), []);
  const srv = diagnose(`${BASE}backend b\n  server s 127.0.0.1:1 curves X25519\n`, { haproxyVersion: '2.6' }).diags;
  assert.deepEqual(codes(srv), ['haproxy/needs-newer-version']);
  assert.match(srv[0].message, /server option 'curves' needs HAProxy >= 2\.9/);
});

test('.if version_atleast blocks are judged at the target version', () => {
  const text = `global\n.if version_atleast(3.0)\n  ocsp-update.mode on\n.else\n  nbthread 2\n.endif\n`;
  assert.deepEqual(codes(diagnose(text, { haproxyVersion: '2.6' }).diags), []);
  assert.deepEqual(codes(diagnose(text, { haproxyVersion: '3.2' }).diags), []);
  const wrong = `global\n.if version_before(2.5)\n  nbproc 2\n.endif\n  nbproc 2\n`;
  assert.deepEqual(codes(diagnose(wrong, { haproxyVersion: '2.6' }).diags), ['haproxy/removed-keyword']);
});

test('invalid time and size values', () => {
  const { f, diags } = diagnose(
    `${BASE}  timeout queue <|30sec|>\nbackend b\n  stick-table type ip size <|1x|> expire <|5q|>\n  server s 127.0.0.1:1 check inter\n`,
  );
  assert.deepEqual(codes(diags), ['haproxy/invalid-time', 'haproxy/invalid-size', 'haproxy/invalid-time', 'haproxy/arg']);
  assert.equal(textOf(f, diags[0]), '30sec');
  assert.equal(textOf(f, diags[1]), '1x');
  assert.equal(textOf(f, diags[2]), '5q');
});

test('wrong arguments: global with arguments, frontend address on the header line, mode value, port range in log', () => {
  assert.deepEqual(codes(diagnose('global chroot /var/lib/haproxy\n').diags), ['haproxy/arg']);
  assert.deepEqual(codes(diagnose(`${BASE}frontend f :80\n`).diags), ['haproxy/arg']);
  assert.deepEqual(codes(diagnose(`${BASE}  mode htp\n`).diags), ['haproxy/arg']);
  assert.deepEqual(codes(diagnose('global\n  log 127.0.0.1:10001-10010 local0\n').diags), ['haproxy/arg']);
});

test('use_backend/default_backend must name an existing backend; dynamic names are skipped', () => {
  const { diags } = diagnose(
    `${BASE}frontend f\n  bind :80\n  use_backend %[req.hdr(host)]\n  use_backend apj if TRUE\n  default_backend app\nbackend api\n  server s 127.0.0.1:1\nlisten app\n  bind :81\n  server s 127.0.0.1:1\n`,
  );
  assert.deepEqual(codes(diags), ['haproxy/unknown-backend']);
  assert.match(diags[0].message, /did you mean 'api'/);
});

test('ACLs: predefined ones exist, undeclared or later-declared ones are errors', () => {
  const { diags } = diagnose(
    `${BASE}frontend f\n  bind :80\n  http-request deny if LOCALHOST METH_GET HTTP !TRUE\n  http-request deny if later\n  acl later src 1.2.3.4\n  http-request deny if nope || later\n`,
  );
  assert.deepEqual(codes(diags), ['haproxy/undeclared-acl', 'haproxy/undeclared-acl']);
  assert.match(diags[0].message, /before it is declared/);
  assert.match(diags[1].message, /'nope' is not declared/);
});

test('unknown fetches and converters, broken sample expressions', () => {
  const { diags } = diagnose(
    `${BASE}frontend f\n  bind :80\n  acl a req.hdrr(host) -m found\n  http-request set-header X %[src,lowr]\n  http-request add-header name %[hdr(arg))]\n  http-request add-header name %[(arg)]\n`,
  );
  assert.deepEqual(codes(diags), ['haproxy/unknown-fetch', 'haproxy/unknown-fetch', 'haproxy/syntax', 'haproxy/syntax']);
  assert.match(diags[0].message, /did you mean 'req.hdr'/);
  assert.match(diags[1].message, /converter 'lowr'; did you mean 'lower'/);
});

test('unknown rule actions, with suggestions from the rule set', () => {
  const { diags } = diagnose(`${BASE}frontend f\n  bind :80\n  http-request sett-header X y\n  tcp-request connection rejec\n`);
  assert.deepEqual(codes(diags), ['haproxy/unknown-keyword', 'haproxy/unknown-keyword']);
  assert.match(diags[0].message, /did you mean 'set-header'/);
  assert.match(diags[1].message, /did you mean 'reject'/);
});

test('duplicate proxies: same capability clashes, a frontend and a backend may share a name', () => {
  const text = `${BASE}frontend x\n  bind :80\n  default_backend x\nbackend x\n  server s 127.0.0.1:1\nbackend x\n  server s 127.0.0.1:1\nlisten x\n  bind :81\n`;
  // before 3.2 a frontend and a backend of one name are silent; the second backend and the listen clash
  const old = diagnose(text, { haproxyVersion: '3.0' }).diags;
  assert.deepEqual(
    old.map((d) => [d.range.start.line, d.code, d.severity]),
    [
      [10, 'haproxy/duplicate-proxy', 1],
      [12, 'haproxy/duplicate-proxy', 1],
    ],
  );
  // HAProxy 3.2.26 warns at each backend that has the same name as a frontend (probed: data/versions.json)
  const now = diagnose(text, { haproxyVersion: '3.2' }).diags;
  assert.deepEqual(
    now.map((d) => [d.range.start.line, d.code, d.severity]),
    [
      [8, 'haproxy/duplicate-proxy', 2],
      [10, 'haproxy/duplicate-proxy', 1],
      [10, 'haproxy/duplicate-proxy', 2], // 3.2.26 gives the second backend both: the clash and the warning
      [12, 'haproxy/duplicate-proxy', 1],
    ],
  );
  assert.match(now[0].message, /backend 'x' has the same name as the frontend on line 6; HAProxy 3\.2 warns/);
});

test('mode mismatch between an http frontend and a tcp backend', () => {
  const { diags } = diagnose(`${BASE}frontend f\n  bind :80\n  default_backend t\nbackend t\n  mode tcp\n  server s 127.0.0.1:1\n`);
  assert.deepEqual(codes(diags), ['haproxy/mode-mismatch']);
  const ok = diagnose(`${BASE}frontend f\n  mode tcp\n  bind :80\n  default_backend h\nbackend h\n  server s 127.0.0.1:1\n`).diags;
  assert.deepEqual(codes(ok), []);
});

test('missing timeouts warn (inherited ones count) and the fix adds them', () => {
  const { f, diags } = diagnose(`defaults\n  mode http\n  timeout client 5s\nbackend b\n  server s 127.0.0.1:1\n`);
  assert.deepEqual(codes(diags), ['haproxy/missing-timeout']);
  assert.equal(diags[0].severity, 2);
  assert.match(diags[0].message, /'timeout connect', 'timeout server'/);
  const fixed = applyEdits(f.doc, (diags[0].data as DiagnosticData).fixes![0].edits);
  const again = diagnose(fixed).diags;
  assert.deepEqual(codes(again), []);
  assert.match(fixed, /backend b\n  timeout connect 5s\n  timeout server 30s\n  server s/);
});

test('defaults with rules cannot be inherited by listen or (for connection rules) backend sections', () => {
  const t = `defaults d\n  mode tcp\n  timeout connect 1s\n  timeout client 1s\n  timeout server 1s\n  tcp-request inspect-delay 5s\n  tcp-request content accept\nlisten li from d\n  bind :80\n  server s 127.0.0.1:1\n`;
  assert.deepEqual(codes(diagnose(t).diags), ['haproxy/defaults-rules']);
});

test('suppression comments silence a rule on the next line', () => {
  const { diags } = diagnose(`global\n  # proxy-tuner-disable-next-line haproxy/unknown-keyword -- vendor build\n  maxconnn 10\n`);
  assert.deepEqual(codes(diags), []);
});

test('validation of a big config stays correct (maps built once)', () => {
  let text = BASE;
  for (let i = 0; i < 2000; i++) text += `backend b${i}\n  balance roundrobin\n  server s${i} 127.0.0.1:${1000 + (i % 60000)} check\n`;
  text += 'frontend f\n  bind :80\n' + Array.from({ length: 2000 }, (_, i) => `  use_backend b${i} if { path_beg /p${i} }\n`).join('');
  const doc = TextDocument.create('file:///big.cfg', 'haproxy', 1, text);
  const { diags } = diagnose(text);
  assert.ok(doc.lineCount > 8000);
  assert.deepEqual(codes(diags), []);
});

test('frontend without bind and HTTP log options in tcp mode (inherited from defaults) are warnings', () => {
  const { diags } = diagnose(
    `defaults d\n  mode http\n  option httplog\n  timeout connect 1s\n  timeout client 1s\n  timeout server 1s\nfrontend f\n  mode tcp\n  default_backend b\nbackend b\n  mode tcp\n  server s 127.0.0.1:1\n`,
  );
  assert.deepEqual(codes(diags), ['haproxy/no-bind', 'haproxy/http-option-in-tcp']);
  assert.deepEqual(
    diags.map((d) => d.severity),
    [2, 2],
  );
  assert.equal(diags[1].range.start.line, 2, 'reported where the option is written');
});

test('references to resolvers, caches, userlists, peers, servers and stick tables must exist', () => {
  const { diags } = diagnose(
    `${BASE}resolvers dns\n  nameserver ns1 127.0.0.1:53\ncache c1\n  total-max-size 4\nuserlist admins\n  user a insecure-password x\nfrontend f\n  bind :80\n  http-request track-sc0 src table rates\n  http-request track-sc1 src table ratez\n  http-request auth if !{ http_auth(admin) }\n  http-request cache-use c2\n  default_backend b\nbackend rates\n  stick-table type ip size 1k expire 10s store http_req_rate(10s)\nbackend b\n  use-server s2 if TRUE\n  server s1 127.0.0.1:1 resolvers dnz\n  http-request track-sc0 src\n`,
  );
  assert.deepEqual(
    diags.map((d) => d.message),
    [
      "No stick table named 'ratez' (a proxy with a 'stick-table' line, or 'peers/table').",
      "No 'userlist' section named 'admin'.",
      "No 'cache' section named 'c2'; did you mean 'c1'?",
      "No server named 's2' in backend 'b'.",
      "No 'resolvers' section named 'dnz'; did you mean 'dns'?",
      "'track-sc0' without 'table' needs a 'stick-table' in backend 'b'.",
    ],
  );
  assert.ok(diags.every((d) => d.code === 'haproxy/unknown-reference' && d.severity === 1));
});

test('counts read with atol(): a unit is a warning (16k is read as 16), garbage and extra words are errors', () => {
  const { diags } = diagnose(`global\n  tune.maxrewrite 16k\n  maxconn lots\n  nbthread 2 4\n`);
  assert.deepEqual(codes(diags), ['haproxy/invalid-size', 'haproxy/invalid-size', 'haproxy/arg']);
  assert.deepEqual(
    diags.map((d) => d.severity),
    [2, 1, 1],
  );
  assert.match(diags[0].message, /read as 16/);
});

// `haproxy -c` (test/rules/binaryClaims.test.ts): 2.6.12 and 3.0.11 crash on `tune.bufsize 32k`, 3.2.26 accepts it
test('tune.bufsize takes units from 3.1; before, a unit is fatal (read as bytes, a crash at start)', () => {
  const t = 'global\n  tune.bufsize 32k\n';
  for (const v of ['2.6', '3.0']) {
    const { diags } = diagnose(t, { haproxyVersion: v });
    assert.deepEqual(
      diags.map((d) => [d.code, d.severity]),
      [['haproxy/invalid-size', 1]],
    );
    assert.match(diags[0].message, /32768/);
  }
  assert.deepEqual(diagnose(t, { haproxyVersion: '3.2' }).diags, []);
  assert.deepEqual(codes(diagnose('global\n  tune.bufsize 32x\n', { haproxyVersion: '3.2' }).diags), ['haproxy/invalid-size']);
  assert.deepEqual(diagnose('global\n  tune.bufsize 32768\n', { haproxyVersion: '2.6' }).diags, []);
});

test('misplaced server lines are refused, other backend keywords in a frontend only ignored; options without arguments refuse extra words', () => {
  const { diags } = diagnose(`${BASE}frontend f\n  bind :80\n  server s 127.0.0.1:1\n  balance roundrobin\n  option dontlognull please\n`);
  assert.deepEqual(codes(diags), ['haproxy/not-allowed-here', 'haproxy/ignored-here', 'haproxy/arg']);
  assert.deepEqual(
    diags.map((d) => d.severity),
    [1, 2, 1],
  );
});

test('address prefixes are version-aware', () => {
  const t = `${BASE}frontend f\n  bind abnsz@sock\n  bind quic4@127.0.0.1:443 ssl crt /x.pem\n  default_backend b\nbackend b\n  server s ipv4@127.0.0.1:1\n`;
  const at26 = diagnose(t, { haproxyVersion: '2.6' }).diags;
  assert.deepEqual(
    at26.map((d) => d.message),
    ["Address prefix 'abnsz@' needs HAProxy >= 3.1 (judging for 2.6)."],
  );
  // QUIC binds exist since 2.6 in builds with QUIC (2.6.12 without it: "QUIC is not compiled in")
  assert.deepEqual(
    diagnose(t, { haproxyVersion: '2.4' }).diags.map((d) => d.message),
    ["Address prefix 'abnsz@' needs HAProxy >= 3.1 (judging for 2.4).", "Address prefix 'quic4@' needs HAProxy >= 2.6 (judging for 2.4)."],
  );
  assert.deepEqual(codes(diagnose(t).diags), []);
  assert.equal(diagnose(`${BASE}frontend f\n  bind foo@x\n`).diags[0].severity, 2);
});

test('log-format strings: known aliases pass, unknown ones are warnings, %% and %[...] are not aliases', () => {
  const { f, diags } = diagnose(
    `${BASE}frontend f\n  bind :80\n  log-format "%ci:%cp [%tr] %{+Q}r 100%% %[src] %<|xx|>"\n  http-request set-header X-Id %<|qq|>-%[rand]\n`,
  );
  assert.deepEqual(codes(diags), ['haproxy/log-format', 'haproxy/log-format']);
  assert.equal(textOf(f, diags[0]), 'xx');
  assert.equal(textOf(f, diags[1]), 'qq');
  assert.equal(diags[0].severity, 2);
});
