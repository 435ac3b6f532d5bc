// The language server against hostile input (issue 33), over stdio, one real server process:
// a catastrophic regex in an origin check, malformed transport headers, a million findings,
// documents of a million statements or arguments, 30,000 backends, includes of /dev/zero, a FIFO
// and /proc/self/environ, "Validate with nginx -t" on such paths. Each case asserts that every
// answer comes within a bound (generous for a shared CI machine: the goals, 1 s per request and
// 500 MB, are measured by `npm run bench:lsp-abuse` into docs/benchmarks.md) and that the
// server's peak memory (VmHWM) stays under a bound.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from '../cli/build';
import { LspClient, REPO } from '../lsp/rpcClient';
import { hostileCases } from './hostileCases';

/** Any one answer (a request's, or a document's diagnostics); the goal is 1 s. */
const ANSWER_BOUND_MS = 5_000;
/** The server's peak resident memory over the whole suite; the goal is 500 MB. */
const PEAK_BOUND_MB = 1_000;
const LIMIT = 60_000; // how long a test waits for an answer before it calls it a stall

function peakMb(pid: number): number {
  const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function timed<T>(what: string, run: () => Promise<T>, bound = ANSWER_BOUND_MS): Promise<T> {
  const t = performance.now();
  const value = await run();
  const ms = performance.now() - t;
  assert.ok(ms < bound, `${what}: ${ms.toFixed(0)} ms (bound ${bound} ms)`);
  return value;
}

describe('language server against hostile input (stdio)', () => {
  let server: LspClient;
  let dir: string;
  let version = 1;

  before(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'proxy-tuner-hostile-'));
    server = new LspClient();
    await server.initialize();
  });

  after(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Opens a document and waits for its diagnostics, within the bound. */
  async function open(uri: string, languageId: string, text: string, bound = ANSWER_BOUND_MS): Promise<any[]> {
    const v = ++version;
    return timed(
      `diagnostics of ${uri}`,
      () => {
        server.notify('textDocument/didOpen', { textDocument: { uri, languageId, version: v, text } });
        return server.diagnosticsFor(uri, v, LIMIT);
      },
      bound,
    );
  }

  async function hover(uri: string, line: number, character: number): Promise<unknown> {
    const answer = await timed(`hover on ${uri}`, () =>
      server.requestRaw('textDocument/hover', { textDocument: { uri }, position: { line, character } }, LIMIT),
    );
    assert.equal(answer.error, undefined);
    return answer.result;
  }

  it('a catastrophic regex in an origin check: diagnostics and answers at once, in the server and in `proxy-tuner check`', async () => {
    const text = [
      'events {}',
      'http {',
      '  server {',
      '    listen 8080;',
      '    if ($http_origin ~ "^https://(([a-z0-9.]+)+)+example\\.com$") {',
      '      return 204;',
      '    }',
      '    if ($http_referer ~* "^(a|aa)+$") { return 403; }',
      '    valid_referers none ~^(([a-z]+)*)*\\.example\\.com$;',
      '  }',
      '}',
      '',
    ].join('\n');
    const file = join(dir, 'redos', 'redos.conf');
    mkdirSync(join(dir, 'redos'), { recursive: true });
    // the origin check is in the opt-in hardening group
    writeFileSync(join(dir, 'redos', '.proxy-tuner.json'), '{"lint": {"extendSelect": ["hardening"]}}\n');
    writeFileSync(file, text);
    const uri = pathToFileURL(file).href;
    const diagnostics = await open(uri, 'nginx', text);
    // the bypass is still found, by the linear-time matcher
    assert.ok(
      diagnostics.some((d) => d.code === 'nginx/origin-regex' && /passes it/.test(d.message)),
      JSON.stringify(diagnostics.map((d) => d.code)),
    );
    await hover(uri, 4, 6);
    const cli = await timed('proxy-tuner check', async () =>
      spawnSync(process.execPath, [join(REPO, 'dist', 'cli.js'), 'check', file], { encoding: 'utf8', timeout: LIMIT }),
    );
    assert.equal(cli.signal, null, 'check was not killed');
    assert.match(cli.stdout, /nginx\/origin-regex/);
  });

  it('malformed transport headers cost one message each: the server keeps answering', async () => {
    const junk = [
      'X-Foo: 1\r\n\r\n{"jsonrpc":"2.0","id":99999,"method":"shutdown"}',
      'Content-Length: abc\r\n\r\n{}',
      'Content-Length: -5\r\n\r\n{}',
      'Content-Length: 1.5\r\n\r\n{}',
      'a header line without a colon\r\n\r\n{}',
      'Content-Length: 99999999999999\r\n\r\n{}',
      'Content-Length 5\n'.repeat(2000),
      '\r\n\r\n',
    ];
    const uri = 'file:///tmp/proxy-tuner-hostile/framing.conf';
    await open(uri, 'nginx', 'events {}\nhttp {\n  server {\n    listen 8080;\n  }\n}\n');
    for (const bytes of junk) {
      server.writeRaw(bytes);
      const result = await hover(uri, 3, 5);
      assert.match(JSON.stringify(result), /listen/i, `a real answer after ${JSON.stringify(bytes.slice(0, 40))}`);
    }
    assert.equal(server.hasExited, false);
  });

  it('a document with a million findings publishes its cap plus one summary; the cap is a setting', async () => {
    // 100,000 lines is the large-document bound: 50,000 unknown directives stay under it
    const text = 'events {}\n' + 'bogus_directive_x on;\n'.repeat(50_000);
    const uri = 'file:///tmp/proxy-tuner-hostile/many.conf';
    const diagnostics = await open(uri, 'nginx', text);
    assert.equal(diagnostics.length, 1001);
    const summary = diagnostics.find((d) => d.code === 'nginx/diagnostics-capped');
    assert.ok(summary, 'one summary diagnostic');
    assert.match(summary.message, /more diagnostics are not shown/);
    assert.ok(diagnostics.filter((d) => d.severity === 1).length >= 1000, 'the errors are the ones kept');
    server.notify('textDocument/didClose', { textDocument: { uri } });
    // a smaller cap, pushed as a configuration change
    const capped = new LspClient();
    try {
      capped.onServerRequest = (m) =>
        m.method === 'workspace/configuration' ? (m.params?.items ?? []).map(() => ({ diagnostics: { maxPerDocument: 10 } })) : null;
      await capped.initialize();
      capped.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'nginx', version: 1, text } });
      const few = await capped.diagnosticsFor(uri, 1, LIMIT);
      assert.equal(few.length, 11);
    } finally {
      await capped.stop();
    }
  });

  for (const c of hostileCases()) {
    it(`${c.name}: diagnostics and every request within the bound`, async () => {
      await open(c.uri, c.lang, c.text, c.diagnosticsBoundMs);
      for (const [method, params] of c.requests) {
        const answer = await timed(`${method} on ${c.name}`, () => server.requestRaw(method, params, LIMIT));
        assert.ok(answer.error === undefined || answer.error.code !== -32603, `${method}: ${JSON.stringify(answer.error)}`);
        if (method === 'textDocument/completion' && answer.result) {
          // at most 1,000 items; the ones that fit what is typed, the rest asked for as the user types
          const items = answer.result.items ?? answer.result;
          assert.ok(items.length <= 1000, `${items.length} completion items`);
          if (c.name === 'haproxy-30k-backends') {
            assert.equal(answer.result.isIncomplete, true);
            assert.ok(items.some((i: { label: string }) => i.label === 'b1'));
            assert.ok(
              items.every((i: { label: string }) => /b.*1/.test(i.label)),
              'only names that fit "b1"',
            );
          }
        }
      }
      server.notify('textDocument/didClose', { textDocument: { uri: c.uri } });
      const peak = peakMb(server.proc.pid!);
      assert.ok(peak < PEAK_BOUND_MB, `peak ${peak.toFixed(0)} MB after ${c.name}`);
    });
  }

  it('includes of /dev/zero, a FIFO and /proc/self/environ through links: nothing hangs, grows or is read', async () => {
    const ws = join(dir, 'ws');
    mkdirSync(ws);
    symlinkSync('/dev/zero', join(ws, 'zero.conf'));
    symlinkSync('/proc/self/environ', join(ws, 'env.conf'));
    execFileSync('mkfifo', [join(ws, 'fifo.conf')]);
    const main = join(ws, 'nginx.conf');
    const text = 'events {}\nhttp {\n  include zero.conf;\n  include fifo.conf;\n  include env.conf;\n  include *.conf;\n}\n';
    writeFileSync(main, text);
    const uri = pathToFileURL(main).href;
    const diagnostics = await open(uri, 'nginx', text);
    const refused = diagnostics.filter((d) => d.code === 'nginx/include-limit');
    assert.equal(refused.length, 3, JSON.stringify(diagnostics.map((d) => d.message)));
    for (const [method, params] of [
      ['textDocument/documentLink', { textDocument: { uri } }],
      ['textDocument/definition', { textDocument: { uri }, position: { line: 2, character: 12 } }],
      ['textDocument/definition', { textDocument: { uri }, position: { line: 3, character: 12 } }],
      ['workspace/symbol', { query: '' }],
    ] as const) {
      const answer = await timed(method, () => server.requestRaw(method, params, LIMIT));
      assert.equal(answer.error, undefined);
      assert.doesNotMatch(JSON.stringify(answer.result), /PATH=|HOME=/, 'no environment in an answer');
    }
    // "Validate with nginx -t" on the hostile paths themselves, and on a device URI
    for (const target of [join(ws, 'zero.conf'), join(ws, 'fifo.conf'), join(ws, 'env.conf'), '/dev/zero', '/proc/self/environ']) {
      const answer = await timed(
        `validateWithBinary ${target}`,
        () => server.requestRaw('proxyTuner/validateWithBinary', { uri: pathToFileURL(target).href }, LIMIT),
        15_000,
      );
      assert.equal(answer.error, undefined);
      assert.notEqual(answer.result?.status, 'ok', JSON.stringify(answer.result));
      assert.doesNotMatch(JSON.stringify(answer.result), /PATH=|HOME=/);
    }
    const peak = peakMb(server.proc.pid!);
    assert.ok(peak < PEAK_BOUND_MB, `peak ${peak.toFixed(0)} MB`);
    // the same tree through `proxy-tuner check`
    const cli = await timed('proxy-tuner check', async () =>
      spawnSync(process.execPath, [join(REPO, 'dist', 'cli.js'), 'check', main], { encoding: 'utf8', timeout: LIMIT, cwd: ws }),
    );
    assert.equal(cli.signal, null, 'check was not killed');
    assert.equal((cli.stdout.match(/nginx\/include-limit/g) ?? []).length, 3, cli.stdout + cli.stderr);
    assert.doesNotMatch(cli.stdout + cli.stderr, /PATH=|HOME=/);
  });

  it('is the same process throughout, within its memory bound', () => {
    assert.equal(server.hasExited, false, server.stderr.slice(-2000));
    const peak = peakMb(server.proc.pid!);
    console.log(`[hostile] server peak ${peak.toFixed(0)} MB (bound ${PEAK_BOUND_MB} MB)`);
    assert.ok(peak < PEAK_BOUND_MB);
    assert.deepEqual(server.protocolErrors, []);
  });
});
