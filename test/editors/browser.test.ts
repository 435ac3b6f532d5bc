// The language server's web worker build (dist/browserServer.js) in headless Chromium, driven by
// LSP messages: diagnostics, completion, hover and a quick fix on an nginx and a HAProxy file
// whose URIs are those of a repository opened in github.dev (`vscode-vfs://github/...`), includes
// read through the editor's file system requests, and the binary check saying it needs the desktop.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { ensureBuilt } from '../cli/build';
import { FIXTURES } from '../lsp/fixtures';
import { completionLabels, defaultCapabilities, hoverText } from '../lsp/rpcClient';
import { CHROMIUM, openWorkerPage, type WorkerSession } from './browserWorker';

const skip = existsSync(CHROMIUM) || process.env.CI ? false : 'no /usr/bin/chromium';
const BASE = 'vscode-vfs://github/example/infra';

const MAIN = `events {}
http {
    include conf.d/*.conf;
    include extra/missing.conf;
    server {
        listen 127.0.0.1:8080;
        location / {
            proxy_pass http://app;
        }
    }
}
`;
const UPSTREAM = `upstream app {
    server 127.0.0.1:9000;
    keepalive 16;
}
`;

describe('the language server in a web worker (headless Chromium)', { skip, timeout: 180_000 }, () => {
  let s: WorkerSession;

  const call = (method: string, params: unknown): Promise<any> =>
    s.page.evaluate(([m, p]) => (window as any).lsp.request(m, p), [method, params] as const);

  /** The newest diagnostics published for `uri` that satisfy `pred`, waiting up to 20 s. */
  async function diagnosticsFor(uri: string, pred: (d: any[]) => boolean = () => true): Promise<any[]> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const all = (await s.page.evaluate(
        (u) => (window as any).lsp.received.filter((m: any) => m.method === 'textDocument/publishDiagnostics' && m.params.uri === u),
        uri,
      )) as any[];
      const last = all.at(-1)?.params.diagnostics;
      if (last && pred(last)) return last;
      if (Date.now() > deadline) assert.fail(`no matching diagnostics for ${uri}: ${JSON.stringify(last)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  before(async () => {
    ensureBuilt();
    s = await openWorkerPage();
    await s.page.evaluate(
      (files) => {
        (window as any).lsp.files = files;
        (window as any).lsp.start();
      },
      { [`${BASE}/nginx/nginx.conf`]: MAIN, [`${BASE}/nginx/conf.d/upstream.conf`]: UPSTREAM },
    );
    const init = await call('initialize', {
      processId: null,
      rootUri: BASE,
      workspaceFolders: [{ uri: BASE, name: 'infra' }],
      capabilities: defaultCapabilities(),
    });
    assert.ok(init.capabilities.completionProvider);
    await s.page.evaluate(() => (window as any).lsp.notify('initialized', {}));
  });

  after(async () => {
    await s?.close();
  });

  for (const f of FIXTURES) {
    describe(f.language, () => {
      const uri = `${BASE}/fixtures/${f.fileName}`;
      before(async () => {
        await s.page.evaluate(
          ([u, language, text]) =>
            (window as any).lsp.notify('textDocument/didOpen', { textDocument: { uri: u, languageId: language, version: 1, text } }),
          [uri, f.language, f.text] as const,
        );
      });

      it('publishes the diagnostic at its place, under the document own URI', async () => {
        const diags = await diagnosticsFor(uri, (ds) => ds.some((d) => d.code === f.diagnostic.code));
        const d = diags.find((x) => x.code === f.diagnostic.code);
        assert.deepEqual(d.range, f.diagnostic.range);
        assert.equal(d.severity, f.diagnostic.severity);
      });

      it('completes', async () => {
        const labels = completionLabels(await call('textDocument/completion', { textDocument: { uri }, position: f.completion.position }));
        for (const l of f.completion.mustInclude) assert.ok(labels.includes(l), `${l} not in ${labels.slice(0, 30)}`);
      });

      it('hovers', async () => {
        assert.match(hoverText(await call('textDocument/hover', { textDocument: { uri }, position: f.hover.position })), f.hover.mustMatch);
      });

      it('offers the quick fix, an edit of the document by its own URI', async () => {
        const diags = await diagnosticsFor(uri, (ds) => ds.some((d) => d.code === f.diagnostic.code));
        const d = diags.find((x) => x.code === f.diagnostic.code);
        const actions = (await call('textDocument/codeAction', {
          textDocument: { uri },
          range: d.range,
          context: { diagnostics: [d] },
        })) as any[];
        const fix = actions.find((a) => a.kind === 'quickfix' && f.fix.suggestion.test(a.title) && a.edit);
        assert.ok(fix, JSON.stringify(actions.map((a) => a.title)));
        const edits = fix.edit.changes?.[uri] ?? fix.edit.documentChanges?.find((c: any) => c.textDocument?.uri === uri)?.edits;
        assert.ok(edits?.length, JSON.stringify(fix.edit));
        // applied, the problem is gone
        const lines = f.text.split('\n');
        lines[f.fix.line] = f.fix.text;
        await s.page.evaluate(
          ([u, text]) =>
            (window as any).lsp.notify('textDocument/didChange', { textDocument: { uri: u, version: 2 }, contentChanges: [{ text }] }),
          [uri, lines.join('\n')] as const,
        );
        const after = await diagnosticsFor(uri, (ds) => !ds.some((x) => x.code === f.diagnostic.code && x.range.start.line === f.fix.line));
        assert.ok(Array.isArray(after));
      });
    });
  }

  it('resolves an include through the editor file system and links into it by its URI', async () => {
    const uri = `${BASE}/nginx/nginx.conf`;
    await s.page.evaluate(
      ([u, text]) =>
        (window as any).lsp.notify('textDocument/didOpen', { textDocument: { uri: u, languageId: 'nginx', version: 1, text } }),
      [uri, MAIN] as const,
    );
    const at = { line: 7, character: MAIN.split('\n')[7].indexOf('app') + 1 };
    const deadline = Date.now() + 20_000;
    let def: any;
    // the first answer may come before the included file has been read
    while (Date.now() < deadline) {
      def = await call('textDocument/definition', { textDocument: { uri }, position: at });
      if (Array.isArray(def) ? def.length : def) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const loc = Array.isArray(def) ? def[0] : def;
    assert.equal(loc?.uri ?? loc?.targetUri, `${BASE}/nginx/conf.d/upstream.conf`, JSON.stringify(def));
    const asked = (await s.page.evaluate(() => (window as any).lsp.fsRequests)) as string[];
    assert.ok(
      asked.some((r) => r.includes(`${BASE}/nginx/conf.d`)),
      asked.join('\n'),
    );
    // the literal include of a file the repository lacks is reported, as nginx would stop there
    const diags = await diagnosticsFor(uri, (ds) => ds.some((d) => /missing\.conf/.test(d.message)));
    assert.ok(!diags.some((d) => /conf\.d/.test(d.message)), JSON.stringify(diags));
  });

  it('reads a file again once the client reports it created: the missing include is found', async () => {
    const uri = `${BASE}/nginx/nginx.conf`;
    const created = `${BASE}/nginx/extra/missing.conf`;
    await s.page.evaluate((u) => {
      (window as any).lsp.files[u] = 'client_max_body_size 1m;\n';
      (window as any).lsp.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: u, type: 1 }] });
    }, created);
    await diagnosticsFor(uri, (ds) => !ds.some((d) => /missing\.conf/.test(d.message)));
  });

  it('says that the binary check needs the desktop', async () => {
    const r = await call('proxyTuner/validateWithBinary', { uri: `${BASE}/nginx/nginx.conf` });
    assert.notEqual(r.status, 'ok');
    assert.match(JSON.stringify(r), /desktop/);
  });

  it('started without a worker error and reported its cold start', async () => {
    const errors = (await s.page.evaluate(() => (window as any).lsp.received.filter((m: any) => m.workerError))) as unknown[];
    assert.deepEqual(errors, []);
    const ms = (await s.page.evaluate(() => (window as any).lsp.firstDiagnosticsMs)) as number;
    assert.equal(typeof ms, 'number');
  });
});
