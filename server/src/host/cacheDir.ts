// The user's cache folder for Proxy Tuner: `PROXY_TUNER_CACHE_DIR`, else the platform's cache
// folder (`$XDG_CACHE_HOME` or `~/.cache` on Linux, `~/Library/Caches` on macOS, `%LOCALAPPDATA%`
// on Windows), in `proxy-tuner/`. Holds what one run leaves for the next: the local binaries'
// versions (localVersions.ts) and the command line's code cache for a node the package's own
// cache does not fit (cli/src/launch.ts). Kept small: dist/cli.js bundles it.
import { mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** The folder, or undefined when the platform has none (no home, no LOCALAPPDATA). */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    if (env.PROXY_TUNER_CACHE_DIR) return env.PROXY_TUNER_CACHE_DIR;
    if (process.platform === 'win32') return env.LOCALAPPDATA ? join(env.LOCALAPPDATA, 'proxy-tuner', 'cache') : undefined;
    if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'proxy-tuner');
    return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'proxy-tuner');
  } catch {
    return undefined;
  }
}

/**
 * Makes `dir` and its missing parents (mode 0700: the folder is the user's alone), one level at
 * a time: node's `mkdirSync(…, { recursive: true })` never returns under /proc (seen with node
 * 20 and 24), and a cache folder can be set to anything. Throws what the first failing level gave.
 */
export function makeCacheDir(dir: string): void {
  const missing: string[] = [];
  for (let d = dir, i = 0; i < 64; i++) {
    try {
      if (statSync(d).isDirectory()) break;
      throw Object.assign(new Error(`${d} is not a folder`), { code: 'ENOTDIR' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    missing.push(d);
    const up = dirname(d);
    if (up === d) break;
    d = up;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d, { mode: 0o700 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}
