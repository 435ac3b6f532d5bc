// Capacity: the highest offered rate (open model) at which a latency percentile stays under a
// target with errors under a bound. The search climbs (doubling the rate) until a step fails,
// then bisects between the last passing and the first failing rate, in at most `maxSteps` runs;
// it then repeats the run at the knee to say how sure it is. Each step is a whole benchmark run
// (a fresh proxy), so steps do not inherit each other's queues.
import type { BenchOptions, BenchResult } from '../../protocol/bench';
import { BenchUsageError, runBenchmark, type RunHooks } from './index';

export interface Slo {
  percentile: 'p50' | 'p90' | 'p99' | 'p999';
  maxMs: number;
  /** Largest share of failed requests (0.01 = 1%). */
  maxErrorRate: number;
}

/** `p99<50ms`, `p99.9<200ms`, `p99<50ms,errors<1%` (ms is the default unit; `s` allowed). */
export function parseSlo(text: string): Slo {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  let slo: Slo | null = null;
  let maxErrorRate = 0.01;
  for (const p of parts) {
    const m = /^p(50|90|99|99\.9)\s*<\s*(\d+(?:\.\d+)?)\s*(ms|s)?$/i.exec(p);
    const e = /^errors?\s*<\s*(\d+(?:\.\d+)?)\s*%$/i.exec(p);
    if (m) {
      const ms = Number(m[2]) * (m[3]?.toLowerCase() === 's' ? 1000 : 1);
      if (!(ms > 0)) throw new BenchUsageError(`--slo: the latency target must be positive (got "${p}")`);
      slo = { percentile: m[1] === '99.9' ? 'p999' : (`p${m[1]}` as Slo['percentile']), maxMs: ms, maxErrorRate };
    } else if (e) {
      maxErrorRate = Number(e[1]) / 100;
      if (maxErrorRate > 1) throw new BenchUsageError(`--slo: an error bound is a percentage up to 100 (got "${p}")`);
    } else throw new BenchUsageError(`--slo: expected e.g. "p99<50ms" or "p99.9<200ms,errors<1%" (got "${p}")`);
  }
  if (!slo) throw new BenchUsageError('--slo: a latency target is required, e.g. "p99<50ms"');
  return { ...slo, maxErrorRate };
}

export function formatSlo(s: Slo): string {
  return `${s.percentile === 'p999' ? 'P99.9' : s.percentile.toUpperCase()} < ${s.maxMs} ms, errors < ${Math.round(s.maxErrorRate * 10000) / 100}%`;
}

/** One measured step of the search. */
export interface CapacityStep {
  /** Offered rate (req/s). */
  rate: number;
  /** Achieved throughput. */
  rps: number;
  p50: number;
  p99: number;
  p999: number;
  errorRate: number;
  pass: boolean;
  /**
   * 'climb', 'bisect', 'confirm' (a miss measured again: see searchKnee) or 'repeat' (the
   * repeats at the knee, not counted in the steps).
   */
  phase: 'climb' | 'bisect' | 'confirm' | 'repeat';
}

export interface CapacityResult {
  slo: Slo;
  /** The highest offered rate that met the target (0: even the first step failed). */
  knee: number;
  /** The lowest offered rate that missed it (null: none did up to the last step). */
  firstFailing: number | null;
  steps: CapacityStep[];
  /** Passes of the repeats at the knee, e.g. 2 of 2. */
  repeatsPassed: number;
  repeats: number;
  /**
   * The knee lies between `knee` and `firstFailing`: half that gap relative to the knee, as a
   * percentage; plus whether the repeats at the knee passed.
   */
  uncertaintyPercent: number | null;
  /** What the search could not settle, in words. */
  notes: string[];
}

export interface SearchOptions {
  /** The first offered rate. */
  startRate: number;
  /** Runs of the climb and bisection together (default 8). */
  maxSteps?: number;
  /** Repeats at the knee (default 2). */
  repeats?: number;
  /** Stop bisecting when the gap is below this share of the knee (default 0.05). */
  resolution?: number;
  /** Highest rate tried (default 1,000,000). */
  maxRate?: number;
  /** Called after each step (progress). */
  onStep?(s: CapacityStep): void;
}

/** A step whose throughput reached this share of the offered rate kept up with it. */
export const KEPT_UP = 0.97;

export type Measure = (rate: number) => Promise<Omit<CapacityStep, 'pass' | 'phase' | 'rate'>>;

export function passes(slo: Slo, m: { p50: number; p99: number; p999: number; errorRate: number; p90?: number }): boolean {
  const v = slo.percentile === 'p90' ? (m.p90 ?? m.p99) : m[slo.percentile];
  return v < slo.maxMs && m.errorRate <= slo.maxErrorRate;
}

/** The search itself, over any measuring function (a benchmark run, or a model in tests). */
export async function searchKnee(slo: Slo, measure: Measure, o: SearchOptions): Promise<CapacityResult> {
  const maxSteps = Math.max(2, Math.min(o.maxSteps ?? 8, 20));
  const repeats = Math.max(0, Math.min(o.repeats ?? 2, 5));
  const resolution = o.resolution ?? 0.05;
  const maxRate = o.maxRate ?? 1_000_000;
  const steps: CapacityStep[] = [];
  const notes: string[] = [];
  const step = async (rate: number, phase: CapacityStep['phase']) => {
    const r = Math.max(1, Math.round(rate));
    const m = await measure(r);
    const s: CapacityStep = { rate: r, ...m, pass: passes(slo, m), phase };
    steps.push(s);
    o.onStep?.(s);
    return s;
  };
  let lo = 0;
  let hi: number | null = null;
  let rate = Math.max(1, o.startRate);
  let used = 0;
  // A miss with the whole offered rate served is a latency outlier, not an overload (above the
  // knee the throughput falls behind the offer): on a shared machine one slow request is the P99
  // of a short step. Such a miss is measured again (counted as a step) and stands only if repeated.
  const trial = async (r: number, phase: CapacityStep['phase']): Promise<CapacityStep> => {
    const s = await step(r, phase);
    used++;
    if (s.pass || used >= maxSteps || s.rps < s.rate * KEPT_UP) return s;
    const again = await step(s.rate, 'confirm');
    used++;
    return again;
  };
  // climb
  while (used < maxSteps) {
    const s = await trial(rate, 'climb');
    if (s.pass) {
      lo = s.rate;
      if (rate >= maxRate) {
        notes.push(`met the target at the highest rate tried (${maxRate} req/s)`);
        break;
      }
      rate = Math.min(maxRate, rate * 2);
    } else {
      hi = s.rate;
      break;
    }
  }
  // bisect
  while (hi !== null && used < maxSteps && hi - lo > Math.max(1, (lo || hi) * resolution)) {
    const s = await trial((lo + hi) / 2, 'bisect');
    if (s.pass) lo = s.rate;
    else hi = s.rate;
  }
  if (hi === null && used >= maxSteps) notes.push(`every step met the target: the knee is above ${lo} req/s`);
  if (lo === 0) notes.push(`the first step (${Math.round(o.startRate)} req/s) already missed the target: start lower`);
  let repeatsPassed = 0;
  if (lo > 0) for (let i = 0; i < repeats; i++) if ((await step(lo, 'repeat')).pass) repeatsPassed++;
  if (lo > 0 && repeats > 0 && repeatsPassed < repeats)
    notes.push(`the knee's rate met the target in ${repeatsPassed} of ${repeats} repeats: it is at the edge, the real knee may be lower`);
  return {
    slo,
    knee: lo,
    firstFailing: hi,
    steps,
    repeatsPassed,
    repeats: lo > 0 ? repeats : 0,
    uncertaintyPercent: lo > 0 && hi !== null ? Math.round(((hi - lo) / 2 / lo) * 1000) / 10 : null,
    notes,
  };
}

/** One step's figures from a run. */
export function stepOf(r: BenchResult): Omit<CapacityStep, 'pass' | 'phase' | 'rate'> {
  const e = r.errors;
  const failed = e.connect + e.timeout + e.reset + e.non2xx + e.tls + e.protocol;
  const offered = r.requests + e.connect + e.timeout + e.reset + e.tls + e.protocol;
  return {
    rps: r.rps,
    p50: r.latencyMs.p50,
    p99: r.latencyMs.p99,
    p999: r.latencyMs.p999,
    errorRate: offered > 0 ? Math.round((failed / offered) * 10000) / 10000 : 0,
  };
}

/**
 * Runs the search on a config: each step is a run in the open model at the step's rate, with
 * the options given (their `rate` is the first step, default 1000 req/s). The steps skip the
 * diagnosis (its readings would add to what each step measures).
 */
export async function runCapacity(
  options: BenchOptions,
  slo: Slo,
  search: Partial<SearchOptions> = {},
  hooks: Pick<RunHooks, 'signal'> & { onStep?(s: CapacityStep): void } = {},
): Promise<CapacityResult & { proxy: BenchResult['proxy'] | null }> {
  let proxy: BenchResult['proxy'] | null = null;
  const res = await searchKnee(
    slo,
    async (rate) => {
      const r = await runBenchmark({ ...options, rate, step: undefined, diagnose: false }, { signal: hooks.signal });
      proxy = r.proxy;
      return stepOf(r);
    },
    { startRate: options.rate && options.rate > 0 ? options.rate : 1000, onStep: hooks.onStep, ...search },
  );
  return { ...res, proxy };
}
