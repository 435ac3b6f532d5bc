// Facts about this machine for the host-aware rules (listen backlog vs net.core.somaxconn,
// nbthread vs cores). Plain Node, read once per process. Only facts that hold for the proxy
// too are reported: the core count and the kernel's somaxconn. The editor's own file-descriptor
// limit says nothing about the one nginx or HAProxy gets from its service manager, so it is
// not guessed. `PROXY_TUNER_NO_LOCAL_VERSION=1` (reproducible runs) or
// `PROXY_TUNER_NO_HOST_FACTS=1` turn the probe off.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import type { HostFacts } from './types';

let cached: HostFacts | undefined | null = null;

/** Parses the content of /proc/sys/net/core/somaxconn. */
export function parseSomaxconn(text: string): number | undefined {
  const n = Number(text.trim());
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** This host's facts, or undefined when turned off. Never throws. */
export function localHostFacts(): HostFacts | undefined {
  if (process.env.PROXY_TUNER_NO_LOCAL_VERSION === '1' || process.env.PROXY_TUNER_NO_HOST_FACTS === '1') return undefined;
  if (cached !== null) return cached;
  const facts: HostFacts = {};
  try {
    const cpus = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
    if (cpus > 0) facts.cpuCount = cpus;
  } catch {
    // no CPU information: the rules that need it stay silent
  }
  if (process.platform === 'linux') {
    try {
      const s = parseSomaxconn(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
      if (s !== undefined) facts.somaxconn = s;
    } catch {
      // not readable (containers, sandboxes): leave it out
    }
  }
  cached = Object.keys(facts).length ? facts : undefined;
  return cached;
}
