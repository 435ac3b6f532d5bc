// The sandbox with the real binaries: configs are rewritten to loopback and actually run, upstreams
// (public addresses and hostnames) reach the built-in backend instead, what cannot be confined is
// refused with its line, the user's file stays byte-identical and nothing is left behind.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { runBenchmark, SandboxRefusal, ConfigCheckError, ProxySandbox } from '../../bench/src/index';
import type { BenchOptions, BenchResult } from '../../protocol/bench';
import { eventually, liveDescendants, liveInGroup, sha256, tempConfig } from './helpers';

const short: Partial<BenchOptions> = { durationMs: 700, warmupMs: 200, connections: 4 };

const NGINX = `user www-data;
worker_processes 1;
pid /run/nginx.pid;
events { worker_connections 256; }
http {
    access_log /var/log/nginx/access.log;
    upstream app {
        server app.example.com:8080;
        server 203.0.113.10:80 max_fails=3;
        keepalive 16;
    }
    server {
        listen 80;
        listen 443 ssl http2;
        server_name example.com;
        ssl_certificate /etc/ssl/certs/does-not-exist.pem;
        ssl_certificate_key /etc/ssl/private/does-not-exist.key;
        location / {
            proxy_pass http://app;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
        location /literal {
            proxy_pass http://198.51.100.20:9000;
        }
    }
}
stream {
    server {
        listen 9000;
        proxy_pass 192.0.2.30:9000;
    }
}
`;

const HAPROXY = `global
    daemon
    chroot /var/lib/haproxy
    user haproxy
    group haproxy
    pidfile /run/haproxy.pid
    log 192.0.2.99:514 local0
    stats socket /run/haproxy/admin.sock mode 660 level admin
    maxconn 1000

defaults
    mode http
    log global
    timeout connect 5s
    timeout client 30s
    timeout server 30s

frontend web
    bind *:80
    bind :443 ssl crt /etc/haproxy/certs/site.pem alpn h2,http/1.1
    default_backend app

backend app
    balance roundrobin
    server a1 203.0.113.10:8080 check
    server a2 app.example.com:80 check inter 2s

listen l4
    mode tcp
    bind 0.0.0.0:9000
    server t1 192.0.2.30:9000
`;

let lastPgid = -1;
/** Sandbox folders of our runs (other runs may be going on on this machine). */
const ourDirs: string[] = [];
const hooks = {
  onProxyReady: (i: { pgid: number; dir: string }) => {
    lastPgid = i.pgid;
    ourDirs.push(i.dir);
  },
};

async function assertNothingLeft(): Promise<void> {
  assert.ok(await eventually(() => liveInGroup(lastPgid).length === 0), `proxy processes left: ${liveInGroup(lastPgid).join(' ')}`);
  assert.ok(await eventually(() => liveDescendants().length === 0), `child processes left: ${liveDescendants().join(' ')}`);
}

after(async () => {
  await assertNothingLeft();
  assert.ok(ourDirs.length > 0);
  assert.deepEqual(
    ourDirs.filter((d) => existsSync(d)),
    [],
    'sandbox folders left behind',
  );
});

function assertServed(r: BenchResult) {
  assert.ok(r.requests > 10, `requests ${r.requests}`);
  assert.equal(
    r.errors.connect + r.errors.reset + r.errors.timeout + r.errors.non2xx + r.errors.protocol + r.errors.tls,
    0,
    JSON.stringify(r.errors),
  );
}

test('nginx runs a rewritten copy: public and hostname upstreams reach the built-in backend; file untouched', async () => {
  const cfg = tempConfig('nginx.conf', NGINX);
  try {
    const hash = sha256(cfg.file);
    const r = await runBenchmark({ ...short, configPath: cfg.file }, hooks);
    assertServed(r);
    assert.equal(r.proxy.kind, 'nginx');
    assert.match(r.proxy.version, /^\d+\.\d+\.\d+$/);
    assert.equal(r.listener.host, '127.0.0.1');
    // every measured request went through the proxy to our backend, over kept-alive upstream connections
    assert.ok(r.backend.requests >= r.requests * 0.9, `backend saw ${r.backend.requests} of ${r.requests}`);
    assert.ok(r.backend.connectionsPerRequest < 0.2, `connections per request ${r.backend.connectionsPerRequest}`);
    assert.equal(sha256(cfg.file), hash);
    await assertNothingLeft();
  } finally {
    cfg.cleanup();
  }
});

test('nginx without upstream keep-alive: one backend connection per request is visible', async () => {
  const cfg = tempConfig('nginx.conf', NGINX);
  try {
    const r = await runBenchmark({ ...short, configPath: cfg.file, path: '/literal' }, hooks);
    assertServed(r);
    assert.ok(r.backend.connectionsPerRequest > 0.9, `connections per request ${r.backend.connectionsPerRequest}`);
  } finally {
    cfg.cleanup();
  }
});

test('nginx: https (throw-away certificate), http2 and the stream (tcp) listener really serve', async () => {
  const cfg = tempConfig('nginx.conf', NGINX);
  try {
    for (const scenario of ['https-keepalive', 'http2', 'tcp'] as const) {
      const r = await runBenchmark({ ...short, durationMs: 500, configPath: cfg.file, scenario }, hooks);
      assertServed(r);
      assert.equal(r.listener.tls, scenario !== 'tcp', scenario);
      assert.ok(r.backend.requests > 0, `${scenario}: backend requests ${r.backend.requests}`);
    }
  } finally {
    cfg.cleanup();
  }
});

test('haproxy runs a rewritten copy (daemon/chroot/user/log/stats socket made safe); file untouched', async () => {
  const cfg = tempConfig('haproxy.cfg', HAPROXY);
  try {
    const hash = sha256(cfg.file);
    const r = await runBenchmark({ ...short, configPath: cfg.file }, hooks);
    assertServed(r);
    assert.equal(r.proxy.kind, 'haproxy');
    assert.ok(r.backend.requests >= r.requests * 0.9, `backend saw ${r.backend.requests} of ${r.requests}`);
    const t = await runBenchmark({ ...short, durationMs: 500, configPath: cfg.file, scenario: 'tcp' }, hooks);
    assertServed(t);
    assert.equal(t.listener.stream, true);
    assert.equal(sha256(cfg.file), hash);
    await assertNothingLeft();
  } finally {
    cfg.cleanup();
  }
});

test('the sandbox copy keeps every line number and only loopback addresses', () => {
  const cfg = tempConfig('haproxy.cfg', HAPROXY);
  const sb = ProxySandbox.create({ configPath: cfg.file });
  try {
    sb.plan({ http: 1001, https: 1002, tcp: 1003 });
    const [copy] = sb.copies();
    // the user's lines keep their numbers; a loopback `resolvers default` section follows them
    const appended = /resolvers default\n    nameserver pt-loopback 127\.0\.0\.1:1\n$/;
    assert.match(copy.text, appended);
    const out = copy.text.replace(appended, '');
    assert.equal(out.split('\n').length, HAPROXY.split('\n').length);
    assert.doesNotMatch(out, /203\.0\.113|192\.0\.2|app\.example\.com|\*:80|0\.0\.0\.0/);
    assert.doesNotMatch(out, /^\s*(daemon|chroot|user|group|pidfile)\b/m);
    assert.match(out, /server a1 127\.0\.0\.1:1001 check/);
    assert.match(out, /server t1 127\.0\.0\.1:1003/);
    assert.match(out, new RegExp(`crt ${sb.tls.pemFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    // line 26 of the original is the a2 server line, at the same line of the copy
    assert.match(out.split('\n')[25], /server a2 127\.0\.0\.1:1001/);
  } finally {
    void sb.dispose();
    cfg.cleanup();
  }
});

test('refused: proxy_pass built from variables, a public resolver (nginx) and name server (haproxy), with the line', async () => {
  const cases: [string, string, number, RegExp][] = [
    ['nginx.conf', 'events {}\nhttp {\n  server {\n    listen 80;\n    location / { proxy_pass http://$host; }\n  }\n}\n', 5, /variables/],
    ['nginx.conf', 'events {}\nhttp {\n  resolver 8.8.8.8;\n  server { listen 80; }\n}\n', 3, /resolver 8\.8\.8\.8/],
    [
      'haproxy.cfg',
      'global\n  maxconn 100\nresolvers dns\n  nameserver d1 8.8.8.8:53\nfrontend f\n  mode http\n  bind :80\n',
      4,
      /nameserver/,
    ],
  ];
  for (const [name, text, line, re] of cases) {
    const cfg = tempConfig(name, text);
    try {
      await assert.rejects(runBenchmark({ ...short, configPath: cfg.file }), (e: Error) => {
        assert.ok(e instanceof SandboxRefusal, `${e.name}: ${e.message}`);
        assert.equal(e.line, line);
        assert.equal(e.file, cfg.file);
        assert.match(e.message, re);
        return true;
      });
      assert.equal(readFileSync(cfg.file, 'utf8'), text);
    } finally {
      cfg.cleanup();
    }
  }
  await assertNothingLeft();
});

test("the binary's own check fails: its message points at the user's file and line", async () => {
  const cfg = tempConfig('nginx.conf', 'events {}\nhttp {\n  server {\n    listen 80;\n\n    no_such_directive on;\n  }\n}\n');
  try {
    await assert.rejects(runBenchmark({ ...short, configPath: cfg.file }), (e: Error) => {
      assert.ok(e instanceof ConfigCheckError, `${e.name}: ${e.message}`);
      assert.match(e.message, /no_such_directive/);
      assert.ok(e.message.includes(`${cfg.file}:6`), e.message);
      return true;
    });
  } finally {
    cfg.cleanup();
  }
  await assertNothingLeft();
});

test('cancel through the AbortSignal stops the proxy and the backend', async () => {
  const cfg = tempConfig('nginx.conf', NGINX);
  try {
    const ac = new AbortController();
    let ready = false;
    const p = runBenchmark(
      { configPath: cfg.file, durationMs: 20_000, warmupMs: 0, connections: 2 },
      {
        signal: ac.signal,
        onProxyReady: (i) => {
          lastPgid = i.pgid;
          ourDirs.push(i.dir);
          ready = true;
          setTimeout(() => ac.abort(), 300);
        },
      },
    );
    await assert.rejects(p, (e: Error) => e.name === 'AbortError');
    assert.ok(ready);
    await assertNothingLeft();
  } finally {
    cfg.cleanup();
  }
});
