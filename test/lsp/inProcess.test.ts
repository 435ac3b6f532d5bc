// The language server started in-process (`startServer(connection, host)`), over a pair of
// in-memory streams, with a fake host: the files not open come from an in-memory file system,
// the local version and machine facts from fixed probes, "Validate with nginx -t" from a fake
// runner. Nothing here touches the disk or starts a process; test/lsp/server.test.ts holds the
// bundled server over stdio.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import {
  StreamMessageReader,
  StreamMessageWriter,
  createConnection,
  createMessageConnection,
  type MessageConnection,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver/node';
import { startServer, type ServerHost } from '../../server/src/lsp/server';
import type { BinaryCheckRequest, FileSystem } from '../../server/src/service/host';
import { VALIDATE_WITH_BINARY_REQUEST, type ValidateWithBinaryResult } from '../../protocol/binaryCheck';

/** Files by absolute path; folders are what the paths imply. */
function memoryFs(files: Record<string, string>): FileSystem & { reads: string[] } {
  const reads: string[] = [];
  const dirs = new Map<string, Set<string>>();
  for (const p of Object.keys(files)) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/') || '/';
      if (!dirs.has(dir)) dirs.set(dir, new Set());
      dirs.get(dir)!.add(parts[i]);
    }
  }
  return {
    reads,
    readFile: (p) => {
      reads.push(p);
      return files[p];
    },
    stat: (p) =>
      p in files
        ? { mtimeMs: 1, size: files[p].length, isFile: true, isDirectory: false }
        : dirs.has(p)
          ? { mtimeMs: 1, size: 0, isFile: false, isDirectory: true }
          : undefined,
    readDir: (p) => (dirs.has(p) ? [...dirs.get(p)!] : undefined),
    realpath: (p) => p,
  };
}

const FILES: Record<string, string> = {
  '/srv/etc/nginx/nginx.conf': 'events {}\nhttp {\n    include conf.d/*.conf;\n}\n',
  '/srv/etc/nginx/conf.d/upstreams.conf': 'upstream app {\n    server 127.0.0.1:8080;\n    keepalive 8;\n}\n',
  '/srv/etc/nginx/conf.d/site.conf':
    'server {\n    listen 127.0.0.1:8443;\n    http2 on;\n    location / {\n        proxy_pass http://app;\n        proxy_http_version 1.1;\n        proxy_set_header Connection "";\n    }\n    location /x {\n        proxy_pass http://nowhere;\n    }\n}\n',
};
const SITE = 'file:///srv/etc/nginx/conf.d/site.conf';

interface Started {
  client: MessageConnection;
  fs: ReturnType<typeof memoryFs>;
  checks: BinaryCheckRequest[];
  diagnostics: Map<string, PublishDiagnosticsParams[]>;
  logs: string[];
  waitFor(uri: string, pred: (p: PublishDiagnosticsParams) => boolean): Promise<PublishDiagnosticsParams>;
  stop(): void;
}

async function start(localNginx: string): Promise<Started> {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const fs = memoryFs(FILES);
  const checks: BinaryCheckRequest[] = [];
  const host: ServerHost = {
    fs,
    probe: {
      version: (lang) => (lang === 'nginx' ? localNginx : '2.6.12'),
      prefetchVersion: async () => undefined,
      hostFacts: () => ({ cpuCount: 2, somaxconn: 4096 }),
    },
    checkWithBinary: async (request) => {
      checks.push(request);
      return {
        kind: 'nginx',
        binary: '/fake/nginx',
        version: localNginx,
        status: 'error',
        messages: [{ severity: 'error', message: 'unknown directive "http2"', file: '/srv/etc/nginx/conf.d/site.conf', line: 3 }],
      };
    },
  };
  startServer(createConnection(new StreamMessageReader(toServer), new StreamMessageWriter(toClient)), host);
  const client = createMessageConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
  const diagnostics = new Map<string, PublishDiagnosticsParams[]>();
  const logs: string[] = [];
  const waiters: { uri: string; pred: (p: PublishDiagnosticsParams) => boolean; resolve: (p: PublishDiagnosticsParams) => void }[] = [];
  client.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
    diagnostics.set(p.uri, [...(diagnostics.get(p.uri) ?? []), p]);
    for (const w of waiters.filter((x) => x.uri === p.uri && x.pred(p))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(p);
    }
  });
  client.onNotification('window/logMessage', (p: { message: string }) => {
    logs.push(p.message);
  });
  client.listen();
  await client.sendRequest('initialize', {
    processId: null,
    rootUri: 'file:///srv/etc/nginx',
    capabilities: {},
    initializationOptions: {},
  });
  void client.sendNotification('initialized', {});
  return {
    client,
    fs,
    checks,
    diagnostics,
    logs,
    waitFor: (uri, pred) => {
      const hit = diagnostics.get(uri)?.find(pred);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no matching diagnostics for ${uri}; got ${JSON.stringify(diagnostics.get(uri))}`)),
          10_000,
        );
        waiters.push({ uri, pred, resolve: (p) => (clearTimeout(timer), resolve(p)) });
      });
    },
    stop: () => {
      client.dispose();
      toServer.end();
      toClient.end();
    },
  };
}

const codes = (p: PublishDiagnosticsParams) => p.diagnostics.map((d) => `${d.range.start.line}:${d.code}`).sort();

describe('language server in-process (startServer with a fake host)', () => {
  let old: Started;
  let current: Started;
  before(async () => {
    old = await start('1.22.1');
    current = await start('1.30.6');
  });
  after(() => {
    old?.stop();
    current?.stop();
  });

  it("publishes diagnostics of an opened document, judged at the host's local version and in the context of the include tree the fake disk holds", async () => {
    for (const s of [old, current]) {
      void s.client.sendNotification('textDocument/didOpen', {
        textDocument: { uri: SITE, languageId: 'nginx', version: 1, text: FILES['/srv/etc/nginx/conf.d/site.conf'] },
      });
    }
    const at122 = await old.waitFor(SITE, (p) => p.version === 1);
    const at130 = await current.waitFor(SITE, (p) => p.version === 1);
    // `http2 on;` is 1.25.1+: an error at the local 1.22.1, nothing at 1.30.6
    const http2 = (p: PublishDiagnosticsParams) => p.diagnostics.filter((d) => d.range.start.line === 2 && d.severity === 1);
    assert.equal(http2(at122).length, 1, JSON.stringify(at122.diagnostics));
    assert.equal(http2(at130).length, 0, JSON.stringify(at130.diagnostics));
    // `app` is defined in a file only the fake file system has (read through the include of nginx.conf); `nowhere` in none
    const undefinedRefs = at130.diagnostics.filter((d) => d.code === 'nginx/undefined-reference');
    assert.deepEqual(
      undefinedRefs.map((d) => d.range.start.line),
      [9],
      codes(at130).join(', '),
    );
    assert.ok(
      current.fs.reads.includes('/srv/etc/nginx/nginx.conf') && current.fs.reads.includes('/srv/etc/nginx/conf.d/upstreams.conf'),
      'read through the host file system',
    );
    assert.ok(
      current.logs.some((l) => l.includes('judging configs against nginx 1.30.6')),
      current.logs.join('\n'),
    );
  });

  it('an edit gives the diagnostics of the new version', async () => {
    void current.client.sendNotification('textDocument/didChange', {
      textDocument: { uri: SITE, version: 2 },
      contentChanges: [{ range: { start: { line: 9, character: 25 }, end: { line: 9, character: 32 } }, text: 'app' }],
    });
    const p = await current.waitFor(SITE, (x) => x.version === 2);
    assert.deepEqual(
      p.diagnostics.filter((d) => d.code === 'nginx/undefined-reference'),
      [],
    );
  });

  it('answers feature requests through the same connection', async () => {
    const hover = (await current.client.sendRequest('textDocument/hover', {
      textDocument: { uri: SITE },
      position: { line: 4, character: 10 },
    })) as { contents: unknown } | null;
    assert.match(JSON.stringify(hover?.contents), /proxy_pass/);
    const defs = (await current.client.sendRequest('textDocument/definition', {
      textDocument: { uri: SITE },
      position: { line: 4, character: 27 },
    })) as { uri: string }[];
    assert.deepEqual(
      defs.map((d) => d.uri),
      ['file:///srv/etc/nginx/conf.d/upstreams.conf'],
    );
  });

  it('runs "Validate with nginx -t" through the host runner and puts its messages on the lines they name', async () => {
    const result = (await old.client.sendRequest(VALIDATE_WITH_BINARY_REQUEST, { uri: SITE })) as ValidateWithBinaryResult;
    assert.deepEqual(old.checks, [{ configPath: '/srv/etc/nginx/conf.d/site.conf', kind: 'nginx', binary: undefined }]);
    assert.equal(result.status, 'error');
    assert.equal(result.errors, 1);
    const p = await old.waitFor(SITE, (x) => x.diagnostics.some((d) => d.source === 'nginx -t'));
    const d = p.diagnostics.find((x) => x.source === 'nginx -t')!;
    assert.deepEqual(d.range, { start: { line: 2, character: 4 }, end: { line: 2, character: 13 } });
  });

  it('clears the diagnostics of a closed document', async () => {
    void current.client.sendNotification('textDocument/didClose', { textDocument: { uri: SITE } });
    await current.waitFor(SITE, (p) => p.version === undefined && p.diagnostics.length === 0);
  });
});
