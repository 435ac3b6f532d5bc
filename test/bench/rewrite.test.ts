// What the nginx rewrite does to a config, checked on the copy's text (no process is started).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ProxySandbox, SandboxRefusal } from '../../bench/src/index';
import { tempConfig } from './helpers';

const BACKEND = { http: 1001, https: 1002, tcp: 1003 };

function plan(name: string, text: string, extra?: (dir: string) => void) {
  const cfg = tempConfig(name, text);
  extra?.(cfg.dir);
  const sb = ProxySandbox.create({ configPath: cfg.file });
  try {
    sb.plan(BACKEND);
    return { copies: sb.copies(), listeners: sb.listeners, warnings: sb.warnings, dir: sb.dir, cfgDir: cfg.dir };
  } finally {
    void sb.dispose();
    cfg.cleanup();
  }
}

const portOf = (text: string, re: RegExp) => re.exec(text)?.[1];

test('includes are resolved into private copies, with their own lines kept', () => {
  const r = plan('nginx.conf', 'events {}\nhttp {\n    include conf.d/*.conf;\n}\n', (dir) => {
    mkdirSync(path.join(dir, 'conf.d'));
    writeFileSync(
      path.join(dir, 'conf.d', 'a.conf'),
      'upstream u { server 10.0.0.5:80; }\nserver {\n  listen 8080;\n  location / { proxy_pass http://u; }\n}\n',
    );
    writeFileSync(path.join(dir, 'conf.d', 'b.conf'), '\n\nserver { listen 8081; location / { proxy_pass http://example.org; } }\n');
  });
  assert.equal(r.copies.length, 3);
  const main = r.copies.find((c) => c.original.endsWith('nginx.conf'))!;
  assert.match(main.text, /include "?[^;]*\/inc\/1\/\*"?;/);
  const a = r.copies.find((c) => c.original.endsWith('a.conf'))!;
  assert.match(a.text, /server 127\.0\.0\.1:1001;/);
  assert.equal(a.text.split('\n')[2].trim().startsWith('listen 127.0.0.1:'), true);
  const b = r.copies.find((c) => c.original.endsWith('b.conf'))!;
  assert.match(b.text.split('\n')[2], /proxy_pass http:\/\/127\.0\.0\.1:1001;/);
  assert.equal(r.listeners.length, 2);
  assert.deepEqual(
    r.listeners.map((l) => path.basename(l.file)),
    ['a.conf', 'b.conf'],
  );
  assert.deepEqual(
    r.listeners.map((l) => l.line),
    [3, 3],
  );
});

test('one original address gives one port; a server without listen gets one; unsupported listen flags go', () => {
  const r = plan(
    'nginx.conf',
    'events {}\nhttp {\n  server { listen 80; server_name a.test; }\n  server { listen 80; server_name b.test; }\n  server { server_name c.test; }\n  server { listen unix:/run/x.sock; }\n  server { listen [::]:443 ssl ipv6only=on proxy_protocol; ssl_certificate /x; ssl_certificate_key /y; }\n}\n',
  );
  const t = r.copies[0].text;
  const a = portOf(t, /server \{ listen 127\.0\.0\.1:(\S+); server_name a\.test/);
  const b = portOf(t, /server \{ listen 127\.0\.0\.1:(\S+); server_name b\.test/);
  assert.ok(a && a === b, 'same address:port, same new port');
  assert.match(t, /server \{ listen 127\.0\.0\.1:\S+; server_name c\.test/);
  assert.doesNotMatch(t, /unix:|ipv6only|proxy_protocol|\[::\]/);
  assert.ok(r.warnings.some((w) => /proxy_protocol/.test(w)));
  assert.equal(r.listeners.filter((l) => l.ssl).length, 1);
});

test('non-HTTP passes point at the backend with a warning; system paths move into the sandbox', () => {
  const r = plan(
    'nginx.conf',
    'pid /run/nginx.pid;\nerror_log /var/log/nginx/error.log warn;\nevents {}\nhttp {\n  proxy_cache_path /var/cache/nginx levels=1:2 keys_zone=c:1m;\n  server {\n    listen 80;\n    access_log /var/log/nginx/a.log combined;\n    location ~ \\.php$ { fastcgi_pass unix:/run/php/php-fpm.sock; }\n    location /s { proxy_pass https://secure.example.com/api; }\n  }\n}\n',
  );
  const t = r.copies[0].text;
  assert.doesNotMatch(t, /\/run\/|\/var\//);
  assert.match(t, /fastcgi_pass 127\.0\.0\.1:1001;/);
  assert.match(t, /proxy_pass https:\/\/127\.0\.0\.1:1002\/api;/);
  assert.match(t, new RegExp(`error_log ${r.dir}/logs/error.log warn;`));
  assert.ok(r.warnings.some((w) => /fastcgi_pass/.test(w)));
});

test('scripting modules and variable targets are refused with their line', () => {
  const cases: [string, number, RegExp][] = [
    [
      'events {}\nhttp {\n  server {\n    listen 80;\n    location / {\n      content_by_lua_block { ngx.say(1) }\n    }\n  }\n}\n',
      6,
      /content_by_lua_block/,
    ],
    ['events {}\nstream {\n  server {\n    listen 9000;\n    proxy_pass $upstream_addr;\n  }\n}\n', 5, /variables/],
    ['events {}\nhttp {\n  server {\n    listen 80;\n    location / { grpc_pass grpc://$host:50051; }\n  }\n}\n', 5, /grpc_pass/],
  ];
  for (const [text, line, re] of cases) {
    assert.throws(
      () => plan('nginx.conf', text),
      (e: Error) => e instanceof SandboxRefusal && e.line === line && re.test(e.message),
    );
  }
});
