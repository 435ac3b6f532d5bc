// The adapter must outlive anything a client (or a broken pipe) sends it: invalid params,
// unknown methods, bodies that are not JSON, bytes that are not UTF-8, headers without a
// length, a 1 MB line. After each, the same process still answers a normal request.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ensureBuilt } from '../cli/build';
import { LspClient, completionLabels } from './rpcClient';

describe('language server robustness (stdio, hand-framed JSON-RPC)', () => {
  let server: LspClient;
  const uri = 'file:///tmp/proxy-tuner-robustness/nginx.conf';

  before(async () => {
    ensureBuilt();
    server = new LspClient();
    await server.initialize();
    server.notify('textDocument/didOpen', {
      textDocument: { uri, languageId: 'nginx', version: 1, text: 'events {}\nhttp {\n  server {\n    listen 8080;\n  }\n}\n' },
    });
    await server.diagnosticsFor(uri, 1);
  });

  after(async () => {
    await server?.stop();
  });

  /** A normal request still gets a normal answer from the same, living process. */
  async function assertAlive(): Promise<void> {
    assert.equal(server.hasExited, false, `server exited: ${JSON.stringify(server.exitStatus)}\n${server.stderr}`);
    const answer = await server.requestRaw('textDocument/hover', { textDocument: { uri }, position: { line: 3, character: 5 } });
    assert.equal(answer.error, undefined, `hover failed: ${JSON.stringify(answer.error)}`);
    assert.deepEqual(server.protocolErrors, []);
  }

  it('answers requests with missing or malformed params with an empty result and logs the error', async () => {
    const logsBefore = server.notifications.filter((n) => n.method === 'window/logMessage').length;
    for (const [method, params] of [
      ['textDocument/hover', {}],
      ['textDocument/completion', { textDocument: { uri }, position: null }],
      ['textDocument/completion', { textDocument: { uri }, position: { line: 'x', character: {} } }],
      ['textDocument/hover', { textDocument: { uri }, position: { line: -7, character: 1e12 } }],
      ['textDocument/codeAction', { textDocument: { uri }, range: null, context: { diagnostics: [{ bogus: true }, null] } }],
      ['textDocument/codeAction', { textDocument: { uri } }],
      ['textDocument/completion', { textDocument: { uri: 'file:///never/opened.conf' }, position: { line: 0, character: 0 } }],
    ] as const) {
      const answer = await server.requestRaw(method, params);
      assert.equal(answer.error, undefined, `${method} ${JSON.stringify(params)} -> ${JSON.stringify(answer.error)}`);
      assert.ok(
        answer.result === null || (Array.isArray(answer.result) && answer.result.length === 0) || typeof answer.result === 'object',
        `${method}: unexpected answer ${JSON.stringify(answer.result)}`,
      );
    }
    // `null` params fail inside the protocol library, before our handler: still answered.
    const nullParams = await server.requestRaw('textDocument/hover', null);
    assert.ok(nullParams.error || nullParams.result === null, JSON.stringify(nullParams));
    // The hover with `{}` params threw inside the handler: it is logged on the LSP channel.
    const logs = server.notifications.filter((n) => n.method === 'window/logMessage').slice(logsBefore);
    assert.ok(
      logs.some((l) => l.params.type === 1 && /hover failed/.test(l.params.message)),
      `no error log: ${JSON.stringify(logs.map((l) => l.params.message))}`,
    );
    await assertAlive();
  });

  it('answers an unknown method with MethodNotFound and ignores unknown notifications', async () => {
    const answer = await server.requestRaw('proxyTuner/noSuchMethod', { x: 1 });
    assert.equal(answer.error?.code, -32601);
    server.notify('proxyTuner/noSuchNotification', [1, 2, 3]);
    await assertAlive();
  });

  it('survives malformed notifications', async () => {
    server.notify('textDocument/didOpen', {});
    server.notify('textDocument/didOpen', { textDocument: null });
    server.notify('textDocument/didChange', {
      textDocument: { uri: 'file:///never/opened.conf', version: 3 },
      contentChanges: [{ text: 'x' }],
    });
    server.notify('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: 'not an array' });
    server.notify('textDocument/didClose', { textDocument: { uri: 'file:///never/opened.conf' } });
    server.notify('workspace/didChangeConfiguration', { settings: 'junk' });
    server.notify('workspace/didChangeConfiguration', null);
    await assertAlive();
  });

  it('survives frames that are not JSON, not UTF-8, or have no valid header', async () => {
    // Header errors make vscode-jsonrpc's reader stop scanning the bytes it already holds until
    // more bytes arrive (a quirk of the library): a request that came in the same read waits.
    // So each request below is followed, when unanswered after a second, by a harmless unknown
    // notification, which releases it. What is checked: the process lives and answers.
    async function hoverAfterGarbage(garbage: () => void): Promise<void> {
      garbage();
      const pending = server.requestRaw('textDocument/hover', { textDocument: { uri }, position: { line: 3, character: 5 } });
      const kick = setInterval(() => server.notify('proxyTuner/kick', {}), 1000);
      try {
        const answer = await pending;
        assert.equal(answer.error, undefined, JSON.stringify(answer.error));
      } finally {
        clearInterval(kick);
      }
    }
    await hoverAfterGarbage(() => server.writeFrame('{ this is not json'));
    await hoverAfterGarbage(() => server.writeFrame(Buffer.from([0xff, 0xfe, 0x00, 0x9f, 0x92, 0x96, 0xc3, 0x28, 0x7b, 0x7d])));
    await hoverAfterGarbage(() => server.writeFrame('[]'));
    await hoverAfterGarbage(() => server.writeFrame('42'));
    await hoverAfterGarbage(() => server.writeFrame(JSON.stringify({ jsonrpc: '2.0', id: 'x', method: 42 })));
    await hoverAfterGarbage(() => server.writeRaw('X-Nonsense: yes\r\n\r\n'));
    await hoverAfterGarbage(() => server.writeRaw('Content-Length: many\r\n\r\n'));
    await hoverAfterGarbage(() =>
      server.writeRaw(Buffer.concat([Buffer.from('\u0000\u0001junk\r\n'), Buffer.from([0xde, 0xad, 0xbe, 0xef]), Buffer.from('\r\n\r\n')])),
    );
    await assertAlive();
  });

  it('handles a 1 MB line and binary bytes inside a document', async () => {
    const bigUri = 'file:///tmp/proxy-tuner-robustness/big.conf';
    const binary = Buffer.from([0x00, 0x01, 0x1b, 0x7f]).toString('latin1') + '\ufffd\ud83d\ude00';
    const hugeLine = `    return 200 "${'x'.repeat(1024 * 1024)}";`;
    const text = `events {}\nhttp {\n  server {\n${hugeLine}\n    ${binary} ${'{'.repeat(500)}\n  }\n`;
    server.notify('textDocument/didOpen', { textDocument: { uri: bigUri, languageId: 'nginx', version: 1, text } });
    const diagnostics = await server.diagnosticsFor(bigUri, 1, 60_000);
    assert.ok(Array.isArray(diagnostics));
    const hover = await server.requestRaw(
      'textDocument/hover',
      { textDocument: { uri: bigUri }, position: { line: 3, character: 500_000 } },
      60_000,
    );
    assert.equal(hover.error, undefined);
    const completion = await server.requestRaw(
      'textDocument/completion',
      { textDocument: { uri: bigUri }, position: { line: 4, character: 3 } },
      60_000,
    );
    assert.equal(completion.error, undefined);
    assert.ok(Array.isArray(completionLabels(completion.result)));
    // An incremental edit in the middle of the huge line, then a close: both handled.
    server.notify('textDocument/didChange', {
      textDocument: { uri: bigUri, version: 2 },
      contentChanges: [{ range: { start: { line: 3, character: 100 }, end: { line: 3, character: 200 } }, text: '\u0000' }],
    });
    await server.diagnosticsFor(bigUri, 2, 60_000);
    server.notify('textDocument/didClose', { textDocument: { uri: bigUri } });
    const cleared = await server.waitForNotification(
      'textDocument/publishDiagnostics',
      (p) => p.uri === bigUri && p.version === undefined && p.diagnostics.length === 0,
    );
    assert.deepEqual(cleared.params.diagnostics, []);
    await assertAlive();
  });

  it('keeps stdout for the protocol: nothing else was written there', () => {
    assert.deepEqual(server.protocolErrors, []);
    assert.equal(server.hasExited, false);
  });
});
