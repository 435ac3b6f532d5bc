// Main-thread side of the load generator: starts the worker threads, records their latencies into
// per-second and whole-run histograms, emits one progress sample per second and always ends the
// workers (run end, error, abort, hard deadline).
import { Worker } from 'node:worker_threads';
import { performance, type RecordableHistogram } from 'node:perf_hooks';
import { RUN_LIMITS, type ErrorCounts, type ScenarioName, type SecondSample, type StepLoad } from '../../protocol/bench';
import type { BatchMessage, LoadTarget, WorkerConfig, WorkerMessage } from './generator';
import { addErrors, emptyErrors, newHistogram, recordUs, summarize, totalErrors } from './histogram';
import { workerEntryPath, workerEvalSource } from './paths';
import { threadCpuSeconds } from '../../server/src/runner/proc';

export const MAX_DURATION_MS = RUN_LIMITS.durationMs[1];

export interface LoadOptions {
  scenario: ScenarioName;
  target: LoadTarget;
  tlsTarget?: LoadTarget;
  connections: number;
  /** Total requests per second (open model); 0 = closed model. */
  rate: number;
  durationMs: number;
  warmupMs: number;
  path: string;
  hostHeader: string;
  streams: number;
  threads: number;
  timeoutMs: number;
  step?: StepLoad;
  /** Request method (default GET; `get-post-mix` and `tcp` ignore it). */
  method?: string;
  /** Request body bytes sent with every request, or null/undefined for none. */
  body?: Uint8Array | null;
  /** Content-Type sent with the body (default application/octet-stream). */
  contentType?: string;
  /** CPUs of the generator's worker threads (thread i on cpus[i % length]); absent: not pinned. */
  cpus?: number[];
}

export interface LoadHooks {
  onProgress?(sample: SecondSample): void;
  /** Called once when measurement starts (after warm-up). */
  onMeasureStart?(): void;
  signal?: AbortSignal;
}

export interface LoadResult {
  requests: number;
  durationS: number;
  whole: RecordableHistogram;
  perSecond: SecondSample[];
  errors: ErrorCounts;
  /**
   * CPU seconds of the generator during measurement: its worker threads plus the aggregating
   * thread (per thread from /proc, so an editor's other work in the same process is not counted);
   * the whole process's CPU where per-thread figures are unavailable.
   */
  generatorCpuSeconds: number;
  /** CPU seconds of the whole process during measurement (all its threads, including V8's own). */
  processCpuSeconds: number;
  /** CPU seconds of the busiest generator thread (a worker or the aggregating thread); null where per-thread figures are unavailable. */
  busiestThreadCpuSeconds: number | null;
  /** Wall-clock (Date.now()) start and end of the measured interval. */
  measuredFrom: number;
  measuredTo: number;
  tlsFull: number;
  tlsResumed: number;
  /** Non-2xx responses during measurement by status code. */
  statuses: Record<string, number>;
  inFlightDropped: number;
  /** Why a worker thread could not be pinned to its CPU (o.cpus), one entry per thread that failed. */
  pinErrors: string[];
}

interface SecondAcc {
  hist: RecordableHistogram;
  count: number;
  errors: number;
}

export function abortError(): Error {
  const e = new Error('The benchmark was cancelled');
  e.name = 'AbortError';
  return e;
}

function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

/** Offered load at second `sec` (for progress): rate in the open model, connections in the closed one. */
function loadAt(o: LoadOptions, sec: number): number {
  const base = o.rate > 0 ? o.rate : o.connections;
  if (!o.step || o.step.intervalMs <= 0) return base;
  const elapsedMs = o.warmupMs + sec * 1000;
  const steps = Math.floor(elapsedMs / o.step.intervalMs);
  if (o.rate > 0) return Math.round(base * (1 + (steps * o.step.percent) / 100));
  return base + steps * Math.max(1, Math.round((base * o.step.percent) / 100));
}

export async function runLoad(o: LoadOptions, hooks: LoadHooks = {}): Promise<LoadResult> {
  if (hooks.signal?.aborted) throw abortError();
  const durationMs = Math.min(Math.max(100, o.durationMs), MAX_DURATION_MS);
  const warmupMs = Math.min(Math.max(0, o.warmupMs), MAX_DURATION_MS);
  const threads = Math.max(1, Math.min(Math.floor(o.threads || 1), 16, Math.max(1, o.connections)));
  // Set once every worker is loaded (see 'ready' below).
  let startAt = 0;
  let measureAt = Number.POSITIVE_INFINITY;
  let endAt = Number.POSITIVE_INFINITY;
  const graceMs = Math.min(2000, o.timeoutMs);
  const entry = workerEntryPath();
  const src = workerEvalSource(entry);

  const whole = newHistogram();
  const seconds = new Map<number, SecondAcc>();
  const errors = emptyErrors();
  let tlsFull = 0;
  let tlsResumed = 0;
  const statuses: Record<string, number> = {};
  let inFlightDropped = 0;
  const pinErrors: string[] = [];
  let emittedUpTo = -Math.ceil(warmupMs / 1000) - 1;
  let cpuAtMeasure = process.cpuUsage();
  let cpuAtEnd: NodeJS.CpuUsage | null = null;
  let mainCpuAtMeasure: number | null = null;
  let mainCpu: number | null = null;
  let workersCpu: number | null = 0;
  let busiestWorkerCpu = 0;

  const secAcc = (sec: number): SecondAcc => {
    let a = seconds.get(sec);
    if (!a) {
      a = { hist: newHistogram(), count: 0, errors: 0 };
      seconds.set(sec, a);
    }
    return a;
  };

  const sampleOf = (sec: number, a: SecondAcc | undefined): SecondSample => {
    const s = a ? summarize(a.hist) : { p50: 0, p90: 0, p99: 0, p999: 0, max: 0, mean: 0 };
    return {
      t: sec + 1,
      phase: sec < 0 ? 'warmup' : 'measure',
      rps: a?.count ?? 0,
      p50: s.p50,
      p90: s.p90,
      p99: s.p99,
      p999: s.p999,
      max: s.max,
      errors: a?.errors ?? 0,
      load: loadAt(o, sec),
    };
  };

  const onBatch = (m: BatchMessage) => {
    const lat = m.lat;
    const n = m.n;
    const measured = m.sec >= 0 && m.sec < Math.ceil(durationMs / 1000);
    const a = secAcc(m.sec);
    for (let i = 0; i < n; i++) recordUs(a.hist, lat[i]);
    a.count += n;
    const errN = totalErrors({ ...emptyErrors(), ...m.errors });
    a.errors += errN;
    if (measured) {
      for (let i = 0; i < n; i++) recordUs(whole, lat[i]);
      addErrors(errors, m.errors);
      tlsFull += m.tlsFull;
      tlsResumed += m.tlsResumed;
      for (const [k, v] of Object.entries(m.statuses ?? {})) statuses[k] = (statuses[k] ?? 0) + v;
    }
  };

  const workers: Worker[] = [];
  const perWorker = (i: number, total: number) => Math.floor(total / threads) + (i < total % threads ? 1 : 0);

  let progressTimer: NodeJS.Timeout | null = null;
  let hardTimer: NodeJS.Timeout | null = null;
  let measureTimer: NodeJS.Timeout | null = null;
  let onAbort: (() => void) | null = null;

  try {
    await new Promise<void>((resolve, reject) => {
      let done = 0;
      let settled = false;
      const finish = (err?: Error) => {
        if (settled) return;
        settled = true;
        cpuAtEnd = process.cpuUsage(cpuAtMeasure);
        const t = threadCpuSeconds();
        mainCpu = t !== null && mainCpuAtMeasure !== null ? t - mainCpuAtMeasure : null;
        if (err) reject(err);
        else resolve();
      };
      let ready = 0;
      const begin = () => {
        startAt = epochNow() + 20;
        measureAt = startAt + warmupMs;
        endAt = measureAt + durationMs;
        for (const w of workers) w.postMessage({ type: 'start', startAt, measureAt, endAt });
        measureTimer = setTimeout(
          () => {
            cpuAtMeasure = process.cpuUsage();
            mainCpuAtMeasure = threadCpuSeconds();
            hooks.onMeasureStart?.();
          },
          Math.max(0, measureAt - epochNow()),
        );
        if (hardTimer) clearTimeout(hardTimer);
        // Until the workers are ready: a bound on their start-up.
        hardTimer = setTimeout(() => finish(new Error('load generator threads did not start within 30 s')), 30_000);
      };
      for (let i = 0; i < threads; i++) {
        const cfg: WorkerConfig = {
          id: i,
          scenario: o.scenario,
          target: o.target,
          tlsTarget: o.tlsTarget,
          connections: Math.max(1, perWorker(i, o.connections)),
          rate: o.rate > 0 ? o.rate / threads : 0,
          phaseOffsetMs: o.rate > 0 ? (i * 1000) / o.rate : 0,
          path: o.path,
          hostHeader: o.hostHeader,
          streams: o.streams,
          timeoutMs: o.timeoutMs,
          startAt: 0,
          measureAt: 0,
          endAt: 0,
          step: o.step,
          graceMs,
          method: o.method ?? 'GET',
          body: o.body ?? null,
          contentType: o.contentType ?? 'application/octet-stream',
          cpus: o.cpus && o.cpus.length > 0 ? [o.cpus[i % o.cpus.length]] : undefined,
        };
        const w = new Worker(src, { eval: true, workerData: cfg });
        workers.push(w);
        w.on('message', (m: WorkerMessage) => {
          if (m.type === 'batch') onBatch(m);
          else if (m.type === 'ready') {
            if (m.pinError) pinErrors.push(`generator thread ${m.worker}: ${m.pinError}`);
            if (++ready === threads) begin();
          } else if (m.type === 'done') {
            inFlightDropped += m.inFlightDropped;
            workersCpu = workersCpu === null || m.cpuSeconds === null ? null : workersCpu + m.cpuSeconds;
            if (m.cpuSeconds !== null) busiestWorkerCpu = Math.max(busiestWorkerCpu, m.cpuSeconds);
            if (++done === threads) finish();
          } else if (m.type === 'fatal') finish(new Error(`load generator: ${m.message}`));
        });
        w.on('error', (e) => finish(new Error(`load generator thread failed: ${e.message}`)));
        w.on('exit', (code) => {
          if (!settled && code !== 0) finish(new Error(`load generator thread exited with code ${code}`));
        });
      }
      progressTimer = setInterval(() => {
        // A second is reported once it is over plus a margin for the workers' flush.
        if (startAt === 0) return;
        const completed = Math.floor((epochNow() - measureAt - 300) / 1000) - 1;
        const last = Math.min(completed, Math.ceil(durationMs / 1000) - 1);
        for (let s = emittedUpTo + 1; s <= last; s++) {
          hooks.onProgress?.(sampleOf(s, seconds.get(s)));
          emittedUpTo = s;
        }
      }, 100);
      // Until the workers are ready: a bound on their start-up.
      hardTimer = setTimeout(() => finish(new Error('load generator threads did not start within 30 s')), 30_000);
      onAbort = () => finish(abortError());
      hooks.signal?.addEventListener('abort', onAbort, { once: true });
    });
  } finally {
    if (progressTimer) clearInterval(progressTimer);
    if (hardTimer) clearTimeout(hardTimer);
    if (measureTimer) clearTimeout(measureTimer);
    if (onAbort) hooks.signal?.removeEventListener('abort', onAbort);
    await Promise.all(workers.map((w) => w.terminate().catch(() => 0)));
  }

  const nSec = Math.ceil(durationMs / 1000);
  const perSecond: SecondSample[] = [];
  for (let s = 0; s < nSec; s++) {
    const smp = sampleOf(s, seconds.get(s));
    perSecond.push(smp);
    if (s > emittedUpTo) hooks.onProgress?.(smp);
  }
  const cpu = cpuAtEnd as NodeJS.CpuUsage | null;
  return {
    requests: whole.count,
    durationS: durationMs / 1000,
    whole,
    perSecond,
    errors,
    generatorCpuSeconds:
      mainCpu !== null && workersCpu !== null ? (mainCpu as number) + (workersCpu as number) : cpu ? (cpu.user + cpu.system) / 1e6 : 0,
    processCpuSeconds: cpu ? (cpu.user + cpu.system) / 1e6 : 0,
    busiestThreadCpuSeconds: mainCpu !== null && workersCpu !== null ? Math.max(mainCpu as number, busiestWorkerCpu) : null,
    measuredFrom: measureAt - performance.timeOrigin - performance.now() + Date.now(),
    measuredTo: endAt - performance.timeOrigin - performance.now() + Date.now(),
    tlsFull,
    tlsResumed,
    statuses,
    inFlightDropped,
    pinErrors,
  };
}

export { summarize };
