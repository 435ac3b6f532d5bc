// End-to-end: points of a user's first hour, seen in the editor (code-server + headless Chromium,
// the packaged .vsix installed like a user installs it unless PROXY_TUNER_E2E_MODE=dev):
// - a failed run's `bench/config-check` problem goes once the line is fixed and saved;
// - an HAProxy run shows no "no log address" warning that only the sandbox's copy has;
// - the version picker lists the matrix set-up installed, and asks before writing
//   .vscode/settings.json.
// Screenshots go to test-results/e2e-first-hour/.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { poll, type Workbench } from './workbench';
import { openSession, type Session } from './session';
import { findMatrixBinary, matrixDir } from '../../server/src/runner/matrix';

const NEXT_NGINX = findMatrixBinary('nginx', '1.30');

const BROKEN_NGINX = `worker_processes 1;
events {}

http {
    access_log off;
    server {
        listen 1990;
        location / {
            proxy_pass http://127.0.0.1:1980;
            proxy_buffers 8;
        }
    }
}
`;

const HAPROXY = `global
    log stdout format raw local0 info
defaults
    mode http
    log global
    option httplog
    timeout client 5s
    timeout server 5s
    timeout connect 5s
frontend web
    bind 127.0.0.1:1990
    default_backend app
backend app
    server s1 127.0.0.1:1980
`;

describe("a user's first hour in the editor (code-server + chromium)", { timeout: 10 * 60_000 }, () => {
  let session: Session | undefined;
  let page: Page;
  let wb: Workbench;
  let workspace: string;
  let step: Session['step'];

  before(async () => {
    session = await openSession({
      name: 'e2e-first-hour',
      shots: 'e2e-first-hour',
      workspace: (dir) => {
        writeFileSync(join(dir, 'nginx.conf'), BROKEN_NGINX);
        writeFileSync(join(dir, 'haproxy.cfg'), HAPROXY);
        // the workspace is a clone where `npm run setup` installed the matrix
        const m = matrixDir();
        if (m) symlinkSync(m, join(dir, '.matrix'));
      },
      settings: {
        'proxyTuner.benchmark.durationSeconds': 2,
        'proxyTuner.benchmark.warmupSeconds': 0,
        'proxyTuner.benchmark.connections': 4,
        'proxyTuner.nginx.version': '1.22.1',
        // the matrix's Debian roots hold configs of their own: keep them out of Quick Open
        'files.exclude': { '**/.matrix': true },
        'search.followSymlinks': false,
      },
      viewport: { width: 1600, height: 1000 },
    });
    ({ page, wb, workspace, step } = session);
  });

  after(async () => {
    await session?.close();
  });

  function panel(): FrameLocator {
    return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  }

  /** Quick Open a file while the panel's group is open too (two groups, two active tabs): waits for its language mode. */
  async function open(name: string, mode: string): Promise<void> {
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(name);
    // the filtered list, not the recently opened one: the row Enter opens is the file asked for
    await poll(`"${name}" as the selected row of Quick Open`, async () =>
      (await page.locator('.quick-input-widget .monaco-list-row.focused').allInnerTexts()).some((r) => r.includes(name)),
    );
    await page.keyboard.press('Enter');
    await poll(`the editor of "${name}" to be active`, async () => (await wb.languageMode().catch(() => '')) === mode);
  }

  const benchRows = (rows: string[]) => rows.filter((r) => r.includes('Benchmark:'));

  it("a failed run's config-check problem goes once its line is fixed and saved", async () => {
    try {
      await wb.openFile('nginx.conf');
      await wb.command('Proxy Tuner: Run Benchmark');
      const rows = await wb.problems((r) => benchRows(r).length > 0, "the benchmark's config-check problem");
      step(`  ${benchRows(rows).join(' || ')}`);
      assert.match(benchRows(rows)[0], /proxy_buffers/);
      await wb.screenshot('stale-before');
      // the fix: proxy_buffers takes a number and a size
      await wb.focusEditor();
      await wb.goto(10, 13);
      await page.keyboard.press('End');
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.type(' 16k');
      await page.keyboard.press('Control+S');
      await poll('the file saved with the fix', async () =>
        readFileSync(join(workspace, 'nginx.conf'), 'utf8').includes('proxy_buffers 8 16k;'),
      );
      await wb.problems((r) => benchRows(r).length === 0, 'the config-check problem to go after the save');
      await wb.screenshot('stale-after');
    } finally {
      await wb.screenshot('stale-final').catch(() => undefined);
    }
  });

  it("an HAProxy run shows no warning that only the sandbox's copy has", async () => {
    await wb.escape();
    await wb.escape();
    await wb.focusEditor();
    await session!.snap('open-haproxy', () => open('haproxy.cfg', 'HAProxy'));
    await wb.command('Proxy Tuner: Run Benchmark');
    await poll(
      'the HAProxy run to finish in the panel',
      async () => {
        const state = await panel()
          .locator('#status')
          .first()
          .getAttribute('data-state', { timeout: 1000 })
          .catch(() => null);
        const rows = await panel()
          .locator('#numbers tr')
          .count()
          .catch(() => 0);
        return state === 'done' && rows > 3;
      },
      { timeout: 120_000, interval: 500 },
    );
    const warnings = await panel().locator('#numbers tr.warning').allInnerTexts();
    step(`  panel warnings: ${warnings.join(' || ') || 'none'}`);
    await wb.screenshot('haproxy-run');
    assert.deepEqual(
      warnings.filter((w) => /log address/.test(w)),
      [],
    );
  });

  it(
    'the version picker lists the matrix and asks before writing .vscode/settings.json',
    { skip: !NEXT_NGINX && 'no version matrix (npm run setup)' },
    async () => {
      await wb.escape();
      await wb.focusEditor();
      await session!.snap('open-nginx', () => open('nginx.conf', 'nginx'));
      // the command opens a quick pick of its own in the palette's widget (wb.command waits for it to close)
      await page.keyboard.press('F1');
      await page.locator('.quick-input-widget input').fill('>Proxy Tuner: Pick Target Version');
      await poll('the command in the palette', async () =>
        (await page.locator('.quick-input-widget .monaco-list-row').allInnerTexts()).some((r) =>
          r.startsWith('Proxy Tuner: Pick Target Version'),
        ),
      );
      await page.keyboard.press('Enter');
      const rows = page.locator('.quick-input-widget .monaco-list-row');
      const texts = await poll('the matrix in the picker', async () => {
        const t = (await rows.allInnerTexts()).map((x) => x.replace(/\s+/g, ' '));
        return t.some((x) => x.includes(`nginx ${NEXT_NGINX!.version}`) && x.includes('version matrix')) ? t : false;
      });
      step(`  picker: ${texts.slice(0, 6).join(' || ')}`);
      await wb.screenshot('picker');
      await page.locator('.quick-input-widget input').fill(NEXT_NGINX!.version);
      await page.keyboard.press('Enter');
      const dialog = page.locator('.monaco-dialog-box');
      await dialog.waitFor({ state: 'visible', timeout: 30_000 });
      const message = (await dialog.innerText()).replace(/\s+/g, ' ');
      step(`  dialog: ${message}`);
      await wb.screenshot('picker-ask');
      assert.match(
        message,
        new RegExp(`Set proxyTuner\\.nginx\\.version to ${NEXT_NGINX!.version.replace(/\./g, '\\.')} in \\.vscode/settings\\.json\\?`),
      );
      const settings = join(workspace, '.vscode', 'settings.json');
      assert.ok(
        !existsSync(settings) || !readFileSync(settings, 'utf8').includes(NEXT_NGINX!.version),
        'nothing written before the answer',
      );
      await dialog.locator('.monaco-button', { hasText: /^Set$/ }).click();
      await poll(
        'the version in .vscode/settings.json',
        async () => existsSync(settings) && readFileSync(settings, 'utf8').includes(NEXT_NGINX!.version),
      );
    },
  );
});
