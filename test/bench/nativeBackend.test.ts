// The native backend (bench/src/nativeBackend.ts): real nginx and HAProxy answering a fixed
// response with the requested size and status, its counters (connections vs requests, our own
// status polls taken out), cleanup by process group, and what `auto` picks in runBenchmark.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as net from 'node:net';
import { findBinary } from '../../server/src/runner/proxy';
import { NativeBackend, parseHaproxyCsv, parseStubStatus, DEFAULT_NATIVE_BODY } from '../../bench/src/nativeBackend';
import { runBenchmark } from '../../bench/src/index';
import { eventually, liveDescendants, liveInGroup, tempConfig } from './helpers';

after(async () => {
  assert.ok(await eventually(() => liveDescendants().length === 0), `processes left: ${liveDescendants().join(' ')}`);
});

/** Sends `n` GETs on one keep-alive connection, then `m` on fresh connections; returns the responses' heads and body sizes. */
async function requests(port: number, n: number, m: number, method = 'GET'): Promise<{ status: number; bytes: number; type: string }[]> {
  const out: { status: number; bytes: number; type: string }[] = [];
  const one = (sock: net.Socket) =>
    new Promise<void>((resolve, reject) => {
      let buf = Buffer.alloc(0);
      const onData = (b: Buffer) => {
        buf = Buffer.concat([buf, b]);
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString('latin1');
        const len = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        const bodyLen = method === 'HEAD' ? 0 : len;
        if (buf.length < end + 4 + bodyLen) return;
        sock.off('data', onData);
        sock.off('error', reject);
        out.push({ status: Number(head.split(' ')[1]), bytes: len, type: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? '' });
        resolve();
      };
      sock.on('data', onData);
      sock.once('error', reject);
      sock.write(`${method} /any/path?x=1 HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    });
  const connect = () =>
    new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect({ host: '127.0.0.1', port }, () => resolve(s));
      s.once('error', reject);
    });
  const s = await connect();
  for (let i = 0; i < n; i++) await one(s);
  s.destroy();
  for (let i = 0; i < m; i++) {
    const c = await connect();
    await one(c);
    c.destroy();
  }
  return out;
}

for (const kind of ['nginx', 'haproxy'] as const) {
  test(
    `native ${kind} backend: requested size and status, counted connections, nothing left after stop`,
    { skip: !findBinary(kind) },
    async () => {
      const binary = findBinary(kind)!;
      const b = await NativeBackend.start({ responseBytes: 100_000, status: 200 }, { kind, binary });
      let dir = '';
      try {
        dir = b.dir;
        assert.ok(existsSync(dir));
        const t0 = Date.now();
        await new Promise((r) => setTimeout(r, 250));
        const got = await requests(b.ports.http, 20, 5);
        await new Promise((r) => setTimeout(r, 250));
        const t1 = Date.now();
        assert.equal(got.length, 25);
        for (const g of got) {
          assert.equal(g.status, 200);
          assert.equal(g.bytes, 100_000);
          assert.match(g.type, /application\/json/);
        }
        const s = await b.statsBetween(t0, t1);
        assert.equal(s.requests, 25, JSON.stringify(s));
        assert.equal(s.connections, 6, JSON.stringify(s));
        assert.ok(b.cpuSeconds() >= 0);
      } finally {
        const pgid = b.pgid;
        await b.stop();
        assert.ok(await eventually(() => liveInGroup(pgid).length === 0), 'backend processes left');
        assert.ok(!existsSync(dir), 'backend folder left');
      }
    },
  );

  test(`native ${kind} backend: a 503 with the default body, HEAD, and the 1 MiB body`, { skip: !findBinary(kind) }, async () => {
    const binary = findBinary(kind)!;
    const b = await NativeBackend.start({ status: 503 }, { kind, binary });
    try {
      const got = await requests(b.ports.http, 2, 0);
      assert.deepEqual(
        got.map((g) => [g.status, g.bytes]),
        [
          [503, Buffer.byteLength(DEFAULT_NATIVE_BODY)],
          [503, Buffer.byteLength(DEFAULT_NATIVE_BODY)],
        ],
      );
      const head = await requests(b.ports.http, 1, 0, 'HEAD');
      assert.equal(head[0].status, 503);
    } finally {
      await b.stop();
    }
    const big = await NativeBackend.start({ responseBytes: 1024 * 1024 }, { kind, binary });
    try {
      const got = await requests(big.ports.http, 2, 0);
      assert.deepEqual(
        got.map((g) => [g.status, g.bytes]),
        [
          [200, 1024 * 1024],
          [200, 1024 * 1024],
        ],
      );
    } finally {
      await big.stop();
    }
  });
}

test('status page parsers', () => {
  assert.deepEqual(
    parseStubStatus('Active connections: 2 \nserver accepts handled requests\n 17 17 230 \nReading: 0 Writing: 1 Waiting: 1 \n'),
    { connections: 17, requests: 230 },
  );
  assert.equal(parseStubStatus('nothing'), null);
  const csv = '# pxname,svname,qcur,stot,req_tot,conn_tot\npt_stats,FRONTEND,,3,3,1\npt_backend,FRONTEND,,40,41,7\n';
  assert.deepEqual(parseHaproxyCsv(csv), { connections: 7, requests: 41 });
});

test('runBenchmark: auto takes the native backend for fixed responses, the Node one for bodies and tcp; the result says which', async () => {
  const cfg = tempConfig(
    'nginx.conf',
    'events {}\nhttp {\n  access_log off;\n  server {\n    listen 8080;\n    location / { proxy_pass http://127.0.0.1:1980; }\n  }\n}\n',
  );
  try {
    const native = await runBenchmark({ configPath: cfg.file, durationMs: 500, warmupMs: 100, connections: 4 });
    assert.equal(native.backend.kind, 'nginx');
    assert.ok(native.backend.version);
    assert.ok(native.requests > 10);
    // literal proxy_pass: nginx opens an upstream connection per request
    assert.ok(native.backend.connectionsPerRequest > 0.9, JSON.stringify(native.backend));
    assert.ok(
      Math.abs(native.backend.requests - native.requests) <= native.requests * 0.2 + 20,
      `${native.backend.requests} vs ${native.requests}`,
    );
    assert.ok(native.cost && native.cost.benchCpuUsPerRequest > 0, JSON.stringify(native.cost));
    const post = await runBenchmark({ configPath: cfg.file, durationMs: 300, warmupMs: 0, connections: 2, method: 'POST', body: 'abc' });
    assert.equal(post.backend.kind, 'node');
    assert.match(post.backend.why ?? '', /per-method/);
    assert.deepEqual(Object.keys(post.backend.received?.methods ?? {}), ['POST']);
    const forced = await runBenchmark({ configPath: cfg.file, durationMs: 300, warmupMs: 0, connections: 2, backend: { kind: 'node' } });
    assert.equal(forced.backend.kind, 'node');
    await assert.rejects(
      runBenchmark({
        configPath: cfg.file,
        durationMs: 300,
        warmupMs: 0,
        connections: 2,
        backend: { kind: 'native', latency: { kind: 'fixed', ms: 5 } },
      }),
      /native backend cannot serve this run: an added latency/,
    );
  } finally {
    cfg.cleanup();
  }
});
