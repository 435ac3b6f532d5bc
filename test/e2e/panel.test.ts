// End-to-end: the benchmark panel in a real VS Code (code-server 4.100.3 on loopback, headless
// Chromium through playwright-core). Opens the config of seed 002 (`proxy_pass` to a literal
// address, so no upstream keep-alive), runs a short benchmark from the "Benchmark" CodeLens,
// waits until the live chart holds points, applies the "proxy_pass without upstream" fix with
// "Apply fix and re-run benchmark", and reads the before/after comparison from the panel.
// Every wait polls a state read from the page (`data-*` attributes the panel exposes).
//
// Needs /usr/bin/chromium, nginx on PATH, and code-server in .e2e/code-server (installed on the
// first run by scripts/e2e-setup.mjs). PROXY_TUNER_E2E_MODE=dev loads the extension from the
// repo instead of installing the .vsix. Screenshots go to test-results/e2e-panel/.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameLocator, Page } from 'playwright-core';
import { poll, type Workbench } from './workbench';
import { openSession, type Session } from './session';
import { findMatrixBinary } from '../../server/src/runner/matrix';

/** A second nginx for the A/B step (the version matrix's newest), listed through proxyTuner.binaries. */
const NEXT_NGINX = findMatrixBinary('nginx', '1.30');

/** Seed 002's nginx side (events added so nginx starts): no upstream block, so no keep-alive. */
const SEED_002 = `worker_processes 1;
events {}

http {
    access_log off;
    server {
        listen 1990;
        location / {
            proxy_pass http://127.0.0.1:1980;
        }
    }
}
`;

describe('benchmark panel end-to-end (code-server + chromium)', { timeout: 10 * 60_000 }, () => {
  let session: Session | undefined;
  let page: Page;
  let wb: Workbench;
  let workspace: string;
  let step: Session['step'];

  before(async () => {
    session = await openSession({
      name: 'e2e-panel',
      shots: 'e2e-panel',
      workspace: (dir) => writeFileSync(join(dir, 'nginx.conf'), SEED_002),
      settings: {
        // Short runs by default; PROXY_TUNER_E2E_BENCH_SECONDS=10 for a measurement worth quoting.
        'proxyTuner.benchmark.durationSeconds': Number(process.env.PROXY_TUNER_E2E_BENCH_SECONDS ?? 3),
        'proxyTuner.benchmark.warmupSeconds': process.env.PROXY_TUNER_E2E_BENCH_SECONDS ? 2 : 1,
        'proxyTuner.benchmark.connections': 10,
        'proxyTuner.nginx.version': '1.22.1',
        // the upstream keep-alive advice is in the opt-in performance group (docs/rules.md)
        'proxyTuner.lint.extendSelect': ['performance-deep'],
        'editor.codeLens': true,
        ...(NEXT_NGINX ? { 'proxyTuner.binaries': [NEXT_NGINX.path] } : {}),
      },
      viewport: { width: 1600, height: 1000 },
    });
    ({ page, wb, workspace, step } = session);
  });

  after(async () => {
    await session?.close();
  });

  /** The panel's document: two iframes deep. */
  function panel(): FrameLocator {
    return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  }

  async function attr(selector: string, name: string): Promise<string | null> {
    const loc = panel().locator(selector);
    if ((await loc.count()) === 0) return null;
    return loc.first().getAttribute(name, { timeout: 1000 });
  }

  async function shot(name: string): Promise<void> {
    step(`  screenshot ${await wb.screenshot(name)}`);
  }

  it('runs from the CodeLens, plots live, applies a fix and compares before/after', async () => {
    try {
      await scenario();
    } finally {
      await shot('final-state').catch(() => undefined);
    }
  });

  async function scenario(): Promise<void> {
    await wb.openFile('nginx.conf');
    assert.equal(await wb.languageMode(), 'nginx');

    step('waiting for the "Benchmark" CodeLens');
    const lens = page.locator('.editor-instance .monaco-editor .codelens-decoration a', { hasText: /^Benchmark$/ });
    await poll('the Benchmark CodeLens', async () => (await lens.count()) > 0, { timeout: 60_000 });
    // The route lenses are there too: the server and the location of the config.
    const lensTexts = await page.locator('.editor-instance .monaco-editor .codelens-decoration a').allInnerTexts();
    assert.ok(
      lensTexts.some((t) => t.startsWith('Benchmark') && t.includes('1990')),
      `a lens on the server: ${lensTexts.join(' | ')}`,
    );
    assert.ok(
      lensTexts.some((t) => t === 'Benchmark /'),
      `a lens on the location: ${lensTexts.join(' | ')}`,
    );
    await lens.first().click();

    step('first run: waiting for the live chart to hold points');
    const points = await poll(
      'the live chart to hold at least 2 points',
      async () => {
        const n = Number((await attr('#live-wrap', 'data-points').catch(() => null)) ?? 0);
        return n >= 2 ? n : false;
      },
      { timeout: 60_000, interval: 200 },
    );
    step(`  live chart holds ${points} points`);
    await shot('panel-live');
    await poll(
      'the first run to finish',
      async () => (await attr('#status', 'data-state')) === 'done' && (await attr('#runs', 'data-count')) === '1',
      {
        timeout: 60_000,
      },
    );
    const curves = Number(await attr('#dist-wrap', 'data-curves'));
    assert.equal(curves, 1, 'the whole-run distribution of the run is drawn');
    const numbers = await panel().locator('#numbers').innerText();
    assert.match(numbers, /P99\s+[\d.]+ ms/);
    assert.match(numbers, /Backend connections \/ request\s+[\d.]+/);
    // a fixed-response GET run: the native backend, and the bench's own cost per request
    assert.match(numbers, /Backend\s+native (nginx|haproxy) [\d.]+/);
    assert.match(numbers, /Bench CPU \/ request\s+[\d.]+ µs \(generator [\d.]+, backend [\d.]+; proxy [\d.]+\)/);
    await shot('panel-first-run');
    // The CodeLens now shows the result of that run.
    await poll('the result CodeLens', async () => {
      const texts = await page.locator('.editor-instance .monaco-editor .codelens-decoration a').allInnerTexts();
      return texts.some((t) => /^P99 [\d.]+ ms · [\d.]+k? req\/s · \d+ errors?$/.test(t));
    });

    step('applying the fix with "Apply fix and re-run benchmark"');
    await wb.focusEditor();
    await wb.goto(9, 13);
    const item = page.locator('.action-widget .monaco-list-row', { hasText: 'Apply fix and re-run benchmark: Create upstream' });
    await poll('the "Apply fix and re-run benchmark" quick fix', async () => (await item.count()) > 0, {
      timeout: 60_000,
      retry: async () => {
        await page.keyboard.press('Escape');
        await page.keyboard.press('Control+.');
      },
    });
    await shot('quick-fix-menu');
    // The menu takes the keyboard (a pointer block covers the page): move to the item, Enter.
    const focused = page.locator('.action-widget .monaco-list-row.focused');
    await poll('the fix focused in the menu', async () => {
      const text = (await focused.getAttribute('aria-label').catch(() => null)) ?? '';
      if (text.startsWith('Apply fix and re-run benchmark: Create upstream')) return true;
      await page.keyboard.press('ArrowDown');
      return false;
    });
    await page.keyboard.press('Enter');

    // Monaco renders spaces as no-break spaces.
    const editorText = async () =>
      (await page.locator('.editor-instance .monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
    await poll('the fix to be in the editor', async () => (await editorText()).includes('upstream backend_127_0_0_1_1980'), {
      timeout: 30_000,
    });
    step('second run: waiting for the comparison');
    const state = await poll(
      'two runs compared',
      async () => ((await attr('#compare', 'data-state')) === 'ready' && (await attr('#runs', 'data-count')) === '2' ? true : false),
      { timeout: 90_000, interval: 250 },
    );
    assert.ok(state);
    assert.equal(Number(await attr('#dist-wrap', 'data-curves')), 2, 'A and B curves overlaid');
    const p99 = await attr('#compare', 'data-p99-percent');
    const rps = await attr('#compare', 'data-rps-percent');
    const table = await panel().locator('#compare-table').innerText();
    step(`  compare: P99 ${p99}%, throughput ${rps}%\n${table}`);
    assert.match(table, /P99/);
    assert.match(table, /Backend conns \/ request\s+(\S+)\s+(\S+)/);
    // Connection reuse is a fact, not a timing: before the fix every request opened a backend
    // connection, after it (upstream keepalive 64, 10 clients) almost none do.
    const m = /Backend conns \/ request\s+([\d.]+)\s+([\d.]+)/.exec(table);
    assert.ok(m, table);
    assert.ok(Number(m[1]) > 0.9, `before: a backend connection per request (${m[1]})`);
    assert.ok(Number(m[2]) < 0.1, `after: connections reused (${m[2]})`);
    // The user's file on disk is untouched: the fix is an unsaved edit in the editor.
    assert.equal(readFileSync(join(workspace, 'nginx.conf'), 'utf8'), SEED_002);
    await panel().locator('#compare').scrollIntoViewIfNeeded();
    await shot('panel-before-after');

    step('saving the fixed config and reloading the window: the panel comes back with its runs');
    await wb.focusEditor();
    await page.keyboard.press('Control+S');
    await poll('the save to reach the disk', async () => readFileSync(join(workspace, 'nginx.conf'), 'utf8').includes('keepalive 64;'));
    await wb.command('Developer: Reload Window');
    await wb.ready();
    await poll(
      'the restored panel to show both runs compared',
      async () =>
        (await attr('#runs', 'data-count').catch(() => null)) === '2' &&
        (await attr('#compare', 'data-state').catch(() => null)) === 'ready',
      {
        timeout: 90_000,
      },
    );
    await shot('panel-after-reload');

    // Before the A/B step: toggling the theme writes the User settings, and VS Code reads them
    // again with our settings' schema known. A machine-scoped setting there (proxyTuner.binaries)
    // is dropped at that point, since code-server is a remote window; openSession() writes it to
    // the Remote settings, where it stays. The picker below lists it only from there.
    step('switching the color theme (a write of the User settings): the panel follows');
    const themeBefore = await attr('body', 'data-theme');
    await wb.command('Preferences: Toggle between Light/Dark Themes');
    await poll('the panel to take the new theme', async () => {
      const t = await attr('body', 'data-theme');
      return t !== null && t !== themeBefore;
    });
    step(`  theme ${themeBefore} -> ${await attr('body', 'data-theme')}`);
    await shot('panel-theme-toggled');

    if (NEXT_NGINX) {
      step(`A/B: the same config on nginx 1.22.1 (PATH) and ${NEXT_NGINX.version} (proxyTuner.binaries) from the binary picker`);
      // PATH's nginx and proxyTuner.binaries' (from the Remote settings), each asked for `-v`
      await poll('the binary pickers', async () => (await panel().locator('#binary-b vscode-option').count()) >= 3, { timeout: 30_000 });
      const pick = (id: string, value: string) =>
        panel()
          .locator(`#${id}`)
          .evaluate((el, v) => {
            (el as HTMLElement & { value: string }).value = v;
            el.dispatchEvent(new Event('change', { bubbles: true }));
          }, value);
      await pick('binary', '/usr/sbin/nginx');
      await pick('binary-b', NEXT_NGINX.path);
      await poll('the Run A/B button', async () => (await panel().locator('#run').innerText()).trim() === 'Run A/B');
      await panel().locator('#run').click();
      await poll(
        'both A/B runs kept and compared',
        async () => (await attr('#runs', 'data-count')) === '4' && (await attr('#compare', 'data-state')) === 'ready',
        { timeout: 120_000, interval: 250 },
      );
      const listed = await panel().locator('#runs').innerText();
      assert.match(listed, /nginx 1\.22\.1/, listed);
      assert.ok(listed.includes(`nginx ${NEXT_NGINX.version}`), listed);
      await panel().locator('#compare').scrollIntoViewIfNeeded();
      await shot('panel-ab-binaries');
    }

    step('a config nginx rejects: the error in the panel with its line, and a diagnostic on that line');
    // The config's editor is back after the reload (beside the panel): type into it.
    await wb.focusEditor();
    await wb.goto(13, 1);
    await page.keyboard.press('End');
    await page.keyboard.type(' proxy_bogus on;');
    await page.keyboard.press('Escape');
    await poll('the Benchmark CodeLens', async () => (await lens.count()) > 0);
    await lens.first().click();
    await poll(
      'the panel to show the error with its line',
      async () => {
        if ((await attr('#status', 'data-state').catch(() => null)) !== 'error') return false;
        const link = await panel()
          .locator('#error-line')
          .innerText()
          .catch(() => '');
        return link === 'Go to line 13';
      },
      { timeout: 60_000 },
    );
    const errorText = await panel().locator('#error-text').innerText();
    assert.match(errorText, /proxy_bogus/);
    assert.ok(!errorText.includes('proxy-tuner-panel-'), `the message names the user's file, not the temporary copy: ${errorText}`);
    const problems = await wb.problems(
      (rows) => rows.some((r) => r.includes('Benchmark:') && r.includes('proxy_bogus')),
      'the benchmark diagnostic',
    );
    assert.ok(
      problems.some((r) => r.includes('Benchmark:') && /\[Ln 13/.test(r)),
      problems.join('\n'),
    );
    await shot('panel-config-error');
  }
});
