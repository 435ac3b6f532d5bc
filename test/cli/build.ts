// Builds dist/ when a bundle the subprocess tests run is missing or older than its sources.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const REPO = join(__dirname, '..', '..');

function newestMtime(dir: string): number {
  let newest = 0;
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const p = join(dir, name);
    const st = statSync(p);
    newest = Math.max(newest, st.isDirectory() ? newestMtime(p) : st.mtimeMs);
  }
  return newest;
}

function mtime(p: string): number {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return 0;
  }
}

/** Runs `node esbuild.mjs` unless dist/server.js, dist/cli.js and dist/cli-main.js are newer than every source. */
export function ensureBuilt(): void {
  const sources = Math.max(
    ...['server/src', 'cli/src', 'bench/src', 'protocol'].map((d) => newestMtime(join(REPO, d))),
    mtime(join(REPO, 'package.json')),
    mtime(join(REPO, 'esbuild.mjs')),
  );
  const built = Math.min(...['server.js', 'cli.js', 'cli-main.js'].map((f) => mtime(join(REPO, 'dist', f))));
  if (built > sources) return;
  const r = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: REPO, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`build failed (${r.status}): ${r.stderr}${r.stdout}`);
}
