// "Validate with nginx -t / haproxy -c": the real binaries on a sandboxed copy (server/src/host/binaryCheck.ts),
// their messages mapped to the user's files and lines (included files too), turned into LSP
// diagnostics (server/src/service/binaryCheck.ts), and the same through the language server's
// request. nginx and haproxy are installed where these tests run: a missing binary fails.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkWithBinary, parseHaproxyOutput, parseNginxOutput } from '../../server/src/host/binaryCheck';
import { binaryDiagnostics, summarize } from '../../server/src/service/binaryCheck';
import { LspClient } from '../lsp/rpcClient';

let dir = '';
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'proxy-tuner-binarycheck-'));
});
after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function write(rel: string, text: string): string {
  const p = join(dir, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
  return p;
}

describe('nginx -t on a sandboxed copy', () => {
  it('accepts a valid config that listens on port 80 and proxies to a host name (rewritten to loopback)', async () => {
    const main = write(
      'ok/nginx.conf',
      'events {}\nhttp {\n    upstream app { server app.internal.example:8080; }\n    server {\n        listen 80;\n        location / { proxy_pass http://app; }\n        location /b { proxy_pass http://backend.example.com; }\n    }\n}\n',
    );
    const r = await checkWithBinary({ configPath: main });
    assert.equal(r.kind, 'nginx');
    assert.match(r.version, /^\d+\.\d+\.\d+$/);
    assert.equal(r.status, 'ok', r.output);
    assert.deepEqual(
      r.messages.filter((m) => m.severity === 'error'),
      [],
    );
  });

  it('maps an error in an included file to that file and line', async () => {
    const main = write('inc/nginx.conf', 'events {}\nhttp {\n    include conf.d/*.conf;\n}\n');
    const inc = write(
      'inc/conf.d/site.conf',
      'server {\n    listen 8080;\n\n    location / {\n        proxy_buffer_size 4k;\n        proxy_bufers 8 4k;\n    }\n}\n',
    );
    const r = await checkWithBinary({ configPath: main });
    assert.equal(r.status, 'error');
    const e = r.messages.find((m) => m.severity === 'error');
    assert.deepEqual(e, { severity: 'error', message: 'unknown directive "proxy_bufers"', file: inc, line: 6 });
    assert.ok(!r.output.includes('proxy-tuner-bench-'), `no sandbox path left in the output:\n${r.output}`);
    // as diagnostics: on the included file, the whole text of line 6 (0-based 5)
    const byFile = binaryDiagnostics(r, main, (f, l) =>
      f === inc
        ? 'server {\n    listen 8080;\n\n    location / {\n        proxy_buffer_size 4k;\n        proxy_bufers 8 4k;\n'.split('\n')[l]
        : undefined,
    );
    const d = byFile.get(inc)?.[0];
    assert.ok(d);
    assert.deepEqual(d.range, { start: { line: 5, character: 8 }, end: { line: 5, character: 26 } });
    assert.equal(d.source, 'nginx -t');
    assert.equal(d.severity, 1);
    assert.equal(summarize(r, [...byFile.keys()]).summary, 'nginx -t: nginx 1.22.1 rejects the config: unknown directive "proxy_bufers"');
  });

  it('maps an error in the main file to its line (the sandbox keeps line numbers)', async () => {
    const main = write(
      'main/nginx.conf',
      'user www-data;\npid /run/nginx.pid;\nevents {}\nhttp {\n    server {\n        listen 443 ssl;\n        ssl_certificate /etc/ssl/none.pem;\n        ssl_certificate_key /etc/ssl/none.key;\n        client_max_body_size 10q;\n    }\n}\n',
    );
    const r = await checkWithBinary({ configPath: main });
    assert.equal(r.status, 'error');
    const e = r.messages.find((m) => m.severity === 'error');
    assert.equal(e?.file, main);
    assert.equal(e?.line, 9);
    assert.match(e?.message ?? '', /client_max_body_size/);
  });

  it('refuses what it cannot confine to loopback, naming the line, and runs nothing', async () => {
    const main = write('refuse/nginx.conf', 'events {}\nhttp {\n    resolver 192.0.2.53;\n    server { listen 80; }\n}\n');
    const r = await checkWithBinary({ configPath: main });
    assert.equal(r.status, 'refused');
    assert.equal(r.messages[0].line, 3);
    assert.equal(r.messages[0].severity, 'information');
    assert.match(r.messages[0].message, /^not checked with nginx -t: `resolver 192\.0\.2\.53` is not a loopback address/);
  });

  it('leaves no sandbox folder behind, also after a refusal', async () => {
    const ok = await checkWithBinary({ configPath: write('gone/nginx.conf', 'events {}\n') });
    const refused = await checkWithBinary({ configPath: write('gone2/nginx.conf', 'events {}\nhttp { resolver 192.0.2.1; }\n') });
    assert.equal(ok.status, 'ok');
    assert.equal(refused.status, 'refused');
    for (const r of [ok, refused]) {
      assert.match(r.sandboxDir ?? '', /proxy-tuner-bench-/);
      assert.equal(existsSync(r.sandboxDir!), false);
    }
  });
});

describe('haproxy -c on a sandboxed copy', () => {
  const base =
    'global\n    maxconn 100\n    pidfile /run/haproxy.pid\ndefaults\n    mode http\n    timeout client 5s\n    timeout server 5s\n    timeout connect 5s\n';

  it('accepts a valid config whose server is a host name (rewritten to loopback)', async () => {
    const cfg = write(
      'ok/haproxy.cfg',
      base + 'frontend web\n    bind :80\n    default_backend app\nbackend app\n    server s1 app.internal.example:8080 check\n',
    );
    const r = await checkWithBinary({ configPath: cfg });
    assert.equal(r.kind, 'haproxy');
    assert.equal(r.status, 'ok', r.output);
  });

  it('maps an unknown keyword to its line', async () => {
    const cfg = write(
      'bad/haproxy.cfg',
      base +
        'frontend web\n    bind :80\n    http-request deny if { path_beg /x }\n    timeout clinet 5s\n    default_backend app\nbackend app\n    server s1 127.0.0.1:8080\n',
    );
    const r = await checkWithBinary({ configPath: cfg });
    assert.equal(r.status, 'error');
    const e = r.messages.find((m) => m.severity === 'error');
    assert.equal(e?.file, cfg);
    assert.equal(e?.line, 12);
    assert.match(e?.message ?? '', /clinet/);
    const d = binaryDiagnostics(r, cfg, () => '    timeout clinet 5s').get(cfg)?.[0];
    assert.equal(d?.source, 'haproxy -c');
    assert.equal(d?.range.start.line, 11);
  });
});

describe('output parsers', () => {
  it('nginx: level, message, file and line', () => {
    const m = parseNginxOutput(
      'nginx: [warn] the "http2_max_field_size" directive is obsolete in /etc/nginx/a.conf:12\nnginx: [emerg] unexpected "}" in /etc/nginx/b.conf:40\nnginx: configuration file /etc/nginx/nginx.conf test failed\n',
    );
    assert.deepEqual(m, [
      { severity: 'warning', message: 'the "http2_max_field_size" directive is obsolete', file: '/etc/nginx/a.conf', line: 12 },
      { severity: 'error', message: 'unexpected "}"', file: '/etc/nginx/b.conf', line: 40 },
    ]);
  });

  it('haproxy: alerts and warnings with [file:line], summaries and notices dropped', () => {
    const m = parseHaproxyOutput(
      "[NOTICE]   (1) : haproxy version is 2.6.12\n[WARNING]  (1) : config : parsing [/e/h.cfg:7] : a 'http-request' rule placed after a 'use_backend' rule will still be processed before.\n[ALERT]    (1) : config : parsing [/e/h.cfg:9] : unknown keyword 'x' in 'frontend' section\n[ALERT]    (1) : config : Fatal errors found in configuration.\n",
    );
    assert.equal(m.length, 2);
    assert.deepEqual(m[1], { severity: 'error', message: "unknown keyword 'x' in 'frontend' section", file: '/e/h.cfg', line: 9 });
    assert.equal(m[0].severity, 'warning');
    assert.equal(m[0].line, 7);
  });
});

describe('through the language server (proxyTuner/validateWithBinary)', () => {
  it('publishes the binary diagnostics on the included file and answers with a summary', { timeout: 60_000 }, async () => {
    const main = write('lsp/nginx.conf', 'events {}\nhttp {\n    include sites/*.conf;\n}\n');
    const inc = write('lsp/sites/a.conf', 'server {\n    listen 8081;\n    gzip_typs text/css;\n}\n');
    const server = new LspClient(['--stdio'], { PROXY_TUNER_NO_LOCAL_VERSION: '1' });
    try {
      await server.initialize();
      const uri = pathToFileURL(main).href;
      const incUri = pathToFileURL(inc).href;
      const incDiags = server.waitForNotification(
        'textDocument/publishDiagnostics',
        (p) => p.uri === incUri && p.diagnostics.some((d: any) => d.source === 'nginx -t'),
        30_000,
      );
      const res = await server.request('proxyTuner/validateWithBinary', { uri }, 30_000);
      assert.equal(res.status, 'error');
      assert.equal(res.tool, 'nginx -t');
      assert.deepEqual(res.files, [inc]);
      const d = (await incDiags).params.diagnostics.find((x: any) => x.source === 'nginx -t');
      assert.equal(d.message, 'unknown directive "gzip_typs"');
      assert.equal(d.range.start.line, 2);
      assert.equal(d.code, 'nginx/binary-check');
    } finally {
      await server.stop();
    }
  });
});
