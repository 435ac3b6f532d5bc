// Failover on the real binaries: the second server of an upstream/backend fails mid-run. Without
// the setting that retries on another server the clients see errors and a finding names the
// setting; with it they see none (nginx `proxy_next_upstream ... http_502`; HAProxy
// `option redispatch`).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BenchOptions } from '../../protocol/bench';
import { findBinary, runBenchmark, BenchUsageError } from '../../bench/src/index';
import { failoverSummary } from '../../bench/src/failover';
import { findMatrixBinary, loadMatrix } from '../../server/src/runner/matrix';
import { tempConfig } from './helpers';

async function run(name: string, text: string, o: BenchOptions, ctx?: { diagnostic(m: string): void }) {
  const t = tempConfig(name, text);
  try {
    const r = await runBenchmark({ configPath: t.file, durationMs: 3000, warmupMs: 300, connections: 10, rate: 200, ...o });
    ctx?.diagnostic(`${o.failover?.mode}: ${JSON.stringify(r.failover)}`);
    return { r, failover: r.failover!, finding: r.diagnosis!.findings.find((f) => f.kind === 'failover') };
  } finally {
    t.cleanup();
  }
}

const lineOf = (text: string, start: string) => text.split('\n').findIndex((l) => l.trimStart().startsWith(start)) + 1;

describe('failover', () => {
  it('summarizes errors, P99 and the time to recovery from the seconds', () => {
    const s = (t: number, errors: number, p99: number) => ({
      t,
      phase: 'measure' as const,
      rps: 100,
      p50: 1,
      p90: 1,
      p99,
      p999: p99,
      max: p99,
      errors,
      load: 100,
    });
    const r = failoverSummary('refuse', [s(1, 0, 5), s(2, 0, 6), s(3, 7, 90), s(4, 2, 40), s(5, 0, 8), s(6, 0, 7)], 2);
    assert.deepEqual(r, {
      mode: 'refuse',
      failedAtS: 2,
      errorsBefore: 0,
      errorsAfter: 9,
      p99BeforeMs: 6,
      p99DuringMs: 90,
      p99AfterMs: 8,
      recoveredAfterS: 2,
    });
    assert.equal(failoverSummary('502', [s(1, 0, 5), s(2, 3, 6)], 1).recoveredAfterS, null);
    assert.equal(failoverSummary('502', [s(1, 0, 5), s(2, 0, 6)], 1).recoveredAfterS, 0);
  });

  const nginx = findBinary('nginx');
  const matrix = loadMatrix();
  // the host's binary and the matrix's newest of each product
  const NGINX = [
    { version: 'host', path: nginx ?? '' },
    { version: '1.30', path: findMatrixBinary('nginx', '1.30', matrix)?.path ?? '' },
  ];
  const HAPROXY = [
    { version: 'host', path: findBinary('haproxy') ?? '' },
    { version: '3.2', path: findMatrixBinary('haproxy', '3.2', matrix)?.path ?? '' },
  ];
  const conf = (retry: string) =>
    `worker_processes 1;\nevents { worker_connections 1024; }\nhttp {\n    access_log off;\n    upstream app {\n        server 127.0.0.1:8081;\n        server 127.0.0.1:8082;\n        keepalive 32;\n    }\n    server {\n        listen 8080;\n        location / {\n            proxy_pass http://app;\n            proxy_http_version 1.1;\n            proxy_set_header Connection "";\n${retry}        }\n    }\n}\n`;

  for (const nb of NGINX)
    it(
      `nginx ${nb.version}: a server answering 502 reaches the clients unless proxy_next_upstream retries it`,
      { skip: !nb.path && !process.env.CI && 'no nginx' },
      async (ctx) => {
        const bad = conf('');
        const a = await run('nginx.conf', bad, { failover: { mode: '502' }, binary: nb.path }, ctx);
        assert.ok(a.failover.errorsAfter > 0, JSON.stringify(a.failover));
        assert.equal(a.failover.errorsBefore, 0);
        assert.ok(a.finding, 'a failover finding');
        assert.equal(a.finding.at?.line, lineOf(bad, 'proxy_pass'));
        assert.match(a.finding.fix!.edits[0].insertAfter![0], /proxy_next_upstream error timeout http_502/);
        const b = await run(
          'nginx.conf',
          conf('            proxy_next_upstream error timeout http_502;\n'),
          { failover: { mode: '502' }, binary: nb.path },
          ctx,
        );
        assert.equal(b.failover.errorsAfter, 0, JSON.stringify(b.failover));
        assert.equal(b.failover.recoveredAfterS, 0);
        assert.equal(b.finding, undefined);
      },
    );

  it('nginx: a refusing server is retried by default (error timeout)', { skip: !nginx && !process.env.CI && 'no nginx' }, async (ctx) => {
    const a = await run('nginx.conf', conf(''), { failover: { mode: 'refuse' } }, ctx);
    // requests in flight on the failing server when it drops its connections are lost either way
    assert.ok(a.failover.errorsAfter <= 10, JSON.stringify(a.failover));
    assert.ok(a.failover.recoveredAfterS !== null && a.failover.recoveredAfterS <= 1, JSON.stringify(a.failover));
    assert.equal(a.finding, undefined);
  });

  const cfg = (extra: string, check = '') =>
    `defaults\n    mode http\n    timeout connect 2s\n    timeout client 30s\n    timeout server 30s\nfrontend web\n    bind :8080\n    default_backend app\nbackend app\n${extra}    server s1 127.0.0.1:8081${check}\n    server s2 127.0.0.1:8082${check}\n`;

  for (const hb of HAPROXY)
    it(
      `HAProxy ${hb.version}: a refusing server reaches the clients unless option redispatch moves the retry`,
      { skip: !hb.path && !process.env.CI && 'no haproxy' },
      async (ctx) => {
        const bad = cfg('');
        const a = await run('haproxy.cfg', bad, { failover: { mode: 'refuse' }, binary: hb.path }, ctx);
        assert.ok(a.failover.errorsAfter > 0, JSON.stringify(a.failover));
        assert.ok(a.finding);
        assert.equal(a.finding.at?.line, lineOf(bad, 'backend app'));
        assert.ok(a.finding.fix!.edits[0].insertAfter!.some((l) => l.trim() === 'option redispatch'));
        // HAProxy waits a second before each retry on the same server: 3 retries, then a 503
        assert.ok(a.failover.p99DuringMs >= 1000, JSON.stringify(a.failover));
        // requests in flight on the failing server when it drops its connections are lost either way
        const b = await run(
          'haproxy.cfg',
          cfg('    option redispatch\n    retries 3\n', ' check'),
          { failover: { mode: 'refuse' }, binary: hb.path },
          ctx,
        );
        assert.ok(b.failover.errorsAfter <= 10, JSON.stringify(b.failover));
        assert.ok(b.failover.recoveredAfterS !== null && b.failover.recoveredAfterS <= 1, JSON.stringify(b.failover));
        assert.ok(b.failover.p99DuringMs < 1000, JSON.stringify(b.failover));
        assert.equal(b.finding, undefined);
      },
    );

  it('refuses what it cannot do', async () => {
    await assert.rejects(runBenchmark({ target: { host: '127.0.0.1', port: 1 }, failover: { mode: '502' } }), BenchUsageError);
    const one = tempConfig('nginx.conf', conf('').replace('        server 127.0.0.1:8082;\n', ''));
    try {
      if (nginx) await assert.rejects(runBenchmark({ configPath: one.file, failover: { mode: '502' }, durationMs: 500 }), /two servers/);
    } finally {
      one.cleanup();
    }
  });
});
