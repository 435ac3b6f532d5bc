// Builders of plausible benchmark results for the panel's unit tests.
import type { BenchResult, SecondSample } from '../../protocol/bench';
import { DEFAULT_RUN_OPTIONS, type RunRecord } from '../../protocol/panel';

export function sample(t: number, p99: number, extra: Partial<SecondSample> = {}): SecondSample {
  return {
    t,
    phase: 'measure',
    rps: 1000 * t,
    p50: p99 / 4,
    p90: p99 / 2,
    p99,
    p999: p99 * 2,
    max: p99 * 3,
    errors: 0,
    load: 10,
    ...extra,
  };
}

export function result(over: Partial<BenchResult> = {}): BenchResult {
  return {
    scenario: 'http1-keepalive',
    model: 'closed',
    connections: 10,
    durationS: 3,
    proxy: { kind: 'nginx', binary: '/usr/sbin/nginx', version: '1.22.1' },
    listener: { host: '127.0.0.1', port: 40000, tls: false, http2: false, stream: false },
    requests: 54_600,
    rps: 18_200,
    latencyMs: { p50: 0.5, p90: 1.2, p99: 4.1, p999: 9.5, max: 22, mean: 0.7 },
    distribution: [
      [0, 0.1],
      [50, 0.5],
      [90, 1.2],
      [99, 4.1],
      [99.9, 9.5],
      [100, 22],
    ],
    perSecond: [sample(1, 4), sample(2, 4.2), sample(3, 4.1)],
    errors: { connect: 0, timeout: 0, reset: 0, non2xx: 0, tls: 0, protocol: 0 },
    cpuSeconds: { proxy: 1.5, generator: 1.2, backend: 0.8 },
    backend: { connections: 54_600, requests: 54_600, connectionsPerRequest: 1 },
    host: { cpus: 2, loadavgStart: [0.5, 0.5, 0.5], loadavgEnd: [0.9, 0.6, 0.5] },
    warnings: [],
    ...over,
  };
}

export function run(id: string, over: Partial<BenchResult> = {}, label = `#${id}`): RunRecord {
  return {
    id,
    label,
    finishedAt: '2026-11-29T20:00:00.000Z',
    configUri: 'file:///work/nginx.conf',
    options: { ...DEFAULT_RUN_OPTIONS, durationS: 3, warmupS: 1 },
    result: result(over),
  };
}
