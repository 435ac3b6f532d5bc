// The capacity search: the SLO parser, the search on a model with a known knee, and the search
// against a fine sweep on the real nginx (a small config, the built-in backend at a fixed latency
// and a few connections, so the knee is set by connections / latency and not by the machine).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSlo, passes, searchKnee, stepOf, type Slo } from '../../bench/src/capacity';
import { runBenchmark, findBinary } from '../../bench/src/index';
import type { BenchOptions } from '../../protocol/bench';
import { tempConfig } from './helpers';
import { benchOptionsFromArgs } from '../../cli/src/bench';
import { formatCapacity, kneeLine } from '../../cli/src/capacity';

describe('capacity: --slo', () => {
  it('parses targets and error bounds, and refuses the rest', () => {
    assert.deepEqual(parseSlo('p99<50ms'), { percentile: 'p99', maxMs: 50, maxErrorRate: 0.01 });
    assert.deepEqual(parseSlo('p99.9 < 0.2s, errors<0.5%'), { percentile: 'p999', maxMs: 200, maxErrorRate: 0.005 });
    assert.deepEqual(parseSlo('errors<2%,p50<10'), { percentile: 'p50', maxMs: 10, maxErrorRate: 0.02 });
    for (const bad of ['', 'p98<10ms', 'p99>10ms', 'errors<1%', 'p99<0ms', 'p99<10ms,errors<200%'])
      assert.throws(() => parseSlo(bad), /--slo/, bad);
  });

  it('reaches the command line: --slo, --compare-config, and what they exclude', () => {
    const p = benchOptionsFromArgs(['a.conf', '--slo', 'p99<50ms', '--compare-config', 'b.conf', '--rate', '500']);
    assert.deepEqual([p.slo?.maxMs, p.compareConfig, p.options.rate], [50, 'b.conf', 500]);
    assert.throws(() => benchOptionsFromArgs(['a.conf', '--slo', 'p97<5ms']), /--slo/);
    assert.throws(() => benchOptionsFromArgs(['a.conf', '--compare-config', 'b.conf']), /goes with --slo/);
    assert.throws(() => benchOptionsFromArgs(['a.conf', '--slo', 'p99<5ms', '--step', '20%/1s']), /not with --step/);
    const slo: Slo = { percentile: 'p99', maxMs: 50, maxErrorRate: 0.01 };
    const r = (knee: number) => ({
      slo,
      knee,
      firstFailing: knee + 500,
      steps: [{ rate: knee, rps: knee, p50: 1, p99: 9, p999: 12, errorRate: 0, pass: true, phase: 'climb' as const }],
      repeatsPassed: 2,
      repeats: 2,
      uncertaintyPercent: 4,
      notes: [],
      proxy: null,
    });
    assert.match(kneeLine(r(6000)), /knee +6000 req\/s \(first miss at 6500 req\/s, ±4%\); repeats at the knee met the target 2 of 2/);
    const text = formatCapacity(
      [
        { label: 'a.conf', options: {}, result: r(6000) },
        { label: 'b.conf', options: {}, result: r(21000) },
      ],
      slo,
      {},
    );
    assert.match(text, /the knee moves from 6k \(a\.conf\) to 21k req\/s \(b\.conf\) at P99 < 50 ms, errors < 1% \(x3\.5\)/);
  });

  it('finds a known knee (above or below the first rate) within 10% in at most 8 steps, and says how sure it is', async () => {
    const slo: Slo = { percentile: 'p99', maxMs: 50, maxErrorRate: 0.01 };
    for (const knee of [650, 6543, 21000, 90]) {
      let runs = 0;
      const res = await searchKnee(
        slo,
        async (rate) => {
          runs++;
          const over = rate > knee;
          return { rps: Math.min(rate, knee), p50: 5, p99: over ? 400 : 20, p999: over ? 500 : 30, errorRate: 0 };
        },
        { startRate: 1000 },
      );
      assert.ok(res.steps.filter((s) => s.phase !== 'repeat').length <= 8);
      assert.equal(runs, res.steps.length);
      assert.ok(res.knee <= knee && res.knee >= knee * 0.9, `${res.knee} vs ${knee}`);
      assert.ok(res.firstFailing! > knee);
      assert.equal(res.repeatsPassed, 2);
      assert.ok(res.uncertaintyPercent !== null && res.uncertaintyPercent <= 10);
    }
    // nothing meets the target: no knee, and the search says so
    const never = await searchKnee(slo, async () => ({ rps: 1, p50: 100, p99: 100, p999: 100, errorRate: 0 }), { startRate: 1000 });
    assert.equal(never.knee, 0);
    assert.equal(never.steps.length, 8);
    assert.match(never.notes.join(' '), /start lower/);
    // an error bound fails a step like latency does
    assert.equal(passes(slo, { p50: 1, p99: 1, p999: 1, errorRate: 0.02 }), false);
  });

  const nginx = findBinary('nginx');
  it(
    'matches a fine sweep within ±10% on the real nginx',
    { skip: !nginx && !process.env.CI && 'no nginx', timeout: 240_000 },
    async (ctx) => {
      const t = tempConfig(
        'nginx.conf',
        'worker_processes 1;\nevents {}\nhttp {\n    access_log off;\n    upstream app {\n        server 127.0.0.1:8081;\n        keepalive 16;\n    }\n    server {\n        listen 8080;\n        location / {\n            proxy_pass http://app;\n            proxy_http_version 1.1;\n            proxy_set_header Connection "";\n        }\n    }\n}\n',
      );
      try {
        // 8 connections and 200 ms per response: at most 40 req/s, less the proxy's own time (small
        // next to 200 ms, so the knee moves little with the machine's load)
        const base: BenchOptions = {
          configPath: t.file,
          durationMs: 2000,
          warmupMs: 300,
          connections: 8,
          diagnose: false,
          backend: { kind: 'node', latency: { kind: 'fixed', ms: 200 } },
        };
        const slo: Slo = { percentile: 'p99', maxMs: 400, maxErrorRate: 0.01 };
        const measure = async (rate: number) => stepOf(await runBenchmark({ ...base, rate }));
        const sweep: { rate: number; pass: boolean }[] = [];
        for (let rate = 28; rate <= 52; rate += 2) sweep.push({ rate, pass: passes(slo, await measure(rate)) });
        const firstMiss = sweep.find((s) => !s.pass);
        // the capacity is 40 req/s: offered right at it, queues build, so the first miss is near it
        assert.ok(firstMiss && firstMiss.rate >= 36, JSON.stringify(sweep));
        const sweptKnee = Math.max(...sweep.filter((s) => s.pass && s.rate < firstMiss.rate).map((s) => s.rate));
        const res = await searchKnee(slo, measure, { startRate: 10 });
        assert.ok(res.steps.filter((s) => s.phase !== 'repeat').length <= 8);
        ctx.diagnostic(
          `sweep knee ${sweptKnee} req/s; search knee ${res.knee} req/s (first miss ${res.firstFailing}, ±${res.uncertaintyPercent}%, repeats ${res.repeatsPassed}/${res.repeats}) in ${res.steps.length} runs`,
        );
        assert.ok(
          Math.abs(res.knee - sweptKnee) <= sweptKnee * 0.1,
          `search ${res.knee} vs sweep ${sweptKnee}: ${JSON.stringify({ sweep, steps: res.steps })}`,
        );
      } finally {
        t.cleanup();
      }
    },
  );
});
