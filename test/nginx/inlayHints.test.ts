// Inlay hints for nginx's effective defaults, checked against what the real binaries do on both
// sides of the 1.29.7 bound (1.22.1 and 1.26.3 before it, 1.30.6 after): nginx runs on loopback
// in front of a Node backend that records each request's HTTP version and the connection it came
// on, so the hint's `proxy_http_version` and the upstream's implicit keep-alive are what the
// backend saw; the worker processes are counted in /proc.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, get, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import * as service from '../../server/src/service/languageService';
import type { ServiceSettings } from '../../server/src/core/types';
import { matrixBinaries, tempDir } from '../snippets/helpers';

function hints(text: string, settings: ServiceSettings) {
  const doc = TextDocument.create('file:///n.conf', 'nginx', 1, text);
  const end = doc.positionAt(text.length);
  return service.inlayHints(doc, 'nginx', { start: { line: 0, character: 0 }, end }, settings).map((h) => ({
    line: h.position.line,
    character: h.position.character,
    label: typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join(''),
  }));
}

describe('nginx inlay hints (pure)', () => {
  const conf = [
    'events {}', // 0
    'http {', // 1
    '    upstream up { server 127.0.0.1:1; }', // 2
    '    upstream kept { server 127.0.0.1:1; keepalive 8; }', // 3
    '    server {', // 4
    '        location /a/ { proxy_pass http://up; }', // 5
    '        location /b/ { proxy_http_version 1.1; proxy_pass http://up; }', // 6
    '    }', // 7
    '    server {', // 8
    '        proxy_http_version 1.0;', // 9
    '        location /c/ { location /c/d/ { proxy_pass http://kept; } }', // 10
    '    }', // 11
    '}', // 12
    'stream { upstream s { server 127.0.0.1:1; } server { listen 1; proxy_pass s; } }', // 13
  ].join('\n');

  it('before 1.29.7: no implicit keep-alive, HTTP/1.0 where proxy_http_version is not written, one worker', () => {
    assert.deepEqual(hints(conf, { nginxVersion: '1.26.3' }), [
      { line: 0, character: 0, label: 'worker_processes 1;' },
      { line: 5, character: 44, label: 'proxy_http_version 1.0' },
    ]);
  });

  it('from 1.29.7 (and with no target: the newest): the upstream without keepalive keeps connections, HTTP/1.1', () => {
    for (const v of ['1.29.7', '1.30.6', undefined]) {
      assert.deepEqual(hints(conf, { nginxVersion: v }), [
        { line: 0, character: 0, label: 'worker_processes 1;' },
        { line: 2, character: 17, label: 'keepalive 32 local' },
        { line: 5, character: 44, label: 'proxy_http_version 1.1' },
      ]);
    }
  });

  it('no worker hint with worker_processes written or in a fragment; none at all when the setting is off; only in the range', () => {
    assert.deepEqual(hints('worker_processes auto;\nevents {}\n', {}), []);
    assert.deepEqual(
      hints('server { location / { proxy_pass http://127.0.0.1:1; } }\n', { nginxVersion: '1.22.1' }).map((h) => h.label),
      ['proxy_http_version 1.0'],
    );
    assert.deepEqual(hints(conf, { inlayHintsDefaults: false }), []);
    const doc = TextDocument.create('file:///n.conf', 'nginx', 1, conf);
    const only5 = service.inlayHints(doc, 'nginx', { start: { line: 5, character: 0 }, end: { line: 5, character: 99 } }, {});
    assert.deepEqual(
      only5.map((h) => h.position.line),
      [5],
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The real binaries.

interface Seen {
  path: string;
  httpVersion: string;
  connection: number;
}

async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

function fetchOnce(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path, agent: false, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

/** Child processes of `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

async function waitFor(what: string, cond: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const bins = matrixBinaries('nginx', ['1.22', '1.26', '1.30']);

describe('nginx inlay hints against the real binaries', { skip: !bins.length && 'no nginx binaries' }, () => {
  let backend: Server;
  let backendPort = 0;
  const seen: Seen[] = [];
  let connections = 0;

  before(async () => {
    backend = createServer((req, res) => {
      seen.push({ path: req.url ?? '', httpVersion: req.httpVersion, connection: (req.socket as unknown as { ptId: number }).ptId });
      res.end('ok');
    });
    backend.on('connection', (sock) => {
      (sock as unknown as { ptId: number }).ptId = ++connections;
    });
    backend.keepAliveTimeout = 30_000;
    await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
    backendPort = (backend.address() as AddressInfo).port;
  });

  after(async () => {
    backend.closeAllConnections();
    await new Promise((r) => backend.close(r));
  });

  for (const bin of bins) {
    it(`nginx ${bin.version}: the backend sees what the hints say`, async () => {
      const dir = tempDir('hints');
      const port = await freePort();
      const conf = [
        `pid ${dir}/nginx.pid;`,
        `error_log ${dir}/error.log;`,
        'daemon off;',
        'events {}',
        'http {',
        '    access_log off;',
        `    upstream up { server 127.0.0.1:${backendPort}; }`,
        '    server {',
        `        listen 127.0.0.1:${port};`,
        '        location /up/ { proxy_pass http://up; }',
        '        location /up2/ { proxy_pass http://up; }',
        `        location /lit/ { proxy_pass http://127.0.0.1:${backendPort}; }`,
        '    }',
        '}',
        '',
      ].join('\n');
      writeFileSync(join(dir, 'nginx.conf'), conf);
      let child: ChildProcess | undefined;
      try {
        child = spawn(bin.path, ['-p', `${dir}/`, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
          detached: true,
          stdio: 'ignore',
        });
        await waitFor('nginx to write its pid', () => existsSync(join(dir, 'nginx.pid')));
        const master = Number(readFileSync(join(dir, 'nginx.pid'), 'utf8').trim());
        // up when the port answers (bounded: 100 tries, 50 ms apart)
        let ok = false;
        for (let i = 0; i < 100 && !ok; i++) {
          ok = await fetchOnce(port, '/up/probe').then(
            (s) => s === 200,
            () => false,
          );
          if (!ok) await new Promise((r) => setTimeout(r, 50));
        }
        assert.ok(
          ok,
          `nginx ${bin.version} answers:\n${existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : ''}`,
        );
        // a fresh backend connection count for the measured requests
        for (const s of seen) s.connection = -1;
        seen.length = 0;
        const before = connections;
        for (let i = 0; i < 3; i++) assert.equal(await fetchOnce(port, `/up/${i}`), 200);
        const upConns = new Set(seen.filter((s) => s.path.startsWith('/up/')).map((s) => s.connection)).size;
        for (let i = 0; i < 3; i++) assert.equal(await fetchOnce(port, `/lit/${i}`), 200);
        const litConns = new Set(seen.filter((s) => s.path.startsWith('/lit/')).map((s) => s.connection)).size;
        const versions = [...new Set(seen.map((s) => s.httpVersion))];
        // `local`: a connection cached by one location is not reused by another
        seen.length = 0;
        for (const p of ['/up/a', '/up2/a', '/up/b', '/up2/b']) assert.equal(await fetchOnce(port, p), 200);
        const byLocation = (prefix: string) => new Set(seen.filter((s) => s.path.startsWith(prefix)).map((s) => s.connection));
        const shared = [...byLocation('/up/')].some((c) => byLocation('/up2/').has(c));

        const workers = childrenOf(master).length;
        assert.ok(connections > before);

        const h = hints(conf, { nginxVersion: bin.version });
        const label = (l: RegExp) => h.filter((x) => l.test(x.label)).map((x) => x.label);
        // proxy_http_version: the hint on each of the three proxy_pass lines is what the backend saw
        assert.deepEqual(
          label(/^proxy_http_version/),
          Array(3).fill(`proxy_http_version ${versions[0]}`),
          `backend saw HTTP/${versions.join(',')}`,
        );
        assert.equal(versions.length, 1);
        // the upstream's implicit keep-alive: hinted exactly when the three requests shared one connection
        const reused = upConns === 1;
        assert.equal(
          label(/^keepalive/).length === 1,
          reused,
          `upstream: ${upConns} connections for 3 requests; hints ${JSON.stringify(h)}`,
        );
        if (!reused) assert.equal(upConns, 3);
        // a literal proxy_pass never keeps connections (no upstream block, no cache)
        assert.equal(litConns, 3, `proxy_pass to a literal address: ${litConns} connections for 3 requests`);
        // the worker count
        assert.deepEqual(label(/^worker_processes/), [`worker_processes ${workers};`]);
        assert.equal(workers, 1);
        // what each side of the bound does
        const modern = bin.version.startsWith('1.30');
        assert.equal(versions[0], modern ? '1.1' : '1.0');
        assert.equal(reused, modern);
        if (modern) {
          assert.equal(shared, false, 'from 1.29.7 the implicit cache is per location (`local`)');
          assert.equal(byLocation('/up/').size, 1);
          assert.equal(byLocation('/up2/').size, 1);
        }
      } finally {
        if (child?.pid) {
          try {
            process.kill(-child.pid, 'SIGTERM');
          } catch {
            // already gone
          }
          await new Promise((r) => (child!.exitCode !== null || child!.signalCode !== null ? r(null) : child!.once('exit', r)));
        }
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
