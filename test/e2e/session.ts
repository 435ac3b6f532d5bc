// One editor session for the end-to-end tests: the extension (packaged .vsix, or the repo in
// development mode with PROXY_TUNER_E2E_MODE=dev) in code-server on loopback with a fresh state
// folder, a fresh workspace, and headless Chromium on the workbench. `close()` ends code-server's
// process group and removes the temporary folders, pass or fail.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { CodeServer } from '../../scripts/e2e-codeserver.mjs' with { 'resolution-mode': 'import' };
import { Workbench } from './workbench';

// The launcher is a plain ES module shared with `npm start`.
type Launcher = typeof import('../../scripts/e2e-codeserver.mjs', { with: { 'resolution-mode': 'import' } });

export const repoRoot = join(__dirname, '..', '..');

export interface SessionOptions {
  /** Log tag (`[name +1.2s] ...`) and part of the temporary folders' names. */
  name: string;
  /** Folder under test-results/ for the screenshots. */
  shots: string;
  /** Extra VS Code settings (our machine-scoped ones are written to the Remote settings: code-server is a remote window). */
  settings?: Record<string, unknown>;
  viewport?: { width: number; height: number };
  /** Fills the fresh workspace folder. */
  workspace: (dir: string) => void;
}

export interface Session {
  page: Page;
  wb: Workbench;
  server: CodeServer;
  workspace: string;
  step: (msg: string) => void;
  /** Runs one step and takes a screenshot after it, passed or failed, for the record. */
  snap: (name: string, body: () => Promise<void>) => Promise<void>;
  /** Closes the browser, ends code-server's process group, removes the temporary folders. */
  close: () => Promise<void>;
}

export async function openSession(opts: SessionOptions): Promise<Session> {
  const t0 = Date.now();
  const step = (msg: string): void => {
    process.stdout.write(`[${opts.name} +${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}\n`);
  };
  const mode = process.env.PROXY_TUNER_E2E_MODE === 'dev' ? 'dev' : 'vsix';
  let server: CodeServer | undefined;
  let context: BrowserContext | undefined;
  let workspace = '';
  let browserProfile = '';

  const close = async (): Promise<void> => {
    await context?.close().catch(() => undefined);
    if (server) {
      await server.stop();
      step(`code-server process group ${server.pgid} ended`);
    }
    if (workspace) rmSync(workspace, { recursive: true, force: true });
    if (browserProfile) rmSync(browserProfile, { recursive: true, force: true });
    step('done');
  };

  try {
    const { chromiumArgs, startCodeServer }: Launcher = await import('../../scripts/e2e-codeserver.mjs');
    let vsix: string | undefined;
    if (mode === 'vsix') {
      step('packaging the extension (npm run package)');
      const r = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'package.mjs')], { cwd: repoRoot, encoding: 'utf8' });
      assert.equal(r.status, 0, `packaging failed:\n${r.stderr}`);
      vsix = r.stdout.trim().split('\n').pop();
      step(`packaged ${vsix}`);
    }
    workspace = mkdtempSync(join(tmpdir(), `proxy-tuner-${opts.name}-ws-`));
    opts.workspace(workspace);
    step(`starting code-server (${mode} mode) on a fresh state folder`);
    const settings = opts.settings;
    server = await startCodeServer(mode === 'vsix' ? { vsix, settings } : { devPath: repoRoot, settings });
    step(`code-server up at ${server.base} (process group ${server.pgid})`);

    browserProfile = mkdtempSync(join(tmpdir(), `proxy-tuner-${opts.name}-chromium-`));
    context = await chromium.launchPersistentContext(browserProfile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: chromiumArgs,
      viewport: opts.viewport ?? { width: 1400, height: 900 },
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const wb = new Workbench(page, join(repoRoot, 'test-results', opts.shots));
    // 'load' can take over 30 s on a busy 2-core machine; the workbench wait below polls anyway.
    await page.goto(server.openUrl(workspace), { waitUntil: 'domcontentloaded', timeout: 120_000 });
    await wb.ready();
    step('workbench ready');

    const snap = async (name: string, body: () => Promise<void>): Promise<void> => {
      step(name);
      try {
        await body();
      } finally {
        step(`  screenshot ${await wb.screenshot(name).catch((e) => `failed: ${e}`)}`);
      }
    };
    return { page, wb, server, workspace, step, snap, close };
  } catch (err) {
    // Nothing started so far may outlive a failed start.
    await close().catch(() => undefined);
    throw err;
  }
}
