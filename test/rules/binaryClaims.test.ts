// What the binaries accept, for the validation changes of issue 32: each case runs on every
// nginx (1.22.1, 1.26.3, 1.30.6) or HAProxy (2.6.12, 3.0.11, 3.2.26) binary of the matrix, and
// our validation at that version must report an error exactly when the binary refuses the config
// (and, where a case says so, a warning where the binary accepts it). Nothing listens: `nginx -t`
// and `haproxy -c` only read the config.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { haproxyModule } from '../../server/src/languages/haproxy/index';
import { nginxModule } from '../../server/src/languages/nginx/index';
import { haproxyCheck, matrixBinaries, nginxTest, tempDir, throwAwayCert } from '../snippets/helpers';

type Verdict = 'ok' | 'fatal';

interface Case {
  name: string;
  /** The config; `@DIR@` is the run's folder (certificates: cert.pem, key.pem, both.pem). */
  text: string;
  /** The binary's verdict by version prefix (every binary of the language is run). */
  verdict: Record<string, Verdict>;
  /** Our finding where the binary accepts: none (default) or a warning whose code is this. */
  warnWhenOk?: string;
}

const NGINX_VERSIONS = ['1.22', '1.26', '1.30'];
const HAPROXY_VERSIONS = ['2.6', '3.0', '3.2'];
const all = (versions: string[], v: Verdict): Record<string, Verdict> => Object.fromEntries(versions.map((x) => [x, v]));

const NGINX_HEAD = 'events {}\nhttp {\n    access_log off;\n';
const CERT = 'ssl_certificate @DIR@/cert.pem; ssl_certificate_key @DIR@/key.pem;';
const NGINX_CASES: Case[] = [
  {
    name: 'a named TLS server without a certificate after the default one that has it',
    text: `${NGINX_HEAD}    server { listen 127.0.0.1:18443 ssl; server_name a; ${CERT} }\n    server { listen 127.0.0.1:18443 ssl; server_name b; }\n}\n`,
    verdict: all(NGINX_VERSIONS, 'ok'),
  },
  {
    name: 'the explicit default_server has the certificate, the first server not',
    text: `${NGINX_HEAD}    server { listen 127.0.0.1:18443 ssl; server_name b; }\n    server { listen 127.0.0.1:18443 ssl default_server; ${CERT} }\n}\n`,
    verdict: all(NGINX_VERSIONS, 'ok'),
  },
  {
    name: 'the only server of a second TLS port has no certificate',
    text: `${NGINX_HEAD}    server { listen 127.0.0.1:18443 ssl; ${CERT} }\n    server { listen 127.0.0.1:18444 ssl; server_name e; }\n}\n`,
    verdict: all(NGINX_VERSIONS, 'fatal'),
  },
  {
    name: 'a plain listen first makes that server the default of a TLS socket',
    text: `${NGINX_HEAD}    server { listen 127.0.0.1:18443; server_name a; }\n    server { listen 127.0.0.1:18443 ssl; ${CERT} }\n}\n`,
    verdict: all(NGINX_VERSIONS, 'fatal'),
  },
  {
    name: 'an access_log format no log_format defines',
    text: `${NGINX_HEAD}    server { listen 127.0.0.1:18080; access_log @DIR@/a.log nosuch; }\n}\n`,
    verdict: all(NGINX_VERSIONS, 'fatal'),
  },
  {
    name: 'access_log with the built-in combined and a defined format',
    text: `${NGINX_HEAD}    log_format main '$remote_addr $status';\n    server { listen 127.0.0.1:18080; access_log @DIR@/a.log combined; access_log @DIR@/b.log main; }\n}\n`,
    verdict: all(NGINX_VERSIONS, 'ok'),
  },
  {
    name: '`geo` with `ranges` given a CIDR',
    text: `${NGINX_HEAD}    geo $g { ranges; default 0; 10.0.0.0/8 1; }\n}\n`,
    verdict: all(NGINX_VERSIONS, 'fatal'),
  },
  {
    name: '`geo` with `ranges` given ranges, and a CIDR geo',
    text: `${NGINX_HEAD}    geo $g { ranges; default 0; 10.0.0.0-10.255.255.255 1; }\n    geo $h { default 0; 10.0.0.0/8 1; }\n}\n`,
    verdict: all(NGINX_VERSIONS, 'ok'),
  },
  {
    name: 'a `{` inside `map`',
    text: `${NGINX_HEAD}    map $uri $m { default 0; /a { 1; } }\n}\n`,
    verdict: all(NGINX_VERSIONS, 'fatal'),
  },
  {
    name: 'a map entry with three words',
    text: `${NGINX_HEAD}    map $uri $m { default 0; /a 1 2; }\n}\n`,
    verdict: all(NGINX_VERSIONS, 'fatal'),
  },
  {
    name: 'a map entry with one word',
    text: `${NGINX_HEAD}    map $uri $m { default 0; /a; }\n}\n`,
    verdict: all(NGINX_VERSIONS, 'fatal'),
  },
  {
    name: 'a geo entry with three words',
    text: `${NGINX_HEAD}    geo $g { default 0; 10.0.0.0/8 1 2; }\n}\n`,
    verdict: all(NGINX_VERSIONS, 'fatal'),
  },
  {
    name: 'map and geo keywords that stand alone',
    text: `${NGINX_HEAD}    map $http_host $m { hostnames; default 0; example.com 1; }\n    geo $g { ranges; proxy_recursive; default 0; }\n}\n`,
    verdict: all(NGINX_VERSIONS, 'ok'),
  },
  {
    name: 'error_page with a bad response code',
    text: `${NGINX_HEAD}    server { listen 127.0.0.1:18080; error_page 404 =200x /e; }\n}\n`,
    verdict: all(NGINX_VERSIONS, 'fatal'),
  },
  {
    name: 'error_page with a code below 300',
    text: `${NGINX_HEAD}    server { listen 127.0.0.1:18080; error_page 200 /e; }\n}\n`,
    verdict: all(NGINX_VERSIONS, 'fatal'),
  },
  {
    name: 'error_page with a word for a code',
    text: `${NGINX_HEAD}    server { listen 127.0.0.1:18080; error_page abc /e; }\n}\n`,
    verdict: all(NGINX_VERSIONS, 'fatal'),
  },
  {
    name: 'error_page with codes, `=` and `=200`',
    text: `${NGINX_HEAD}    server { listen 127.0.0.1:18080; error_page 404 500 =200 /e; error_page 502 = @x; location @x { return 204; } }\n}\n`,
    verdict: all(NGINX_VERSIONS, 'ok'),
  },
  {
    name: 'stream upstream servers with slow_start (commercial only)',
    text: 'load_module @MODULES@/ngx_stream_module.so;\nevents {}\nstream {\n    upstream u { server 127.0.0.1:1 max_conns=2 slow_start=5s; }\n    server { listen 127.0.0.1:18081; proxy_pass u; }\n}\n',
    verdict: all(NGINX_VERSIONS, 'fatal'),
  },
  {
    name: 'stream upstream servers with route= (http only)',
    text: 'load_module @MODULES@/ngx_stream_module.so;\nevents {}\nstream {\n    upstream u { server 127.0.0.1:1 route=a; }\n    server { listen 127.0.0.1:18081; proxy_pass u; }\n}\n',
    verdict: all(NGINX_VERSIONS, 'fatal'),
  },
  {
    name: 'stream upstream servers with the common parameters',
    text: 'load_module @MODULES@/ngx_stream_module.so;\nevents {}\nstream {\n    upstream u { server 127.0.0.1:1 max_fails=2 fail_timeout=5s weight=2 max_conns=9; server 127.0.0.1:2 backup; server 127.0.0.1:3 down; }\n    server { listen 127.0.0.1:18081; proxy_pass u; }\n}\n',
    verdict: all(NGINX_VERSIONS, 'ok'),
  },
];

const HAPROXY_HEAD =
  'defaults\n    mode http\n    timeout client 5s\n    timeout server 5s\n    timeout connect 5s\nfrontend f\n    bind 127.0.0.1:18980\n    default_backend b\n';
const HAPROXY_CASES: Case[] = [
  {
    name: '`tune.bufsize 32k`: units from 3.1; 2.6 and 3.0 read 32 bytes and crash',
    text: `global\n    tune.bufsize 32k\n${HAPROXY_HEAD}backend b\n    server s 127.0.0.1:1\n`,
    verdict: { '2.6': 'fatal', '3.0': 'fatal', '3.2': 'ok' },
  },
  {
    name: '`tune.bufsize 32768` everywhere',
    text: `global\n    tune.bufsize 32768\n${HAPROXY_HEAD}backend b\n    server s 127.0.0.1:1\n`,
    verdict: all(HAPROXY_VERSIONS, 'ok'),
  },
  {
    name: 'a quic4@ bind inside `.if feature(QUIC)` (2.6.12 is built without QUIC: the block is skipped)',
    text: `${HAPROXY_HEAD.replace('    default_backend b\n', '')}.if feature(QUIC)\n    bind quic4@127.0.0.1:18981 ssl crt @DIR@/both.pem alpn h3\n.endif\n    default_backend b\nbackend b\n    server s 127.0.0.1:1\n`,
    // 3.0.11's build has QUIC but its OpenSSL does not (a build matter: not judged)
    verdict: { '2.6': 'ok', '3.2': 'ok' },
  },
  {
    name: "'/' in a backend name",
    text: `${HAPROXY_HEAD.replace('default_backend b', 'default_backend a/b')}backend a/b\n    server s 127.0.0.1:1\n`,
    verdict: all(HAPROXY_VERSIONS, 'fatal'),
  },
  {
    name: '`option httpchk` with headers after the HTTP version: a warning at 2.6, refused from 3.0',
    text: `${HAPROXY_HEAD}backend b\n    option httpchk GET /health HTTP/1.1\\r\\nHost:\\ example.com\n    server s 127.0.0.1:1 check\n`,
    verdict: { '2.6': 'ok', '3.0': 'fatal', '3.2': 'fatal' },
    warnWhenOk: 'haproxy/deprecated',
  },
  {
    name: '`option httpchk` with method, path and version only',
    text: `${HAPROXY_HEAD}backend b\n    option httpchk GET /health HTTP/1.1\n    server s 127.0.0.1:1 check\n`,
    verdict: all(HAPROXY_VERSIONS, 'ok'),
  },
  {
    name: '`filter spoe` without its config file',
    text: `${HAPROXY_HEAD.replace('    default_backend b\n', '    filter spoe engine x\n    default_backend b\n')}backend b\n    server s 127.0.0.1:1\n`,
    verdict: all(HAPROXY_VERSIONS, 'fatal'),
  },
  {
    name: '`tcp-response content` in a named defaults that a frontend inherits',
    text: 'defaults d1\n    mode tcp\n    timeout client 5s\n    timeout server 5s\n    timeout connect 5s\n    tcp-response content accept\nfrontend f from d1\n    bind 127.0.0.1:18980\n    default_backend b\nbackend b from d1\n    server s 127.0.0.1:1\n',
    verdict: all(HAPROXY_VERSIONS, 'fatal'),
  },
  {
    name: '`tcp-response content` in a named defaults that only backends inherit',
    text: 'defaults d1\n    mode tcp\n    timeout client 5s\n    timeout server 5s\n    timeout connect 5s\n    tcp-response content accept\nbackend b from d1\n    server s 127.0.0.1:1\ndefaults d2\n    mode tcp\n    timeout client 5s\n    timeout server 5s\n    timeout connect 5s\nfrontend f\n    bind 127.0.0.1:18980\n    default_backend b\n',
    verdict: all(HAPROXY_VERSIONS, 'ok'),
  },
  {
    name: 'a `program` section with `master-worker`',
    text: `global\n    master-worker\n${HAPROXY_HEAD}program api\n    command /bin/true\nbackend b\n    server s 127.0.0.1:1\n`,
    verdict: { '2.6': 'ok', '3.0': 'ok' },
  },
];

function ourFindings(lang: 'nginx' | 'haproxy', text: string, version: string): { errors: string[]; warnings: string[] } {
  const doc = TextDocument.create(`file:///claims/${lang === 'nginx' ? 'nginx.conf' : 'haproxy.cfg'}`, lang, 1, text);
  const diags =
    lang === 'nginx'
      ? nginxModule.validate(doc, nginxModule.parse(text), { nginxVersion: version })
      : haproxyModule.validate(doc, haproxyModule.parse(text), { haproxyVersion: version });
  const show = (d: (typeof diags)[number]) => `${d.range.start.line + 1}: ${String(d.code)} ${d.message}`;
  return { errors: diags.filter((d) => d.severity === 1).map(show), warnings: diags.filter((d) => d.severity === 2).map(show) };
}

function runCases(lang: 'nginx' | 'haproxy', cases: Case[]): void {
  const bins = matrixBinaries(lang, lang === 'nginx' ? NGINX_VERSIONS : HAPROXY_VERSIONS);
  const skip = bins.length ? false : `no ${lang} binaries`;
  describe(`${lang}: our errors match the binaries`, { skip }, () => {
    for (const c of cases) {
      it(c.name, () => {
        const dir = tempDir('claims');
        try {
          mkdirSync(join(dir, 'logs'));
          throwAwayCert(dir, 'cert.pem', 'key.pem', 'both.pem');
          let checked = 0;
          for (const bin of bins) {
            const want = Object.entries(c.verdict).find(([v]) => bin.version.startsWith(`${v}.`))?.[1];
            if (!want) continue;
            const text = c.text.replaceAll('@DIR@', dir).replaceAll('@MODULES@', bin.modulesDir);
            const run = lang === 'nginx' ? nginxTest(bin, dir, text) : haproxyCheck(bin, dir, text);
            assert.equal(run.status === 0 ? 'ok' : 'fatal', want, `${lang} ${bin.version}: ${run.output}`);
            const ours = ourFindings(lang, text, bin.version);
            if (want === 'fatal') assert.ok(ours.errors.length > 0, `${bin.version}: we report no error (${run.output})`);
            else {
              assert.deepEqual(ours.errors, [], `${bin.version} accepts it`);
              if (!c.warnWhenOk) assert.deepEqual(ours.warnings, [], `${bin.version} accepts it`);
            }
            checked++;
          }
          assert.ok(checked > 0, 'some binary judged the case');
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  });
}

runCases('nginx', NGINX_CASES);
runCases('haproxy', HAPROXY_CASES);
