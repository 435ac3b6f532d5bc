// Test entry: `node scripts/test.mjs unit|e2e|all`. Unit, grammar and corpus tests run under
// node's own test runner (TypeScript through tsx); the editor tests run after a build.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const which = process.argv[2] ?? 'all';

function find(dir, pred, out = []) {
  let names = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) find(p, pred, out);
    else if (pred(p)) out.push(p);
  }
  return out;
}

// the local binaries' versions the tests find are recorded in a folder of this run, not in the
// user's cache folder (server/src/host/localVersions.ts)
const cacheDir = mkdtempSync(join(tmpdir(), 'proxy-tuner-test-cache-'));
process.on('exit', () => rmSync(cacheDir, { recursive: true, force: true }));

// A failing phase does not stop the next one (the editor tests still run after failing unit
// tests); the command exits non-zero at the end, naming the phases that failed. A step that the
// phases after it need (set-up, the build) stops the run.
const failed = [];
function run(cmd, args, { phase, extraEnv = {} } = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { PROXY_TUNER_CACHE_DIR: cacheDir, ...process.env, ...extraEnv } });
  if (r.status === 0) return;
  if (!phase) process.exit(r.status ?? 1);
  failed.push(phase);
}

const isTest = (p) => p.endsWith('.test.ts');
if (which === 'all') {
  // The editor tests need code-server; installing it first also lets the grammar tests check
  // the Lua embedding against the Lua grammar VS Code itself ships.
  run('node', ['scripts/e2e-setup.mjs']);
}
if (which === 'unit' || which === 'all') {
  run('node', ['esbuild.mjs']);
  const files = find('test', (p) => isTest(p) && !p.includes(`${join('test', 'e2e')}`)).sort();
  run('node', ['--import', 'tsx', '--test', '--test-concurrency=1', ...files], { phase: 'unit' });
}
if (which === 'e2e' || which === 'all') {
  run('node', ['esbuild.mjs']);
  const files = find(join('test', 'e2e'), isTest).sort();
  if (files.length) run('node', ['--import', 'tsx', '--test', '--test-concurrency=1', ...files], { phase: 'e2e' });
}
if (failed.length) {
  console.error(`\nscripts/test.mjs: the ${failed.join(' and ')} tests failed`);
  process.exit(1);
}
