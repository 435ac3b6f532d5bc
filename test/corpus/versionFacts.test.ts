// Version-sensitive configs judged by each matrix binary and by the linter at that binary's
// version: the linter reports an error exactly when the binary refuses the config. The cases are
// the facts probed into server/src/languages/nginx/data/versions.json and server/src/languages/haproxy/data/versions.json
// (scripts/probe-versions.mjs), and the false errors no version has. Nothing listens: `nginx -t`
// and `haproxy -c` only parse; every run has a 10 s timeout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { loadMatrix, type MatrixBinary } from '../../server/src/runner/matrix';
import { nginxModule } from '../../server/src/languages/nginx/index';
import { haproxyModule } from '../../server/src/languages/haproxy/index';

const binaries = loadMatrix();
const have = (p: string) => binaries.filter((b) => b.product === p).length === 3;
const MODULES = ['ngx_stream_module.so', 'ngx_mail_module.so'];

const NGINX: Record<string, string> = {
  'keepalive with "local"': 'http { upstream u { server 127.0.0.1:1; keepalive 16 local; } }',
  'keepalive 0': 'http { upstream u { server 127.0.0.1:1; keepalive 0; } }',
  'proxy_http_version 2': 'http { server { listen 127.0.0.1:1; location / { proxy_http_version 2; proxy_pass http://127.0.0.1:2; } } }',
  'upstream server ... resolve': 'http { resolver 127.0.0.1; upstream u { zone u 64k; server localhost:1 resolve; } }',
  'sticky cookie': 'http { upstream u { server 127.0.0.1:1; sticky cookie srv; } }',
  'geo volatile': 'http { geo $g { volatile; default 1; } }',
  'two mirror lines':
    'http { server { listen 127.0.0.1:1; location / { mirror /a; mirror /b; return 200; } location /a { return 200; } location /b { return 200; } } }',
  'error_log in a stream server': 'stream { server { listen 127.0.0.1:1; error_log stderr; proxy_pass 127.0.0.1:2; } }',
  'error_log in a mail server':
    'mail { server_name m; auth_http 127.0.0.1:1; server { listen 127.0.0.1:2; protocol smtp; error_log stderr; } }',
  'listen quic beside listen ssl': 'http { server { listen 127.0.0.1:443 ssl; listen 127.0.0.1:443 quic; ssl_reject_handshake on; } }',
  'ssl on': 'http { server { listen 127.0.0.1:1; ssl on; ssl_reject_handshake on; } }',
  http2_push: 'http { server { listen 127.0.0.1:1; http2_push /x; } }',
  'listen ... http2': 'http { server { listen 127.0.0.1:1 ssl http2; ssl_reject_handshake on; } }',
  'http2 on': 'http { server { listen 127.0.0.1:1; http2 on; } }',
};

const HA_BASE = 'global\n  maxconn 100\ndefaults\n  mode http\n  timeout client 1s\n  timeout server 1s\n  timeout connect 1s\n';
const HAPROXY: Record<string, string> = {
  'stats show-modules': `${HA_BASE}listen l\n  bind 127.0.0.1:1\n  stats enable\n  stats show-modules\n  server s 127.0.0.1:2\n`,
  'duplicate server name': `${HA_BASE}backend b\n  server s 127.0.0.1:1\n  server s 127.0.0.1:2\n`,
  'program section': `${HA_BASE.replace('global\n', 'global\n  master-worker\n')}program p\n  command /bin/true\n`,
  'program section, exposed': `${HA_BASE.replace('global\n', 'global\n  master-worker\n  expose-deprecated-directives\n')}program p\n  command /bin/true\n`,
  nbproc: 'global\n  nbproc 1\n',
  'crt-store section': `${HA_BASE}crt-store\n  crt-base /tmp\n`,
  'log-profile section': `${HA_BASE}log-profile p\n  log-tag x\n`,
  'frontend and backend of one name': `${HA_BASE}frontend b\n  bind 127.0.0.1:1\n  default_backend b\nbackend b\n  server s 127.0.0.1:2\n`,
  guid: `${HA_BASE}backend b\n  guid g1\n  server s 127.0.0.1:2\n`,
};

function binaryRefuses(b: MatrixBinary, text: string, dir: string): { refused: boolean; out: string } {
  if (b.product === 'nginx') {
    const f = join(dir, 'nginx.conf');
    writeFileSync(f, `events {}\n${text}\n`);
    const g = MODULES.map((m) => join(b.modulesDir, m))
      .filter((m) => existsSync(m))
      .map((m) => `load_module ${m};`)
      .join(' ');
    const r = spawnSync(b.path, ['-t', '-q', '-p', `${dir}/`, '-e', join(dir, 'error.log'), '-g', g, '-c', f], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    return { refused: r.status !== 0, out: `${r.stderr}` };
  }
  const f = join(dir, 'haproxy.cfg');
  writeFileSync(f, text);
  const r = spawnSync(b.path, ['-c', '-f', f], { encoding: 'utf8', timeout: 10_000 });
  return {
    refused: r.status !== 0 && r.status !== 2,
    out: `${r.stdout}${r.stderr}`
      .split('\n')
      .filter((l) => l.includes('ALERT'))
      .join(' '),
  };
}

function linterRefuses(product: 'nginx' | 'haproxy', text: string, version: string): { refused: boolean; out: string } {
  const full = product === 'nginx' ? `events {}\n${text}\n` : text;
  const doc = TextDocument.create(`file:///t.${product}`, product, 1, full);
  const diags =
    product === 'nginx'
      ? nginxModule.validate(doc, nginxModule.parse(full), { nginxVersion: version })
      : haproxyModule.validate(doc, haproxyModule.parse(full), { haproxyVersion: version });
  const errors = diags.filter((d) => d.severity === 1);
  return { refused: errors.length > 0, out: errors.map((d) => `${d.code}: ${d.message}`).join('; ') };
}

for (const [product, cases] of [
  ['nginx', NGINX],
  ['haproxy', HAPROXY],
] as const) {
  test(
    `${product}: the linter at each matrix version refuses exactly what that version's binary refuses`,
    { skip: !have(product) && 'needs the three matrix binaries' },
    () => {
      const dir = mkdtempSync(join(tmpdir(), `pt-facts-${product}-`));
      try {
        const disagree: string[] = [];
        let pairs = 0;
        const refusedSomewhere = new Set<string>();
        const acceptedSomewhere = new Set<string>();
        for (const b of binaries.filter((x) => x.product === product)) {
          for (const [name, text] of Object.entries(cases)) {
            pairs++;
            const bin = binaryRefuses(b, text, dir);
            const lin = linterRefuses(product, text, b.version);
            (bin.refused ? refusedSomewhere : acceptedSomewhere).add(name);
            if (bin.refused !== lin.refused)
              disagree.push(
                `${name} at ${b.version}: binary ${bin.refused ? `refuses (${bin.out.trim()})` : 'accepts'}, linter ${lin.refused ? `refuses (${lin.out})` : 'accepts'}`,
              );
          }
        }
        console.log(`${product}: linter and binary agree on ${pairs - disagree.length}/${pairs} (case, version) pairs`);
        assert.deepEqual(disagree, []);
        // the cases are version-sensitive: most are refused by some version and accepted by another
        const both = [...refusedSomewhere].filter((n) => acceptedSomewhere.has(n));
        assert.ok(both.length >= (product === 'nginx' ? 8 : 4), `only ${both.length} cases differ between versions`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
}
