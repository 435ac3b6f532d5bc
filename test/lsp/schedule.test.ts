// The validation schedule of the language server (server/src/lsp/schedule.ts, driven by server.ts), seen from a client:
// a burst of edits ends with the diagnostics of its last version, publications never go back
// to an older version, edits made while a validation waits for the client's settings give one
// follow-up run of the newest version, a document closed meanwhile gets nothing late, and the
// warm-up after open publishes nothing of its own.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureBuilt } from '../cli/build';
import { LspClient, type RpcMessage } from './rpcClient';

let dir: string;
let folders = 0;

/** A uri in a folder of its own, so that no two test documents are loaded together. */
function uriOf(name: string): string {
  const folder = join(dir, `case-${++folders}`);
  mkdirSync(folder, { recursive: true });
  return pathToFileURL(join(folder, name)).href;
}

const CONFIG = 'http {\n    server {\n        listen 80;\n        \n    }\n}\n';
/** The blank line inside the server block, where the edits type (from character 8). */
const TYPING_LINE = 3;
const TYPED = 'bogus_directive on;';

function publications(server: LspClient, uri: string): RpcMessage['params'][] {
  return server.notifications.filter((m) => m.method === 'textDocument/publishDiagnostics' && m.params?.uri === uri).map((m) => m.params);
}

function insert(server: LspClient, uri: string, version: number, character: number, text: string): void {
  server.notify('textDocument/didChange', {
    textDocument: { uri, version },
    contentChanges: [{ range: { start: { line: TYPING_LINE, character }, end: { line: TYPING_LINE, character } }, text }],
  });
}

function erase(server: LspClient, uri: string, version: number, character: number): void {
  server.notify('textDocument/didChange', {
    textDocument: { uri, version },
    contentChanges: [
      { range: { start: { line: TYPING_LINE, character: character - 1 }, end: { line: TYPING_LINE, character } }, text: '' },
    ],
  });
}

/** Diagnostics as comparable text (the same problems at the same places). */
function summary(diagnostics: any[]): string[] {
  return diagnostics
    .map((d) => `${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character} ${d.code} ${d.message}`)
    .sort();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Holds the answers to workspace/configuration until `release()`. */
function holdConfiguration(server: LspClient): { release: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  server.onServerRequest = (m) =>
    m.method === 'workspace/configuration' ? gate.then(() => (m.params?.items ?? []).map(() => null)) : null;
  return { release };
}

async function configurationAskedFor(server: LspClient, uri: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (
      server.serverRequests.some((m) => m.method === 'workspace/configuration' && m.params?.items?.some((it: any) => it.scopeUri === uri))
    )
      return;
    await sleep(10);
  }
  throw new Error(`the server never asked for the settings of ${uri}`);
}

describe('validation schedule (language server over stdio)', () => {
  before(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'proxy-tuner-schedule-'));
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('publishes the diagnostics of the last version of a burst of edits, describing its text', async () => {
    const server = new LspClient();
    try {
      await server.initialize();
      const uri = uriOf('nginx.conf');
      server.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'nginx', version: 1, text: CONFIG } });
      const clean = await server.diagnosticsFor(uri, 1);
      assert.ok(!clean.some((d) => d.code === 'nginx/unknown-directive'), JSON.stringify(clean));
      let version = 1;
      for (let i = 0; i < TYPED.length; i++) insert(server, uri, ++version, 8 + i, TYPED[i]);
      const last = await server.diagnosticsFor(uri, version);
      const unknown = last.filter((d) => d.code === 'nginx/unknown-directive');
      assert.equal(unknown.length, 1, JSON.stringify(last));
      assert.deepEqual(unknown[0].range, {
        start: { line: TYPING_LINE, character: 8 },
        end: { line: TYPING_LINE, character: 8 + 'bogus_directive'.length },
      });
      assert.match(unknown[0].message, /bogus_directive/);
      const versions = publications(server, uri).map((p) => p.version);
      assert.deepEqual(
        versions,
        [...versions].sort((a, b) => a - b),
        `publications out of order: ${versions}`,
      );
    } finally {
      await server.stop();
    }
  });

  it('never publishes an older version after a newer one, and ends where a fresh open of the same text does', async () => {
    const server = new LspClient();
    try {
      await server.initialize();
      const uri = uriOf('nginx.conf');
      server.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'nginx', version: 1, text: CONFIG } });
      await server.diagnosticsFor(uri, 1);
      // bursts of typing and erasing with pauses of different lengths between them
      let version = 1;
      let typed = 0;
      const pauses = [0, 3, 0, 15, 1, 40, 0, 8, 0, 70, 2, 0];
      for (let burst = 0; burst < pauses.length; burst++) {
        const n = 3 + ((burst * 7) % 11);
        for (let k = 0; k < n; k++) {
          const wanted = (burst + k) % 3 !== 0;
          const typing = wanted ? typed < TYPED.length : typed === 0;
          if (typing) insert(server, uri, ++version, 8 + typed, TYPED[typed++]);
          else erase(server, uri, ++version, 8 + typed--);
        }
        await sleep(pauses[burst]);
      }
      const last = await server.diagnosticsFor(uri, version);
      const versions = publications(server, uri).map((p) => p.version);
      for (let i = 1; i < versions.length; i++)
        assert.ok(versions[i] >= versions[i - 1], `version ${versions[i]} published after ${versions[i - 1]}: ${versions}`);
      assert.equal(versions[versions.length - 1], version);

      // the same text opened fresh (elsewhere) gives the same diagnostics
      const lines = CONFIG.split('\n');
      lines[TYPING_LINE] = `        ${TYPED.slice(0, typed)}`;
      const fresh = uriOf('nginx.conf');
      server.notify('textDocument/didOpen', { textDocument: { uri: fresh, languageId: 'nginx', version: 1, text: lines.join('\n') } });
      assert.deepEqual(summary(last), summary(await server.diagnosticsFor(fresh, 1)));
    } finally {
      await server.stop();
    }
  });

  it('turns edits made while a validation waits for the settings into one run of the newest version', async () => {
    const server = new LspClient();
    try {
      const held = holdConfiguration(server);
      await server.initialize();
      const uri = uriOf('nginx.conf');
      server.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'nginx', version: 1, text: CONFIG } });
      await configurationAskedFor(server, uri);
      let version = 1;
      for (let i = 0; i < TYPED.length; i++) insert(server, uri, ++version, 8 + i, TYPED[i]);
      // the edits have been applied once the server answers a request sent after them
      await server.request('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 1 } });
      assert.deepEqual(publications(server, uri), [], 'published while the settings were not known');
      held.release();
      const last = await server.diagnosticsFor(uri, version);
      assert.equal(last.filter((d) => d.code === 'nginx/unknown-directive').length, 1, JSON.stringify(last));
      await server.request('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 1 } });
      assert.deepEqual(
        publications(server, uri).map((p) => p.version),
        [version],
        'the version opened was no longer current when its settings came: only the newest is published',
      );
    } finally {
      await server.stop();
    }
  });

  it('warms up after open without publishing anything of its own, and gives way to edits', async () => {
    const server = new LspClient();
    try {
      await server.initialize();
      const uri = uriOf('nginx.conf');
      const maps = Array.from({ length: 40 }, (_, i) => `    map $host $v${i} { default 1; }\n`).join('');
      const text = CONFIG.replace('    server {', `${maps}    server {`);
      server.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'nginx', version: 1, text } });
      await server.diagnosticsFor(uri, 1);
      // the warm-up runs (every 20 ms, a few of them) happen while the document rests
      await sleep(400);
      await server.request('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 1 } });
      assert.deepEqual(
        publications(server, uri).map((p) => p.version),
        [1],
        'the warm-up published something',
      );
      // typing right away on a second document, while its warm-up would run, is not held up
      const other = uriOf('haproxy.cfg');
      server.notify('textDocument/didOpen', {
        textDocument: { uri: other, languageId: 'haproxy', version: 1, text: 'defaults\n    mode http\n' },
      });
      await server.diagnosticsFor(other, 1);
      server.notify('textDocument/didChange', {
        textDocument: { uri: other, version: 2 },
        contentChanges: [{ text: 'defaults\n    mode http\n    bogus_keyword on\n' }],
      });
      const edited = await server.diagnosticsFor(other, 2);
      assert.ok(
        edited.some((d) => /bogus_keyword/.test(d.message)),
        JSON.stringify(edited),
      );
      await sleep(200);
      await server.request('textDocument/hover', { textDocument: { uri: other }, position: { line: 0, character: 1 } });
      assert.deepEqual(
        publications(server, other).map((p) => p.version),
        [1, 2],
      );
    } finally {
      await server.stop();
    }
  });

  it('publishes nothing for a document closed while its validation waited', async () => {
    const server = new LspClient();
    try {
      const held = holdConfiguration(server);
      await server.initialize();
      const closed = uriOf('nginx.conf');
      server.notify('textDocument/didOpen', {
        textDocument: { uri: closed, languageId: 'nginx', version: 1, text: CONFIG.replace('\n        \n', `\n        ${TYPED}\n`) },
      });
      await configurationAskedFor(server, closed);
      server.notify('textDocument/didClose', { textDocument: { uri: closed } });
      held.release();
      // a document opened after the close is validated after anything the closed one had pending
      const other = uriOf('nginx.conf');
      server.notify('textDocument/didOpen', { textDocument: { uri: other, languageId: 'nginx', version: 1, text: CONFIG } });
      await server.diagnosticsFor(other, 1);
      await server.request('textDocument/hover', { textDocument: { uri: other }, position: { line: 0, character: 1 } });
      assert.deepEqual(publications(server, closed), [{ uri: closed, diagnostics: [] }], 'only the clearing on close');
    } finally {
      await server.stop();
    }
  });
});
