// The checks themselves (without the safety net of nginxTuning/haproxyTuning, which swallow
// exceptions) on every prefix of real configs: half-typed input must never make a rule throw.
// Plus CRLF files: inserted lines use the file's own line ending.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseNginx } from '../../server/src/languages/nginx/parser';
import { parseHaproxy } from '../../server/src/languages/haproxy/parser';
import { buildContext } from '../../server/src/languages/nginx/tuning/checks';
import { runNginxChecks } from '../../server/src/languages/nginx/tuning/run';
import { buildHaproxyContext } from '../../server/src/languages/haproxy/tuning/checks';
import { runHaproxyChecks } from '../../server/src/languages/haproxy/tuning/run';
import { applyFix, expectRule } from './helpers';

const SEEDS = join(__dirname, 'fixtures', 'seeds');
const EXAMPLES = join(__dirname, '..', '..', 'examples');

function sources(): { lang: 'nginx' | 'haproxy'; text: string }[] {
  const out: { lang: 'nginx' | 'haproxy'; text: string }[] = [];
  for (const f of readdirSync(SEEDS)) {
    if (f.endsWith('.conf')) out.push({ lang: 'nginx', text: readFileSync(join(SEEDS, f), 'utf8') });
    if (f.endsWith('.cfg')) out.push({ lang: 'haproxy', text: readFileSync(join(SEEDS, f), 'utf8') });
  }
  for (const [lang, dir] of [
    ['nginx', 'nginx'],
    ['haproxy', 'haproxy'],
  ] as const) {
    try {
      for (const f of readdirSync(join(EXAMPLES, dir))) out.push({ lang, text: readFileSync(join(EXAMPLES, dir, f), 'utf8') });
    } catch {
      // examples are optional here; the seeds suffice
    }
  }
  return out;
}

describe('half-typed input', () => {
  it('no check throws on any prefix of the seed and example configs, at any version', () => {
    let runs = 0;
    for (const { lang, text } of sources()) {
      for (let i = 0; i <= text.length; i += 3) {
        const part = text.slice(0, i);
        for (const v of ['1.22.1', undefined]) {
          if (lang === 'nginx') {
            const findings = runNginxChecks(buildContext(parseNginx(part), { nginxVersion: v, host: { cpuCount: 2, somaxconn: 128 } }));
            for (const f of findings) assert.ok(f.start >= 0 && f.end <= part.length && f.start <= f.end, `${f.ruleId} range in bounds`);
          } else {
            const findings = runHaproxyChecks(
              buildHaproxyContext(parseHaproxy(part), { haproxyVersion: v === undefined ? undefined : '2.4', host: { cpuCount: 2 } }),
            );
            for (const f of findings) assert.ok(f.start >= 0 && f.end <= part.length && f.start <= f.end, `${f.ruleId} range in bounds`);
          }
          runs++;
        }
      }
    }
    assert.ok(runs > 1000, `ran ${runs} prefixes`);
  });
});

describe('CRLF files', () => {
  it('inserted lines end with CRLF like the rest of the file', () => {
    const text = 'worker_processes auto;\r\n<|events|> {\r\n    multi_accept on;\r\n}\r\n';
    const { doc, found } = expectRule('nginx', text, 'nginx/worker-connections-low');
    assert.equal(
      applyFix(doc, found[0]),
      'worker_processes auto;\r\nevents {\r\n    worker_connections 4096;\r\n    multi_accept on;\r\n}\r\n',
    );
  });
  it('removed lines take their CRLF with them', () => {
    const { doc, found } = expectRule('nginx', 'events {\r\n    <|use epoll;|>\r\n}\r\n', 'nginx/redundant-event-setting');
    assert.equal(applyFix(doc, found[0]), 'events {\r\n}\r\n');
  });
});

describe('one-line blocks', () => {
  it('insert inside the braces on the same line', () => {
    const text = 'http {\n    upstream <|app|> { server 127.0.0.1:1; }\n    server { location / { proxy_pass http://app; } }\n}\n';
    const { doc, found } = expectRule('nginx', text, 'nginx/upstream-keepalive', { nginxVersion: '1.22.1' });
    assert.equal(
      applyFix(doc, found[0]),
      'http {\n    upstream app { server 127.0.0.1:1; keepalive 64; }\n    server { location / { proxy_pass http://app; proxy_http_version 1.1; proxy_set_header Connection ""; } }\n}\n',
    );
  });
  it('an https literal gets port 443 in the new upstream', () => {
    const text = 'http {\n    server {\n        location / {\n            proxy_pass <|https://api.internal|>;\n        }\n    }\n}\n';
    const { doc, found } = expectRule('nginx', text, 'nginx/proxy-pass-no-upstream', { nginxVersion: '1.22.1' });
    const fixed = applyFix(doc, found[0]);
    assert.match(fixed, /upstream backend_api_internal \{\n {8}server api\.internal:443;\n {8}keepalive 64;\n {4}\}/);
    assert.match(fixed, /proxy_pass https:\/\/backend_api_internal;/);
  });
});
