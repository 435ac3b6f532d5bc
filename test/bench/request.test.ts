// The request a run sends (method, body) and the listener it sends it to (a block's own line),
// checked against what the built-in backend received through the real nginx / haproxy.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { BenchUsageError, pickListener, ProxySandbox, resolveOptions, runBenchmark } from '../../bench/src/index';
import { MAX_REQUEST_BODY_BYTES, type BenchOptions, type BenchResult } from '../../protocol/bench';
import { eventually, liveDescendants, tempConfig } from './helpers';
import { findRoutes } from '../../client/src/benchmark/routes';
import { toBenchOptions } from '../../client/src/benchmark/options';
import { DEFAULT_RUN_OPTIONS } from '../../protocol/panel';

const short: Partial<BenchOptions> = { durationMs: 500, warmupMs: 100, connections: 2 };

const ourDirs: string[] = [];
const hooks = { onProxyReady: (i: { dir: string }) => void ourDirs.push(i.dir) };

after(async () => {
  assert.ok(await eventually(() => liveDescendants().length === 0), `child processes left: ${liveDescendants().join(' ')}`);
  assert.deepEqual(
    ourDirs.filter((d) => existsSync(d)),
    [],
    'sandbox folders left behind',
  );
});

/** Requests the backend received over the whole run (warm-up included), whatever the method. */
function receivedOf(r: BenchResult): number {
  // the native backend counts requests, not methods
  if (r.backend.kind && r.backend.kind !== 'node') return r.backend.receivedRequests ?? 0;
  return Object.values(r.backend.received?.methods ?? {}).reduce((a, b) => a + b, 0);
}

function errorsOf(r: BenchResult): number {
  return r.errors.connect + r.errors.reset + r.errors.timeout + r.errors.non2xx + r.errors.protocol + r.errors.tls;
}

// Line 4: the first server (returns itself, never reaches the backend);
// line 8: the second server, on another port, proxying to the backend.
const TWO_SERVERS = `events {}
http {
    upstream app { server 203.0.113.5:8080; keepalive 4; }
    server {
        listen 8081;
        location / { return 200 "one"; }
    }
    server {
        listen 8082;
        listen 8443 ssl;
        ssl_certificate /etc/ssl/none.pem;
        ssl_certificate_key /etc/ssl/none.key;
        location / {
            proxy_pass http://app;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
`;

test('options: method and body are checked (known method, body size, no body with GET/HEAD, not with get-post-mix/tcp)', () => {
  const base: BenchOptions = { configPath: 'x.conf' };
  const ok = resolveOptions({ ...base, method: 'PUT', body: 'héllo', contentType: 'text/plain' });
  assert.equal(ok.method, 'PUT');
  assert.equal(ok.body?.length, 6, 'UTF-8 bytes');
  assert.equal(ok.contentType, 'text/plain');
  assert.equal(resolveOptions(base).method, 'GET');
  assert.equal(resolveOptions(base).body, null);
  for (const bad of [
    { method: 'BREW' },
    { method: 'get' },
    { method: 'GET', body: 'x' },
    { method: 'HEAD', body: '' },
    { method: 'POST', body: 'x'.repeat(MAX_REQUEST_BODY_BYTES + 1) },
    { method: 'POST', scenario: 'get-post-mix' as const },
    { method: 'POST', body: 'x', scenario: 'tcp' as const },
    { method: 'POST', contentType: 'text/plain' },
    { method: 'POST', body: 'x', contentType: 'text/plain\r\nX-Injected: 1' },
    { listener: { line: 0 } },
    { listener: { line: 2 }, target: { host: '127.0.0.1', port: 1 }, configPath: undefined },
  ]) {
    assert.throws(() => resolveOptions({ ...base, ...bad }), BenchUsageError, JSON.stringify(bad).slice(0, 80));
  }
  assert.equal(resolveOptions({ ...base, method: 'POST', body: 'x'.repeat(MAX_REQUEST_BODY_BYTES) }).body?.length, MAX_REQUEST_BODY_BYTES);
});

test('nginx forwards the method and the body: PUT with 5000 bytes over HTTP/1.1, POST over HTTP/2, DELETE without body', async () => {
  const cfg = tempConfig('nginx.conf', TWO_SERVERS.replace('listen 8443 ssl;', 'listen 8443 ssl http2;'));
  try {
    const put = await runBenchmark(
      { ...short, configPath: cfg.file, listener: { line: 8 }, method: 'PUT', body: 'p'.repeat(5000), contentType: 'application/json' },
      hooks,
    );
    assert.equal(errorsOf(put), 0, JSON.stringify(put.errors));
    assert.ok(put.requests > 5, `requests ${put.requests}`);
    const rp = put.backend.received!;
    assert.deepEqual(Object.keys(rp.methods), ['PUT'], JSON.stringify(rp.methods));
    assert.ok(rp.methods.PUT >= put.requests, `backend got ${rp.methods.PUT} PUTs for ${put.requests} measured requests`);
    assert.equal(rp.bodyBytesMin, 5000);
    assert.equal(rp.bodyBytesMax, 5000);

    const h2 = await runBenchmark(
      { ...short, configPath: cfg.file, listener: { line: 8 }, scenario: 'http2', method: 'POST', body: '{"a":1}' },
      hooks,
    );
    assert.equal(errorsOf(h2), 0, JSON.stringify(h2.errors));
    assert.equal(h2.listener.http2, true);
    assert.deepEqual(Object.keys(h2.backend.received!.methods), ['POST']);
    assert.equal(h2.backend.received!.bodyBytesMin, 7);
    assert.equal(h2.backend.received!.bodyBytesMax, 7);

    const del = await runBenchmark(
      { ...short, configPath: cfg.file, listener: { line: 8 }, method: 'DELETE', scenario: 'http1-close' },
      hooks,
    );
    assert.equal(errorsOf(del), 0, JSON.stringify(del.errors));
    assert.deepEqual(Object.keys(del.backend.received!.methods), ['DELETE']);
    assert.equal(del.backend.received!.bodyBytesMax, 0);
  } finally {
    cfg.cleanup();
  }
});

test('HEAD gets answers without a body (no time-outs) and reaches the backend as HEAD; haproxy forwards a POST body', async () => {
  const cfg = tempConfig('nginx.conf', TWO_SERVERS);
  const hap = tempConfig(
    'haproxy.cfg',
    `defaults\n    mode http\n    timeout connect 5s\n    timeout client 30s\n    timeout server 30s\n\nfrontend web\n    bind :8080\n    default_backend app\n\nbackend app\n    server a 198.51.100.7:80\n`,
  );
  try {
    // per-method accounting: the built-in backend's
    const head = await runBenchmark(
      { ...short, configPath: cfg.file, listener: { line: 8 }, method: 'HEAD', backend: { kind: 'node' } },
      hooks,
    );
    assert.equal(errorsOf(head), 0, JSON.stringify(head.errors));
    assert.ok(head.requests > 5);
    assert.deepEqual(Object.keys(head.backend.received!.methods), ['HEAD']);

    const post = await runBenchmark({ ...short, configPath: hap.file, method: 'POST', body: 'b'.repeat(1234) }, hooks);
    assert.equal(errorsOf(post), 0, JSON.stringify(post.errors));
    assert.equal(post.proxy.kind, 'haproxy');
    assert.deepEqual(Object.keys(post.backend.received!.methods), ['POST']);
    assert.equal(post.backend.received!.bodyBytesMin, 1234);
    assert.equal(post.backend.received!.bodyBytesMax, 1234);
  } finally {
    cfg.cleanup();
    hap.cleanup();
  }
});

test("a listener line sends the load to that server's listener, not the first one", async () => {
  const cfg = tempConfig('nginx.conf', TWO_SERVERS);
  try {
    // no line: the first plain listener (server one, `return 200`): nothing reaches the backend
    const first = await runBenchmark({ ...short, configPath: cfg.file }, hooks);
    assert.equal(errorsOf(first), 0);
    assert.ok(first.requests > 5);
    assert.equal(receivedOf(first), 0, 'server one answers itself');

    // the second server's line: its listener, which proxies to the backend
    const second = await runBenchmark({ ...short, configPath: cfg.file, listener: { line: 8, file: cfg.file } }, hooks);
    assert.equal(errorsOf(second), 0);
    assert.ok(receivedOf(second) >= second.requests, `backend received ${receivedOf(second)} for ${second.requests} measured requests`);

    // TLS on the second server's line is its `listen 8443 ssl`
    const tls = await runBenchmark({ ...short, configPath: cfg.file, listener: { line: 8 }, scenario: 'https-keepalive' }, hooks);
    assert.equal(errorsOf(tls), 0, JSON.stringify(tls.errors));
    assert.equal(tls.listener.tls, true);
    assert.ok(receivedOf(tls) >= tls.requests);
  } finally {
    cfg.cleanup();
  }
});

test('a listener line with no suitable listener is a usage error naming the line (and nothing is started)', async () => {
  const cfg = tempConfig('nginx.conf', TWO_SERVERS);
  const hap = tempConfig(
    'haproxy.cfg',
    `defaults\n    mode http\n    timeout connect 5s\n    timeout client 30s\n    timeout server 30s\n\nfrontend a\n    bind :8080\n    default_backend app\n\nlisten b\n    bind :8090\n    http-request return status 200 content-type text/plain string two\n\nbackend app\n    server a 198.51.100.7:80\n`,
  );
  try {
    // server one has no TLS listener
    await assert.rejects(
      runBenchmark({ ...short, configPath: cfg.file, listener: { line: 4 }, scenario: 'https-keepalive' }, hooks),
      (e: Error) => {
        assert.ok(e instanceof BenchUsageError, e.message);
        assert.match(e.message, /nginx\.conf:4: .*listen 8081.*TLS listener/);
        return true;
      },
    );
    // line 6 is a location, not a server
    await assert.rejects(runBenchmark({ ...short, configPath: cfg.file, listener: { line: 6 } }, hooks), (e: Error) => {
      assert.ok(e instanceof BenchUsageError);
      assert.match(e.message, /nginx\.conf:6: no listener belongs to a block starting on this line/);
      return true;
    });
    // haproxy: `listen b` (line 11) answers itself, `frontend a` (line 7) proxies to the backend
    const b = await runBenchmark({ ...short, configPath: hap.file, listener: { line: 11 } }, hooks);
    const a = await runBenchmark({ ...short, configPath: hap.file, listener: { line: 7 } }, hooks);
    assert.equal(errorsOf(a) + errorsOf(b), 0, JSON.stringify([a.errors, b.errors]));
    assert.ok(b.requests > 5 && a.requests > 5);
    assert.equal(receivedOf(b), 0, 'listen b answers without the backend');
    assert.ok(receivedOf(a) >= a.requests, `frontend a: backend received ${receivedOf(a)} for ${a.requests} measured requests`);
    await assert.rejects(runBenchmark({ ...short, configPath: hap.file, listener: { line: 15 } }, hooks), /haproxy\.cfg:15: no listener/);
  } finally {
    cfg.cleanup();
    hap.cleanup();
  }
});

test("the CodeLens path: each server's location route, through the panel's options, loads its own server", async () => {
  const cfg = tempConfig('nginx.conf', TWO_SERVERS);
  try {
    const routes = findRoutes('nginx', TWO_SERVERS).filter((r) => r.key.startsWith('location:'));
    assert.equal(routes.length, 2);
    const lineOf = (offset: number) => TWO_SERVERS.slice(0, offset).split('\n').length;
    const results: BenchResult[] = [];
    for (const route of routes) {
      const panel = {
        ...DEFAULT_RUN_OPTIONS,
        durationS: 1,
        warmupS: 0,
        connections: 2,
        path: route.path,
        method: 'POST' as const,
        body: '{"n":1}',
      };
      results.push(await runBenchmark(toBenchOptions(panel, cfg.file, 'nginx', undefined, lineOf(route.blockOffset)), hooks));
    }
    const [one, two] = results;
    assert.equal(errorsOf(one) + errorsOf(two), 0, JSON.stringify([one.errors, two.errors]));
    assert.ok(one.requests > 5 && two.requests > 5);
    assert.equal(receivedOf(one), 0, 'the first server answers itself');
    assert.ok(receivedOf(two) >= two.requests, `second server: backend received ${receivedOf(two)} for ${two.requests} measured requests`);
    assert.deepEqual(Object.keys(two.backend.received!.methods), ['POST']);
    assert.equal(two.backend.received!.bodyBytesMax, 7);
  } finally {
    cfg.cleanup();
  }
});

test("listeners know their block's header line: nginx servers (also a listen from a file included in the server), HAProxy sections", async () => {
  const nginx = tempConfig(
    'nginx.conf',
    'events {}\nhttp {\n  server {\n    include listen.conf;\n    server_name inc.test;\n  }\n  server { listen 82; }\n  server {\n    server_name nolisten.test;\n  }\n}\n',
  );
  writeFileSync(path.join(nginx.dir, 'listen.conf'), '\n\nlisten 81 ssl;\n');
  const sb = ProxySandbox.create({ configPath: nginx.file });
  try {
    sb.plan({ http: 1001, https: 1002, tcp: 1003 });
    const rows = sb.listeners
      .filter((l) => l.original.startsWith('listen'))
      .map((l) => [path.basename(l.file), l.line, path.basename(l.block!.file), l.block!.line, l.serverName ?? '', l.ssl]);
    assert.deepEqual(rows, [
      ['listen.conf', 3, 'nginx.conf', 3, 'inc.test', true],
      ['nginx.conf', 7, 'nginx.conf', 7, '', false],
    ]);
    const noListen = sb.listeners.find((l) => l.serverName === 'nolisten.test');
    assert.deepEqual(noListen?.block, { file: nginx.file, line: 8 });
    // the included listen is the first server's own (TLS) listener
    assert.equal(pickListener(sb.listeners, 'https-keepalive', { line: 3, file: nginx.file }).main.line, 3);
    assert.throws(
      () => pickListener(sb.listeners, 'https-keepalive', { line: 7, file: nginx.file }),
      /nginx\.conf:7: .*listen 82.*TLS listener/,
    );
    assert.equal(pickListener(sb.listeners, 'http1-keepalive', { line: 8, file: nginx.file }).main.serverName, 'nolisten.test');
  } finally {
    await sb.dispose();
    nginx.cleanup();
  }
  const hap = tempConfig(
    'haproxy.cfg',
    'defaults\n  mode http\n\nfrontend a\n  bind :80\n  bind :81,:82\n\nlisten b\n  mode tcp\n  bind :90\n',
  );
  const hs = ProxySandbox.create({ configPath: hap.file });
  try {
    hs.plan({ http: 1001, https: 1002, tcp: 1003 });
    assert.deepEqual(
      hs.listeners.map((l) => [l.line, l.block!.line, l.stream]),
      [
        [5, 4, false],
        [6, 4, false],
        [6, 4, false],
        [10, 8, true],
      ],
    );
    assert.equal(pickListener(hs.listeners, 'tcp', { line: 8, file: hap.file }).main.line, 10);
    assert.throws(() => pickListener(hs.listeners, 'tcp', { line: 4, file: hap.file }), /haproxy\.cfg:4: .*plain TCP/);
  } finally {
    await hs.dispose();
    hap.cleanup();
  }
});
