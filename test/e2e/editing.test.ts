// End-to-end: the editing help in a real VS Code (code-server + headless Chromium): a contributed
// snippet inserted from the suggestion list, signature help with its active parameter while an
// argument is typed, and the inlay hints of nginx's effective defaults at the target version
// (1.30.6, set as a user setting: the upstream's implicit keep-alive, proxy_http_version 1.1).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { poll, type Workbench } from './workbench';
import { openSession, repoRoot, type Session } from './session';

const fixture = join(repoRoot, 'test', 'e2e', 'fixtures', 'editing');

/** The editor's visible text (inlay hints are injected text, so they are part of it). */
async function editorText(page: Page): Promise<string> {
  return (await page.locator('.editor-instance .monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
}

describe('editing help end-to-end (code-server + chromium)', { timeout: 25 * 60_000 }, () => {
  let session: Session | undefined;
  let page: Page;
  let wb: Workbench;
  let snap: Session['snap'];

  before(async () => {
    session = await openSession({
      name: 'e2e-editing',
      shots: 'e2e-editing',
      settings: { 'proxyTuner.nginx.version': '1.30.6', 'editor.inlayHints.enabled': 'on' },
      workspace: (dir) => cpSync(fixture, dir, { recursive: true }),
    });
    ({ page, wb, snap } = session);
  });

  after(async () => {
    await session?.close();
  });

  it('nginx: inlay hints show the effective defaults of the target version', async () => {
    await snap('nginx-inlay-hints', async () => {
      await wb.openFile('nginx.conf');
      assert.equal(await wb.languageMode(), 'nginx');
      const text = await poll('the inlay hints', async () => {
        const t = await editorText(page);
        return /keepalive 32 local/.test(t) && /proxy_http_version 1\.1/.test(t) ? t : false;
      });
      const lines = text.split('\n');
      assert.ok(
        lines.some((l) => /upstream app \{\s*keepalive 32 local/.test(l)),
        `the keep-alive hint after the upstream header:\n${text}`,
      );
      assert.ok(
        lines.some((l) => /proxy_pass http:\/\/app;\s*proxy_http_version 1\.1/.test(l)),
        `the protocol hint after proxy_pass:\n${text}`,
      );
      assert.ok(
        lines.some((l) => /worker_processes 1;\s*events \{/.test(l)),
        `the worker hint before events:\n${text}`,
      );
    });
  });

  it('nginx: signature help highlights the argument being typed', async () => {
    await snap('nginx-signature-help', async () => {
      // line 16 is the empty line after the location block, inside server {}
      await wb.focusEditor();
      await wb.goto(16, 1);
      await page.keyboard.type('        proxy_set_header Host ');
      const active = await poll(
        'the parameter hints widget',
        async () => {
          const widget = page.locator('.editor-instance .parameter-hints-widget.visible');
          if ((await widget.count()) === 0) return false;
          const label = (
            await widget
              .locator('.signature')
              .innerText()
              .catch(() => '')
          ).replace(/\s+/g, ' ');
          const param = (
            await widget
              .locator('.parameter.active')
              .innerText()
              .catch(() => '')
          ).trim();
          return label.includes('proxy_set_header field value') && param ? param : false;
        },
        { retry: async () => page.keyboard.press('Control+Shift+Space') },
      );
      await wb.screenshot('nginx-signature-help-value');
      assert.equal(active, 'value');
      await wb.clearLine(16);
    });
  });

  it('nginx: a snippet is inserted from the suggestion list', async () => {
    await snap('nginx-snippet', async () => {
      await wb.completeAt(16, 1, '        location-exact', (l) => l.includes('location-exact'), 'the location-exact snippet');
      await wb.screenshot('nginx-snippet-suggested');
      // the snippet is the best match of its own prefix: accept it
      await poll('the snippet to be the selected suggestion', async () => {
        const focused = await page
          .locator('.editor-instance .suggest-widget.visible .monaco-list-row.focused .label-name')
          .innerText()
          .catch(() => '');
        return focused.trim() === 'location-exact';
      });
      await page.keyboard.press('Enter');
      const text = await poll('the expanded snippet in the editor', async () => {
        const t = await editorText(page);
        return /location = \/healthz \{/.test(t) && /return 200 "ok\\n";/.test(t) ? t : false;
      });
      await page.keyboard.press('Escape');
      await wb.screenshot('nginx-snippet-inserted');
      assert.match(text, /access_log off;/);
      // the inserted block is valid where it went: no new error squiggle
      await poll('no error squiggles', async () => (await wb.squiggles('error')) === 0);
    });
  });
});
