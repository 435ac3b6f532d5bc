// Past one machine: `bench --export k6|locust` and `import`. The k6 script is type-checked against
// @types/k6 (k6 itself cannot be installed here) and its summary import is tested on a fixture in
// k6's documented --summary-export format; the locustfile runs for real, distributed (a master and
// two workers of Debian's python3-locust in the version matrix's sid root, under chroot) against a
// sandboxed proxy on loopback, and its --csv results are imported.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  chooseNativeBinary,
  exportScenario,
  k6Script,
  listenerOrigin,
  locustfile,
  NativeBackend,
  ProxySandbox,
  readScenarioLine,
  runBenchmark,
} from '../../bench/src/index';
import { compareLines, csvFields, importResults } from '../../bench/src/importResults';
import { benchOptionsFromArgs, formatTable } from '../../cli/src/bench';
import { eventually, liveDescendants, tempConfig } from './helpers';
import { locustRoot, runLocustDistributed } from './locustRun';

const REPO = path.resolve(__dirname, '..', '..');
const work = mkdtempSync(path.join(os.tmpdir(), 'pt-export-test-'));
after(async () => {
  rmSync(work, { recursive: true, force: true });
  assert.ok(await eventually(() => liveDescendants().length === 0, 8000), `processes left: ${liveDescendants().join(' ')}`);
});

const NGINX = `events {}
http {
    access_log off;
    upstream app {
        server 127.0.0.1:1980;
        keepalive 64;
    }
    server {
        listen 8080;
        listen 8443 ssl;
        server_name api.example.test;
        ssl_certificate /nonexistent/cert.pem;
        ssl_certificate_key /nonexistent/key.pem;
        location / {
            proxy_pass http://app;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
`;
const meta = { source: 'nginx.conf', generatedAt: '2026-12-01T00:00:00.000Z' };

test('listener origins: as written, wildcards to 127.0.0.1', () => {
  assert.equal(listenerOrigin('listen 8080;', false), 'http://127.0.0.1:8080');
  assert.equal(listenerOrigin('listen 10.0.0.5:80 default_server;', false), 'http://10.0.0.5');
  assert.equal(listenerOrigin('listen [::]:8443 ssl;', true), 'https://127.0.0.1:8443');
  assert.equal(listenerOrigin('bind *:443 ssl crt /x.pem', true), 'https://127.0.0.1');
  assert.equal(listenerOrigin('bind :8000', false), 'http://127.0.0.1:8000');
});

test('k6 exports type-check against @types/k6 (closed, open, get-post-mix, mixed, a body)', async () => {
  const cfg = tempConfig('nginx.conf', NGINX);
  try {
    const files: string[] = [];
    const cases = [
      { scenario: 'http1-keepalive' as const, connections: 50 },
      { scenario: 'http1-keepalive' as const, rate: 2000, connections: 20, warmupMs: 0 },
      { scenario: 'get-post-mix' as const },
      { scenario: 'mixed' as const },
      { scenario: 'http1-close' as const, method: 'PUT', body: '{"a":1}', contentType: 'application/json' },
    ];
    for (const [i, c] of cases.entries()) {
      const s = await exportScenario({ configPath: cfg.file, durationMs: 10_000, ...c }, 200);
      const f = path.join(work, `k6-${i}.js`);
      writeFileSync(f, k6Script(s, meta));
      files.push(f);
      // the scenario line reads back
      const back = readScenarioLine(readFileSync(f, 'utf8'))!;
      assert.equal(back.scenario, c.scenario);
      assert.equal(back.connections, s.connections);
    }
    const open = readFileSync(files[1], 'utf8');
    assert.match(open, /executor: 'constant-arrival-rate', rate: RATE/);
    assert.doesNotMatch(open, /warmup:/);
    const closed = readFileSync(files[0], 'utf8');
    assert.match(closed, /executor: 'constant-vus', vus: CONNECTIONS/);
    assert.match(closed, /warmup: \{ executor: 'constant-vus'/);
    assert.match(closed, /'http_req_duration\{scenario:main\}': \['p\(99\)<' \+ P99_MS\]/);
    assert.match(closed, /HOST_HEADER \|\| "api\.example\.test"/);
    assert.match(closed, /BASE_URL \|\| "http:\/\/127\.0\.0\.1:8080"/);
    assert.match(readFileSync(files[3], 'utf8'), /TLS_BASE_URL \|\| "https:\/\/127\.0\.0\.1:8443"/);
    const tsc = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = spawnSync(
      process.execPath,
      [
        tsc,
        '--noEmit',
        '--allowJs',
        '--checkJs',
        '--strict',
        '--target',
        'es2020',
        '--module',
        'es2020',
        '--moduleResolution',
        'node',
        '--lib',
        'es2020',
        '--types',
        'k6',
        '--typeRoots',
        path.join(REPO, 'node_modules', '@types'),
        '--skipLibCheck',
        ...files,
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    assert.equal(r.status, 0, `tsc on the k6 exports:\n${r.stdout}${r.stderr}`);
    // and a mistake is caught (the check is real)
    const bad = path.join(work, 'k6-bad.js');
    writeFileSync(bad, readFileSync(files[0], 'utf8').replace('http.request(k.method,', 'http.request(42,'));
    const rb = spawnSync(
      process.execPath,
      [
        tsc,
        '--noEmit',
        '--allowJs',
        '--checkJs',
        '--strict',
        '--target',
        'es2020',
        '--module',
        'es2020',
        '--moduleResolution',
        'node',
        '--lib',
        'es2020',
        '--types',
        'k6',
        '--typeRoots',
        path.join(REPO, 'node_modules', '@types'),
        '--skipLibCheck',
        bad,
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    assert.notEqual(rb.status, 0, 'a wrong argument type must fail the check');
  } finally {
    cfg.cleanup();
  }
});

test('tcp cannot be exported; --export parses its two words', async () => {
  const cfg = tempConfig('nginx.conf', 'events {}\nstream { server { listen 9000; proxy_pass 127.0.0.1:9001; } }\n');
  try {
    await assert.rejects(exportScenario({ configPath: cfg.file, scenario: 'tcp' }, 100), /no HTTP equivalent/);
  } finally {
    cfg.cleanup();
  }
  const p = benchOptionsFromArgs(['nginx.conf', '--export', 'locust', 'out.py', '-c', '7', '--p99-threshold', '40ms']);
  assert.deepEqual(p.exportTo, { engine: 'locust', file: 'out.py', p99ThresholdMs: 40 });
  assert.equal(p.options.connections, 7);
  assert.equal(p.options.configPath, 'nginx.conf');
  assert.throws(() => benchOptionsFromArgs(['nginx.conf', '--export', 'k6', 'nginx.conf']), /the config itself/);
  assert.throws(() => benchOptionsFromArgs(['nginx.conf', '--p99-threshold', '5ms']), /goes with --export/);
});

test('k6 summary import (fixture in the documented --summary-export format)', () => {
  const fixture = path.join(__dirname, 'fixtures', 'k6-summary.json');
  const r = importResults(fixture);
  assert.equal(r.imported?.engine, 'k6');
  assert.equal(r.requests, 100_000, 'the {scenario:main} sub-metric, not the warm-up too');
  assert.equal(r.durationS, 10);
  assert.equal(r.rps, 10_000);
  assert.equal(r.connections, 50);
  assert.deepEqual(r.latencyMs, { p50: 1.8, p90: 3.1, p99: 7.2, p999: 21.7, max: 60.4, mean: 2.1 });
  assert.equal(r.errors.non2xx, 12);
  assert.ok(
    r.warnings.some((w) => /threshold p\(99\)<250: passed/.test(w)),
    r.warnings.join('\n'),
  );
  assert.ok(r.warnings.some((w) => /dropped 37 iterations/.test(w)));
  assert.match(formatTable(r), /k6 run \(imported\)/);
  assert.throws(() => importResults(path.join(__dirname, 'fixtures', 'k6-summary.json') + '.missing'), /cannot read/);
  const notK6 = path.join(work, 'x.json');
  writeFileSync(notK6, '{"a":1}');
  assert.throws(() => importResults(notK6), /not a k6 --summary-export file/);
});

test('csv fields with quotes', () => {
  assert.deepEqual(csvFields('GET,"a, ""b""",3'), ['GET', 'a, "b"', '3']);
});

test('the Locust export runs distributed (master + 2 workers, sid root) against a sandboxed proxy; its --csv imports', async (t) => {
  const where = locustRoot();
  if ('skip' in where) {
    t.skip(where.skip);
    return;
  }
  const cfg = tempConfig('nginx.conf', NGINX.replace(/\s*listen 8443 ssl;\n/, '\n').replace(/\s*ssl_certificate[^\n]*\n/g, '\n'));
  const sb = ProxySandbox.create({ configPath: cfg.file });
  let be: NativeBackend | null = null;
  try {
    const opts = { configPath: cfg.file, connections: 20, durationMs: 3000, warmupMs: 1000 };
    const s = await exportScenario(opts, 500);
    const file = path.join(work, 'locustfile.py');
    writeFileSync(file, locustfile(s, meta));
    sb.plan();
    be = await NativeBackend.start({}, chooseNativeBinary({ kind: sb.kind, binary: sb.binary })!, sb.tls);
    sb.setBackend(be.ports);
    await sb.start();
    const port = sb.listeners.find((l) => !l.ssl)!.port;
    const t0 = Date.now();
    const run = await runLocustDistributed({
      root: where.root,
      locustfileText: readFileSync(file, 'utf8'),
      env: { BASE_URL: `http://127.0.0.1:${port}` },
      workers: 2,
      timeoutS: 60,
      outDir: work,
    });
    const t1 = Date.now();
    assert.equal(run.code, 0, run.masterOutput.slice(-3000));
    const reached = await be.statsBetween(t0, t1);
    const r = importResults(path.join(work, 'out'), file);
    const builtin = await runBenchmark(opts);
    t.diagnostic(
      `locust (master + 2 workers): ${r.requests} requests in ${r.durationS} s, ${r.rps} req/s, p50 ${r.latencyMs.p50} ms, p90 ${r.latencyMs.p90} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms, failures ${Object.values(r.errors).reduce((a, b) => a + b, 0)}; the native backend saw ${reached.requests} requests on ${reached.connections} connections`,
    );
    t.diagnostic(
      `built-in, same scenario: ${builtin.requests} requests in ${builtin.durationS} s, ${builtin.rps} req/s, p50 ${builtin.latencyMs.p50} ms, p90 ${builtin.latencyMs.p90} ms, p99 ${builtin.latencyMs.p99} ms; backend ${builtin.backend.kind}, bench CPU ${builtin.cost?.benchCpuUsPerRequest} us/request`,
    );
    for (const line of compareLines({ label: 'A: built-in', r: builtin }, { label: 'B: locust', r })) t.diagnostic(line);
    assert.equal(r.imported?.engine, 'locust');
    assert.equal(r.scenario, 'http1-keepalive');
    assert.equal(r.connections, 20);
    assert.ok(r.requests > 500, `requests ${r.requests}`);
    assert.equal(
      Object.values(r.errors).reduce((a, b) => a + b, 0),
      0,
      JSON.stringify(r.errors),
    );
    // the warm-up is not counted: about 3 s measured of 4 s of load (Locust's boundaries are coarse)
    assert.ok(r.durationS > 1.5 && r.durationS < 3.8, `measured ${r.durationS} s`);
    assert.ok(r.requests < reached.requests, `imported ${r.requests} of the ${reached.requests} the backend served (warm-up included)`);
    assert.ok(r.latencyMs.p99 > 0 && r.latencyMs.p99 >= r.latencyMs.p50);
    assert.ok(r.perSecond.length >= 2, JSON.stringify(r.perSecond));
    // both requests' paths went through the proxy to the backend
    assert.ok(reached.requests > 0 && reached.connections < reached.requests / 10, JSON.stringify(reached));
    assert.ok(builtin.requests > 0);
  } finally {
    await Promise.all([sb.dispose(), be?.stop()]);
    cfg.cleanup();
  }
});
