// `proxy-tuner bench` as a user runs it (the bundled command line): options, exit codes, --json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, REPO } from '../cli/build';
import { benchOptionsFromArgs, parseDuration, parseSize } from '../../cli/src/bench';
import { UsageError } from '../../cli/src/args';
import { sha256, tempConfig } from './helpers';

const run = (args: string[]) =>
  spawnSync(process.execPath, [join(REPO, 'bin', 'proxy-tuner.js'), 'bench', ...args], { encoding: 'utf8', timeout: 60_000 });

test('options map onto the engine options', () => {
  const o = benchOptionsFromArgs([
    'x.conf',
    '--scenario',
    'https-resume',
    '-c',
    '25',
    '--rate',
    '1500',
    '--duration',
    '3s',
    '--warmup',
    '500ms',
    '--path',
    '/api',
    '--direct',
    '--step',
    '20%/5s',
    '--response-bytes',
    '16k',
    '--latency',
    '7',
  ]);
  assert.deepEqual(o.options, {
    configPath: 'x.conf',
    scenario: 'https-resume',
    connections: 25,
    rate: 1500,
    durationMs: 3000,
    warmupMs: 500,
    path: '/api',
    direct: true,
    step: { percent: 20, intervalMs: 5000 },
    backend: { responseBytes: 16384, latency: { kind: 'fixed', ms: 7 } },
  });
  assert.equal(parseDuration('1m', 'd'), 60_000);
  assert.equal(parseSize('1m', 's'), 1024 * 1024);
  assert.throws(() => benchOptionsFromArgs(['a', 'b']), UsageError);
  assert.throws(() => benchOptionsFromArgs(['a', '--duration', 'soon']), UsageError);
  assert.throws(() => benchOptionsFromArgs(['a', '--scenario', 'fastest']), UsageError);
});

test('--method, --body, --body-file, --content-type and --listener map onto the engine options', () => {
  assert.deepEqual(
    benchOptionsFromArgs(['x.conf', '--method', 'PUT', '--body', '{"a":1}', '--content-type', 'application/json', '--listener', '12'])
      .options,
    {
      configPath: 'x.conf',
      method: 'PUT',
      body: '{"a":1}',
      contentType: 'application/json',
      listener: { line: 12 },
    },
  );
  // a body alone means POST
  assert.equal(benchOptionsFromArgs(['x.conf', '--body', 'x']).options.method, 'POST');
  const f = tempConfig('body.json', 'é'.repeat(3000));
  try {
    assert.equal(benchOptionsFromArgs(['x.conf', '--method', 'PATCH', '--body-file', f.file]).options.body, 'é'.repeat(3000));
    assert.throws(() => benchOptionsFromArgs(['x.conf', '--body', 'a', '--body-file', f.file]), UsageError);
  } finally {
    f.cleanup();
  }
  const big = tempConfig('big.bin', 'x'.repeat(1024 * 1024 + 1));
  try {
    assert.throws(() => benchOptionsFromArgs(['x.conf', '--body-file', big.file]), /at most 1048576/);
  } finally {
    big.cleanup();
  }
  assert.throws(() => benchOptionsFromArgs(['x.conf', '--method', 'BREW']), UsageError);
  assert.throws(() => benchOptionsFromArgs(['x.conf', '--listener', 'two']), UsageError);
  assert.throws(() => benchOptionsFromArgs(['x.conf', '--listener', '0']), UsageError);
  assert.throws(() => benchOptionsFromArgs(['x.conf', '--body-file', '/nonexistent/body']), UsageError);
});

test('bad usage exits 2, a refused config exits 1 with the line', () => {
  ensureBuilt();
  for (const args of [[], ['--connections', 'many', 'x.conf'], ['x.conf', '--bogus'], ['--target', '192.0.2.1:80']]) {
    const r = run(args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /bench: /);
  }
  const cfg = tempConfig(
    'nginx.conf',
    'events {}\nhttp {\n  server {\n    listen 80;\n    location / { proxy_pass http://$http_host; }\n  }\n}\n',
  );
  try {
    const r = run([cfg.file]);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`refused: ${cfg.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:5: `));
  } finally {
    cfg.cleanup();
  }
});

test('--json prints one document with the documented fields', () => {
  ensureBuilt();
  const cfg = tempConfig(
    'nginx.conf',
    'events {}\nhttp {\n  access_log off;\n  server {\n    listen 80;\n    location / { proxy_pass http://backend.internal:8080; }\n  }\n}\n',
  );
  try {
    const hash = sha256(cfg.file);
    const r = run([cfg.file, '--duration', '1s', '--warmup', '200ms', '-c', '4', '--direct', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    for (const k of ['scenario', 'proxy', 'requests', 'rps', 'latencyMs', 'perSecond', 'errors', 'cpuSeconds', 'backend'])
      assert.ok(k in j, k);
    assert.equal(j.scenario, 'http1-keepalive');
    assert.equal(j.proxy.kind, 'nginx');
    assert.deepEqual(Object.keys(j.latencyMs), ['p50', 'p90', 'p99', 'p999', 'max']);
    assert.deepEqual(Object.keys(j.perSecond[0]), ['t', 'rps', 'p50', 'p99', 'p999', 'errors']);
    assert.ok(j.requests > 0 && j.rps > 0);
    assert.ok(j.latencyMs.p50 <= j.latencyMs.p99 && j.latencyMs.p99 <= j.latencyMs.max);
    assert.ok(typeof j.cpuSeconds.proxy === 'number' && typeof j.cpuSeconds.generator === 'number');
    // no upstream keep-alive in this config: a backend connection per request
    assert.ok(j.backend.connections / j.backend.requests > 0.9, JSON.stringify(j.backend));
    assert.ok(j.direct.requests > 0);
    assert.equal(sha256(cfg.file), hash);
  } finally {
    cfg.cleanup();
  }
});

test('the command line sends the given method and body to the given listener; a body with GET exits 2', () => {
  ensureBuilt();
  const conf =
    'events {}\nhttp {\n  access_log off;\n  server {\n    listen 81;\n    return 200 "one";\n  }\n  server {\n    listen 82;\n    location / { proxy_pass http://backend.internal:8080; }\n  }\n}\n';
  const cfg = tempConfig('nginx.conf', conf);
  try {
    const r = run([
      cfg.file,
      '--duration',
      '500ms',
      '--warmup',
      '100ms',
      '-c',
      '2',
      '--listener',
      '8',
      '--method',
      'PATCH',
      '--body',
      'q'.repeat(300),
      '--json',
    ]);
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.ok(j.requests > 0);
    assert.deepEqual(Object.keys(j.backend.received.methods), ['PATCH']);
    assert.ok(j.backend.received.methods.PATCH >= j.requests, JSON.stringify(j.backend));
    assert.equal(j.backend.received.bodyBytesMin, 300);
    assert.equal(j.backend.received.bodyBytesMax, 300);
    const bad = run([cfg.file, '--method', 'GET', '--body', 'x']);
    assert.equal(bad.status, 2, bad.stderr);
    assert.match(bad.stderr, /bench: .*body/);
    const noBlock = run([cfg.file, '--listener', '6', '--duration', '200ms']);
    assert.equal(noBlock.status, 2, noBlock.stderr);
    assert.match(noBlock.stderr, /nginx\.conf:6: no listener/);
  } finally {
    cfg.cleanup();
  }
});

test('bench --export writes a file and runs nothing; import prints the run and an A/B against a local run', () => {
  ensureBuilt();
  const cfg = tempConfig(
    'nginx.conf',
    'events {}\nhttp {\n  server {\n    listen 8080;\n    location / { proxy_pass http://127.0.0.1:1980; }\n  }\n}\n',
  );
  try {
    const hash = sha256(cfg.file);
    const out = join(cfg.dir, 'load.js');
    const e = run([cfg.file, '--rate', '300', '--duration', '2s', '--export', 'k6', out, '--p99-threshold', '80ms']);
    assert.equal(e.status, 0, e.stderr);
    assert.match(
      e.stdout,
      /wrote .*load\.js: k6 http1-keepalive, 300 req\/s, 2s warm-up \+ 2s, P99 threshold 80 ms, target http:\/\/127\.0\.0\.1:8080/,
    );
    assert.equal(sha256(cfg.file), hash);
    assert.equal(run([cfg.file, '--scenario', 'tcp', '--export', 'locust', join(cfg.dir, 'x.py')]).status, 2);
    const fixture = join(__dirname, 'fixtures', 'k6-summary.json');
    const local = join(cfg.dir, 'local.json');
    writeFileSync(
      local,
      JSON.stringify({
        rps: 5000,
        requests: 50000,
        latencyMs: { p50: 1, p90: 2, p99: 3.6, p999: 9, max: 12 },
        proxy: { kind: 'nginx', version: '1.22.1' },
      }),
    );
    const imp = spawnSync(
      process.execPath,
      [join(REPO, 'bin', 'proxy-tuner.js'), 'import', fixture, '--scenario', out, '--against', local],
      { encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(imp.status, 0, imp.stderr);
    assert.match(imp.stdout, /k6 run \(imported\) — http1-keepalive, open model 300 req\/s/);
    assert.match(imp.stdout, /B \/ A\s+×2\.00\s+×1\.80\s+×1\.55\s+×2\.00/);
    const bad = spawnSync(process.execPath, [join(REPO, 'bin', 'proxy-tuner.js'), 'import', cfg.file], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /neither a k6 --summary-export JSON nor a Locust --csv stats file/);
  } finally {
    cfg.cleanup();
  }
});

test('bench --pin / --no-pin: CPU placement on or off, never both', () => {
  const base = ['/x/nginx.conf'];
  assert.equal(benchOptionsFromArgs(base).options.pin, undefined);
  assert.equal(benchOptionsFromArgs([...base, '--pin']).options.pin, true);
  assert.equal(benchOptionsFromArgs([...base, '--no-pin']).options.pin, false);
  assert.throws(() => benchOptionsFromArgs([...base, '--pin', '--no-pin']), UsageError);
});
