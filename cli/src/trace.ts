// `PROXY_TUNER_TRACE=1 proxy-tuner check FILE`: where a run's time goes, on stderr after the
// report: per step (start-up, parse, validation, tuning, navigation, report), the time since the
// process started, the step's wall time, the process's CPU time over it (every thread: V8's
// collector and compiler helpers included), the main thread's garbage-collection pauses in it and,
// on Linux, the main thread's own time on a core and time waiting for one (a loaded machine's
// share, /proc/thread-self/schedstat); then every thread's totals. Off (one comparison per
// step) unless the variable is set; the output of `check` is otherwise unchanged.
import { readdirSync, readFileSync } from 'node:fs';
import { performance, PerformanceObserver } from 'node:perf_hooks';

export const TRACING = process.env.PROXY_TUNER_TRACE === '1';

export interface Mark {
  thread: string;
  step: string;
  /** ms since the epoch (timeOrigin + now). */
  at: number;
  /** The process's CPU time so far, ms. */
  cpu: number;
  /** This thread's time on a core and waiting for one (runnable), ms (Linux: /proc/thread-self/schedstat). */
  run?: number;
  wait?: number;
  /** This thread's collection pauses since its previous mark, ms and count. */
  gcMs?: number;
  gcs?: number;
}

const marks: Mark[] = [];
const pauses: { at: number; ms: number }[] = [];
let observer: PerformanceObserver | undefined;

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Starts the trace of this thread (the collector's pauses are observed from here on). */
export function traceBegin(thread: string): void {
  if (!TRACING || observer) return;
  observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push({ at: performance.timeOrigin + e.startTime, ms: e.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  trace(thread, 'start');
}

/** A step of `thread` ended now. */
export function trace(thread: string, step: string): void {
  if (!TRACING) return;
  const m: Mark = { thread, step, at: performance.timeOrigin + performance.now(), cpu: cpuMs() };
  try {
    const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
    m.run = run / 1e6;
    m.wait = wait / 1e6;
  } catch {
    // not Linux: process CPU only
  }
  marks.push(m);
}

/** This thread's marks with their collection pauses. */
function traceMarks(): Mark[] {
  if (!TRACING) return [];
  for (const e of observer?.takeRecords() ?? []) pauses.push({ at: performance.timeOrigin + e.startTime, ms: e.duration });
  let prev = -Infinity;
  return marks.map((m) => {
    let gcMs = 0;
    let gcs = 0;
    for (const p of pauses)
      if (p.at > prev && p.at <= m.at) {
        gcMs += p.ms;
        gcs++;
      }
    prev = m.at;
    return { ...m, gcMs, gcs };
  });
}

/** The report: this thread's marks, then every thread's time on a core. */
export function traceReport(): string {
  if (!TRACING) return '';
  const origin = performance.timeOrigin;
  const nt = performance.nodeTiming;
  const lines = [
    `proxy-tuner trace (ms; t from the process's start; cpu: the whole process's; gc: the thread's pauses; thread on-cpu/waiting: the thread's own time on a core and runnable without one)`,
  ];
  lines.push(`  node bootstrap done       t=${nt.bootstrapComplete.toFixed(1)}`);
  const all = traceMarks();
  const threads = [...new Set(all.map((m) => m.thread))];
  for (const thread of threads) {
    let prev: Mark | undefined;
    for (const m of all.filter((x) => x.thread === thread)) {
      const wall = prev ? m.at - prev.at : m.at - origin;
      const cpu = prev ? m.cpu - prev.cpu : m.cpu;
      const run =
        m.run === undefined
          ? ''
          : `  thread on-cpu ${(m.run - (prev?.run ?? 0)).toFixed(1).padStart(6)} waiting ${(m.wait! - (prev?.wait ?? 0)).toFixed(1).padStart(6)}`;
      lines.push(
        `  ${`${thread} ${m.step}`.padEnd(26)} t=${(m.at - origin).toFixed(1).padStart(6)}  wall ${wall.toFixed(1).padStart(6)}  cpu ${cpu.toFixed(1).padStart(6)}  gc ${(m.gcMs ?? 0).toFixed(1).padStart(5)} (${m.gcs ?? 0})${run}`,
      );
      prev = m;
    }
  }
  try {
    // every thread of the process: node's main and worker threads, V8's collector and compiler helpers, libuv's pool
    const tasks = readdirSync('/proc/self/task').map((tid) => {
      const comm = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      const [run, wait] = readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
      return `${tid === String(process.pid) ? 'main' : comm} ${(run / 1e6).toFixed(1)}/${(wait / 1e6).toFixed(1)}`;
    });
    lines.push(`  threads (on-cpu/waiting): ${tasks.join(', ')}`);
  } catch {
    // not Linux
  }
  const u = process.cpuUsage();
  lines.push(
    `  process cpu so far ${((u.user + u.system) / 1000).toFixed(1)} (user ${(u.user / 1000).toFixed(1)}, system ${(u.system / 1000).toFixed(1)})`,
  );
  return `${lines.join('\n')}\n`;
}
