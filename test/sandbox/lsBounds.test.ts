// The language server's bounds against hostile documents (issue 16): includes of /proc and of
// the whole disk, 5 MB and 20 MB documents, symbolic links out of the workspace. Each case
// asserts that every request is answered within a bound and that the server's peak memory
// (VmHWM) stays bounded, and prints the measured times (the suite's table in docs/sandbox.md).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LspClient } from '../lsp/rpcClient';
import * as service from '../../server/src/service/languageService';
import { isLoopbackAddress } from '../../server/src/runner/sandbox/common';
import { nodeFileSystem } from '../../server/src/host/nodeHost';

/** Answers within this many ms (the issue's bound is 1 s; CI machines are shared and slower). */
const ANSWER_MS = Number(process.env.PROXY_TUNER_LS_BOUND_MS ?? 1000) * 2;
/** Peak resident memory of the server, MB. */
const PEAK_MB = 900;

function peakMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
  return m ? Math.round(Number(m[1]) / 1024) : 0;
}

const results: { name: string; ms: Record<string, number>; peakMb: number }[] = [];

async function timed(server: LspClient, method: string, params: unknown): Promise<{ ms: number; result: unknown }> {
  const t = performance.now();
  const m = await server.requestRaw(method, params, 30_000);
  return { ms: Math.round(performance.now() - t), result: m.result };
}

describe('language server bounds', () => {
  let server: LspClient;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pt-lsbounds-'));
    server = new LspClient();
    await server.initialize();
  });
  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
    for (const r of results)
      console.log(
        `# LS ${r.name}: ${Object.entries(r.ms)
          .map(([k, v]) => `${k} ${v} ms`)
          .join(', ')}; server peak RSS ${r.peakMb} MB`,
      );
  });

  const open = (name: string, text: string, languageId = 'nginx') => {
    const file = join(dir, name);
    writeFileSync(file, text);
    const uri = pathToFileURL(file).href;
    server.notify('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
    return uri;
  };
  const requests = (uri: string) =>
    [
      ['documentLink', 'textDocument/documentLink', { textDocument: { uri } }],
      ['hover', 'textDocument/hover', { textDocument: { uri }, position: { line: 1, character: 4 } }],
      ['completion', 'textDocument/completion', { textDocument: { uri }, position: { line: 1, character: 2 } }],
      ['documentSymbol', 'textDocument/documentSymbol', { textDocument: { uri } }],
      ['foldingRange', 'textDocument/foldingRange', { textDocument: { uri } }],
    ] as const;

  async function assertAnswers(name: string, uri: string, bound = ANSWER_MS) {
    const ms: Record<string, number> = {};
    for (const [label, method, params] of requests(uri)) {
      const r = await timed(server, method, params);
      ms[label] = r.ms;
      assert.ok(r.ms <= bound, `${name}: ${label} answered in ${r.ms} ms (bound ${bound} ms)`);
    }
    const peak = peakMb(server.proc.pid!);
    results.push({ name, ms, peakMb: peak });
    assert.ok(peak < PEAK_MB, `${name}: server peak RSS ${peak} MB`);
    return ms;
  }

  it('include /proc/self/*: nothing under /proc is read, a diagnostic says so, requests answered', async () => {
    const uri = open('proc.conf', 'events {}\nhttp {\n    include /proc/self/*;\n}\n');
    const diags = await server.diagnosticsFor(uri, 1, 20_000);
    assert.ok(
      diags.some((d) => d.code === 'nginx/include-limit'),
      JSON.stringify(diags.map((d) => d.code)),
    );
    const links = await timed(server, 'textDocument/documentLink', { textDocument: { uri } });
    assert.deepEqual(links.result, [], 'no link into /proc');
    await assertAnswers('include /proc/self/*', uri);
  });

  it('include /**/*: the glob is bounded (files and bytes per include), requests answered', async () => {
    const uri = open('all.conf', 'events {}\nhttp {\n    include /**/*;\n}\n');
    const t = performance.now();
    await server.diagnosticsFor(uri, 1, 30_000);
    const firstMs = Math.round(performance.now() - t);
    const ms = await assertAnswers('include /**/*', uri);
    results[results.length - 1].ms.firstDiagnostics = firstMs;
    assert.ok(firstMs < 15_000, `first diagnostics after ${firstMs} ms`);
    void ms;
  });

  it('a 5 MB document: syntax check and a notice; hover answered at once', async () => {
    let text = 'events {}\nhttp {\n';
    const block = '    server { listen 80; server_name a.example.com; location / { proxy_pass http://127.0.0.1:8080; } }\n';
    while (text.length < 5 * 1024 * 1024) text += block;
    text += '    server {\n'; // left open: the syntax check reports it
    const uri = open('big5.conf', text);
    const diags = await server.diagnosticsFor(uri, 1, 30_000);
    assert.ok(
      diags.some((d) => d.code === 'nginx/large-document'),
      'notice',
    );
    assert.ok(
      diags.some((d) => /never closed/.test(d.message)),
      'the open block is reported',
    );
    await assertAnswers('5 MB document', uri);
  });

  it('a 20 MB document: every request answered within the bound, memory bounded', async () => {
    let h = 'global\n    maxconn 100\n';
    const b = 'backend b\n    server s1 127.0.0.1:80 check "unterminated\n';
    while (h.length < 20 * 1024 * 1024) h += b;
    const uri = open('big20.haproxy.cfg', h, 'haproxy');
    const diags = await server.diagnosticsFor(uri, 1, 60_000);
    assert.ok(diags.some((d) => d.code === 'haproxy/large-document'));
    assert.ok(diags.length <= 101, 'bounded report');
    await assertAnswers('20 MB document', uri);
    // an edit of it is answered the same way
    server.notify('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '# x\n' }],
    });
    await server.diagnosticsFor(uri, 2, 60_000);
    await assertAnswers('20 MB document after an edit', uri);
  });
});

describe('workspace index: symbolic links out of the workspace', () => {
  it('a link to a folder and to a file outside are not followed unless the setting allows', () => {
    const root = mkdtempSync(join(tmpdir(), 'pt-ws-'));
    const outside = mkdtempSync(join(tmpdir(), 'pt-outside-'));
    try {
      writeFileSync(join(outside, 'secret.conf'), 'upstream secret_upstream { server 127.0.0.1:1; }\n');
      mkdirSync(join(root, 'conf'));
      writeFileSync(join(root, 'conf', 'nginx.conf'), 'events {}\nhttp {\n    include linked/*.conf;\n    include one.conf;\n}\n');
      symlinkSync(outside, join(root, 'conf', 'linked'));
      symlinkSync(join(outside, 'secret.conf'), join(root, 'conf', 'one.conf'));
      const idx = service.createWorkspaceIndex({ fs: nodeFileSystem, roots: [root] });
      const uri = pathToFileURL(join(root, 'conf', 'nginx.conf')).href;
      const unit = idx.unitOf(uri);
      assert.deepEqual(
        unit.files.map((f) => f.path),
        [join(root, 'conf', 'nginx.conf')],
        'links out of the workspace are not read',
      );
      assert.ok(
        !idx.workspaceFiles().some((f) => f.path.startsWith(join(root, 'conf', 'linked'))),
        'the scan does not enter a linked folder',
      );
      idx.setFollowSymlinks(true);
      const unit2 = idx.unitOf(uri);
      assert.equal(unit2.files.length, 2, 'with proxyTuner.workspace.followSymlinks the link is followed');
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('`resolver localhost.` is loopback for the sandbox', () => {
    assert.ok(isLoopbackAddress('localhost.'));
    assert.ok(!isLoopbackAddress('localhost.example.com'));
  });
});
