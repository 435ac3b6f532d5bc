// Chart-data shaping and exports of the benchmark panel.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  backendKindLabel,
  bottleneckWarning,
  compareResults,
  formatMs,
  formatRps,
  liveSeries,
  percentileCurve,
  percentileToX,
  readableLogTicks,
  resultRows,
  runsToMarkdown,
  runToCsv,
  runToJson,
  summaryLine,
  xToPercentile,
} from '../../protocol/shape';
import { result, run, sample } from './fixtures';

describe('liveSeries', () => {
  it('puts warm-up seconds before zero and measured seconds from 1, sorted', () => {
    const s = liveSeries([sample(2, 5), sample(1, 4, { phase: 'warmup' }), sample(2, 6, { phase: 'warmup' }), sample(1, 3)]);
    assert.deepEqual(s.p99, [
      { x: -1, y: 4 },
      { x: 0, y: 6 },
      { x: 1, y: 3 },
      { x: 2, y: 5 },
    ]);
    assert.deepEqual(
      s.rps.map((p) => p.x),
      [-1, 0, 1, 2],
    );
    assert.deepEqual(
      s.p50.map((p) => p.y),
      [1, 1.5, 0.75, 1.25],
    );
  });

  it('leaves zero latencies off the log axis but keeps the throughput and error points', () => {
    const s = liveSeries([sample(1, 0, { p50: 0, p90: 0, p999: 0, rps: 0, errors: 7 }), sample(2, 2)]);
    assert.deepEqual(s.p99, [{ x: 2, y: 2 }]);
    assert.deepEqual(s.errors, [
      { x: 1, y: 7 },
      { x: 2, y: 0 },
    ]);
    assert.equal(s.rps.length, 2);
  });

  it('can drop the warm-up and keeps the last value of a repeated second', () => {
    const s = liveSeries([sample(1, 9, { phase: 'warmup' }), sample(1, 3), sample(1, 4)], { includeWarmup: false });
    assert.deepEqual(s.p99, [{ x: 1, y: 4 }]);
  });
});

describe('percentile curve', () => {
  it('maps percentiles to 1/(1-p) and back', () => {
    assert.equal(percentileToX(0), 1);
    assert.equal(percentileToX(50), 2);
    assert.ok(Math.abs(percentileToX(99) - 100) < 1e-9);
    assert.ok(Math.abs(percentileToX(99.9) - 1000) < 1e-6);
    assert.ok(Number.isFinite(percentileToX(100)));
    assert.ok(Math.abs(xToPercentile(1000) - 99.9) < 1e-9);
  });

  it('turns the distribution into a non-decreasing curve, dropping zero latencies', () => {
    const c = percentileCurve([
      [0, 0],
      [50, 0.5],
      [90, 1.2],
      [99, 4.1],
      [99, 3.9],
      [100, 22],
    ]);
    assert.equal(c.length, 4);
    assert.deepEqual(
      c.map((p) => Math.round(p.x)),
      [2, 10, 100, 1000000],
    );
    assert.deepEqual(
      c.map((p) => p.y),
      [0.5, 1.2, 4.1, 22],
    );
    for (let i = 1; i < c.length; i++) assert.ok(c[i].y >= c[i - 1].y && c[i].x > c[i - 1].x);
  });

  it('accepts percentiles given as fractions', () => {
    const c = percentileCurve([
      [0.5, 1],
      [0.99, 5],
    ]);
    assert.deepEqual(
      c.map((p) => Math.round(p.x)),
      [2, 100],
    );
  });
});

describe('log axis ticks', () => {
  const ticks = (vs: number[]) => vs.map((value) => ({ value }));
  it("keeps 1, 2 and 5 of a decade, so the empty chart's 1..10 ms axis does not crowd its labels", () => {
    assert.deepEqual(
      readableLogTicks(ticks([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).map((t) => t.value),
      [1, 2, 5, 10],
    );
  });
  it('keeps only the decades when a wide range would still crowd', () => {
    const wide = [0.1, 0.2, 0.3, 0.5, 1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 500, 1000];
    assert.deepEqual(
      readableLogTicks(ticks(wide)).map((t) => t.value),
      [0.1, 1, 10, 100, 1000],
    );
  });
});

describe('compareResults', () => {
  it('gives B relative to A with the better direction per metric', () => {
    const a = result({ rps: 10_000, latencyMs: { p50: 1, p90: 2, p99: 8, p999: 12, max: 30, mean: 1.2 } });
    const b = result({
      rps: 20_000,
      latencyMs: { p50: 0.5, p90: 1, p99: 2, p999: 6, max: 10, mean: 0.6 },
      errors: { connect: 1, timeout: 0, reset: 2, non2xx: 0, tls: 0, protocol: 0 },
      backend: { connections: 10, requests: 60_000, connectionsPerRequest: 10 / 60_000 },
    });
    const c = compareResults(a, b);
    assert.equal(c.p99.delta, -6);
    assert.equal(c.p99.percent, -75);
    assert.equal(c.p99.better, true);
    assert.equal(c.rps.percent, 100);
    assert.equal(c.rps.better, true);
    assert.equal(c.errors.a, 0);
    assert.equal(c.errors.b, 3);
    assert.equal(c.errors.percent, null);
    assert.equal(c.errors.better, false);
    assert.equal(c.backendConnectionsPerRequest.better, true);
  });
});

describe('formatting', () => {
  it('formats latencies and throughput with about three digits', () => {
    assert.equal(formatMs(0.4123), '0.412 ms');
    assert.equal(formatMs(4.1), '4.10 ms');
    assert.equal(formatMs(41.26), '41.3 ms');
    assert.equal(formatMs(412.4), '412 ms');
    assert.equal(formatMs(-279.552), '-280 ms');
    assert.equal(formatMs(-4.1), '-4.10 ms');
    assert.equal(formatRps(-1500), '-1.5k req/s');
    assert.equal(formatRps(950.4), '950 req/s');
    assert.equal(formatRps(18_200), '18.2k req/s');
    assert.equal(formatRps(1_204_000), '1.20M req/s');
  });

  it('summarizes a run for the CodeLens', () => {
    assert.equal(summaryLine(result()), 'P99 4.10 ms · 18.2k req/s · 0 errors');
    assert.equal(
      summaryLine(result({ errors: { connect: 1, timeout: 0, reset: 0, non2xx: 0, tls: 0, protocol: 0 } })),
      'P99 4.10 ms · 18.2k req/s · 1 error',
    );
  });
});

describe('exports', () => {
  it('CSV holds the summary, the per-second samples and the distribution, quoting as needed', () => {
    const r = run('r1', {}, 'before, "no keepalive"');
    const csv = runToCsv(r);
    const sections = csv.trimEnd().split('\n\n');
    assert.equal(sections.length, 3);
    const summary = sections[0].split('\n');
    assert.equal(summary[0], 'metric,value');
    assert.ok(summary.includes('label,"before, ""no keepalive"""'));
    assert.ok(summary.includes('p99_ms,4.1'));
    assert.ok(summary.includes('rps,18200'));
    const perSecond = sections[1].split('\n');
    assert.equal(perSecond[0], 'second,phase,rps,p50_ms,p90_ms,p99_ms,p999_ms,max_ms,errors,load');
    assert.equal(perSecond.length, 1 + r.result.perSecond.length);
    assert.equal(perSecond[2], '2,measure,2000,1.05,2.1,4.2,8.4,12.600000000000001,0,10');
    const dist = sections[2].split('\n');
    assert.equal(dist[0], 'percentile,latency_ms');
    assert.equal(dist[4], '99,4.1');
  });

  it('JSON round-trips the run', () => {
    const r = run('r1');
    assert.deepEqual(JSON.parse(runToJson(r)), r);
  });

  it('markdown: one run as a table, two runs side by side with the change', () => {
    const one = runsToMarkdown([run('a', {}, 'A|1')]).split('\n');
    assert.equal(one[0], '| A\\|1 | |');
    assert.ok(one.includes('| P99 | 4.10 ms |'));
    const a = run('a', { rps: 10_000, latencyMs: { p50: 1, p90: 2, p99: 8, p999: 12, max: 30, mean: 1 } }, 'before');
    const b = run('b', { rps: 15_000, latencyMs: { p50: 1, p90: 2, p99: 4, p999: 12, max: 30, mean: 1 } }, 'after');
    const two = runsToMarkdown([a, b]).split('\n');
    assert.equal(two[0], '| Metric | A: before | B: after | B vs A |');
    assert.ok(two.includes('| P99 | 8.00 ms | 4.00 ms | -50.0% |'), two.join('\n'));
    assert.ok(two.includes('| Throughput | 10.0k req/s | 15.0k req/s | +50.0% |'), two.join('\n'));
    assert.equal(runsToMarkdown([]), '');
  });
});

describe('backend kind, bench cost and bottleneck', () => {
  const cost = {
    benchCpuUsPerRequest: 14.6,
    generatorCpuUsPerRequest: 8.1,
    backendCpuUsPerRequest: 6.5,
    proxyCpuUsPerRequest: 12.8,
    generatorCoreShare: 0.3,
    backendCoreShare: 0.25,
  };
  it('shows the native backend and the bench CPU per request', () => {
    const rows = Object.fromEntries(
      resultRows(
        result({ backend: { kind: 'nginx', version: '1.22.1', connections: 5, requests: 5000, connectionsPerRequest: 0.001 }, cost }),
      ),
    );
    assert.equal(rows['Backend'], 'native nginx 1.22.1');
    assert.equal(rows['Bench CPU / request'], '14.6 µs (generator 8.1, backend 6.5; proxy 12.8)');
    assert.equal(rows['Busiest core'], 'generator 30%, backend 25%');
    assert.equal(bottleneckWarning(result({ cost })), null);
  });
  it('runs kept before the field show the Node backend; why auto did not take the native one', () => {
    assert.equal(backendKindLabel(result()), 'built-in Node');
    assert.equal(
      backendKindLabel(
        result({
          backend: {
            kind: 'node',
            why: 'an added latency needs the built-in backend',
            connections: 1,
            requests: 1,
            connectionsPerRequest: 1,
          },
        }),
      ),
      'built-in Node (an added latency needs the built-in backend)',
    );
  });
  it('warns when the generator or the backend was at 100% of a core', () => {
    assert.match(
      bottleneckWarning(result({ cost: { ...cost, generatorCoreShare: 0.98, bottleneck: 'generator' } }))!,
      /load generator, not the proxy .*98% of a core/,
    );
    assert.match(
      bottleneckWarning(
        result({
          backend: { kind: 'node', connections: 1, requests: 1, connectionsPerRequest: 1 },
          cost: { ...cost, backendCoreShare: 0.99, bottleneck: 'backend' },
        }),
      )!,
      /built-in Node backend, not the proxy \(99% of a core\)/,
    );
  });
  it('says where the generator and the proxy ran', () => {
    const pinned = Object.fromEntries(resultRows(result({ placement: { pinned: true, generatorCpus: [0], systemCpus: [1, 2, 3] } })));
    assert.equal(pinned['CPU placement'], 'generator on CPU 0; proxy and backend on CPU 1, 2, 3');
    const not = Object.fromEntries(resultRows(result({ placement: { pinned: false, note: 'not pinned: 2 CPUs' } })));
    assert.equal(not['CPU placement'], 'not pinned: 2 CPUs');
    assert.equal(Object.fromEntries(resultRows(result()))['CPU placement'], undefined);
  });
  it('an imported run names its engine and no CPU rows', () => {
    const rows = Object.fromEntries(resultRows(result({ imported: { engine: 'locust', file: '/x/out_stats.csv' } })));
    assert.equal(rows['Engine'], 'locust (imported)');
    assert.equal(rows['Proxy CPU'], undefined);
  });
});
