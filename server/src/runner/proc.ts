// /proc readers (Linux): CPU seconds of processes and membership of a process group.
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second for /proc/PID/stat times (USER_HZ, 100 on Linux). */
const TICKS = 100;

export interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
  state: string;
  /** utime + stime in ticks. */
  cpuTicks: number;
}

export function readStat(pid: number | string): ProcStat | null {
  let s: string;
  try {
    s = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // The command name is in parentheses and may contain spaces: split after the last ')'.
  const close = s.lastIndexOf(')');
  if (close < 0) return null;
  const f = s.slice(close + 2).split(' ');
  // f[0] = state (field 3), f[1] = ppid, f[2] = pgrp, f[11] = utime (14), f[12] = stime (15)
  return {
    pid: Number(pid),
    ppid: Number(f[1]),
    pgrp: Number(f[2]),
    state: f[0],
    cpuTicks: Number(f[11]) + Number(f[12]),
  };
}

export function listPids(): number[] {
  let names: string[] = [];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const n of names) if (/^\d+$/.test(n)) out.push(Number(n));
  return out;
}

/**
 * Live (non-zombie) members of a process group, and everything they started even where it left
 * the group (a contained run's processes are in a session of their own inside their PID
 * namespace, under the group's bwrap).
 */
export function groupMembers(pgid: number): ProcStat[] {
  const all: ProcStat[] = [];
  for (const pid of listPids()) {
    const st = readStat(pid);
    if (st && st.state !== 'Z') all.push(st);
  }
  const seen = new Set<number>();
  const out: ProcStat[] = [];
  for (const s of all)
    if (s.pgrp === pgid) {
      seen.add(s.pid);
      out.push(s);
    }
  // Bounded: each pass adds at least one process or stops.
  for (let pass = 0; pass < 64; pass++) {
    let added = false;
    for (const s of all)
      if (!seen.has(s.pid) && seen.has(s.ppid)) {
        seen.add(s.pid);
        out.push(s);
        added = true;
      }
    if (!added) break;
  }
  return out;
}

/** Every live descendant of `root` (children, grandchildren...). */
export function descendants(root: number): ProcStat[] {
  const all = listPids()
    .map((p) => readStat(p))
    .filter((s): s is ProcStat => s !== null && s.state !== 'Z');
  const out: ProcStat[] = [];
  const seen = new Set<number>([root]);
  // Bounded: each pass adds at least one process or stops.
  for (let pass = 0; pass < 64; pass++) {
    let added = false;
    for (const s of all) {
      if (!seen.has(s.pid) && seen.has(s.ppid)) {
        seen.add(s.pid);
        out.push(s);
        added = true;
      }
    }
    if (!added) break;
  }
  return out;
}

export function readProcCpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const p of pids) ticks += readStat(p)?.cpuTicks ?? 0;
  return ticks / TICKS;
}

/** CPU seconds of all live processes in a process group (and their descendants, see groupMembers). */
export function groupCpuSeconds(pgid: number): number {
  return groupMembers(pgid).reduce((a, s) => a + s.cpuTicks, 0) / TICKS;
}

export function loadavg(): number[] {
  try {
    return readFileSync('/proc/loadavg', 'latin1').split(' ').slice(0, 3).map(Number);
  } catch {
    return [];
  }
}

/** CPU seconds of the calling thread (Linux /proc/thread-self), null where unavailable. */
export function threadCpuSeconds(): number | null {
  const st = readStat('thread-self');
  return st && Number.isFinite(st.cpuTicks) ? st.cpuTicks / TICKS : null;
}
