// End-to-end: navigation and formatting in a real VS Code (code-server on loopback, headless
// Chromium through playwright-core), read from what the page shows. F12 on the upstream name in
// `proxy_pass` moves the cursor to the `upstream` line (status bar position); F2 renames the
// upstream in both places (the editor's text); Format Document re-indents a badly indented file;
// "Validate with nginx -t" puts the binary's message in Problems at its line.
// Same launcher and helpers as editor.test.ts (see README.md). Screenshots: test-results/e2e-navigation/.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { CodeServer } from '../../scripts/e2e-codeserver.mjs' with { 'resolution-mode': 'import' };
import { poll, Workbench } from './workbench';

type Launcher = typeof import('../../scripts/e2e-codeserver.mjs', { with: { 'resolution-mode': 'import' } });
const repoRoot = join(__dirname, '..', '..');

const mode = process.env.PROXY_TUNER_E2E_MODE === 'dev' ? 'dev' : 'vsix';
const fixture = join(repoRoot, 'test', 'e2e', 'fixtures', 'navigation');
const shots = join(repoRoot, 'test-results', 'e2e-navigation');

const t0 = Date.now();
function step(msg: string): void {
  process.stdout.write(`[e2e-nav +${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}\n`);
}

/** The active editor's text as rendered (lines ordered by their position on the page). */
async function editorText(page: Page): Promise<string> {
  const lines = await page
    .locator('.editor-instance .monaco-editor .view-lines .view-line')
    .evaluateAll((els) => els.map((e) => ({ top: parseFloat((e as HTMLElement).style.top) || 0, text: e.textContent ?? '' })));
  return lines
    .sort((a, b) => a.top - b.top)
    .map((l) => l.text.replace(/\u00a0/g, ' ').replace(/\s+$/, ''))
    .join('\n');
}

async function cursor(page: Page): Promise<string> {
  return (await page.locator('#status\\.editor\\.selection').innerText().catch(() => '')).trim();
}

describe('navigation and formatting end-to-end (code-server + chromium)', { timeout: 25 * 60_000 }, () => {
  let server: CodeServer | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let wb: Workbench;
  let workspace = '';
  let browserProfile = '';

  before(async () => {
    const { chromiumArgs, startCodeServer }: Launcher = await import('../../scripts/e2e-codeserver.mjs');
    let vsix: string | undefined;
    if (mode === 'vsix') {
      step('packaging the extension (npm run package)');
      const r = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'package.mjs')], { cwd: repoRoot, encoding: 'utf8' });
      assert.equal(r.status, 0, `packaging failed:\n${r.stderr}`);
      vsix = r.stdout.trim().split('\n').pop();
    }
    workspace = mkdtempSync(join(tmpdir(), 'proxy-tuner-e2e-nav-'));
    cpSync(fixture, workspace, { recursive: true });
    server = await startCodeServer(mode === 'vsix' ? { vsix } : { devPath: repoRoot });
    step(`code-server up at ${server.base} (process group ${server.pgid})`);
    browserProfile = mkdtempSync(join(tmpdir(), 'proxy-tuner-e2e-chromium-'));
    context = await chromium.launchPersistentContext(browserProfile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: chromiumArgs,
      viewport: { width: 1400, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    wb = new Workbench(page, shots);
    await page.goto(server.openUrl(workspace), { waitUntil: 'domcontentloaded', timeout: 120_000 });
    await wb.ready();
    step('workbench ready');
  });

  after(async () => {
    await context?.close().catch(() => undefined);
    if (server) await server.stop();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
    if (browserProfile) rmSync(browserProfile, { recursive: true, force: true });
  });

  async function snap(name: string, body: () => Promise<void>): Promise<void> {
    step(name);
    try {
      await body();
    } finally {
      if (page) step(`  screenshot ${await wb.screenshot(name).catch((e) => `failed: ${e}`)}`);
    }
  }

  it('F12 on the upstream name in proxy_pass jumps to the upstream', async () => {
    await snap('go-to-definition', async () => {
      await wb.openFile('nav.conf');
      assert.equal(await wb.languageMode(), 'nginx');
      await wb.focusEditor();
      // line 9: `            proxy_pass http://backend_pool;`, column 33 is inside the name
      let attempts = 0;
      await poll(
        'the cursor on the upstream line after F12',
        async () => {
          // ask again now and then: the first request can come before the server is ready
          if (attempts++ % 20 === 0) {
            await wb.goto(9, 33);
            await page.keyboard.press('F12');
          }
          return /Ln 3, Col 14\b/.test(await cursor(page));
        },
        { timeout: 60_000 },
      );
      assert.match(await cursor(page), /Ln 3, Col 14\b/);
    });
  });

  it('F2 renames the upstream at its definition and its use', async () => {
    await snap('rename', async () => {
      await wb.focusEditor();
      await wb.goto(9, 33);
      await page.keyboard.press('F2');
      const input = page.locator('.rename-box input, .rename-box .rename-input').first();
      await input.waitFor({ state: 'visible', timeout: 30_000 });
      await input.fill('api_pool');
      await page.keyboard.press('Enter');
      const text = await poll('both places renamed in the editor', async () => {
        const t = await editorText(page);
        return t.includes('upstream api_pool {') && t.includes('proxy_pass http://api_pool;') ? t : false;
      });
      assert.ok(!text.includes('backend_pool'), text);
    });
  });

  it('Validate with nginx -t shows the binary\'s message in Problems at its line', async () => {
    await snap('validate-with-binary', async () => {
      await wb.openFile('check.conf');
      assert.equal(await wb.languageMode(), 'nginx');
      await wb.command('Proxy Tuner: Validate with nginx -t / haproxy -c');
      const rows = await wb.problems(
        (rows) => rows.some((r) => r.includes('unknown directive "gzip_typs"') && r.includes('nginx -t')),
        'the nginx -t problem',
      );
      assert.ok(rows.some((r) => /unknown directive "gzip_typs".*nginx -t.*\[Ln 5, Col 9\]/.test(r)), `reported at line 5:\n${rows.join('\n')}`);
    });
  });

  it('Format Document re-indents a badly indented file', async () => {
    await snap('format-document', async () => {
      await wb.openFile('messy.conf');
      assert.equal(await wb.languageMode(), 'nginx');
      await wb.focusEditor();
      // the editor's indentation (status bar "Spaces: N", detected or from the settings) is what the formatter is asked for
      const status = await page.locator('.statusbar').innerText();
      const size = Number(/Spaces: (\d+)/.exec(status)?.[1] ?? 4);
      const i = (n: number) => ' '.repeat(size * n);
      const expected = ['events {}', 'http {', `${i(1)}server {`, `${i(2)}listen 8081;`, `${i(2)}location / {`, `${i(3)}return 200 "a  b";`, `${i(2)}}`, `${i(1)}}`, '}'].join('\n');
      let attempts = 0;
      const text = await poll(
        'the formatted text',
        async () => {
          if (attempts++ % 20 === 0) await wb.command('Format Document');
          const t = (await editorText(page)).replace(/\n+$/, '');
          return t === expected ? t : false;
        },
        { timeout: 60_000 },
      );
      assert.equal(text, expected);
    });
  });
});
