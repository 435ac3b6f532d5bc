// What the machine allows a sandboxed proxy: CPUs for workers/threads, and the open-file limit
// for connections (nginx: one fd per connection, two when proxied; HAProxy: about two per maxconn).
import { readFileSync } from 'node:fs';
import * as os from 'node:os';

export interface MachineLimits {
  cpus: number;
  /** RLIMIT_NOFILE of this process (inherited by the proxy): soft and hard. */
  softFiles: number;
  hardFiles: number;
}

export function fileLimits(): MachineLimits {
  const cpus = Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
  let softFiles = 1024;
  let hardFiles = 4096;
  try {
    const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'latin1'));
    if (m) {
      const n = (v: string) => (v === 'unlimited' ? 1_048_576 : Number(v));
      softFiles = n(m[1]);
      hardFiles = n(m[2]);
    }
  } catch {
    // not Linux: keep the conservative defaults
  }
  return { cpus, softFiles, hardFiles };
}

/** Files kept aside for the proxy's own use (logs, listeners, pipes, the master's bookkeeping). */
export const RESERVED_FILES = 200;
