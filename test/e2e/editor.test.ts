// End-to-end: the packaged extension in a real VS Code (code-server 4.100.3, on loopback),
// driven by headless Chromium through playwright-core. Checks what a user sees: squiggles and
// Problems entries with our messages, hovers, and context-aware completion, for nginx and HAProxy.
//
// Needs: /usr/bin/chromium, and code-server in .e2e/code-server (installed on first run by
// scripts/e2e-setup.mjs). PROXY_TUNER_E2E_MODE=dev loads the extension from the repo in
// development mode instead of installing the .vsix. Screenshots go to test-results/e2e/.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { poll, type Workbench } from './workbench';
import { openSession, repoRoot, type Session } from './session';

const fixture = join(repoRoot, 'test', 'e2e', 'fixtures', 'workspace');

// The budget covers a first run that installs code-server (1.5-6 min, depending on the load).
describe('editor end-to-end (code-server + chromium)', { timeout: 25 * 60_000 }, () => {
  let session: Session | undefined;
  let page: Page;
  let wb: Workbench;
  let snap: Session['snap'];

  before(async () => {
    session = await openSession({ name: 'e2e', shots: 'e2e', workspace: (dir) => cpSync(fixture, dir, { recursive: true }) });
    ({ page, wb, snap } = session);
  });

  after(async () => {
    await session?.close();
  });

  it('nginx: squiggles and Problems entries with our messages', async () => {
    await snap('nginx-diagnostics', async () => {
      await wb.openFile('nginx.conf');
      assert.equal(await wb.languageMode(), 'nginx');
      // Messages and rule ids as the nginx module reports them (test/nginx/validation tests).
      const rows = await wb.problems(
        (rows) =>
          rows.some(
            (r) =>
              r.includes('unknown directive "proxy_read_timout"; did you mean "proxy_read_timeout"?') &&
              r.includes('nginx/unknown-directive'),
          ) && rows.some((r) => r.includes('invalid number of arguments in "proxy_set_header" directive') && r.includes('nginx/arg-count')),
        'the unknown-directive and arg-count problems',
      );
      assert.ok(
        rows.some((r) => /proxy_read_timout.*\[Ln 20, Col 13\]/.test(r)),
        `unknown directive reported at line 20:\n${rows.join('\n')}`,
      );
      assert.ok(!rows.some((r) => r.includes('proxy_pass')), `no problem on the valid proxy_pass line:\n${rows.join('\n')}`);
      await poll('two error squiggles in the editor', async () => (await wb.squiggles('error')) >= 2);
      // the target version (the workspace's proxyTuner.nginx.version) in the status bar, and its end of life
      await poll('"nginx 1.22.1" in the status bar', async () =>
        (await page.locator('.statusbar-item').allInnerTexts()).some((t) => t.includes('nginx 1.22.1')),
      );
      // end of life is a fact of the binary: the status bar item carries it (a warning icon and its
      // tooltip), not a finding on every file
      await poll('the end-of-life warning icon on the target version', async () =>
        (await page.locator('.statusbar-item:has(.codicon-warning)').allInnerTexts()).some((t) => t.includes('nginx 1.22.1')),
      );
    });
  });

  it('nginx: hover shows the directive syntax and documentation', async () => {
    await snap('nginx-hover', async () => {
      const text = await wb.hoverAt(17, 15, (t) => t.includes('proxy_pass URL;'), 'the proxy_pass hover');
      await wb.screenshot('nginx-hover-proxy-pass');
      assert.match(text, /ngx_http_proxy_module/);
      assert.match(text, /address of a proxied server/);
      await wb.escape();
    });
  });

  it('nginx: completion follows the block context', async () => {
    await snap('nginx-completion-server', async () => {
      // Line 22 is an empty line inside server {}, after the location block.
      const proxy = await wb.completeAt(
        22,
        1,
        '        proxy_conn',
        (l) => l.includes('proxy_connect_timeout'),
        'proxy_connect_timeout inside server {}',
      );
      await wb.screenshot('nginx-completion-proxy-conn');
      assert.ok(
        proxy.every((l) => l.startsWith('proxy_')),
        `only proxy_* items: ${proxy.join(', ')}`,
      );
      await wb.clearLine(22);
      const listen = await wb.completeAt(22, 1, '        liste', (l) => l.includes('listen'), 'listen inside server {}');
      assert.ok(listen.includes('listen'));
      await wb.clearLine(22);
    });
    await snap('nginx-completion-http', async () => {
      // Line 24 is an empty line inside http {}, outside any server.
      const upstream = await wb.completeAt(24, 1, '    upstr', (l) => l.includes('upstream'), 'upstream inside http {}');
      await wb.screenshot('nginx-completion-upstream');
      assert.ok(upstream.includes('upstream'));
      await wb.clearLine(24);
      const noListen = await wb.completeAt(24, 1, '    liste', () => true, 'the completion list inside http {}');
      assert.ok(!noListen.includes('listen'), `listen is a server directive, not offered in http {}: ${noListen.join(', ')}`);
      await wb.clearLine(24);
    });
  });

  it('haproxy: nbproc diagnostic, hover and completion', async () => {
    await snap('haproxy-diagnostics', async () => {
      await wb.openFile('haproxy.cfg');
      assert.equal(await wb.languageMode(), 'HAProxy');
      const rows = await wb.problems(
        (rows) => rows.some((r) => r.includes("'nbproc' was removed in HAProxy 2.5") && r.includes('haproxy/removed-keyword')),
        'the nbproc problem',
      );
      assert.ok(
        rows.some((r) => /nbproc.*\[Ln 3, Col 5\]/.test(r)),
        `nbproc reported at line 3:\n${rows.join('\n')}`,
      );
      await poll('an error squiggle on nbproc', async () => (await wb.squiggles('error')) >= 1);
      await poll('"HAProxy 2.6.12" in the status bar', async () =>
        (await page.locator('.statusbar-item').allInnerTexts()).some((t) => t.includes('HAProxy 2.6.12')),
      );
    });
    await snap('haproxy-hover', async () => {
      const text = await wb.hoverAt(16, 6, (t) => t.includes('balance <algorithm>'), 'the balance hover');
      assert.match(text, /Allowed in: defaults, listen, backend/);
      await wb.escape();
    });
    await snap('haproxy-completion', async () => {
      // Line 19 is an empty line at the end of the backend section.
      const labels = await wb.completeAt(19, 1, '    http-reu', (l) => l.includes('http-reuse'), 'http-reuse offered in a backend');
      await wb.screenshot('haproxy-completion-http-reuse');
      assert.ok(labels.includes('http-reuse'));
      await wb.clearLine(19);
    });
  });

  it("a HAProxy config under conf.d/ (an nginx folder pattern) is switched to HAProxy, the detector's language", async () => {
    await snap('language-correction', async () => {
      await wb.openFile('lb.conf');
      await poll('the language mode "HAProxy"', async () => (await wb.languageMode()) === 'HAProxy');
    });
  });
});
