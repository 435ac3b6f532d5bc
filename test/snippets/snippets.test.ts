// Every snippet, expanded as it is (each placeholder keeps its default), embedded in a minimal
// config where its `context` says it goes: the real binaries of the version matrix accept it
// without a warning (`nginx -t`, `haproxy -c`; TLS ones with a throw-away certificate at the
// snippet's own default paths), and our linter has no error or warning on its lines at each
// target version. Listening addresses are moved to 127.0.0.1 (loopback only; neither check binds).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { SNIPPETS, expandSnippet, type Snippet } from '../../server/src/core/snippets';
import * as service from '../../server/src/service/languageService';
import type { LanguageId } from '../../server/src/core/types';
import { HAPROXY_VERSIONS, NGINX_VERSIONS, complaints, haproxyCheck, matrixBinaries, nginxTest, tempDir, throwAwayCert } from './helpers';

const repo = join(__dirname, '..', '..');

function byName(lang: LanguageId, name: string): Snippet {
  const s = SNIPPETS[lang].find((x) => x.name === name);
  assert.ok(s, `snippet ${name}`);
  return s!;
}

function indent(text: string, pad: string): string {
  return text.split('\n').map((l) => (l ? pad + l : l)).join('\n');
}

/** The config around an expanded snippet, and the lines (0-based, inclusive) the snippet fills. */
function embed(lang: LanguageId, s: Snippet): { text: string; first: number; last: number } {
  const body = expandSnippet(s.body).replace(/\t/g, '    ');
  const needs = s.requires.map((n) => expandSnippet(byName(lang, n).body).replace(/\t/g, '    '));
  if (lang === 'nginx') {
    const head = ['events {}', 'http {', '    access_log off;', ...needs.map((n) => indent(n, '    '))];
    let lines: string[];
    if (s.context[0] === 'http') lines = [...head, indent(body, '    '), '}'];
    else lines = [...head, '    server {', '        listen 127.0.0.1:8080;', '        server_name t.example;', indent(body, '        '), '    }', '}'];
    const pre = lines.indexOf(s.context[0] === 'http' ? indent(body, '    ') : indent(body, '        '));
    return { text: lines.join('\n') + '\n', first: pre, last: pre + body.split('\n').length - 1 };
  }
  const head = ['global', '    log stderr local0', '', 'defaults', '    mode http', '    log global', '    timeout connect 5s', '    timeout client 30s', '    timeout server 30s', '', ...needs, ''];
  const lines = s.context[0] === '' ? [...head, body] : [...head, 'backend be_checked', '    mode http', indent(body, '    ')];
  const first = lines.length - 1;
  // HAProxy refuses a config without a listener: one that answers by itself
  const tail = ['', 'frontend fe_wrapper', '    bind 127.0.0.1:18080', '    http-request return status 200'];
  return { text: [...lines, ...tail].join('\n') + '\n', first, last: first + body.split('\n').length - 1 };
}

/** Listening addresses on loopback (`listen 80` -> `listen 127.0.0.1:80`, `bind :443` -> `bind 127.0.0.1:443`). */
function loopback(text: string): string {
  return text.replace(/^(\s*listen\s+)(\d+)(?=[\s;])/gm, '$1127.0.0.1:$2').replace(/^(\s*bind\s+):(\d+)/gm, '$1127.0.0.1:$2');
}

/** Certificates the config names (relative paths), made fresh in dir. */
function certificates(dir: string, text: string): void {
  const crt = /ssl_certificate\s+(\S+);/.exec(text)?.[1];
  const key = /ssl_certificate_key\s+(\S+);/.exec(text)?.[1];
  if (crt && key) throwAwayCert(dir, crt, key);
  for (const m of text.matchAll(/\bcrt\s+(\S+)/g)) throwAwayCert(dir, `${m[1]}.crt`, `${m[1]}.key`, m[1]);
}

function lintProblems(lang: LanguageId, text: string, version: string, first: number, last: number): string[] {
  const doc = TextDocument.create(`file:///snippet.${lang === 'nginx' ? 'conf' : 'cfg'}`, lang, 1, text);
  const settings = lang === 'nginx' ? { nginxVersion: version } : { haproxyVersion: version };
  return service
    .validate(doc, lang, settings)
    .filter((d) => (d.severity ?? 1) <= 2 && (d.severity === 1 || (d.range.start.line >= first && d.range.start.line <= last)))
    .map((d) => `${d.range.start.line + 1}: ${d.code} ${d.message}`);
}

describe('snippets', () => {
  it('package.json contributes the same files the server reads', () => {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
    assert.deepEqual(pkg.contributes.snippets, [
      { language: 'nginx', path: './snippets/nginx.json' },
      { language: 'haproxy', path: './snippets/haproxy.json' },
    ]);
    for (const lang of ['nginx', 'haproxy'] as const) {
      const raw = JSON.parse(readFileSync(join(repo, 'snippets', `${lang}.json`), 'utf8'));
      assert.equal(Object.keys(raw).length, SNIPPETS[lang].length);
      for (const s of SNIPPETS[lang]) {
        assert.ok(s.context.length, `${s.name}: a context`);
        assert.ok(!/\$\{?\d/.test(expandSnippet(s.body)), `${s.name}: every placeholder expanded`);
        for (const r of s.requires) byName(lang, r);
      }
    }
  });

  it('expansion keeps placeholder defaults, first choices, escaped dollars', () => {
    assert.equal(expandSnippet('listen ${1:80};\n$0'), 'listen 80;\n');
    assert.equal(expandSnippet('balance ${4|roundrobin,leastconn|} ${2:${3:a}b}'), 'balance roundrobin ab');
    assert.equal(expandSnippet('return 301 https://\\$host${1}\\$request_uri;'), 'return 301 https://$host$request_uri;');
    assert.equal(expandSnippet('bind ${2::80}'), 'bind :80');
  });

  it('cover what the issue lists', () => {
    const names = (lang: LanguageId) => SNIPPETS[lang].map((s) => s.prefix);
    for (const p of ['server-tls', 'proxy-upstream-keepalive', 'location-exact', 'location-static', 'location-prefix', 'limit-req-zone', 'limit-req', 'location-websocket'])
      assert.ok(names('nginx').includes(p), p);
    for (const p of ['frontend-backend', 'frontend-tls', 'listen-stats', 'health-check-http', 'health-check-tcp']) assert.ok(names('haproxy').includes(p), p);
  });

  for (const lang of ['nginx', 'haproxy'] as const) {
    const versions = lang === 'nginx' ? NGINX_VERSIONS : HAPROXY_VERSIONS;
    const bins = matrixBinaries(lang, versions);
    for (const s of SNIPPETS[lang]) {
      it(`${lang} "${s.name}": our linter is silent at ${versions.join(', ')}`, () => {
        const { text, first, last } = embed(lang, s);
        for (const v of versions) assert.deepEqual(lintProblems(lang, text, v, first, last), [], `at ${lang} ${v}:\n${text}`);
      });
      it(`${lang} "${s.name}": the real binaries accept it (${bins.map((b) => b.version).join(', ') || 'none here'})`, { skip: !bins.length && 'no binaries' }, () => {
        const { text } = embed(lang, s);
        const conf = loopback(text);
        for (const bin of bins) {
          const dir = tempDir('snippet');
          try {
            certificates(dir, conf);
            const r = lang === 'nginx' ? nginxTest(bin, dir, conf) : haproxyCheck(bin, dir, conf);
            assert.equal(r.status, 0, `${lang} ${bin.version} refused:\n${r.output}\n${conf}`);
            assert.deepEqual(complaints(r.output), [], `${lang} ${bin.version} warned:\n${r.output}\n${conf}`);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        }
      });
    }
  }
});
