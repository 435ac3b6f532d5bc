// Installs code-server (the editor the end-to-end tests and `npm start` drive) into the
// git-ignored `.e2e/code-server`, once. It is not a devDependency on purpose: every `npm ci`
// would pay about 300 MB and a minute for it.
//
// The install works offline (only the package registry reachable) thanks to three settings:
//  - npm_config_unsafe_perm=true: its postinstall refuses to run as root otherwise;
//  - npm_config_yes=true: node-pty's postinstall runs `npx node-gyp`, which must not prompt;
//  - a pre-seeded ripgrep archive: @vscode/ripgrep would download `rg` from GitHub; we hand it
//    the system's /usr/bin/rg (Debian package `ripgrep`) packed the way its cache expects.
// Kerberos builds from source and needs the libkrb5-dev headers (installed by .ci/run).
//
// Usage: `node scripts/e2e-setup.mjs` (prints the code-server entry point).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CODE_SERVER_VERSION = '4.100.3';
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const installDir = join(repoRoot, '.e2e', 'code-server');
export const codeServerEntry = join(installDir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');

// What @vscode/ripgrep 1.15.11 (pulled in by code-server 4.100.3) looks for in os.tmpdir().
const RIPGREP_CACHE = join(tmpdir(), 'vscode-ripgrep-cache-1.15.11');
const RIPGREP_ARCHIVE = 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz';

function log(msg) {
  process.stderr.write(`[e2e-setup] ${msg}\n`);
}

function installedVersion() {
  const pkg = join(installDir, 'node_modules', 'code-server', 'package.json');
  if (!existsSync(pkg) || !existsSync(codeServerEntry)) return undefined;
  try {
    return JSON.parse(spawnSync(process.execPath, ['-p', `JSON.stringify(require(${JSON.stringify(pkg)}))`], { encoding: 'utf8' }).stdout)
      .version;
  } catch {
    return undefined;
  }
}

function seedRipgrep() {
  const target = join(RIPGREP_CACHE, RIPGREP_ARCHIVE);
  if (existsSync(target)) return;
  const rg = ['/usr/bin/rg', '/usr/local/bin/rg'].find((p) => existsSync(p));
  if (!rg) throw new Error('ripgrep is missing: install the "ripgrep" package (the code-server install cannot download it)');
  mkdirSync(RIPGREP_CACHE, { recursive: true });
  const stage = mkdtempSync(join(tmpdir(), 'proxy-tuner-rg-'));
  try {
    copyFileSync(rg, join(stage, 'rg'));
    const r = spawnSync('tar', ['-czf', target, '-C', stage, 'rg'], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('could not pack the ripgrep archive');
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** Makes sure code-server is installed; returns the path of its entry script. */
export function ensureCodeServer() {
  const have = installedVersion();
  if (have === CODE_SERVER_VERSION) return codeServerEntry;
  log(`installing code-server ${CODE_SERVER_VERSION} into ${installDir} (about 300 MB and 2-3 minutes, once)`);
  seedRipgrep();
  rmSync(installDir, { recursive: true, force: true });
  mkdirSync(installDir, { recursive: true });
  // code-server's postinstall and argon2's native build are what make it run: allowed by name, so
  // npm runs them without its "not covered by allowScripts" warning
  writeFileSync(
    join(installDir, 'package.json'),
    `${JSON.stringify({ private: true, allowScripts: { 'code-server': true, argon2: true } }, null, 2)}\n`,
  );
  const started = Date.now();
  const r = spawnSync(
    'npm',
    ['install', '--prefix', installDir, '--no-save', '--no-audit', '--no-fund', '--omit=dev', `code-server@${CODE_SERVER_VERSION}`],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, npm_config_unsafe_perm: 'true', npm_config_yes: 'true' },
    },
  );
  if (r.status !== 0 || installedVersion() !== CODE_SERVER_VERSION) {
    throw new Error(`code-server install failed (exit ${r.status}); see the npm output above`);
  }
  log(`code-server installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return codeServerEntry;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(`${ensureCodeServer()}\n`);
  } catch (err) {
    log(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
}
