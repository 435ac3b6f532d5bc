// Pure parts of the panel host: the routes the CodeLenses offer and the mapping of engine
// failures to a line of the user's config.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mapBenchError } from '../../client/src/benchmark/errors';
import { findRoutes, locationPath, pickServerName } from '../../client/src/benchmark/routes';
import { RunStore } from '../../client/src/benchmark/runStore';
import { bodyContentType, toBenchOptions } from '../../client/src/benchmark/options';
import { DEFAULT_RUN_OPTIONS } from '../../protocol/panel';
import { BenchUsageError, pickBackend, pickListener, resolveOptions } from '../../bench/src/index';
import type { SandboxListener } from '../../server/src/runner/sandbox/common';
import { SCENARIOS, needsTls, scenarioFacts, sendsOwnRequests, type ScenarioName } from '../../protocol/scenarios';
import { run } from './fixtures';

describe('routes for the CodeLens', () => {
  it('nginx: a lens per http server (listener, Host) and per location (path); stream servers use tcp', () => {
    const text = [
      'http {',
      '  server {',
      '    listen 127.0.0.1:8080;',
      '    server_name _ api.example.test *.wild.test;',
      '    location /api/ { proxy_pass http://b; }',
      '    location = /health { return 200; }',
      '    location ~ ^/static/.+\\.js$ { root /srv; }',
      '    location ~* \\.png$ { root /srv; }',
      '    location @fallback { return 404; }',
      '  }',
      '}',
      'stream {',
      '  server { listen 9000; proxy_pass 127.0.0.1:9001; }',
      '}',
    ].join('\n');
    const routes = findRoutes('nginx', text);
    assert.deepEqual(
      routes.map((r) => [r.key, r.label, r.path, r.host, r.scenario ?? '']),
      [
        ['server:api.example.test@127.0.0.1:8080', 'api.example.test @ 127.0.0.1:8080', '/', 'api.example.test', ''],
        ['location:api.example.test/api/', '/api/', '/api/', 'api.example.test', ''],
        ['location:api.example.test/health', '/health', '/health', 'api.example.test', ''],
        ['location:api.example.test/static/', '/static/', '/static/', 'api.example.test', ''],
        ['server:stream:@9000', 'stream 9000', '/', '', 'tcp'],
      ],
    );
    assert.equal(text.slice(routes[1].offset, routes[1].offset + 8), 'location');
  });

  it('haproxy: a lens per frontend and listen section with its bind; tcp mode uses the tcp scenario', () => {
    const text = [
      'global',
      '  maxconn 100',
      'frontend web',
      '  bind 127.0.0.1:8080',
      '  default_backend app',
      'listen db',
      '  mode tcp',
      '  bind :5432',
      'backend app',
      '  server s1 127.0.0.1:9000',
    ].join('\n');
    const routes = findRoutes('haproxy', text);
    assert.deepEqual(
      routes.map((r) => [r.key, r.label, r.scenario ?? '']),
      [
        ['frontend:web', 'frontend web @ 127.0.0.1:8080', ''],
        ['listen:db', 'listen db @ :5432', 'tcp'],
      ],
    );
    assert.equal(text.slice(routes[0].offset, routes[0].offset + 8), 'frontend');
  });

  it('tolerates half-typed configs', () => {
    // The unclosed server still gets its lens; the location has no block yet, so none.
    assert.deepEqual(
      findRoutes('nginx', 'http { server { location').map((r) => r.key),
      ['server:@'],
    );
    assert.ok(Array.isArray(findRoutes('haproxy', 'frontend')));
  });

  it('derives a literal path from a location only when there is one', () => {
    assert.equal(locationPath(['/a']), '/a');
    assert.equal(locationPath(['^~', '/img/']), '/img/');
    assert.equal(locationPath(['~', '^/v1/users/(\\d+)$']), '/v1/users/');
    assert.equal(locationPath(['~', '^/a\\.b/c']), '/a.b/c');
    assert.equal(locationPath(['~', 'php$']), undefined);
    assert.equal(locationPath(['@named']), undefined);
    assert.equal(locationPath([]), undefined);
    assert.equal(pickServerName(['_', '~^www', 'a.test']), 'a.test');
    assert.equal(pickServerName(['_']), '');
  });
});

describe('mapBenchError', () => {
  const real = '/home/u/site/nginx.conf';
  const tmp = '/tmp/proxy-tuner-panel-x/nginx.conf';

  it('takes the line from a sandbox refusal naming the user file (1-based to 0-based)', () => {
    const err = Object.assign(new Error(`${real}:9: proxy_pass to 10.0.0.1 is not loopback`), {
      name: 'SandboxRefusal',
      file: real,
      line: 9,
    });
    const m = mapBenchError(err, [real]);
    assert.deepEqual([m.line, m.kind, m.aborted], [8, 'refused', false]);
  });

  it('finds the line in nginx -t and haproxy -c messages, also for a temporary copy, and names the user file', () => {
    const ng = Object.assign(new Error(`nginx rejected the config: [emerg] unknown directive "proxy_pas" in ${tmp}:12`), {
      name: 'ConfigCheckError',
      details: '',
    });
    const m = mapBenchError(ng, [real, tmp]);
    assert.equal(m.line, 11);
    assert.equal(m.kind, 'config-check');
    assert.ok(m.message.includes(real) && !m.message.includes(tmp));
    const hp = Object.assign(new Error('haproxy rejected the config: see details'), {
      name: 'ConfigCheckError',
      details: `[ALERT] (1) : config : parsing [${real}:4] : unknown keyword 'bnd'`,
    });
    assert.equal(mapBenchError(hp, [real]).line, 3);
  });

  it('ignores lines of other files, and reports a cancel as aborted', () => {
    const other = Object.assign(new Error('x'), { name: 'SandboxRefusal', file: '/etc/nginx/mime.types', line: 3 });
    assert.equal(mapBenchError(other, [real]).line, null);
    const abort = Object.assign(new Error('aborted'), { name: 'AbortError' });
    assert.deepEqual([mapBenchError(abort, [real]).aborted, mapBenchError(abort, [real]).kind], [true, 'aborted']);
    assert.equal(mapBenchError(new Error('nginx not found on PATH: apt-get install nginx'), [real]).kind, 'binary');
  });
});

describe('RunStore', () => {
  function memento() {
    const data = new Map<string, unknown>();
    return {
      data,
      get: <T>(k: string) => data.get(k) as T | undefined,
      update: async (k: string, v: unknown) => {
        data.set(k, JSON.parse(JSON.stringify(v)));
      },
    };
  }

  it('keeps runs per config, bounded, newest last, and numbers them', async () => {
    const m = memento();
    const store = new RunStore(m, () => 3);
    const changes: string[] = [];
    store.onDidChange((u) => changes.push(u));
    for (const id of ['a', 'b', 'c', 'd']) await store.add({ ...run(id), label: `#${store.nextNumber('file:///work/nginx.conf')} x` });
    await store.add({ ...run('z'), configUri: 'file:///other.conf' });
    assert.deepEqual(
      store.runs('file:///work/nginx.conf').map((r) => r.id),
      ['b', 'c', 'd'],
    );
    assert.deepEqual(
      store.runs('file:///work/nginx.conf').map((r) => r.label),
      ['#2 x', '#3 x', '#4 x'],
    );
    assert.equal(store.nextNumber('file:///work/nginx.conf'), 5);
    assert.deepEqual(
      store.runs('file:///other.conf').map((r) => r.id),
      ['z'],
    );
    assert.equal(store.last('file:///work/nginx.conf')?.id, 'd');
    assert.deepEqual(changes, [
      'file:///work/nginx.conf',
      'file:///work/nginx.conf',
      'file:///work/nginx.conf',
      'file:///work/nginx.conf',
      'file:///other.conf',
    ]);
  });

  it('finds the last run of a route and clears a deleted run from the comparison', async () => {
    const store = new RunStore(memento(), () => 20);
    const uri = 'file:///work/nginx.conf';
    await store.add({ ...run('a'), route: 'config' });
    await store.add({ ...run('b'), route: 'location:/api' });
    await store.add({ ...run('c'), route: 'config' });
    assert.equal(store.lastFor(uri, 'location:/api')?.id, 'b');
    assert.equal(store.lastFor(uri, 'config')?.id, 'c');
    assert.equal(store.lastFor(uri, 'frontend:web'), undefined);
    await store.setCompare(uri, 'a', 'c');
    await store.delete(uri, 'a');
    assert.deepEqual(store.compare(uri), { a: null, b: 'c' });
    assert.deepEqual(
      store.runs(uri).map((r) => r.id),
      ['b', 'c'],
    );
  });

  it('skips stored records that no longer have the current shape', async () => {
    const m = memento();
    const store = new RunStore(m, () => 20);
    m.data.set('proxyTuner.bench.runs:file:///x', [run('ok'), { id: 'old', result: {} }, 'junk']);
    assert.deepEqual(
      store.runs('file:///x').map((r) => r.id),
      ['ok'],
    );
  });
});

describe('panel options to engine options', () => {
  const lineOf = (text: string, offset: number) => text.slice(0, offset).split('\n').length;

  it("a route's block line becomes the engine's listener (server, its locations, HAProxy sections)", () => {
    const nginx = [
      'http {',
      '  server { listen 81; }',
      '  server {',
      '    listen 82;',
      '    location /api { return 200; }',
      '  }',
      '}',
    ].join('\n');
    const routes = findRoutes('nginx', nginx);
    assert.deepEqual(
      routes.map((r) => [r.key, lineOf(nginx, r.blockOffset)]),
      [
        ['server:@81', 2],
        ['server:@82', 3],
        ['location:/api', 3],
      ],
    );
    const o = toBenchOptions(DEFAULT_RUN_OPTIONS, '/c/nginx.conf', 'nginx', undefined, lineOf(nginx, routes[2].blockOffset));
    assert.deepEqual(o.listener, { line: 3 });
    assert.equal(toBenchOptions(DEFAULT_RUN_OPTIONS, '/c/nginx.conf', 'nginx', undefined).listener, undefined);
    const hap = 'defaults\n  mode http\n\nfrontend a\n  bind :80\n\nlisten b\n  bind :81\n';
    assert.deepEqual(
      findRoutes('haproxy', hap).map((r) => [r.key, lineOf(hap, r.blockOffset)]),
      [
        ['frontend:a', 4],
        ['listen:b', 7],
      ],
    );
  });

  it('method and body go to the engine (POST is a real POST now); get-post-mix and tcp keep their own requests', () => {
    const put = toBenchOptions({ ...DEFAULT_RUN_OPTIONS, method: 'PUT', body: '{"a": [1]}' }, 'c', 'nginx', undefined);
    assert.equal(put.scenario, 'http1-keepalive');
    assert.equal(put.method, 'PUT');
    assert.equal(put.body, '{"a": [1]}');
    assert.equal(put.contentType, 'application/json');
    const post = toBenchOptions({ ...DEFAULT_RUN_OPTIONS, method: 'POST', body: '' }, 'c', 'nginx', undefined);
    assert.equal(post.scenario, 'http1-keepalive');
    assert.equal(post.method, 'POST');
    assert.equal(post.body, undefined);
    const get = toBenchOptions(DEFAULT_RUN_OPTIONS, 'c', 'nginx', undefined);
    assert.equal(get.method, undefined);
    assert.equal(get.body, undefined);
    for (const scenario of ['get-post-mix', 'tcp'] as const) {
      const own = toBenchOptions({ ...DEFAULT_RUN_OPTIONS, scenario, method: 'PUT', body: 'x' }, 'c', 'nginx', undefined);
      assert.equal(own.method, undefined, scenario);
      assert.equal(own.body, undefined, scenario);
    }
    assert.equal(bodyContentType('{"ok":true}'), 'application/json');
    assert.equal(bodyContentType('{not json'), 'text/plain; charset=utf-8');
    assert.equal(bodyContentType('a=1&b=2'), 'text/plain; charset=utf-8');
  });
});

describe("a route's block without a suitable listener", () => {
  it("the engine's usage error lands on the block's line of the user's file (also from an unsaved editor's copy)", () => {
    const user = '/home/u/site/nginx.conf';
    const copy = '/tmp/proxy-tuner-panel-x/nginx.conf';
    let err: unknown;
    try {
      pickListener([], 'https-keepalive', { line: 4, file: copy });
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof BenchUsageError);
    const m = mapBenchError(err, [user, copy]);
    assert.equal(m.kind, 'usage');
    assert.equal(m.line, 3);
    assert.ok(m.message.startsWith(`${user}:4: `), m.message);
  });
});

describe('the scenario facts table (protocol/scenarios.ts) drives every scenario branch', () => {
  const L = (port: number, f: { ssl?: boolean; http2?: boolean; stream?: boolean; h2cOnly?: boolean }): SandboxListener => ({
    slot: port,
    port,
    ssl: !!f.ssl,
    http2: !!f.http2,
    stream: !!f.stream,
    udp: false,
    h2cOnly: !!f.h2cOnly,
    file: '/x/nginx.conf',
    line: port,
    original: `listen ${port};`,
  });
  // one listener of each kind: plain 1, TLS 2, h2c-only 3, h2 over TLS 4, L4 5
  const all = [
    L(1, {}),
    L(2, { ssl: true }),
    L(3, { http2: true, h2cOnly: true }),
    L(4, { http2: true, ssl: true }),
    L(5, { stream: true }),
  ];
  // written out by hand (not derived from the table), so a wrong row fails here
  const expected: Record<ScenarioName, { main: number; tls?: number; own: boolean; nodeOnly: boolean }> = {
    'http1-keepalive': { main: 1, own: false, nodeOnly: false },
    'http1-close': { main: 1, own: false, nodeOnly: false },
    'https-keepalive': { main: 2, own: false, nodeOnly: false },
    'https-handshake': { main: 2, own: false, nodeOnly: false },
    'https-resume': { main: 2, own: false, nodeOnly: false },
    http2: { main: 4, own: false, nodeOnly: false },
    tcp: { main: 5, own: true, nodeOnly: true },
    large: { main: 1, own: false, nodeOnly: false },
    'get-post-mix': { main: 1, own: true, nodeOnly: true },
    mixed: { main: 1, tls: 2, own: false, nodeOnly: false },
  };

  it('has one row per scenario, and the rows are consistent', () => {
    assert.deepEqual([...SCENARIOS].sort(), Object.keys(expected).sort());
    for (const s of SCENARIOS) {
      const f = scenarioFacts(s);
      assert.ok(f.summary.length > 10, s);
      assert.equal(f.connections === 'mix', f.mix !== undefined, `${s}: a mix needs its shares`);
      if (f.mix) assert.equal(f.mix.keepAlive + f.mix.close + f.mix.tlsClose, 10, `${s}: shares of every 10 connections`);
      assert.equal(f.listener === 'stream', f.transport === 'tcp', s);
      assert.equal(f.listener === 'tls', needsTls(s), s);
    }
  });

  it('the listener picker takes the listener each row names (a mix also takes a TLS listener for its TLS share)', () => {
    for (const s of SCENARIOS) {
      const p = pickListener(all, s);
      assert.equal(p.main.port, expected[s].main, s);
      assert.equal(p.tls?.port, expected[s].tls, s);
    }
    // without a plain listener, keep-alive HTTP falls back to TLS; the mix does not
    assert.equal(pickListener([L(2, { ssl: true })], 'http1-keepalive').main.port, 2);
    assert.throws(() => pickListener([L(2, { ssl: true })], 'mixed'), /scenario "mixed" needs a plain HTTP listener/);
    assert.throws(() => pickListener([L(1, {})], 'tcp'), /scenario "tcp" needs a plain TCP \(L4\) listener/);
    assert.throws(() => pickListener([L(1, {})], 'http2'), /scenario "http2" needs an HTTP\/2 listener/);
  });

  it('own requests refuse a method and a body; the built-in backend is required exactly where a row says so', () => {
    for (const s of SCENARIOS) {
      assert.equal(sendsOwnRequests(s), expected[s].own, s);
      const withMethod = () => resolveOptions({ target: { host: '127.0.0.1', port: 1 }, scenario: s, method: 'POST', body: 'x' });
      if (expected[s].own) assert.throws(withMethod, /sets its own requests/, s);
      else assert.doesNotThrow(withMethod, s);
      const r = resolveOptions({ target: { host: '127.0.0.1', port: 1 }, scenario: s });
      if (expected[s].nodeOnly) {
        const plan = pickBackend(r, {});
        assert.equal(plan.kind, 'node', s);
        assert.match(
          (plan as { why?: string }).why ?? '',
          new RegExp(`needs the built-in backend \\(${scenarioFacts(s).nodeBackendOnly}\\)`),
          s,
        );
        assert.throws(() => pickBackend(r, { backend: { kind: 'native' } }), /native backend cannot serve this run/, s);
      }
    }
  });
});
