// nginx/header-injection against the real nginx on PATH (1.22.1 here): one config with a
// location per case, started on a loopback port in front of a loopback backend; each location
// gets a request with %0d%0a in its path, and the test holds our rule to what nginx did: the
// rule flags a location exactly when a client-chosen header came out (in the response, or in
// the request nginx sent upstream). Skipped when no nginx binary is installed.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { createServer, connect, type Server, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { parseNginx } from '../../server/src/languages/nginx/parser';
import { nginxTuning } from '../../server/src/service/tuning';
import { loadMatrix } from '../../server/src/runner/matrix';

const R = String.raw;
const pathNginx = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).stdout.trim();
/** Every nginx of the version matrix (1.22.1, 1.26.3, 1.30.6 where provisioned), else the one on PATH. */
const binaries: { version: string; path: string }[] = loadMatrix().filter((b) => b.product === 'nginx');
if (!binaries.length && pathNginx) binaries.push({ version: 'on PATH', path: pathNginx });

/** Each case: the URL prefix it is requested under and the location's text (UP is the backend port). */
const CASES: { prefix: string; location: string }[] = [
  { prefix: '/h/', location: 'location /h/ { add_header X-URI $uri; return 200 "ok"; }' },
  { prefix: '/c/', location: R`location ~ ^/c/(.*)$ { add_header X-C $1; return 200 "ok"; }` },
  { prefix: '/n/', location: R`location ~ ^/n/([^/]*)$ { add_header X-C $1; return 200 "ok"; }` },
  { prefix: '/w/', location: R`location ~ ^/w/(?<action>[^.]*)$ { add_header X-Action $action; return 200 "ok"; }` },
  { prefix: '/rw/', location: 'location /rw/ { rewrite ^ http://example.com$uri redirect; }' },
  { prefix: '/rn/', location: R`location /rn/ { rewrite ^/rn/([^/]*)$ http://example.com/$1 redirect; }` },
  { prefix: '/rq/', location: R`location /rq/ { rewrite ^/rq/(?<p>[^/]*)$ http://example.com/$p redirect; }` },
  { prefix: '/rt/', location: R`location ~ ^/rt/([^/]*)$ { return 302 http://example.com/$1; }` },
  { prefix: '/ru/', location: 'location /ru/ { return 302 http://example.com$uri; }' },
  { prefix: '/rr/', location: 'location /rr/ { return 302 https://example.com$request_uri; }' },
  { prefix: '/b/', location: 'location /b/ { return 200 "$uri"; }' },
  { prefix: '/ps/', location: 'location /ps/ { proxy_set_header X-U $uri; proxy_pass http://127.0.0.1:UP; }' },
  { prefix: '/pp/', location: R`location ~ ^/pp/(?<p>[^/]*)$ { proxy_pass http://127.0.0.1:UP/$p; }` },
  { prefix: '/pd/', location: R`location ~ ^/pd/(.*)$ { proxy_pass http://127.0.0.1:UP/$1; }` },
];

const ATTACK = 'a%0d%0aX-Injected:%201';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A raw HTTP/1.0 request (the path sent exactly as given); resolves with the response head. */
function request(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => {
      sock.destroy();
      resolve(data);
    }, 3000);
    sock.on('connect', () => sock.write(`GET ${path} HTTP/1.0\r\nHost: example.com\r\n\r\n`));
    sock.on('data', (d) => (data += d.toString('latin1')));
    sock.on('end', () => {
      clearTimeout(timer);
      resolve(data);
    });
    sock.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

/** A line of the head that starts with the injected header (in a request line's split, its value runs on to ` HTTP/1.0`). */
const injected = (head: string): boolean => /\r?\nX-Injected: ?1[^\r\n]*\r?\n/i.test(head.split('\r\n\r\n')[0] + '\r\n');

if (!binaries.length) describe('nginx/header-injection agrees with the real nginx', { skip: 'no nginx binary' }, () => {});
for (const bin of binaries)
  describe(`nginx/header-injection agrees with the real nginx ${bin.version}`, () => {
    const nginxBin = bin.path;
    let dir = '';
    let nginx: ChildProcess | undefined;
    let backend: Server | undefined;
    let port = 0;
    const upstreamHeads: string[] = [];
    let conf = '';

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'proxy-tuner-splitting-'));
      const up = await freePort();
      port = await freePort();
      backend = createServer((c) => {
        let buf = '';
        c.on('data', (d) => {
          buf += d.toString('latin1');
          if (buf.includes('\r\n\r\n')) {
            upstreamHeads.push(buf);
            c.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
          }
        });
        c.on('error', () => {});
      });
      await new Promise<void>((r) => backend!.listen(up, '127.0.0.1', r));
      const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `    ${t}_temp_path ${dir}/${t};`).join('\n');
      conf = `worker_processes 1;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {\n    worker_connections 64;\n}\nhttp {\n    access_log off;\n${temp}\n    server {\n        listen 127.0.0.1:${port};\n${CASES.map((c) => `        ${c.location.replace('UP', String(up))}\n`).join('')}    }\n}\n`;
      writeFileSync(join(dir, 'nginx.conf'), conf);
      nginx = spawn(nginxBin, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { detached: true, stdio: 'ignore' });
      nginx.on('error', () => {});
      // wait until it listens (bounded)
      for (let i = 0; i < 100; i++) {
        const ok = await request(port, '/').then(
          (h) => h.length > 0,
          () => false,
        );
        if (ok) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    });

    after(async () => {
      if (nginx?.pid) {
        try {
          process.kill(-nginx.pid, 'SIGTERM');
        } catch {
          // already gone
        }
        await new Promise((r) => setTimeout(r, 200));
        try {
          process.kill(-nginx.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      await new Promise<void>((r) => (backend ? backend.close(() => r()) : r()));
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('flags exactly the locations where nginx let a client add a header', async () => {
      assert.ok(
        existsSync(join(dir, 'nginx.pid')),
        `nginx started (${existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : 'no log'})`,
      );
      const ast = parseNginx(conf);
      const doc = TextDocument.create('file:///nginx.conf', 'nginx', 1, conf);
      const flagged = nginxTuning(doc, ast, { nginxVersion: /^\d/.test(bin.version) ? bin.version : undefined })
        .filter((d) => d.code === 'nginx/header-injection')
        .map((d) => doc.offsetAt(d.range.start));
      const server = ast.directives.find((d) => d.name === 'http')!.block!.children.find((d) => d.name === 'server')!;
      const locations = server.block!.children.filter((d) => d.name === 'location');
      assert.equal(locations.length, CASES.length);
      const rows: string[] = [];
      let mismatches = 0;
      for (let i = 0; i < CASES.length; i++) {
        const c = CASES[i];
        const loc = locations[i];
        const before = upstreamHeads.length;
        const head = await request(port, `${c.prefix}${ATTACK}`);
        const upstream = upstreamHeads.slice(before).some((h) => injected(h));
        const real = injected(head) || upstream;
        const ours = flagged.some((o) => o >= loc.start && o < loc.end);
        if (real !== ours) mismatches++;
        rows.push(
          `${real === ours ? 'ok  ' : 'DIFF'} ${c.prefix.padEnd(5)} nginx: ${real ? (upstream ? 'upstream request split' : 'header injected') : 'no injection'}; rule: ${ours ? 'flagged' : 'quiet'}`,
        );
      }
      assert.equal(mismatches, 0, rows.join('\n'));
      // the cases cover both outcomes
      assert.ok(
        rows.filter((r) => r.includes('flagged')).length >= 5 && rows.filter((r) => r.includes('quiet')).length >= 4,
        rows.join('\n'),
      );
    });
  });
