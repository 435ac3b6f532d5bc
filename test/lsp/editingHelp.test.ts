// Editing help through the server over stdio, as any LSP client sees it: signature help, inlay
// hints (and their setting), and the snippets offered as completion items to a client that does
// not contribute them itself (the VS Code extension says it does, in initializationOptions).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ensureBuilt } from '../cli/build';
import { LspClient } from './rpcClient';

const NGINX =
  'events {}\nhttp {\n    upstream up { server 127.0.0.1:1; }\n    server {\n        location / {\n            proxy_set_header Host ;\n            proxy_pass http://up;\n        }\n    }\n}\n';
const HAPROXY = 'frontend f\n    mode tcp\n    bind 127.0.0.1:8000-7000\n    \n';

async function open(server: LspClient, uri: string, languageId: string, text: string): Promise<any[]> {
  server.notify('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
  return server.diagnosticsFor(uri, 1);
}

describe('editing help over LSP', () => {
  let server: LspClient;
  let capabilities: any;

  before(async () => {
    ensureBuilt();
    server = new LspClient();
    ({ capabilities } = await server.initialize({ nginx: { version: '1.30.6' }, haproxy: { version: '3.2' } }));
    await open(server, 'file:///eh/nginx.conf', 'nginx', NGINX);
    await open(server, 'file:///eh/haproxy.cfg', 'haproxy', HAPROXY);
  });
  after(async () => {
    await server?.stop();
  });

  it('declares signature help and inlay hints', () => {
    assert.deepEqual(capabilities.signatureHelpProvider?.triggerCharacters, [' ']);
    assert.ok(capabilities.inlayHintProvider);
  });

  it('signature help: the active parameter', async () => {
    const r = await server.request('textDocument/signatureHelp', {
      textDocument: { uri: 'file:///eh/nginx.conf' },
      position: { line: 5, character: 34 },
    });
    const sig = r.signatures[r.activeSignature];
    assert.equal(sig.label, 'proxy_set_header field value;');
    assert.deepEqual(sig.parameters[r.activeParameter].label, [23, 28]);
    assert.match(sig.documentation.value, /ngx_http_proxy_module/);
  });

  it('inlay hints at the target version', async () => {
    const hints = await server.request('textDocument/inlayHint', {
      textDocument: { uri: 'file:///eh/nginx.conf' },
      range: { start: { line: 0, character: 0 }, end: { line: 10, character: 0 } },
    });
    assert.deepEqual(
      hints.map((h: any) => [h.position.line, h.label]),
      [
        [0, 'worker_processes 1;'],
        [2, 'keepalive 32 local'],
        [6, 'proxy_http_version 1.1'],
      ],
    );
  });

  it('haproxy: address forms are validated, completion follows the mode, snippets are offered', async () => {
    const diags = await server.diagnosticsFor('file:///eh/haproxy.cfg', 1);
    assert.ok(
      diags.some((d: any) => d.code === 'haproxy/address' && d.range.start.line === 2),
      JSON.stringify(diags),
    );
    const list = await server.request('textDocument/completion', {
      textDocument: { uri: 'file:///eh/haproxy.cfg' },
      position: { line: 3, character: 4 },
    });
    const labels = list.items.map((i: any) => i.label);
    assert.ok(!labels.includes('http-request') && labels.includes('tcp-request'));
    const snip = list.items.find((i: any) => i.label === 'frontend-backend');
    assert.equal(snip?.kind, 15);
    assert.equal(snip?.insertTextFormat, 2);
    assert.match(snip.textEdit.newText, /^frontend \$\{1:fe_main\}/);
  });

  it('nginx snippets in their blocks only', async () => {
    const inLocation = await server.request('textDocument/completion', {
      textDocument: { uri: 'file:///eh/nginx.conf' },
      position: { line: 7, character: 8 },
    });
    const l = inLocation.items.filter((i: any) => i.kind === 15).map((i: any) => i.label);
    assert.ok(l.includes('location-exact') && !l.includes('server-tls'), l.join(','));
  });
});

describe('editing help: client settings', () => {
  it('a client that contributes snippets gets none; inlayHints.defaults off gives no hints', async () => {
    const server = new LspClient();
    try {
      await server.initialize({ contributesSnippets: true, inlayHints: { defaults: false } });
      await open(server, 'file:///eh2/haproxy.cfg', 'haproxy', HAPROXY);
      await open(server, 'file:///eh2/nginx.conf', 'nginx', NGINX);
      const list = await server.request('textDocument/completion', {
        textDocument: { uri: 'file:///eh2/haproxy.cfg' },
        position: { line: 3, character: 4 },
      });
      assert.ok(list.items.length > 10 && !list.items.some((i: any) => i.kind === 15));
      const hints = await server.request('textDocument/inlayHint', {
        textDocument: { uri: 'file:///eh2/nginx.conf' },
        range: { start: { line: 0, character: 0 }, end: { line: 10, character: 0 } },
      });
      assert.deepEqual(hints, []);
    } finally {
      await server.stop();
    }
  });
});
