// Starts code-server on loopback with a fresh, throw-away state folder and the extension loaded
// (installed from a .vsix, or in development mode from the repo). Used by the end-to-end tests
// and by `npm start`.
//
// Safety: it binds 127.0.0.1 only, turns off telemetry, update checks and workspace trust, and
// points the extension gallery at a closed loopback port, so nothing leaves the machine. It runs
// in a session of its own (detached = setsid(2)), so one `kill -- -PGID` ends code-server with
// its extension host and the language server; `stop()` does that and deletes the state folder.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCodeServer, repoRoot } from './e2e-setup.mjs';

/** A closed loopback port: any gallery request fails at once, and stays on this machine. */
const GALLERY = JSON.stringify({ serviceUrl: 'http://127.0.0.1:9/gallery', itemUrl: 'http://127.0.0.1:9/item' });

export const defaultUserSettings = {
  'files.autoSave': 'off',
  'files.hotExit': 'off',
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'update.mode': 'none',
  'telemetry.telemetryLevel': 'off',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'security.workspace.trust.enabled': false,
  'chat.disableAIFeatures': true,
  'remote.autoForwardPorts': false,
  'editor.stickyScroll.enabled': false,
  'editor.minimap.enabled': false,
  // Completion must come from the language server, not from words already in the file.
  'editor.wordBasedSuggestions': 'off',
};

/**
 * The settings of ours that VS Code reads only from the Remote settings in a remote window: the
 * `machine` and `machine-overridable` ones of package.json. code-server's workbench is such a
 * window (the extension host runs on the server), so a machine setting in the User settings is
 * ignored, except for a moment at start-up while its schema is not yet registered. That moment
 * made `proxyTuner.binaries` in the User settings show up after one window reload and not after
 * another.
 */
function machineScopedKeys() {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
  const keys = new Set();
  for (const section of [pkg.contributes?.configuration ?? []].flat())
    for (const [key, schema] of Object.entries(section.properties ?? {}))
      if (schema.scope === 'machine' || schema.scope === 'machine-overridable') keys.add(key);
  return keys;
}

/** Splits settings into the User settings and the Remote (machine) settings of a remote window. */
export function splitSettings(settings, machineKeys = machineScopedKeys()) {
  const user = {};
  const machine = {};
  for (const [key, value] of Object.entries(settings)) (machineKeys.has(key) ? machine : user)[key] = value;
  return { user, machine };
}

/** Chromium flags for a headless run that only talks to loopback. */
export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // Belt and braces: anything that is not loopback goes to a closed loopback proxy port and is
  // never resolved through DNS.
  '--proxy-server=http://127.0.0.1:9',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost',
];

export function freeLoopbackPort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
  });
}

async function waitHealthy(port, child, logFile, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`code-server exited (${child.exitCode ?? child.signalCode}):\n${tail(logFile)}`);
    }
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`code-server did not answer /healthz within ${timeoutMs} ms:\n${tail(logFile)}`);
}

function tail(file, lines = 40) {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * @param {object} opts
 * @param {string} [opts.vsix] install this .vsix into the fresh extensions folder
 * @param {string} [opts.devPath] or load the extension in development mode from this folder
 * @param {Record<string, unknown>} [opts.settings] extra settings (the machine-scoped ones go to the Remote settings)
 * @param {number} [opts.port] port to bind on 127.0.0.1 (default: a free one)
 * @param {string} [opts.stateDir] state folder (default: a fresh temp folder, deleted by stop())
 */
export async function startCodeServer(opts = {}) {
  const entry = ensureCodeServer();
  const port = opts.port ?? (await freeLoopbackPort());
  const ownState = !opts.stateDir;
  const stateDir = opts.stateDir ?? mkdtempSync(join(tmpdir(), 'proxy-tuner-code-server-'));
  const dirs = {
    userData: join(stateDir, 'user-data'),
    extensions: join(stateDir, 'extensions'),
    xdgData: join(stateDir, 'xdg-data'),
    xdgConfig: join(stateDir, 'xdg-config'),
  };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  // The User settings, and the Remote settings (user-data/Machine/settings.json, code-server's
  // `machineSettingsResource`) for our machine-scoped ones.
  const { user, machine } = splitSettings({ ...defaultUserSettings, ...(opts.settings ?? {}) });
  mkdirSync(join(dirs.userData, 'User'), { recursive: true });
  writeFileSync(join(dirs.userData, 'User', 'settings.json'), JSON.stringify(user, null, 2));
  if (Object.keys(machine).length) {
    mkdirSync(join(dirs.userData, 'Machine'), { recursive: true });
    writeFileSync(join(dirs.userData, 'Machine', 'settings.json'), JSON.stringify(machine, null, 2));
  }
  const config = join(stateDir, 'config.yaml');
  writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);

  const env = {
    ...process.env,
    XDG_DATA_HOME: dirs.xdgData,
    XDG_CONFIG_HOME: dirs.xdgConfig,
    EXTENSIONS_GALLERY: GALLERY,
  };
  delete env.PASSWORD;
  delete env.HASHED_PASSWORD;
  const common = [
    '--config',
    config,
    '--user-data-dir',
    dirs.userData,
    '--extensions-dir',
    dirs.extensions,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
  ];

  const cleanupState = () => {
    if (ownState) rmSync(stateDir, { recursive: true, force: true });
  };

  if (opts.vsix) {
    const r = spawnSync(process.execPath, [entry, ...common, '--install-extension', opts.vsix], {
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (r.status !== 0) {
      cleanupState();
      throw new Error(`installing ${opts.vsix} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
    }
  }

  const logFile = join(stateDir, 'code-server.log');
  const logFd = openSync(logFile, 'a');
  // detached: the child calls setsid(2) and leads a process group of its own.
  const child = spawn(process.execPath, [entry, ...common], {
    env,
    detached: true,
    stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  const pgid = child.pid;

  let stopped = false;
  const killGroup = (signal) => {
    try {
      process.kill(-pgid, signal);
    } catch {
      // the group is already gone
    }
  };
  // Last resort if the caller dies without stop(): the group must not outlive us.
  const onExit = () => killGroup('SIGKILL');
  process.once('exit', onExit);

  const groupAlive = () => {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  };

  async function stop() {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', onExit);
    killGroup('SIGTERM');
    const deadline = Date.now() + 5000;
    while (groupAlive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (groupAlive()) killGroup('SIGKILL');
    const killDeadline = Date.now() + 3000;
    while (groupAlive() && Date.now() < killDeadline) await new Promise((r) => setTimeout(r, 100));
    cleanupState();
  }

  try {
    await waitHealthy(port, child, logFile, 60_000);
  } catch (err) {
    await stop();
    throw err;
  }

  const base = `http://127.0.0.1:${port}`;
  /** URL that opens `folder` in the workbench (with the extension in dev mode if asked). */
  const openUrl = (folder) => {
    const q = new URLSearchParams();
    if (folder) q.set('folder', folder);
    if (opts.devPath) {
      q.set('payload', JSON.stringify([['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${port}${opts.devPath}`]]));
    }
    const s = q.toString();
    return s ? `${base}/?${s}` : `${base}/`;
  };

  return { port, pgid, base, stateDir, logFile, openUrl, stop, log: () => tail(logFile, 200) };
}

export { repoRoot };
