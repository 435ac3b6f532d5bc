// Adapter smoke test: the bundled server (`node dist/server.js --stdio`) spoken to by our own
// framed JSON-RPC client, for nginx and HAProxy. Checks the wiring a real client depends on:
// capabilities, diagnostics on open and after incremental edits, completion, hover, quick fixes,
// source.fixAll, settings (pulled and pushed), language detection, clearing on close, and that
// the editor and `proxy-tuner check` report the same problems.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fork, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { ensureBuilt, REPO } from '../cli/build';
import { FIXTURES, NGINX_FIXTURE, type EditorFixture } from './fixtures';
import { LspClient, completionLabels, hoverText, type RpcMessage } from './rpcClient';

let dir: string;

let folders = 0;

/** A uri in a folder of its own (HAProxy loads every `.cfg` of a folder together). */
function uriOf(name: string): string {
  return pathToFileURL(join(fileIn(), name)).href;
}

function fileIn(): string {
  const folder = join(dir, `case-${++folders}`);
  mkdirSync(folder, { recursive: true });
  return folder;
}

function applyEdits(text: string, edits: { range: any; newText: string }[]): string {
  const doc = TextDocument.create('file:///x', 'plaintext', 1, text);
  return TextDocument.applyEdits(doc, edits);
}

function open(server: LspClient, uri: string, languageId: string, text: string, version = 1): void {
  server.notify('textDocument/didOpen', { textDocument: { uri, languageId, version, text } });
}

function sameRange(a: any, b: any): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

describe('language server over stdio (our JSON-RPC client)', () => {
  before(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'proxy-tuner-lsp-'));
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('initialize', () => {
    it('declares incremental sync, completion triggers, hover and both code action kinds', async () => {
      const server = new LspClient();
      try {
        const { capabilities, serverInfo } = await server.initialize();
        assert.equal(serverInfo.name, 'proxy-tuner');
        assert.equal(capabilities.textDocumentSync.change, 2);
        assert.equal(capabilities.textDocumentSync.openClose, true);
        assert.ok(capabilities.completionProvider.triggerCharacters.includes('$'));
        assert.ok(capabilities.completionProvider.triggerCharacters.includes(' '));
        assert.equal(capabilities.hoverProvider, true);
        assert.deepEqual(capabilities.codeActionProvider.codeActionKinds, ['quickfix', 'source.fixAll']);
        // The client can pull configuration: the server registers for change notifications.
        const reg = await waitForServerRequest(server, 'client/registerCapability');
        assert.equal(reg.params.registrations[0].method, 'workspace/didChangeConfiguration');
      } finally {
        await server.stop();
      }
    });
  });

  for (const f of FIXTURES) {
    describe(f.language, () => {
      let server: LspClient;
      let docUri = '';
      const uri = () => docUri;

      before(async () => {
        docUri = uriOf(f.fileName);
        server = new LspClient();
        await server.initialize();
        open(server, uri(), f.language, f.text);
      });
      after(async () => {
        await server?.stop();
      });

      it('publishes the expected diagnostic on open, with its rule id and a doc link', async () => {
        const diagnostics = await server.diagnosticsFor(uri(), 1);
        const d = diagnostics.find((x) => x.code === f.diagnostic.code && sameRange(x.range, f.diagnostic.range));
        assert.ok(d, `no ${f.diagnostic.code} at ${JSON.stringify(f.diagnostic.range)}: ${JSON.stringify(diagnostics, null, 1)}`);
        assert.equal(d.severity, f.diagnostic.severity);
        assert.equal(d.source, 'proxy-tuner');
        assert.match(d.codeDescription?.href ?? '', /^https:\/\//);
      });

      it('completes at the cursor', async () => {
        const result = await server.request('textDocument/completion', {
          textDocument: { uri: uri() },
          position: f.completion.position,
          context: { triggerKind: 1 },
        });
        const labels = completionLabels(result);
        for (const label of f.completion.mustInclude)
          assert.ok(labels.includes(label), `${label} missing from ${labels.slice(0, 50).join(', ')}`);
      });

      it('hovers', async () => {
        const result = await server.request('textDocument/hover', { textDocument: { uri: uri() }, position: f.hover.position });
        assert.match(hoverText(result), f.hover.mustMatch);
      });

      it('offers quick fixes for the diagnostic, even when the client drops its data', async () => {
        const diagnostics = await server.diagnosticsFor(uri(), 1);
        const d = diagnostics.find((x) => x.code === f.diagnostic.code && sameRange(x.range, f.diagnostic.range));
        const ask = async (sent: any) =>
          (await server.request('textDocument/codeAction', {
            textDocument: { uri: uri() },
            range: d.range,
            context: { diagnostics: [sent], only: ['quickfix'] },
          })) as any[];
        const withData = await ask(d);
        const { data: _dropped, ...withoutData } = d;
        const withoutDataActions = await ask(withoutData);
        assert.ok(withData.length > 0);
        assert.deepEqual(
          withoutDataActions.map((a) => a.title),
          withData.map((a) => a.title),
        );
        assert.ok(withData.every((a) => a.kind === 'quickfix'));
        const disable = withData.find((a) => a.title === `Disable ${f.diagnostic.code} for this line`);
        assert.ok(disable, JSON.stringify(withData.map((a) => a.title)));
        const edited = applyEdits(f.text, disable.edit.changes[uri()]);
        assert.match(edited.split('\n')[f.diagnostic.range.start.line], new RegExp(`# proxy-tuner-disable-next-line ${f.diagnostic.code}`));
        // The module's suggestion, from the diagnostic's data, makes the expected edit.
        const suggestion = withData.find((a) => f.fix.suggestion.test(a.title));
        assert.ok(suggestion, JSON.stringify(withData.map((a) => a.title)));
        assert.equal(applyEdits(f.text, suggestion.edit.changes[uri()]).split('\n')[f.fix.line], f.fix.text);
      });

      it('re-validates after an incremental edit, for the newest version', async () => {
        const line = f.fix.line;
        const oldLine = f.text.split('\n')[line];
        // Two quick edits: break the line further, then replace it with the fixed text.
        server.notify('textDocument/didChange', {
          textDocument: { uri: uri(), version: 2 },
          contentChanges: [{ range: { start: { line, character: 0 }, end: { line, character: 0 } }, text: '#' }],
        });
        server.notify('textDocument/didChange', {
          textDocument: { uri: uri(), version: 3 },
          contentChanges: [{ range: { start: { line, character: 0 }, end: { line, character: oldLine.length + 1 } }, text: f.fix.text }],
        });
        const diagnostics = await server.diagnosticsFor(uri(), 3);
        assert.deepEqual(
          diagnostics.filter((x) => x.code === f.diagnostic.code && x.range.start.line === line),
          [],
        );
        // The hover on the edited document still answers from the new text.
        const result = await server.request('textDocument/hover', { textDocument: { uri: uri() }, position: f.hover.position });
        assert.match(hoverText(result), f.hover.mustMatch);
      });

      it('clears the diagnostics when the document closes', async () => {
        server.notify('textDocument/didClose', { textDocument: { uri: uri() } });
        const cleared = await server.waitForNotification(
          'textDocument/publishDiagnostics',
          (p) => p.uri === uri() && p.diagnostics.length === 0 && p.version === undefined,
        );
        assert.deepEqual(cleared.params.diagnostics, []);
      });
    });
  }

  describe('Node IPC transport (how the VS Code client starts it)', () => {
    it('initializes, publishes diagnostics and answers hover over process messages', async () => {
      const child = fork(join(REPO, 'dist', 'server.js'), ['--node-ipc'], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
      const received: RpcMessage[] = [];
      let stdout = '';
      child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
      child.on('message', (m: RpcMessage) => {
        received.push(m);
        if (m.method && m.id !== undefined)
          child.send({ jsonrpc: '2.0', id: m.id, result: m.method === 'workspace/configuration' ? [null] : null });
      });
      const waitFor = async (pred: (m: RpcMessage) => boolean) => {
        const deadline = Date.now() + 10_000;
        for (;;) {
          const m = received.find(pred);
          if (m) return m;
          if (Date.now() > deadline) throw new Error(`no such message; got ${JSON.stringify(received).slice(0, 2000)}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      try {
        const f = NGINX_FIXTURE;
        const uri = uriOf('ipc.conf');
        child.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: process.pid, rootUri: null, capabilities: {} } });
        const init = await waitFor((m) => m.id === 1);
        assert.equal(init.result.capabilities.hoverProvider, true);
        child.send({ jsonrpc: '2.0', method: 'initialized', params: {} });
        child.send({
          jsonrpc: '2.0',
          method: 'textDocument/didOpen',
          params: { textDocument: { uri, languageId: 'nginx', version: 1, text: f.text } },
        });
        const published = await waitFor((m) => m.method === 'textDocument/publishDiagnostics' && m.params.uri === uri);
        assert.ok(published.params.diagnostics.some((d: any) => d.code === f.diagnostic.code));
        child.send({ jsonrpc: '2.0', id: 2, method: 'textDocument/hover', params: { textDocument: { uri }, position: f.hover.position } });
        const hover = await waitFor((m) => m.id === 2);
        assert.match(hoverText(hover.result), f.hover.mustMatch);
        child.send({ jsonrpc: '2.0', id: 3, method: 'shutdown' });
        await waitFor((m) => m.id === 3);
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        child.send({ jsonrpc: '2.0', method: 'exit' });
        assert.equal(await exited, 0);
        assert.equal(stdout, '', 'over IPC nothing goes to stdout');
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    });
  });

  describe('same problems as proxy-tuner check', () => {
    for (const f of FIXTURES) {
      it(`${f.language}: publishDiagnostics equals check --format json`, async () => {
        const file = join(fileIn(), `same-${f.fileName}`);
        writeFileSync(file, f.text);
        const cli = spawnSync(process.execPath, [join(REPO, 'bin', 'proxy-tuner.js'), 'check', '--format', 'json', file], {
          encoding: 'utf8',
        });
        assert.equal(cli.status, 1, cli.stderr);
        const fromCli = (JSON.parse(cli.stdout) as any[]).map((p) => ({
          code: p.code,
          range: p.range,
          message: p.message,
          severity: p.severity,
        }));
        const server = new LspClient();
        try {
          await server.initialize();
          open(server, pathToFileURL(file).href, f.language, f.text);
          const published = await server.diagnosticsFor(pathToFileURL(file).href, 1);
          const names = ['', 'error', 'warning', 'information', 'hint'];
          const fromServer = published.map((d) => ({ code: d.code, range: d.range, message: d.message, severity: names[d.severity] }));
          const key = (x: any) => `${x.range.start.line}:${x.range.start.character}:${x.code}:${x.message}`;
          assert.deepEqual(
            fromServer.sort((a, b) => key(a).localeCompare(key(b))),
            fromCli.sort((a, b) => key(a).localeCompare(key(b))),
          );
          assert.ok(fromCli.some((p) => p.code === f.diagnostic.code));
        } finally {
          await server.stop();
        }
      });
    }
  });

  describe('completion on trigger characters', () => {
    it('completes nginx variables after a typed `$` and HAProxy values after a typed space', async () => {
      const server = new LspClient();
      try {
        await server.initialize();
        const cases = [
          { uri: uriOf('trigger.conf'), lang: 'nginx', text: 'events {}\nhttp {\n  server {\n    return 200 ', typed: '$', want: '$host' },
          { uri: uriOf('trigger.cfg'), lang: 'haproxy', text: 'backend app\n    balance', typed: ' ', want: 'leastconn' },
        ];
        for (const c of cases) {
          open(server, c.uri, c.lang, c.text);
          await server.diagnosticsFor(c.uri, 1);
          const lines = c.text.split('\n');
          const end = { line: lines.length - 1, character: lines[lines.length - 1].length };
          server.notify('textDocument/didChange', {
            textDocument: { uri: c.uri, version: 2 },
            contentChanges: [{ range: { start: end, end }, text: c.typed }],
          });
          const result = await server.request('textDocument/completion', {
            textDocument: { uri: c.uri },
            position: { line: end.line, character: end.character + 1 },
            context: { triggerKind: 2, triggerCharacter: c.typed },
          });
          const labels = completionLabels(result);
          assert.ok(labels.includes(c.want), `${c.lang}: ${c.want} missing from ${labels.slice(0, 30).join(', ')}`);
        }
      } finally {
        await server.stop();
      }
    });
  });

  describe('source.fixAll', () => {
    it('offers every safe fix as one action that agrees with check --fix', async () => {
      const f = NGINX_FIXTURE;
      const file = join(fileIn(), 'fixall-nginx.conf');
      writeFileSync(file, f.text);
      const uri = pathToFileURL(file).href;
      const server = new LspClient();
      try {
        await server.initialize({ lint: { select: ['all'] } });
        open(server, uri, 'nginx', f.text);
        await server.diagnosticsFor(uri, 1);
        const actions = (await server.request('textDocument/codeAction', {
          textDocument: { uri },
          range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
          context: { diagnostics: [], only: ['source.fixAll'] },
        })) as any[];
        assert.equal(actions.length, 1, JSON.stringify(actions));
        assert.equal(actions[0].kind, 'source.fixAll');
        const fixedByServer = applyEdits(f.text, actions[0].edit.changes[uri]);
        assert.notEqual(fixedByServer, f.text);
        assert.match(fixedByServer, /^ {4}listn 8081;$/m, 'an unsafe suggestion was applied');
        // `check --fix` repeats to a fixed point; from the server's result it reaches the same text.
        const cliFix = (path: string) =>
          spawnSync(process.execPath, [join(REPO, 'bin', 'proxy-tuner.js'), 'check', '--select', 'all', '--fix', path], {
            encoding: 'utf8',
          });
        const fromOriginal = cliFix(file);
        const serverFile = join(fileIn(), 'fixall-by-server.conf');
        writeFileSync(serverFile, fixedByServer);
        assert.equal(cliFix(serverFile).stdout, fromOriginal.stdout);
        // Asked for quick fixes only, the server leaves fixAll out.
        const quick = (await server.request('textDocument/codeAction', {
          textDocument: { uri },
          range: f.diagnostic.range,
          context: { diagnostics: [], only: ['quickfix'] },
        })) as any[];
        assert.ok(quick.every((a) => a.kind === 'quickfix'));
      } finally {
        await server.stop();
      }
    });
  });

  describe('language detection for other language ids', () => {
    it('treats a `conf` document named lb.cfg with HAProxy sections as HAProxy', async () => {
      const server = new LspClient();
      try {
        await server.initialize();
        const haproxy = FIXTURES[1];
        const uri = uriOf('lb.cfg');
        open(server, uri, 'conf', haproxy.text);
        const diagnostics = await server.diagnosticsFor(uri, 1);
        assert.ok(
          diagnostics.some((d) => d.code === haproxy.diagnostic.code),
          JSON.stringify(diagnostics),
        );
        assert.ok(
          diagnostics.every((d) => String(d.code).startsWith('haproxy/')),
          JSON.stringify(diagnostics.map((d) => d.code)),
        );
        const uri2 = uriOf('default');
        open(server, uri2, 'plaintext', NGINX_FIXTURE.text);
        const diagnostics2 = await server.diagnosticsFor(uri2, 1);
        assert.ok(
          diagnostics2.some((d) => d.code === NGINX_FIXTURE.diagnostic.code),
          JSON.stringify(diagnostics2),
        );
      } finally {
        await server.stop();
      }
    });
  });

  describe('settings', () => {
    const f: EditorFixture = NGINX_FIXTURE;

    it('pulls proxyTuner settings per document and re-validates when they change', async () => {
      let rules: Record<string, string> = {};
      const server = new LspClient();
      server.onServerRequest = (m: RpcMessage) =>
        m.method === 'workspace/configuration'
          ? (m.params.items as any[]).map((i) => (i.section === 'proxyTuner' ? { rules } : null))
          : null;
      try {
        await server.initialize();
        const uri = uriOf('pulled.conf');
        open(server, uri, 'nginx', f.text);
        let diagnostics = await server.diagnosticsFor(uri, 1);
        assert.ok(diagnostics.some((d) => d.code === f.diagnostic.code));
        const ask = server.serverRequests.find((r) => r.method === 'workspace/configuration');
        assert.deepEqual(ask?.params.items, [{ scopeUri: uri, section: 'proxyTuner' }]);

        // Lower the rule to a hint: pull model, so the change notification carries no values.
        rules = { [f.diagnostic.code]: 'hint' };
        const seen = server.notifications.length;
        server.notify('workspace/didChangeConfiguration', { settings: null });
        let next = await waitForNewPublish(server, uri, seen);
        diagnostics = next.params.diagnostics;
        const lowered = diagnostics.filter((d: any) => d.code === f.diagnostic.code && sameRange(d.range, f.diagnostic.range));
        assert.equal(lowered.length, 1, JSON.stringify(diagnostics));
        assert.equal(lowered[0].severity, 4);

        // Turn it off.
        rules = { [f.diagnostic.code]: 'off' };
        const seen2 = server.notifications.length;
        server.notify('workspace/didChangeConfiguration', { settings: null });
        next = await waitForNewPublish(server, uri, seen2);
        assert.deepEqual(
          next.params.diagnostics.filter((d: any) => d.code === f.diagnostic.code),
          [],
        );
      } finally {
        await server.stop();
      }
    });

    it('judges against the local nginx -v when no version is set, like check, and the setting wins', async () => {
      const text = 'events {}\nhttp {\n  server {\n    listen 127.0.0.1:8443;\n    http2 on;\n  }\n}\n';
      const fakeNginx = (version: string) => {
        const bin = join(dir, `fake-nginx-${version}`);
        mkdirSync(bin, { recursive: true });
        writeFileSync(join(bin, 'nginx'), `#!/bin/sh\necho "nginx version: nginx/${version}" >&2\n`);
        chmodSync(join(bin, 'nginx'), 0o755);
        return bin;
      };
      const versionErrors = async (localVersion: string, setting?: string) => {
        const server = new LspClient(['--stdio'], { PATH: fakeNginx(localVersion) });
        server.onServerRequest = (m: RpcMessage) =>
          m.method === 'workspace/configuration' ? [setting ? { nginx: { version: setting } } : null] : null;
        try {
          await server.initialize();
          const uri = uriOf(`http2-${localVersion}-${setting ?? 'unset'}.conf`);
          open(server, uri, 'nginx', text);
          const diagnostics = await server.diagnosticsFor(uri, 1);
          const logs = server.notifications.filter((n) => n.method === 'window/logMessage').map((n) => n.params.message);
          return { errors: diagnostics.filter((d) => d.code === 'nginx/needs-newer-version'), logs };
        } finally {
          await server.stop();
        }
      };
      const old = await versionErrors('1.22.1');
      assert.equal(old.errors.length, 1);
      assert.deepEqual(old.errors[0].range.start, { line: 4, character: 4 });
      assert.ok(
        old.logs.some((l) => /judging configs against nginx 1\.22\.1/.test(l)),
        JSON.stringify(old.logs),
      );
      assert.equal((await versionErrors('1.26.2')).errors.length, 0);
      assert.equal((await versionErrors('1.26.2', '1.24.0')).errors.length, 1);
    });

    it('takes initializationOptions and pushed settings from a client that cannot be asked', async () => {
      const server = new LspClient();
      try {
        await server.initialize({ proxyTuner: { rules: { [f.diagnostic.code]: 'warning' } } }, { textDocument: {} });
        const uri = uriOf('pushed.conf');
        open(server, uri, 'nginx', f.text);
        const diagnostics = await server.diagnosticsFor(uri, 1);
        const d = diagnostics.find((x) => x.code === f.diagnostic.code && sameRange(x.range, f.diagnostic.range));
        assert.equal(d?.severity, 2, JSON.stringify(diagnostics));
        assert.equal(server.serverRequests.filter((r) => r.method === 'workspace/configuration').length, 0);

        const seen = server.notifications.length;
        server.notify('workspace/didChangeConfiguration', { settings: { proxyTuner: { rules: { [f.diagnostic.code]: 'off' } } } });
        const next = await waitForNewPublish(server, uri, seen);
        assert.deepEqual(
          next.params.diagnostics.filter((x: any) => x.code === f.diagnostic.code),
          [],
        );
      } finally {
        await server.stop();
      }
    });
  });
});

async function waitForServerRequest(server: LspClient, method: string, timeoutMs = 10_000): Promise<RpcMessage> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = server.serverRequests.find((r) => r.method === method);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`the server sent no ${method}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The first publishDiagnostics for `uri` among the notifications after index `seen`. */
async function waitForNewPublish(server: LspClient, uri: string, seen: number, timeoutMs = 10_000): Promise<RpcMessage> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = server.notifications.slice(seen).find((n) => n.method === 'textDocument/publishDiagnostics' && n.params.uri === uri);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no new publishDiagnostics for ${uri}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
