// The web worker build of the language server (dist/browserServer.js) in headless Chromium: a page
// on a loopback HTTP server starts it as a Worker and plays the editor's part of LSP over the
// worker's messages: it answers the server's requests (configuration, capability registration)
// and its file system requests (protocol/workspaceFs.ts) from a map of URIs to texts, as
// `workspace.fs` of vscode.dev does from a repository. The test drives it with page.evaluate.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const REPO = join(__dirname, '..', '..');
export const CHROMIUM = '/usr/bin/chromium';

const PAGE = `<!doctype html><meta charset="utf-8"><title>worker</title><script>
window.lsp = {
  files: {},
  received: [],
  fsRequests: [],
  firstDiagnosticsMs: undefined,
  nextId: 1,
  start() {
    this.t0 = performance.now();
    this.worker = new Worker('/browserServer.js');
    this.worker.onerror = (e) => this.received.push({ workerError: String(e.message) });
    this.worker.onmessage = (e) => {
      const m = e.data;
      this.received.push(m);
      if (m.method === 'textDocument/publishDiagnostics' && this.firstDiagnosticsMs === undefined)
        this.firstDiagnosticsMs = performance.now() - this.t0;
      if (m.id !== undefined && m.method) this.answer(m);
    };
  },
  answer(m) {
    let result = null;
    // the user's settings: the opt-in pedantic group, whose include-not-found the include test reads
    if (m.method === 'workspace/configuration') result = m.params.items.map(() => ({ lint: { extendSelect: ['pedantic'] } }));
    else if (m.method.startsWith('proxyTuner/fs/')) {
      this.fsRequests.push(m.method + ' ' + m.params.uri);
      const uri = m.params.uri;
      const file = this.files[uri];
      const prefix = uri.endsWith('/') ? uri : uri + '/';
      const children = Object.keys(this.files).filter((u) => u.startsWith(prefix)).map((u) => u.slice(prefix.length).split('/')[0]);
      if (m.method === 'proxyTuner/fs/readFile') result = file === undefined ? null : { text: file };
      else if (m.method === 'proxyTuner/fs/stat')
        result = file !== undefined ? { isFile: true, isDirectory: false, size: file.length, mtimeMs: 1 }
          : children.length ? { isFile: false, isDirectory: true, size: 0, mtimeMs: 1 } : null;
      else if (m.method === 'proxyTuner/fs/readDirectory') result = children.length ? [...new Set(children)] : null;
    }
    this.worker.postMessage({ jsonrpc: '2.0', id: m.id, result });
  },
  notify(method, params) { this.worker.postMessage({ jsonrpc: '2.0', method, params }); },
  request(method, params, timeoutMs = 20000) {
    const id = this.nextId++;
    this.worker.postMessage({ jsonrpc: '2.0', id, method, params });
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const poll = () => {
        const r = this.received.find((x) => x.id === id && !x.method);
        if (r) return r.error ? reject(new Error(r.error.message)) : resolve(r.result);
        if (Date.now() - started > timeoutMs) return reject(new Error('no answer to ' + method));
        setTimeout(poll, 5);
      };
      poll();
    });
  },
};
</script>`;

export interface WorkerSession {
  page: Page;
  close(): Promise<void>;
}

/** Chromium with a page that can start the worker (window.lsp); the worker is not started yet. */
export async function openWorkerPage(): Promise<WorkerSession> {
  const bundle = readFileSync(join(REPO, 'dist', 'browserServer.js'));
  const http: Server = createServer((req, res) => {
    if (req.url === '/browserServer.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(bundle);
    } else if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(PAGE);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
      timeout: 60_000,
    });
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/`, { timeout: 60_000 });
    const b = browser;
    return {
      page,
      async close() {
        await b.close();
        await new Promise((resolve) => http.close(resolve));
      },
    };
  } catch (err) {
    await browser?.close();
    http.close();
    throw err;
  }
}
