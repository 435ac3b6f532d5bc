// Latency histograms: Node's native HdrHistogram (perf_hooks.createHistogram), values recorded in
// microseconds, read back in milliseconds. Aggregation is pure and kept apart from printing.
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import type { ErrorCounts, LatencySummaryMs } from '../../protocol/bench';

/** Highest recordable latency: 120 s, in microseconds. */
const HIGHEST_US = 120_000_000;

export function newHistogram(): RecordableHistogram {
  return createHistogram({ lowest: 1, highest: HIGHEST_US, figures: 3 });
}

/** Records one latency given in microseconds (clamped to the histogram's range). */
export function recordUs(h: RecordableHistogram, us: number): void {
  const v = us < 1 ? 1 : us > HIGHEST_US ? HIGHEST_US : Math.round(us);
  h.record(v);
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

export function summarize(h: RecordableHistogram): LatencySummaryMs {
  if (h.count === 0) return { p50: 0, p90: 0, p99: 0, p999: 0, max: 0, mean: 0 };
  return {
    p50: round3(h.percentile(50) / 1000),
    p90: round3(h.percentile(90) / 1000),
    p99: round3(h.percentile(99) / 1000),
    p999: round3(h.percentile(99.9) / 1000),
    max: round3(h.max / 1000),
    mean: round3(h.mean / 1000),
  };
}

/** The percentile distribution as [percentile, ms] pairs, as HdrHistogram iterates it. */
export function distribution(h: RecordableHistogram): [number, number][] {
  if (h.count === 0) return [];
  const out: [number, number][] = [];
  for (const [p, v] of h.percentiles) out.push([p, round3(v / 1000)]);
  return out;
}

export function emptyErrors(): ErrorCounts {
  return { connect: 0, timeout: 0, reset: 0, non2xx: 0, tls: 0, protocol: 0 };
}

export function addErrors(into: ErrorCounts, from: Partial<ErrorCounts>): void {
  for (const k of Object.keys(into) as (keyof ErrorCounts)[]) into[k] += from[k] ?? 0;
}

export function totalErrors(e: ErrorCounts): number {
  return e.connect + e.timeout + e.reset + e.non2xx + e.tls + e.protocol;
}
