// CPU placement of a run: the load generator's threads on some CPUs, the proxy and the backend on
// the others, so that the generator's CPU is never taken from the proxy (and the other way round).
// Without it, on a machine whose CPUs are all busy, every microsecond the generator spends per
// request is a microsecond the proxy does not get, and a config that makes the proxy cheaper shows
// less than it buys. Linux only (sched_setaffinity through util-linux's `taskset`); where it cannot
// be applied the run goes on unpinned and says why.
import { spawnSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import * as os from 'node:os';
import { groupMembers } from '../../server/src/runner/proc';

/** `pin` of BenchOptions: true = always (2 CPUs or more), false = never, 'auto' = with 4 CPUs or more. */
export type PinMode = boolean | 'auto';

/** With 'auto', the smallest machine on which a run is pinned: on 2-3 CPUs pinning leaves the proxy a single CPU. */
export const AUTO_PIN_MIN_CPUS = 4;

export interface Placement {
  /** CPUs of the generator's worker threads. */
  generator: number[];
  /** CPUs of the proxy's and the backend's processes. */
  system: number[];
}

export interface PlacementPlan {
  placement: Placement | null;
  /** Why the run is not pinned (null when it is). */
  why: string | null;
}

/** CPU list in taskset's syntax (0,2,3). */
export const cpuList = (cpus: number[]): string => cpus.join(',');

let tasksetOk: boolean | null = null;
function hasTaskset(): boolean {
  if (tasksetOk === null)
    tasksetOk = process.platform === 'linux' && spawnSync('taskset', ['-V'], { stdio: 'ignore', timeout: 5000 }).status === 0;
  return tasksetOk;
}

/**
 * Which CPUs go to whom: the generator gets one CPU per thread but never more than half the CPUs,
 * the proxy and backend the rest. `cpus`: the machine's CPU count (default os.cpus()).
 */
export function planPlacement(pin: PinMode | undefined, threads: number, cpus = os.cpus().length): PlacementPlan {
  const mode = pin ?? 'auto';
  if (mode === false) return { placement: null, why: 'not pinned (turned off for this run)' };
  if (cpus < 2) return { placement: null, why: 'not pinned: one CPU' };
  if (mode === 'auto' && cpus < AUTO_PIN_MIN_CPUS)
    return {
      placement: null,
      why: `not pinned: ${cpus} CPUs (a run is pinned by default from ${AUTO_PIN_MIN_CPUS} CPUs; with fewer, pinning would leave the proxy and backend ${cpus > 2 ? `${cpus - 1} CPUs` : 'one CPU'})`,
    };
  if (!hasTaskset()) return { placement: null, why: 'not pinned: taskset (util-linux) is not available' };
  const all = Array.from({ length: cpus }, (_, i) => i);
  const g = Math.max(1, Math.min(Math.floor(threads), Math.floor(cpus / 2)));
  return { placement: { generator: all.slice(0, g), system: all.slice(g) }, why: null };
}

/** Pins every thread of a process; the error text, or null. */
export function pinProcess(pid: number, cpus: number[]): string | null {
  const r = spawnSync('taskset', ['-a', '-p', '-c', cpuList(cpus), String(pid)], { encoding: 'utf8', timeout: 5000 });
  return r.status === 0 ? null : (r.stderr || r.error?.message || `taskset exited with ${r.status}`).trim();
}

/** Pins every live member of a process group (all their threads); the first error, or null. */
export function pinGroup(pgid: number, cpus: number[]): string | null {
  if (pgid <= 0) return 'no process group';
  const members = groupMembers(pgid);
  if (members.length === 0) return 'the process group has no live member';
  for (const m of members) {
    const e = pinProcess(m.pid, cpus);
    if (e) return e;
  }
  return null;
}

/** Pins the calling thread only (a generator worker thread; the rest of the process stays where it is). */
export function pinThisThread(cpus: number[]): string | null {
  let tid: string;
  try {
    // /proc/thread-self -> "PID/task/TID"
    tid = readlinkSync('/proc/thread-self').split('/').pop() ?? '';
  } catch (e) {
    return (e as Error).message;
  }
  if (!/^\d+$/.test(tid)) return `thread id not understood: ${tid}`;
  const r = spawnSync('taskset', ['-p', '-c', cpuList(cpus), tid], { encoding: 'utf8', timeout: 5000 });
  return r.status === 0 ? null : (r.stderr || r.error?.message || `taskset exited with ${r.status}`).trim();
}
