// Where the worker/child entry lives: next to the bundle (dist/loadWorker.js) when bundled, or the
// TypeScript source (bench/src/loadWorker.ts) when run through tsx in tests.
import { existsSync } from 'node:fs';
import * as path from 'node:path';

export function workerEntryPath(): string {
  // an explicit entry (tests that run from sources but start many contained backends use the bundle)
  const explicit = process.env.PROXY_TUNER_WORKER_ENTRY;
  if (explicit && existsSync(explicit)) return explicit;
  const js = path.join(__dirname, 'loadWorker.js');
  const ts = path.join(__dirname, 'loadWorker.ts');
  if (__filename.endsWith('.ts') && existsSync(ts)) return ts;
  if (existsSync(js)) return js;
  if (existsSync(ts)) return ts;
  throw new Error(`benchmark worker not found next to ${__filename} (run \`npm run build\`)`);
}

function tsxCjsPath(): string {
  // Built at run time so the bundler leaves it alone: only needed when running from sources.
  const spec = ['tsx', 'cjs'].join('/');
  return require.resolve(spec);
}

/** execArgv for a forked child running `entry`. */
export function tsxExecArgv(entry: string): string[] {
  return entry.endsWith('.ts') ? ['--require', tsxCjsPath()] : [];
}

/** Source for `new Worker(src, { eval: true })` that loads `entry` (TypeScript or bundled). */
export function workerEvalSource(entry: string): string {
  const pre = entry.endsWith('.ts') ? `require(${JSON.stringify(tsxCjsPath())});` : '';
  return `${pre}require(${JSON.stringify(entry)});`;
}
