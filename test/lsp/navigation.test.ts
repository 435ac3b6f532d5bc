// Navigation through the real server over stdio: a multi-file nginx tree and a split HAProxy
// folder in a temp workspace; only some files are opened, the others are read from disk.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from '../cli/build';
import { LspClient, defaultCapabilities } from './rpcClient';

const FILES: Record<string, string> = {
  'nginx/nginx.conf': `events {}
http {
  include conf.d/*.conf;
}
stream {
  include stream.d/*.conf;
}
`,
  'nginx/conf.d/upstreams.conf': `upstream app {
  server 127.0.0.1:9000;
}
`,
  'nginx/conf.d/site.conf': `server {
  listen 127.0.0.1:8080;
  server_name example.test;
  location / {
    proxy_pass http://app;
  }
  location /x {
    proxy_pass http://nosuch;
  }
}
`,
  'nginx/stream.d/db.conf': `upstream db { server 127.0.0.1:5432; }
server { listen 127.0.0.1:5433; proxy_pass db; }
`,
  'haproxy/10-fe.cfg': `frontend fe
    bind 127.0.0.1:8080
    default_backend web
`,
  'haproxy/20-be.cfg': `backend web
    server s1 127.0.0.1:9000
`,
};

describe('navigation over LSP (stdio)', () => {
  let dir: string;
  let server: LspClient;
  const uri = (rel: string) => pathToFileURL(join(dir, rel)).href;
  const text = (rel: string) => FILES[rel];
  const at = (rel: string, needle: string, delta = 1) => {
    const t = text(rel);
    const i = t.indexOf(needle) + delta;
    const lines = t.slice(0, i).split('\n');
    return { line: lines.length - 1, character: lines[lines.length - 1].length };
  };
  const openDoc = (rel: string, languageId: string) =>
    server.notify('textDocument/didOpen', { textDocument: { uri: uri(rel), languageId, version: 1, text: text(rel) } });

  before(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'pt-lsp-nav-'));
    for (const [rel, body] of Object.entries(FILES)) {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), body);
    }
    server = new LspClient();
    const init = await server.request('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(dir).href,
      workspaceFolders: [{ uri: pathToFileURL(dir).href, name: 'ws' }],
      capabilities: defaultCapabilities(),
    });
    server.notify('initialized', {});
    const caps = init.capabilities;
    assert.ok(
      caps.referencesProvider &&
        caps.renameProvider?.prepareProvider &&
        caps.documentLinkProvider &&
        caps.workspaceSymbolProvider &&
        caps.definitionProvider,
    );
    openDoc('nginx/conf.d/site.conf', 'nginx');
    openDoc('nginx/stream.d/db.conf', 'nginx');
    openDoc('haproxy/10-fe.cfg', 'haproxy');
  });
  after(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('diagnostics of a fragment use its includer: stream context, upstreams of sibling files, nginx\'s "host not found in upstream"', async () => {
    const site = await server.diagnosticsFor(uri('nginx/conf.d/site.conf'), 1);
    assert.deepEqual(
      site.filter((d: any) => d.severity === 1).map((d: any) => [d.code, d.range.start.line]),
      [['nginx/undefined-reference', 7]],
    );
    const db = await server.diagnosticsFor(uri('nginx/stream.d/db.conf'), 1);
    assert.deepEqual(
      db.filter((d: any) => d.code === 'nginx/not-allowed-here'),
      [],
    );
    const fe = await server.diagnosticsFor(uri('haproxy/10-fe.cfg'), 1);
    assert.deepEqual(
      fe.filter((d: any) => d.code === 'haproxy/unknown-backend'),
      [],
    );
  });

  it('textDocument/definition jumps to an upstream in a file that is not open', async () => {
    const defs = await server.request('textDocument/definition', {
      textDocument: { uri: uri('nginx/conf.d/site.conf') },
      position: at('nginx/conf.d/site.conf', 'http://app', 8),
    });
    assert.deepEqual(defs, [
      { uri: uri('nginx/conf.d/upstreams.conf'), range: { start: { line: 0, character: 9 }, end: { line: 0, character: 12 } } },
    ]);
    const be = await server.request('textDocument/definition', {
      textDocument: { uri: uri('haproxy/10-fe.cfg') },
      position: at('haproxy/10-fe.cfg', 'web'),
    });
    assert.deepEqual(be, [{ uri: uri('haproxy/20-be.cfg'), range: { start: { line: 0, character: 8 }, end: { line: 0, character: 11 } } }]);
  });

  it('textDocument/references and textDocument/rename cover every file', async () => {
    const pos = at('nginx/conf.d/site.conf', 'http://app', 8);
    const refs = await server.request('textDocument/references', {
      textDocument: { uri: uri('nginx/conf.d/site.conf') },
      position: pos,
      context: { includeDeclaration: true },
    });
    assert.deepEqual(refs.map((r: any) => r.uri).sort(), [uri('nginx/conf.d/site.conf'), uri('nginx/conf.d/upstreams.conf')].sort());
    const prep = await server.request('textDocument/prepareRename', {
      textDocument: { uri: uri('nginx/conf.d/site.conf') },
      position: pos,
    });
    assert.deepEqual(prep, { range: { start: { line: 4, character: 22 }, end: { line: 4, character: 25 } }, placeholder: 'app' });
    const edit = await server.request('textDocument/rename', {
      textDocument: { uri: uri('nginx/conf.d/site.conf') },
      position: pos,
      newName: 'backend',
    });
    assert.deepEqual(edit.changes[uri('nginx/conf.d/upstreams.conf')], [
      { range: { start: { line: 0, character: 9 }, end: { line: 0, character: 12 } }, newText: 'backend' },
    ]);
    assert.deepEqual(edit.changes[uri('nginx/conf.d/site.conf')], [
      { range: { start: { line: 4, character: 22 }, end: { line: 4, character: 25 } }, newText: 'backend' },
    ]);
  });

  it('textDocument/prepareRename refuses a directive name with an error that says why', async () => {
    const res = await server.requestRaw('textDocument/prepareRename', {
      textDocument: { uri: uri('nginx/conf.d/site.conf') },
      position: at('nginx/conf.d/site.conf', 'listen'),
    });
    assert.equal(res.error?.code, -32803);
    assert.match(res.error!.message, /can be renamed/);
  });

  it('a file changed on disk (workspace/didChangeWatchedFiles) updates the diagnostics of the open files that use it', async () => {
    const site = uri('nginx/conf.d/site.conf');
    writeFileSync(join(dir, 'nginx/conf.d/upstreams.conf'), `upstream application {\n  server 127.0.0.1:9000;\n}\n`);
    const undefinedCount = (p: any) => p.diagnostics.filter((d: any) => d.code === 'nginx/undefined-reference').length;
    server.notifications.splice(0); // only what is published from now on
    const published = server.waitForNotification('textDocument/publishDiagnostics', (p) => p.uri === site && undefinedCount(p) === 2);
    server.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: uri('nginx/conf.d/upstreams.conf'), type: 2 }] });
    const msg = await published;
    assert.deepEqual(
      msg.params.diagnostics.filter((d: any) => d.code === 'nginx/undefined-reference').map((d: any) => d.range.start.line),
      [4, 7],
    );
    writeFileSync(join(dir, 'nginx/conf.d/upstreams.conf'), FILES['nginx/conf.d/upstreams.conf']);
    server.notifications.splice(0);
    const back = server.waitForNotification('textDocument/publishDiagnostics', (p) => p.uri === site && undefinedCount(p) === 1);
    server.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: uri('nginx/conf.d/upstreams.conf'), type: 2 }] });
    await back;
  });

  it('textDocument/documentSymbol, documentLink and workspace/symbol', async () => {
    const symbols = await server.request('textDocument/documentSymbol', { textDocument: { uri: uri('nginx/conf.d/site.conf') } });
    assert.deepEqual(
      symbols.map((s: any) => [s.name, (s.children ?? []).map((c: any) => c.name)]),
      [['server example.test 127.0.0.1:8080', ['location /', 'location /x']]],
    );
    openDoc('nginx/nginx.conf', 'nginx');
    const links = await server.request('textDocument/documentLink', { textDocument: { uri: uri('nginx/nginx.conf') } });
    assert.deepEqual(
      links.map((l: any) => l.target),
      [uri('nginx/conf.d/site.conf'), uri('nginx/stream.d/db.conf')],
    );
    const found = await server.request('workspace/symbol', { query: 'upstream' });
    assert.deepEqual(found.map((s: any) => s.name).sort(), ['upstream app', 'upstream db']);
  });
});
