// The diagnosis on the real binaries: for each pitfall of the seeds, a config that has it gets the
// finding at its line and the fixed config does not (nginx 1.22.1 and 1.30.6, HAProxy 2.6.12 and
// 3.2.26 from the version matrix). Short runs; each assertion is about whether a finding appears,
// never about a timing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BenchOptions, BenchResult } from '../../protocol/bench';
import type { Finding, FindingKind } from '../../protocol/diagnosis';
import { runBenchmark } from '../../bench/src/index';
import { findMatrixBinary, loadMatrix } from '../../server/src/runner/matrix';
import { tempConfig } from './helpers';

const matrix = loadMatrix();
const NGINX = ['1.22', '1.30'].map((v) => findMatrixBinary('nginx', v, matrix));
const HAPROXY = ['2.6', '3.2'].map((v) => findMatrixBinary('haproxy', v, matrix));

async function run(name: string, text: string, binary: string, o: BenchOptions = {}) {
  const t = tempConfig(name, text);
  try {
    const r = await runBenchmark({ configPath: t.file, binary, durationMs: 1200, warmupMs: 300, connections: 10, ...o });
    assert.ok(r.diagnosis, 'every run carries a diagnosis');
    return { r, file: t.file, findings: r.diagnosis.findings };
  } finally {
    t.cleanup();
  }
}

function one(findings: Finding[], kind: FindingKind): Finding {
  const f = findings.filter((x) => x.kind === kind);
  assert.equal(f.length, 1, `one ${kind} finding: ${JSON.stringify(findings, null, 1)}`);
  return f[0];
}

function none(findings: Finding[], kind: FindingKind): void {
  assert.deepEqual(
    findings.filter((x) => x.kind === kind),
    [],
    `no ${kind} finding`,
  );
}

/** The numbers a fixed run shows for the pitfalls (printed as test diagnostics for the record). */
function summary(r: BenchResult): string {
  const d = r.diagnosis!.readings;
  const e = r.errors;
  return [
    `${r.rps} req/s, P99 ${r.latencyMs.p99} ms`,
    `errors ${e.connect + e.reset + e.timeout + e.non2xx + e.tls + e.protocol}`,
    `backend connections/request ${r.backend.connectionsPerRequest}`,
    r.tls ? `TLS ${r.tls.resumed}/${r.tls.handshakes} resumed` : '',
    d.listen ? `listen overflows ${d.listen.overflows}, drops ${d.listen.drops}` : '',
    d.accessLogBytes !== undefined ? `access log +${d.accessLogBytes} B` : '',
    d.errorLog && Object.keys(d.errorLog).length ? `error log ${JSON.stringify(d.errorLog)}` : '',
    d.queues ? `queues ${JSON.stringify(d.queues)}` : '',
    d.cpu ? `workers ${d.cpu.perWorker.length}, busy ${JSON.stringify(d.cpu.demand)}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/** The text with a finding's fix applied (edits of one file, bottom up). */
function applyFix(text: string, f: Finding): string {
  const lines = text.split('\n');
  for (const e of [...(f.fix?.edits ?? [])].sort((x, y) => y.line - x.line)) {
    if (e.replaceLine !== undefined) lines[e.line - 1] = e.replaceLine;
    else lines.splice(e.line, 0, ...(e.insertAfter ?? []));
  }
  return lines.join('\n');
}

/** The 1-based line of the first line of `text` that starts with `needle` (indentation aside). */
function lineOf(text: string, needle: string): number {
  const i = text.split('\n').findIndex((l) => l.trimStart().startsWith(needle));
  assert.ok(i >= 0, needle);
  return i + 1;
}

const nginx = (events: string, http: string, main = 'worker_processes 1;') => `${main}\nevents {\n    ${events}\n}\nhttp {\n${http}\n}\n`;

const PROXIED = (upstream: string, location: string, extra = '    access_log off;') =>
  `${extra}\n    upstream app {\n        server 127.0.0.1:8081;\n${upstream}    }\n    server {\n        listen 8080;\n        location / {\n            proxy_pass http://app;\n${location}        }\n    }`;
const KEEPALIVE = [
  '        keepalive 64;\n',
  '            proxy_http_version 1.1;\n            proxy_set_header Connection "";\n',
] as const;

for (const bin of NGINX) {
  const skip = !bin && !process.env.CI && 'no version matrix';
  const label = bin ? `nginx ${bin.version}` : 'nginx';
  describe(`diagnosis on ${label}`, { skip }, () => {
    const binary = bin?.path ?? '';
    const newer = !!bin && bin.version.startsWith('1.30');

    it('no upstream keep-alive: the upstream block (1.22) or the literal proxy_pass; none with the fix', async (ctx) => {
      const bad = nginx('worker_connections 1024;', PROXIED('', ''));
      const a = await run('nginx.conf', bad, binary);
      if (newer) {
        // 1.29.7 and later keep upstream connections alive by default: the same config is fine
        assert.ok(a.r.backend.connectionsPerRequest < 0.5, JSON.stringify(a.r.backend));
        none(a.findings, 'upstream-keepalive');
        ctx.diagnostic(`after: ${summary(a.r)}`);
        const literal = bad.replace('proxy_pass http://app;', 'proxy_pass http://127.0.0.1:8081;');
        const l = await run('nginx.conf', literal, binary);
        const f = one(l.findings, 'upstream-keepalive');
        ctx.diagnostic(`before: ${f.measured} at line ${f.at?.line}`);
        assert.equal(f.at?.line, lineOf(literal, 'proxy_pass'));
        assert.equal(f.rule, 'nginx/proxy-pass-no-upstream');
      } else {
        const f = one(a.findings, 'upstream-keepalive');
        ctx.diagnostic(`before: ${f.measured} at line ${f.at?.line}`);
        assert.equal(f.at?.line, lineOf(bad, 'upstream app'));
        assert.equal(f.rule, 'nginx/upstream-keepalive');
        assert.ok(f.numbers.connectionsPerRequest > 0.5);
        assert.ok(f.fix && f.fix.edits.some((e) => e.insertAfter?.some((x) => /keepalive \d+;/.test(x))));
      }
      const good = await run('nginx.conf', nginx('worker_connections 1024;', PROXIED(...KEEPALIVE)), binary);
      none(good.findings, 'upstream-keepalive');
      ctx.diagnostic(`after: ${summary(good.r)}`);
    });

    it('worker_connections too small for the clients: errors, and the line that caps them', async (ctx) => {
      const bad = nginx('worker_connections 16;', PROXIED(...KEEPALIVE));
      const a = await run('nginx.conf', bad, binary, { connections: 40 });
      const f = one(a.findings, 'worker-connections');
      ctx.diagnostic(`before: ${f.measured} at line ${f.at?.line}`);
      assert.equal(f.at?.line, lineOf(bad, 'worker_connections'));
      assert.ok(f.numbers.logLines > 0 || f.numbers.errors > 0);
      const b = await run('nginx.conf', nginx('worker_connections 1024;', PROXIED(...KEEPALIVE)), binary, { connections: 40 });
      none(b.findings, 'worker-connections');
      ctx.diagnostic(`after: ${summary(b.r)}`);
    });

    it('no ssl_session_cache under https-resume (tickets off): the server block; none with a cache', async (ctx) => {
      const server = (cache: string) =>
        `    access_log off;\n    server {\n        listen 8443 ssl;\n        ssl_certificate /etc/ssl/certs/x.pem;\n        ssl_certificate_key /etc/ssl/private/x.key;\n        ssl_session_tickets off;\n${cache}        location / {\n            return 200 "ok\\n";\n        }\n    }`;
      const bad = nginx('worker_connections 1024;', server(''));
      const a = await run('nginx.conf', bad, binary, { scenario: 'https-resume', connections: 4 });
      const f = one(a.findings, 'tls-session-cache');
      ctx.diagnostic(`before: ${f.measured} at line ${f.at?.line}`);
      assert.equal(f.at?.line, lineOf(bad, 'server {'));
      assert.equal(f.rule, 'nginx/ssl-session-cache');
      assert.equal(f.numbers.resumed, 0);
      const b = await run('nginx.conf', nginx('worker_connections 1024;', server('        ssl_session_cache shared:SSL:1m;\n')), binary, {
        scenario: 'https-resume',
        connections: 4,
      });
      none(b.findings, 'tls-session-cache');
      ctx.diagnostic(`after: ${summary(b.r)}`);
      assert.ok((b.r.tls?.resumed ?? 0) > 0);
    });

    it('a listen backlog too small for a burst of new connections; none with a larger backlog', async (ctx) => {
      const server = (backlog: number) =>
        `    access_log off;\n    server {\n        listen 8080 backlog=${backlog};\n        location / {\n            return 200 "ok\\n";\n        }\n    }`;
      const bad = nginx('worker_connections 1024;', server(2));
      const a = await run('nginx.conf', bad, binary, { scenario: 'http1-close', connections: 200 });
      const f = one(a.findings, 'listen-backlog');
      ctx.diagnostic(`before: ${f.measured} at line ${f.at?.line}`);
      assert.equal(f.at?.line, lineOf(bad, 'listen 8080'));
      assert.ok(f.numbers.overflows + f.numbers.drops > 0);
      const b = await run('nginx.conf', nginx('worker_connections 1024;', server(1024)), binary, {
        scenario: 'http1-close',
        connections: 200,
      });
      none(b.findings, 'listen-backlog');
      ctx.diagnostic(`after: ${summary(b.r)}`);
    });

    it("access logging's cost: unbuffered access_log at its line; none when buffered", async (ctx) => {
      const bad = nginx('worker_connections 1024;', PROXIED(...KEEPALIVE, '    access_log /var/log/nginx/access.log;'));
      const a = await run('nginx.conf', bad, binary);
      const f = one(a.findings, 'access-log');
      ctx.diagnostic(`before: ${f.measured} at line ${f.at?.line}`);
      assert.equal(f.at?.line, lineOf(bad, 'access_log'));
      assert.ok(f.numbers.bytesPerRequest > 0);
      const good = bad.replace('access.log;', 'access.log combined buffer=64k flush=5s;');
      const fixed = await run('nginx.conf', good, binary);
      none(fixed.findings, 'access-log');
      ctx.diagnostic(`after: ${summary(fixed.r)}`);
    });

    it('limit_req rejecting load: the limit_req line with the count; none once its fix is applied', async (ctx) => {
      // without `burst=`, two requests of one client within the same millisecond exceed any rate
      const bad = nginx(
        'worker_connections 1024;',
        PROXIED(...KEEPALIVE, '    access_log off;\n    limit_req_zone $binary_remote_addr zone=one:1m rate=100000r/s;').replace(
          'proxy_pass http://app;',
          'limit_req zone=one;\n            proxy_pass http://app;',
        ),
      );
      const a = await run('nginx.conf', bad, binary);
      const f = one(a.findings, 'rate-limit');
      ctx.diagnostic(`before: ${f.measured} at line ${f.at?.line}`);
      assert.equal(f.at?.line, lineOf(bad, 'limit_req zone=one'));
      assert.ok(f.numbers.rejected > 0);
      assert.ok(a.r.diagnosis!.readings.statuses?.['503']);
      assert.ok(f.fix);
      const b = await run('nginx.conf', applyFix(bad, f), binary);
      none(b.findings, 'rate-limit');
      ctx.diagnostic(`after: ${summary(b.r)}`);
      assert.equal(b.r.errors.non2xx, 0);
    });

    it('a worker count below the CPUs given, with a saturated worker; none with auto', async (ctx) => {
      const cpus = (await import('node:os')).availableParallelism();
      if (cpus < 2) return ctx.skip('one CPU');
      // a regular expression that backtracks: each request costs the worker milliseconds of CPU
      const http = `    access_log off;\n    server {\n        listen 8080;\n        location ~ ^/(a|aa)+$ {\n            return 204;\n        }\n        location / {\n            return 200 "ok\\n";\n        }\n    }`;
      const path = `/${'a'.repeat(22)}b`;
      const bad = nginx('worker_connections 1024;', http, 'worker_processes 1;');
      const a = await run('nginx.conf', bad, binary, { path });
      const f = one(a.findings, 'workers-below-cpus');
      ctx.diagnostic(`before: ${f.measured} at line ${f.at?.line}`);
      assert.equal(f.at?.line, 1);
      assert.equal(f.rule, 'nginx/worker-processes-not-auto');
      const b = await run('nginx.conf', nginx('worker_connections 1024;', http, 'worker_processes auto;'), binary, { path });
      none(b.findings, 'workers-below-cpus');
      ctx.diagnostic(`after: ${summary(b.r)}`);
    });
  });
}

for (const bin of HAPROXY) {
  const skip = !bin && !process.env.CI && 'no version matrix';
  describe(`diagnosis on ${bin ? `HAProxy ${bin.version}` : 'HAProxy'}`, { skip }, () => {
    const binary = bin?.path ?? '';
    const cfg = (server: string, global = '') =>
      `global\n    stats socket /run/haproxy/admin.sock mode 660 level admin\n${global}defaults\n    mode http\n    timeout connect 5s\n    timeout client 30s\n    timeout server 30s\n    timeout queue 30s\nfrontend web\n    bind :8080\n    default_backend app\nbackend app\n    ${server}\n`;

    it('clients that close: a server connection per request without http-reuse always; none with it', async (ctx) => {
      const reuse = (line: string) =>
        `defaults\n    mode http\n    timeout connect 5s\n    timeout client 30s\n    timeout server 30s\nfrontend web\n    bind :8080\n    default_backend app\nbackend app\n${line}    server s1 127.0.0.1:8081\n`;
      const bad = reuse('');
      const a = await run('haproxy.cfg', bad, binary, { scenario: 'http1-close' });
      const f = one(a.findings, 'upstream-keepalive');
      ctx.diagnostic(`before: ${f.measured} at line ${f.at?.line}`);
      assert.equal(f.at?.line, lineOf(bad, 'backend app'));
      assert.equal(f.rule, 'haproxy/http-reuse');
      const b = await run('haproxy.cfg', applyFix(bad, f), binary, { scenario: 'http1-close' });
      none(b.findings, 'upstream-keepalive');
      ctx.diagnostic(`after: ${summary(b.r)}`);
    });

    it('maxconn queueing: the server line from the stats (qmax); none with room', async (ctx) => {
      const bad = cfg('server s1 127.0.0.1:8081 maxconn 2');
      const a = await run('haproxy.cfg', bad, binary, { connections: 20, backend: { kind: 'node', latency: { kind: 'fixed', ms: 5 } } });
      const f = one(a.findings, 'server-queue');
      ctx.diagnostic(`before: ${f.measured} at line ${f.at?.line}`);
      assert.equal(f.at?.line, lineOf(bad, 'server s1'));
      assert.ok(f.numbers.qmax > 0);
      assert.equal(f.numbers.maxconn, 2);
      const b = await run('haproxy.cfg', cfg('server s1 127.0.0.1:8081 maxconn 100'), binary, {
        connections: 20,
        backend: { kind: 'node', latency: { kind: 'fixed', ms: 5 } },
      });
      none(b.findings, 'server-queue');
      ctx.diagnostic(`after: ${summary(b.r)}`);
    });
  });
}
