// Shared helpers of the benchmark tests: temp configs and the "nothing left behind" checks.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { descendants, groupMembers } from '../../server/src/runner/proc';

export function tempConfig(name: string, text: string): { file: string; dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pt-bench-test-'));
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return { file, dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/**
 * Live child processes of this test process (any depth), except the esbuild service that tsx
 * itself keeps running for the test process.
 */
export function liveDescendants(): number[] {
  return descendants(process.pid)
    .filter((s) => !commandLine(s.pid).includes('esbuild'))
    .map((s) => s.pid);
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

export function liveInGroup(pgid: number): number[] {
  return pgid > 0 ? groupMembers(pgid).map((s) => s.pid) : [];
}

/** Waits (bounded) until `cond` holds; the processes were already told to stop. */
export async function eventually(cond: () => boolean, ms = 2000): Promise<boolean> {
  const end = Date.now() + ms;
  for (let i = 0; i < 200 && Date.now() < end; i++) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
}
