// End-to-end: navigation and formatting in a real VS Code (code-server on loopback, headless
// Chromium through playwright-core), read from what the page shows. F12 on the upstream name in
// `proxy_pass` moves the cursor to the `upstream` line (status bar position); F2 renames the
// upstream in both places (the editor's text); Format Document re-indents a badly indented file;
// "Validate with nginx -t" puts the binary's message in Problems at its line.
// Same launcher and helpers as editor.test.ts (see README.md). Screenshots: test-results/e2e-navigation/.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { poll, type Workbench } from './workbench';
import { openSession, repoRoot, type Session } from './session';

const fixture = join(repoRoot, 'test', 'e2e', 'fixtures', 'navigation');

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
  return (
    await page
      .locator('#status\\.editor\\.selection')
      .innerText()
      .catch(() => '')
  ).trim();
}

describe('navigation and formatting end-to-end (code-server + chromium)', { timeout: 25 * 60_000 }, () => {
  let session: Session | undefined;
  let page: Page;
  let wb: Workbench;
  let snap: Session['snap'];

  before(async () => {
    // inlay hints off: the editor's rendered text, which these tests read, would include them
    session = await openSession({
      name: 'e2e-nav',
      shots: 'e2e-navigation',
      settings: { 'editor.inlayHints.enabled': 'off' },
      workspace: (dir) => cpSync(fixture, dir, { recursive: true }),
    });
    ({ page, wb, snap } = session);
  });

  after(async () => {
    await session?.close();
  });

  it('F12 on the upstream name in proxy_pass jumps to the upstream', async () => {
    await snap('go-to-definition', async () => {
      await wb.openFile('nav.conf');
      assert.equal(await wb.languageMode(), 'nginx');
      await wb.focusEditor();
      // line 9: `            proxy_pass http://backend_pool;`, column 33 is inside the name
      await poll('the cursor on the upstream line after F12', async () => /Ln 3, Col 14\b/.test(await cursor(page)), {
        timeout: 60_000,
        retry: async () => {
          await wb.goto(9, 33);
          await page.keyboard.press('F12');
        },
      });
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

  it("Validate with nginx -t shows the binary's message in Problems at its line", async () => {
    await snap('validate-with-binary', async () => {
      await wb.openFile('check.conf');
      assert.equal(await wb.languageMode(), 'nginx');
      await wb.command('Proxy Tuner: Validate with nginx -t / haproxy -c');
      const rows = await wb.problems(
        (rows) => rows.some((r) => r.includes('unknown directive "gzip_typs"') && r.includes('nginx -t')),
        'the nginx -t problem',
      );
      assert.ok(
        rows.some((r) => /unknown directive "gzip_typs".*nginx -t.*\[Ln 5, Col 9\]/.test(r)),
        `reported at line 5:\n${rows.join('\n')}`,
      );
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
      const expected = [
        'events {}',
        'http {',
        `${i(1)}server {`,
        `${i(2)}listen 8081;`,
        `${i(2)}location / {`,
        `${i(3)}return 200 "a  b";`,
        `${i(2)}}`,
        `${i(1)}}`,
        '}',
      ].join('\n');
      const text = await poll(
        'the formatted text',
        async () => {
          const t = (await editorText(page)).replace(/\n+$/, '');
          return t === expected ? t : false;
        },
        { timeout: 60_000, retry: () => wb.command('Format Document') },
      );
      assert.equal(text, expected);
    });
  });
});
