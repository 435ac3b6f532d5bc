// Facts about this machine for the host-aware rules (listen backlog vs net.core.somaxconn,
// nbthread vs cores). Plain Node, read once per process. Only facts that hold for the proxy
// too are reported: the core count and the kernel's somaxconn. The editor's own file-descriptor
// limit says nothing about the one nginx or HAProxy gets from its service manager, so it is
// not guessed. `PROXY_TUNER_NO_LOCAL_VERSION=1` (reproducible runs) or
// `PROXY_TUNER_NO_HOST_FACTS=1` turn the probe off.
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import type { HostFacts } from '../core/types';
import { localNginxV } from './localVersions';

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

/**
 * The folder nginx reads relative includes from, from `nginx -V`: that of --conf-path, else
 * --prefix's `conf` (nginx's own layout), else the packaged default /etc/nginx.
 */
export function nginxConfDirOf(nginxV: string): string {
  let conf: string | undefined;
  let prefix: string | undefined;
  for (const m of nginxV.matchAll(/--(conf-path|prefix)=('[^']*'|\S+)/g)) {
    const v = m[2].replace(/^'|'$/g, '').replace(/\/+$/, '');
    if (m[1] === 'conf-path') conf = v;
    else prefix = v;
  }
  const base = prefix || '/usr/local/nginx';
  if (conf) {
    const path = conf.startsWith('/') ? conf : `${base}/${conf}`;
    return path.slice(0, path.lastIndexOf('/')) || '/';
  }
  return prefix ? `${prefix}/conf` : '/etc/nginx';
}

let confDirCached: string | undefined | null = null;

/** The local nginx's conf folder (nginxConfDirOf), or undefined without a binary or when turned off. Never throws. */
export function localNginxConfDir(explicitPath?: string): string | undefined {
  if (process.env.PROXY_TUNER_NO_LOCAL_VERSION === '1' || process.env.PROXY_TUNER_NO_HOST_FACTS === '1') return undefined;
  if (confDirCached !== null) return confDirCached;
  confDirCached = undefined;
  try {
    const out = localNginxV(explicitPath);
    if (out && /nginx version/.test(out)) confDirCached = nginxConfDirOf(out);
  } catch {
    confDirCached = undefined;
  }
  return confDirCached;
}

let modulesCached: { installed: string[]; added: string[] } | undefined | null = null;

/** The sources of modules compiled into the binary (`--add-module=PATH`, not the dynamic ones). */
export function addedModulesOf(nginxV: string): string[] {
  return [...nginxV.matchAll(/--add-module=('[^']*'|\S+)/g)].map((m) => m[1].replace(/^'|'$/g, ''));
}

/** The modules folder an `nginx -V` names (`--modules-path`, else the prefix's `modules`). */
export function modulesPathOf(nginxV: string): string | undefined {
  const unq = (v: string | undefined) => v?.replace(/^'|'$/g, '');
  const m = unq(/--modules-path=('[^']*'|\S+)/.exec(nginxV)?.[1]);
  if (m) return m;
  const prefix = unq(/--prefix=('[^']*'|\S+)/.exec(nginxV)?.[1]);
  return prefix ? `${prefix.replace(/\/+$/, '')}/modules` : undefined;
}

/**
 * The loadable modules installed for the local nginx (`.so` base names in its modules folder),
 * for the quick fix that adds a `load_module` line. Undefined without a binary or when turned off
 * (as localHostFacts). Never throws; asked once per process, and only when a directive needs it.
 */
export function localNginxModules(explicitPath?: string): { installed: string[]; added: string[] } | undefined {
  if (process.env.PROXY_TUNER_NO_LOCAL_VERSION === '1' || process.env.PROXY_TUNER_NO_HOST_FACTS === '1') return undefined;
  if (modulesCached !== null) return modulesCached;
  modulesCached = undefined;
  try {
    const out = localNginxV(explicitPath);
    if (out === undefined || !/nginx version/.test(out)) return undefined;
    const dir = modulesPathOf(out);
    const installed: string[] = [];
    try {
      if (dir) {
        for (const f of readdirSync(dir)) {
          const m = /^(\w+)\.so$/.exec(f);
          if (m) installed.push(m[1]);
        }
      }
    } catch {
      // no modules folder: nothing to load
    }
    modulesCached = { installed, added: addedModulesOf(out) };
  } catch {
    modulesCached = undefined;
  }
  return modulesCached;
}
