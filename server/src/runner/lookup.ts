// Where the nginx and HAProxy binaries are looked for when no path is given: the one lookup the
// runner (benchmark, "Validate with nginx -t"), the host (the default target version) and the
// extension (the binaries it lists) share, so that all three find the same binary.
import { accessSync, constants, statSync } from 'node:fs';
import * as path from 'node:path';

/** Folders searched after PATH: package managers put the binaries there, and a user's PATH often lacks the sbin ones. */
export const SEARCH_DIRS: readonly string[] = [
  '/usr/sbin',
  '/usr/local/sbin',
  '/sbin',
  '/usr/local/bin',
  '/opt/homebrew/bin',
  '/usr/local/nginx/sbin',
];

/** Whether `p` is a file this process may execute. */
export function isExecutableFile(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The first executable `name` on `envPath`, then in SEARCH_DIRS. */
export function findOnPath(name: string, envPath = process.env.PATH ?? ''): string | undefined {
  const exe = process.platform === 'win32' ? `${name}.exe` : name;
  for (const d of [...envPath.split(path.delimiter), ...SEARCH_DIRS]) {
    if (!d) continue;
    const p = path.join(d, exe);
    if (isExecutableFile(p)) return p;
  }
  return undefined;
}
