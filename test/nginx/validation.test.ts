// nginx validation: each kind of finding, as nginx -t would judge, including version cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diagnose, found } from './helpers';
import { inferContext } from '../../server/src/languages/nginx/inferContext';
import { editDistance } from '../../server/src/core/editDistance';
import { parseNginx } from '../../server/src/languages/nginx/parser';

const wrap = (body: string) => `events {}\nhttp {\n${body}\n}\n`;

test('a valid configuration gets no diagnostics', () => {
  const { diags } = diagnose(
    wrap(`  map $http_upgrade $connection_upgrade { default upgrade; "" close; }
  upstream app { server 127.0.0.1:9000 max_fails=3 fail_timeout=10s; keepalive 16; }
  server {
    listen 127.0.0.1:8080 default_server;
    server_name ~^(?<sub>.+)\\.example\\.com$;
    client_max_body_size 10m;
    keepalive_timeout 65s 60;
    location / {
      proxy_pass http://app;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header X-Sub $sub;
      proxy_buffers 8 16k;
      gzip on;
    }
    location ~ ^/u/(\\d+)$ { return 200 "$1 $arg_x $http_user_agent"; }
  }`),
    { nginxVersion: '1.22.1' },
  );
  assert.deepEqual(diags, []);
});

test("syntax errors become nginx/syntax diagnostics at nginx's place", () => {
  const { f, diags } = diagnose('events {}\nhttp {\n  gzip on\n<|}|>\n');
  assert.deepEqual(found(f, diags, 'nginx/syntax'), [{ code: 'nginx/syntax', text: '}', message: 'unexpected "}"', severity: 1 }]);
});

test('unknown directive, with a "did you mean" fix', () => {
  const { f, diags } = diagnose(wrap('  server { <|proxy_bufering|> on; }'));
  const d = diags.find((x) => x.code === 'nginx/unknown-directive')!;
  assert.equal(f.doc.getText(d.range), 'proxy_bufering');
  assert.equal(d.message, 'unknown directive "proxy_bufering"; did you mean "proxy_buffering"?');
  const fixes = (d.data as { fixes: { edits: { newText: string }[] }[] }).fixes;
  assert.equal(fixes[0].edits[0].newText, 'proxy_buffering');
});

test('directive not allowed here: proxy_buffers in a stream server, http-only directive at top level', () => {
  const { f, diags } = diagnose(
    'events {}\nstream {\n  server {\n    listen 12345;\n    proxy_pass 127.0.0.1:80;\n    <|proxy_buffers|> 8 16k;\n  }\n}\n',
  );
  assert.deepEqual(found(f, diags), [
    {
      code: 'nginx/not-allowed-here',
      text: 'proxy_buffers',
      message: '"proxy_buffers" directive is not allowed here (stream/server)',
      severity: 1,
    },
  ]);
  const top = diagnose('events {}\ngzip on;\n', {}, 'main');
  assert.deepEqual(
    found(top.f, top.diags).map((d) => d.code),
    ['nginx/not-allowed-here'],
  );
});

test('stream and http share names: each is judged by its own module', () => {
  const { diags } = diagnose(
    'events {}\nstream {\n  upstream b { server 127.0.0.1:1; }\n  server { listen 1; proxy_pass b; proxy_timeout 5s; }\n}\nhttp {\n  upstream a { server 127.0.0.1:2; }\n  server { location / { proxy_pass http://a; } }\n}\n',
  );
  assert.deepEqual(diags, []);
});

test('wrong number of arguments', () => {
  const { f, diags } = diagnose(wrap('  server { location / { <|proxy_set_header Connection|> ; } }'));
  assert.deepEqual(found(f, diags), [
    {
      code: 'nginx/arg-count',
      text: 'proxy_set_header Connection',
      message: 'invalid number of arguments in "proxy_set_header" directive',
      severity: 1,
    },
  ]);
});

test('invalid flag, enum, size and time values', () => {
  const { f, diags } = diagnose(
    wrap(
      '  gzip <|yes|>;\n  ssl_protocols TLSv1.2 <|TLSv9|>;\n  client_max_body_size <|10q|>;\n  keepalive_timeout <|5x|>;\n  proxy_buffers <|eight|> 16k;\n  client_body_timeout 1m30s;',
    ),
  );
  const got = found(f, diags);
  assert.deepEqual(
    got.map((d) => [d.code, d.text]),
    [
      ['nginx/invalid-value', 'yes'],
      ['nginx/invalid-value', 'TLSv9'],
      ['nginx/invalid-value', '10q'],
      ['nginx/invalid-value', '5x'],
      ['nginx/invalid-value', 'eight'],
    ],
  );
  assert.equal(got[0].message, 'invalid value "yes" in "gzip" directive, it must be "on" or "off"');
});

test('values holding variables are not judged statically', () => {
  const { diags } = diagnose(wrap('  server { set $b 1m; location / { limit_rate $b; } }'));
  assert.deepEqual(diags, []);
});

test("if conditions: nginx's own checks", () => {
  const cases: [string, string][] = [
    ['if () { return 404; }', 'invalid condition ")"'],
    ['if ($uri { return 404; }', 'invalid condition "$uri"'],
    ['if $uri) { return 404; }', 'invalid condition "$uri)"'],
    ['if ($uri == /a) { return 404; }', 'unexpected "==" in condition'],
  ];
  for (const [stmt, message] of cases) {
    const { diags } = diagnose(wrap(`  server { location / { ${stmt} } }`));
    assert.deepEqual(
      diags.map((d) => d.message),
      [message],
      stmt,
    );
  }
  for (const ok of [
    'if ($uri) { return 404; }',
    'if ( $uri ) { return 404; }',
    'if (-f $request_filename) { return 404; }',
    'if ($uri ~* "^/(?<p>a)") { return 200 $p; }',
  ]) {
    assert.deepEqual(diagnose(wrap(`  server { location / { ${ok} } }`)).diags, [], ok);
  }
});

test('duplicates nginx rejects, and repeats it accepts', () => {
  const { f, diags } = diagnose(
    wrap(
      '  server {\n    sendfile on;\n    <|sendfile|> off;\n    location /a {}\n    <|location /a|> {}\n    add_header A 1;\n    add_header B 2;\n    listen 1;\n    listen 2;\n  }',
    ),
  );
  assert.deepEqual(
    found(f, diags).map((d) => [d.code, d.text, d.message]),
    [
      ['nginx/duplicate', 'sendfile', '"sendfile" directive is duplicate'],
      ['nginx/duplicate', 'location /a', 'duplicate location "/a"'],
    ],
  );
  // the same directive in nested blocks is no duplicate
  assert.deepEqual(diagnose(wrap('  sendfile on;\n  server { sendfile off; location / { sendfile on; } }')).diags, []);
});

test('unknown variables, and every way a variable is defined', () => {
  const { f, diags } = diagnose(
    wrap(`  map $uri $from_map { default 1; }
  geo $from_geo { default 0; }
  split_clients "\${remote_addr}" $from_split { 50% a; * b; }
  server {
    set $from_set 1;
    location ~ ^/(?<named>x)(y)$ {
      return 200 "$from_map $from_geo $from_split $from_set $named $2 $http_x_custom $cookie_a $arg_b $sent_http_c $upstream_http_d";
    }
    location /b { return 200 <|$nope|>; }
  }`),
  );
  assert.deepEqual(found(f, diags), [{ code: 'nginx/unknown-variable', text: '$nope', message: 'unknown "nope" variable', severity: 1 }]);
});

test('regexes and embedded code are not scanned for variables', () => {
  const { diags } = diagnose(
    wrap("  perl_set $p 'sub { my $r = shift; return $r->uri; }';\n  server { location ~ ^/a$b { rewrite ^/x$y /z; } }"),
  );
  assert.deepEqual(
    diags.filter((d) => d.code === 'nginx/unknown-variable'),
    [],
  );
});

test('version-aware: newer directive says which version it needs; newest target accepts it', () => {
  const { f, diags } = diagnose(wrap('  server { <|http2|> on; }'), { nginxVersion: '1.22.1' });
  assert.deepEqual(found(f, diags), [
    { code: 'nginx/needs-newer-version', text: 'http2', message: '"http2" needs nginx >= 1.25.1 (target is 1.22.1)', severity: 1 },
  ]);
  assert.deepEqual(diagnose(wrap('  server { http2 on; }')).diags, []);
  assert.deepEqual(diagnose(wrap('  server { http2 on; }'), { nginxVersion: '1.25.1' }).diags, []);
});

test('version-aware: removed directives', () => {
  const { diags } = diagnose(wrap('  server { ssl on; }'), { nginxVersion: '1.26.0' });
  assert.deepEqual(
    diags.map((d) => [d.code, d.message]),
    [['nginx/removed-in-version', '"ssl" was removed in nginx 1.25.1 (target is 1.26.0)']],
  );
  // still there in 1.22.1, with nginx's deprecation warning
  assert.deepEqual(
    diagnose(wrap('  server { ssl on; }'), { nginxVersion: '1.22.1' }).diags.map((d) => [d.code, d.severity, d.tags]),
    [['nginx/deprecated', 2, [2]]],
  );
  assert.deepEqual(diagnose(wrap('  server { ssl on; }'), { nginxVersion: '1.14.0' }).diags, []);
});

test('third-party modules: unknown where the config does not load them, a note where it cannot be seen (test/nginx/modules.test.ts has the rest)', () => {
  const body = '  server { location / { more_set_headers "X: 1"; content_by_lua_block { ngx.say("}") } echo hi; } }';
  // a whole configuration that loads none of them: nginx stops at the first
  assert.deepEqual(
    diagnose(wrap(body)).diags.map((d) => [d.code, d.severity]),
    [
      ['nginx/unknown-directive', 1],
      ['nginx/unknown-directive', 1],
      ['nginx/unknown-directive', 1],
    ],
  );
  // a fragment (its main file is not known): one information note per module, arguments checked
  assert.deepEqual(
    diagnose(body.trim(), {}, 'http').diags.map((d) => [d.code, d.severity]),
    [
      ['nginx/third-party-directive', 3],
      ['nginx/third-party-directive', 3],
      ['nginx/third-party-directive', 3],
    ],
  );
});

test('block mismatch: a block directive without braces, a plain one with', () => {
  const { diags } = diagnose('events {}\nhttp { server; gzip on { } }\n');
  assert.deepEqual(
    diags.map((d) => d.message),
    ['directive "server" has no opening "{"', 'directive "gzip" is not terminated by ";"'],
  );
});

test('missing events block in a main file', () => {
  const { diags } = diagnose('http { }\n', {}, 'main');
  assert.deepEqual(
    diags.map((d) => d.message),
    ['no "events" section in configuration'],
  );
});

test('fragments: validated in a given or inferred context', () => {
  const text = 'server {\n  listen 80;\n  location / { root /srv; }\n}\n';
  assert.equal(inferContext(parseNginx(text)), 'http');
  assert.deepEqual(diagnose(text).diags, []);
  assert.deepEqual(diagnose('location / { root /srv; }\n', {}, 'server').diags, []);
  assert.deepEqual(diagnose('root /srv;\nindex index.html;\n').diags, []);
  assert.deepEqual(
    diagnose('location / { }\n', {}, 'http').diags.map((d) => d.code),
    ['nginx/not-allowed-here'],
  );
});

test('suppression comments and severity settings apply', () => {
  const { diags } = diagnose(
    wrap('  # proxy-tuner-disable-next-line nginx/unknown-directive -- vendor build\n  frobnicate 1;\n  gzip maybe;'),
    { rules: { 'nginx/invalid-value': 'warning' } },
  );
  assert.deepEqual(
    diags.map((d) => [d.code, d.severity]),
    [['nginx/invalid-value', 2]],
  );
});

test('editDistance is bounded and correct', () => {
  assert.equal(editDistance('gzip', 'gzip'), 0);
  assert.equal(editDistance('gzpi', 'gzip'), 2);
  assert.equal(editDistance('proxy_bufering', 'proxy_buffering'), 1);
  assert.equal(editDistance('a', 'abcdefgh', 3), 4);
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(editDistance('x'.repeat(100), 'x'.repeat(99) + 'y', 2), 1); // rows longer than the kept ones
  // bounded answers agree with the full distance (capped at limit + 1) on random words
  const full = (a: string, b: string): number => {
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) d[0][j] = j;
    for (let i = 1; i <= a.length; i++)
      for (let j = 1; j <= b.length; j++)
        d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    return d[a.length][b.length];
  };
  let seed = 7;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  const word = () => Array.from({ length: rnd(9) }, () => 'abc_'[rnd(4)]).join('');
  for (let k = 0; k < 2000; k++) {
    const a = word();
    const b = word();
    const limit = rnd(4);
    assert.equal(editDistance(a, b, limit), Math.min(full(a, b), limit + 1), `${a} ${b} ${limit}`);
  }
});

test("nested locations: nginx's placement rules", () => {
  const msgs = (body: string) => diagnose(wrap(`  server {\n${body}\n  }`)).diags.map((d) => d.message);
  assert.deepEqual(msgs('location /a { location /b {} }'), ['location "/b" is outside location "/a"']);
  assert.deepEqual(msgs('location ~ ^/a { location /b {} }'), ['location "/b" is outside location "^/a"']);
  assert.deepEqual(msgs('location = /a { location /a/b {} }'), ['location "/a/b" cannot be inside the exact location "/a"']);
  assert.deepEqual(msgs('location /a { location @n {} }'), ['named location "@n" can be on the server level only']);
  assert.deepEqual(msgs('location /a { location /a/b {} location ~ \\.php$ {} }'), []);
});

test('duplicate upstream, listen, default server, listen options', () => {
  const msgs = (body: string) => diagnose(wrap(body)).diags.map((d) => d.message);
  assert.deepEqual(msgs('  upstream u { server 127.0.0.1:1; }\n  upstream u { server 127.0.0.1:2; }'), ['duplicate upstream "u"']);
  assert.deepEqual(msgs('  server { listen 127.0.0.1:8001; listen 127.0.0.1:8001; }'), ['a duplicate listen 127.0.0.1:8001']);
  assert.deepEqual(msgs('  server { listen 80 default_server; }\n  server { listen *:80 default_server; }'), [
    'a duplicate default server for 0.0.0.0:80',
  ]);
  assert.deepEqual(msgs('  server { listen 8001 backlog=10; }\n  server { listen 8001 backlog=20; }'), [
    'duplicate listen options for 0.0.0.0:8001',
  ]);
  assert.deepEqual(msgs('  server { listen 80; listen [::]:80; }\n  server { listen 80; listen 127.0.0.1:80; }'), []);
});

test('listen parameters: unknown ones, and ones newer than the target', () => {
  const { diags } = diagnose(wrap('  server { listen 8443 ssl sslx; ssl_certificate a.crt; ssl_certificate_key a.key; }'));
  assert.deepEqual(
    diags.map((d) => d.message),
    ['invalid parameter "sslx"'],
  );
  const q = diagnose(wrap('  server { listen 8443 quic reuseport; ssl_certificate a; ssl_certificate_key b; }'), {
    nginxVersion: '1.22.1',
  });
  assert.deepEqual(
    q.diags.map((d) => d.code),
    ['nginx/needs-newer-version'],
  );
  assert.deepEqual(diagnose('events {}\nstream { server { listen 53 udp reuseport; proxy_pass 127.0.0.1:53; } }\n').diags, []);
});

test('return codes', () => {
  const msgs = (stmt: string) => diagnose(wrap(`  server { location / { ${stmt} } }`)).diags.map((d) => d.message);
  assert.deepEqual(msgs('return abc;'), ['invalid return code "abc"']);
  assert.deepEqual(msgs('return 1000;'), ['invalid return code "1000"']);
  for (const ok of [
    'return 404;',
    'return 301 https://$host$request_uri;',
    'return https://example.com;',
    'return $scheme://a;',
    'return 200 "ok";',
  ])
    assert.deepEqual(msgs(ok), [], ok);
});

test('context inference: fragments of http, server, location, stream; an explicit "# context:" comment', () => {
  const ctx = (t: string) => inferContext(parseNginx(t));
  assert.equal(ctx('events {}\nhttp {}\n'), 'main');
  assert.equal(ctx('server { listen 80; location / { root /a; } }'), 'http');
  assert.equal(ctx('location / { proxy_pass http://a; }'), 'server');
  assert.equal(ctx('proxy_pass http://a;\nproxy_set_header Host $host;'), 'location');
  assert.equal(ctx('server { listen 53 udp; proxy_pass 127.0.0.1:53; proxy_timeout 1s; }'), 'stream');
  assert.equal(ctx('# context: stream/server\nproxy_pass 127.0.0.1:1;'), 'stream/server');
  assert.deepEqual(diagnose('# context: server\nlocation / { }\n').diags, []);
});

test('context inference: error_log is no main-file marker (valid in http, server and location)', () => {
  const ctx = (t: string) => inferContext(parseNginx(t));
  // a server-level include: judged as a server fragment, no "not allowed here"
  const include =
    'listen 443 ssl;\nserver_name example.com;\nerror_log /var/log/nginx/app.error.log;\naccess_log /var/log/nginx/app.access.log;\nroot /srv/app;\nlocation / {\n    try_files $uri $uri/ =404;\n}\n';
  assert.equal(ctx(include), 'server');
  assert.deepEqual(
    diagnose(include).diags.filter((d) => d.severity === 1),
    [],
  );
  assert.equal(ctx('error_log /var/log/nginx/error.log warn;\nworker_processes auto;\nevents {}\n'), 'main');
  assert.equal(ctx('error_log stderr;\n'), 'main');
});

test('deprecated directives and listen parameters are warnings from the version that deprecates them', () => {
  const { diags } = diagnose(
    wrap('  ssl_certificate a.crt;\n  ssl_certificate_key a.key;\n  server { listen 443 ssl http2; http2_idle_timeout 10s; }'),
    { nginxVersion: '1.25.1' },
  );
  assert.deepEqual(
    diags.map((d) => [d.code, d.severity, d.message]),
    [
      ['nginx/deprecated', 2, '"listen ... http2" is deprecated since nginx 1.25.1, use the "http2" directive instead'],
      ['nginx/deprecated', 2, 'the "http2_idle_timeout" directive is deprecated since nginx 1.19.7, use "keepalive_timeout" instead'],
    ],
  );
  assert.deepEqual(
    diagnose(wrap('  server { listen 443 ssl http2; ssl_certificate a.crt; ssl_certificate_key a.key; }'), { nginxVersion: '1.22.1' })
      .diags,
    [],
  );
});

test('variables newer than the target version', () => {
  const { f, diags } = diagnose(wrap('  server { return 200 <|$time_iso8601_ms|>; }'), { nginxVersion: '1.22.1' });
  assert.deepEqual(
    found(f, diags).map((d) => [d.code, d.text]),
    [['nginx/needs-newer-version', '$time_iso8601_ms']],
  );
  assert.deepEqual(diagnose(wrap('  server { return 200 $time_iso8601_ms; }')).diags, []);
});

test('upstream without servers', () => {
  const { diags } = diagnose(wrap('  upstream u { keepalive 2; }\n  upstream v { include servers.conf; }'));
  assert.deepEqual(
    diags.map((d) => [d.code, d.message]),
    [['nginx/empty-upstream', 'no servers are inside upstream']],
  );
});

test('TLS listeners need a certificate and each certificate a key (whole configurations only)', () => {
  const msgs = (body: string) => diagnose(wrap(body)).diags.map((d) => d.message);
  assert.deepEqual(msgs('  server { listen 443 ssl; }'), ['no "ssl_certificate" is defined for the "listen ... ssl" directive']);
  assert.deepEqual(msgs('  server { listen 443 ssl; ssl_certificate a.crt; }'), [
    'no "ssl_certificate_key" is defined for certificate "a.crt"',
  ]);
  assert.deepEqual(msgs('  ssl_certificate a.crt;\n  ssl_certificate_key a.key;\n  server { listen 443 ssl; }'), []);
  assert.deepEqual(msgs('  server { listen 443 ssl; ssl_reject_handshake on; }'), []);
  assert.deepEqual(msgs('  server { listen 443 ssl; include snippets/snakeoil.conf; }'), []);
  // a file of servers (a vhost): the including http block may set the certificate, so a warning
  const vhost = diagnose('server { listen 443 ssl; }\n', {}, 'http').diags;
  assert.deepEqual(
    vhost.map((d) => [d.code, d.severity]),
    [['nginx/missing-certificate', 2]],
  );
  assert.match(vhost[0].message, /default server/);
  assert.deepEqual(diagnose('include ssl.conf;\nserver { listen 443 ssl; }\n', {}, 'http').diags, []);
});

// checked on nginx 1.22.1, 1.26.3 and 1.30.6 (`nginx -t`): only the default server of each TLS
// address:port needs a certificate; a named server without one is accepted
test('TLS listeners: only the default server of each address:port needs a certificate', () => {
  const msgs = (body: string) => diagnose(wrap(body)).diags.map((d) => `${d.message} @${d.range.start.line}`);
  const cert = 'ssl_certificate a.crt; ssl_certificate_key a.key;';
  assert.deepEqual(msgs(`  server { listen 443 ssl; ${cert} }\n  server { listen 443 ssl; server_name b; }`), []);
  assert.deepEqual(msgs(`  server { listen 443 ssl; server_name b; }\n  server { listen 443 ssl default_server; ${cert} }`), []);
  assert.deepEqual(msgs(`  server { listen 443 ssl; ${cert} }\n  server { listen 443; server_name b; }`), []);
  // a second address: its first server is its default
  const two = msgs(`  server { listen 443 ssl; ${cert} }\n  server { listen 8443 ssl; server_name e; }`);
  assert.equal(two.length, 1);
  assert.match(two[0], /no "ssl_certificate" is defined/);
  // a plain listen that comes first is the default of a socket another line makes TLS
  assert.equal(msgs(`  server { listen 443; server_name a; }\n  server { listen 443 ssl; ${cert} }`).length, 1);
});
