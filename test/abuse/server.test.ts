// The language server under abuse, over stdio: a 10 MB file, a file of one 1 MB line, 10,000
// levels of nesting, binary garbage, wrong encodings (Latin-1, UTF-16 with a BOM, lone
// surrogates: sent as a client that decoded them wrongly would, and as raw bytes in the frame).
// After each the same process answers requests on that document and on a normal one, its RSS
// stays under a bound, and it never exits. (test/lsp/robustness.test.ts covers malformed frames
// and params; this is about the documents themselves.)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ensureBuilt } from '../cli/build';
import { LspClient, completionLabels } from '../lsp/rpcClient';
// the generator of the benchmarks: realistic configs of any size
// @ts-expect-error a plain .mjs script without type declarations
import { nginxConfig } from '../../scripts/gen-large-config.mjs';

/** RSS the server may reach at any point (a 10 MB document, its parse and diagnostics included). */
const RSS_BOUND_MB = 2048;
const SLOW = 240_000; // answers on a 10 MB file under a shared machine's load

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Seeded bytes (mulberry32): the same garbage every run. */
function garbage(n: number, seed: number): Buffer {
  let a = seed >>> 0;
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    b[i] = (t ^ (t >>> 14)) & 0xff;
  }
  return b;
}

describe('language server under abuse (stdio)', () => {
  let server: LspClient;
  const normal = 'file:///tmp/proxy-tuner-abuse/nginx.conf';
  let version = 1;
  let peakRss = 0;

  before(async () => {
    ensureBuilt();
    server = new LspClient();
    await server.initialize();
    server.notify('textDocument/didOpen', {
      textDocument: { uri: normal, languageId: 'nginx', version: 1, text: 'events {}\nhttp {\n  server {\n    listen 8080;\n  }\n}\n' },
    });
    await server.diagnosticsFor(normal, 1, SLOW);
  });

  after(async () => {
    await server?.stop();
  });

  /** The abused document still answers, a normal one too, the process lives within its memory bound. */
  async function assertAnswers(uri: string, line = 0): Promise<void> {
    assert.equal(server.hasExited, false, `server exited: ${JSON.stringify(server.exitStatus)}\n${server.stderr.slice(-2000)}`);
    for (const [method, params] of [
      ['textDocument/hover', { textDocument: { uri }, position: { line, character: 3 } }],
      ['textDocument/completion', { textDocument: { uri }, position: { line, character: 1 } }],
      ['textDocument/documentSymbol', { textDocument: { uri } }],
    ] as const) {
      const answer = await server.requestRaw(method, params, SLOW);
      assert.equal(answer.error, undefined, `${method} on ${uri}: ${JSON.stringify(answer.error)}`);
    }
    const hover = await server.requestRaw(
      'textDocument/hover',
      { textDocument: { uri: normal }, position: { line: 3, character: 5 } },
      SLOW,
    );
    assert.equal(hover.error, undefined);
    assert.match(JSON.stringify(hover.result), /listen/i, 'a normal document still gets a real hover');
    const completion = await server.request(
      'textDocument/completion',
      { textDocument: { uri: normal }, position: { line: 3, character: 4 } },
      SLOW,
    );
    assert.ok(completionLabels(completion).length > 0);
    const rss = rssMb(server.proc.pid!);
    peakRss = Math.max(peakRss, rss);
    assert.ok(rss < RSS_BOUND_MB, `RSS ${rss.toFixed(0)} MB over ${RSS_BOUND_MB} MB`);
    assert.deepEqual(server.protocolErrors, []);
  }

  async function openAndAnswer(uri: string, languageId: string, text: string, line = 0): Promise<any[]> {
    const v = ++version;
    server.notify('textDocument/didOpen', { textDocument: { uri, languageId, version: v, text } });
    const diagnostics = await server.diagnosticsFor(uri, v, SLOW);
    assert.ok(Array.isArray(diagnostics));
    await assertAnswers(uri, line);
    server.notify('textDocument/didClose', { textDocument: { uri } });
    return diagnostics;
  }

  it('a 10 MB realistic nginx config: diagnostics published, requests answered, an edit handled', async () => {
    const text: string = nginxConfig({ lines: 340_000 });
    assert.ok(text.length >= 10 * 1024 * 1024, `${text.length} bytes`);
    const uri = 'file:///tmp/proxy-tuner-abuse/huge.conf';
    const v = ++version;
    server.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'nginx', version: v, text } });
    await server.diagnosticsFor(uri, v, SLOW);
    await assertAnswers(uri, 200_000);
    server.notify('textDocument/didChange', {
      textDocument: { uri, version: v + 1 },
      contentChanges: [{ range: { start: { line: 200_000, character: 0 }, end: { line: 200_000, character: 0 } }, text: '    gzip on;\n' }],
    });
    version = v + 1;
    await server.diagnosticsFor(uri, v + 1, SLOW);
    await assertAnswers(uri, 200_000);
    server.notify('textDocument/didClose', { textDocument: { uri } });
  });

  it('one 1 MB line (HAProxy, no spaces; nginx, one directive of 1 MB)', async () => {
    await openAndAnswer(
      'file:///tmp/proxy-tuner-abuse/line.cfg',
      'haproxy',
      `frontend f\n  bind :80\n  http-request set-header X ${'a%['.repeat(350_000)}\n`,
      2,
    );
    await openAndAnswer(
      'file:///tmp/proxy-tuner-abuse/line.conf',
      'nginx',
      `events {} http { server { ${'proxy_set_header X y; '.repeat(48_000)} } }`,
      0,
    );
  });

  it('10,000 levels of nesting (nginx blocks closed and unclosed, HAProxy condition braces)', async () => {
    const closed = await openAndAnswer(
      'file:///tmp/proxy-tuner-abuse/deep.conf',
      'nginx',
      `events {}\nhttp {\n${'location / {\n'.repeat(10_000)}${'}\n'.repeat(10_001)}`,
      5000,
    );
    assert.ok(Array.isArray(closed));
    const open = await openAndAnswer('file:///tmp/proxy-tuner-abuse/deep-open.conf', 'nginx', 'server { '.repeat(10_000), 0);
    assert.ok(open.length > 0, 'unclosed blocks are reported');
    await openAndAnswer(
      'file:///tmp/proxy-tuner-abuse/deep.cfg',
      'haproxy',
      `frontend f\n  bind :80\n  http-request deny if ${'{ '.repeat(10_000)}\n`,
      2,
    );
  });

  it('binary garbage: as document text and as raw bytes inside the frame', async () => {
    await openAndAnswer('file:///tmp/proxy-tuner-abuse/garbage.conf', 'nginx', garbage(200_000, 1).toString('latin1'), 10);
    await openAndAnswer('file:///tmp/proxy-tuner-abuse/garbage.cfg', 'haproxy', garbage(200_000, 2).toString('utf8'), 10);
    // raw: JSON whose text string holds bytes that are not UTF-8 (quotes, backslashes and controls taken out so the JSON stays well-formed)
    const raw = Buffer.from(garbage(100_000, 3).filter((b) => b >= 0x20 && b !== 0x22 && b !== 0x5c));
    const uri = 'file:///tmp/proxy-tuner-abuse/raw.conf';
    const v = ++version;
    server.writeFrame(
      Buffer.concat([
        Buffer.from(
          `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"${uri}","languageId":"nginx","version":${v},"text":"`,
        ),
        raw,
        Buffer.from('"}}}'),
      ]),
    );
    await server.diagnosticsFor(uri, v, SLOW);
    await assertAnswers(uri, 0);
  });

  it('wrong encodings: Latin-1, UTF-16 with a BOM, lone surrogates', async () => {
    const config = 'events {}\nhttp {\n  server {\n    listen 8080;\n    server_name café.example;\n    return 200 "déjà vu";\n  }\n}\n';
    const latin1 = Buffer.from(config, 'latin1');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(config, 'utf16le')]);
    // a client that read the bytes with the wrong decoder
    await openAndAnswer('file:///tmp/proxy-tuner-abuse/latin1.conf', 'nginx', latin1.toString('utf8'), 4);
    await openAndAnswer('file:///tmp/proxy-tuner-abuse/utf16.conf', 'nginx', utf16.toString('latin1'), 4);
    await openAndAnswer('file:///tmp/proxy-tuner-abuse/utf16.cfg', 'haproxy', utf16.toString('utf8'), 4);
    // lone surrogates as JSON escapes (JSON.stringify keeps them as \\udXXX)
    await openAndAnswer(
      'file:///tmp/proxy-tuner-abuse/surrogates.conf',
      'nginx',
      `events {}\nhttp {\n  server_name \ud800x\udfff;\n  \udc00 on;\n  return 200 "\ud83d";\n}\n`,
      2,
    );
    // and as raw bytes in the frame: Latin-1 bytes, UTF-16 bytes (NULs make the JSON invalid: the message is lost, the server lives), CESU-8 surrogates
    for (const [name, bytes] of [
      ['raw-latin1.conf', latin1],
      ['raw-utf16.conf', utf16],
      [
        'raw-cesu.conf',
        Buffer.concat([
          Buffer.from('events {}\nhttp { server_name '),
          Buffer.from([0xed, 0xa0, 0x80, 0xed, 0xbf, 0xbf]),
          Buffer.from('; }\n'),
        ]),
      ],
    ] as const) {
      const uri = `file:///tmp/proxy-tuner-abuse/${name}`;
      const v = ++version;
      const safe = Buffer.from(bytes.filter((b) => b !== 0x22 && b !== 0x5c && b !== 0x0a));
      server.writeFrame(
        Buffer.concat([
          Buffer.from(
            `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"${uri}","languageId":"nginx","version":${v},"text":"`,
          ),
          safe,
          Buffer.from('"}}}'),
        ]),
      );
      if (!safe.includes(0)) await server.diagnosticsFor(uri, v, SLOW);
      await assertAnswers(name === 'raw-utf16.conf' ? normal : uri, 0);
    }
  });

  it('is still the same process, and stayed within its memory bound throughout', async () => {
    assert.equal(server.hasExited, false);
    assert.ok(peakRss > 0 && peakRss < RSS_BOUND_MB, `peak RSS ${peakRss.toFixed(0)} MB`);
    console.log(`[abuse] peak RSS ${peakRss.toFixed(0)} MB (bound ${RSS_BOUND_MB} MB)`);
  });
});
