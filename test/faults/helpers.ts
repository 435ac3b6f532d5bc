// "Nothing left behind" checks of the fault tests: no process whose command line names the
// sandbox folder or that belongs to the proxy's process group (scanned in /proc), the folder gone,
// the user's file byte-identical.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { eventually, liveDescendants, liveInGroup, sha256 } from '../bench/helpers';

/** Pids (any owner) whose command line mentions `needle`: the engine passes the sandbox folder to the proxy. */
export function processesMentioning(needle: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${name}/cmdline`, 'latin1');
    } catch {
      continue; // gone meanwhile
    }
    if (cmd.includes(needle)) out.push(Number(name));
  }
  return out;
}

export interface RunTrace {
  pgid: number;
  dirs: string[];
}

export function trace(): RunTrace & { onProxyReady: (i: { pgid: number; dir: string }) => void } {
  const t: RunTrace = { pgid: -1, dirs: [] };
  return Object.assign(t, {
    onProxyReady: (i: { pgid: number; dir: string }) => {
      t.pgid = i.pgid;
      t.dirs.push(i.dir);
    },
  });
}

/** The end state every fault must reach. */
export async function assertCleanEnd(t: RunTrace, userFile: string, hashBefore: string): Promise<void> {
  assert.ok(
    await eventually(() => liveInGroup(t.pgid).length === 0, 8000),
    `left in the proxy's process group: ${liveInGroup(t.pgid).join(' ')}`,
  );
  for (const d of t.dirs) {
    assert.ok(
      await eventually(() => processesMentioning(d).length === 0, 8000),
      `processes still naming ${d}: ${processesMentioning(d).join(' ')}`,
    );
    assert.ok(await eventually(() => !existsSync(d), 5000), `sandbox folder left: ${d}`);
  }
  assert.ok(await eventually(() => liveDescendants().length === 0, 8000), `child processes left: ${liveDescendants().join(' ')}`);
  assert.equal(sha256(userFile), hashBefore, 'the user file changed');
}

/** Folders in `root` (this test's private TMPDIR, where the engine makes its sandboxes). */
export function entriesOf(root: string): string[] {
  try {
    return readdirSync(root);
  } catch {
    return [];
  }
}
