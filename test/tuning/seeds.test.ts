// The seeds' own configs (test/tuning/fixtures/seeds): every mistake listed in the seed digest
// is flagged (by the language modules or by the tuning rules, through the facade), and the
// seeds' outdated advice (`use epoll`, `accept_mutex off`) gets no more than an
// "unnecessary" hint with a fix that removes the line.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from 'vscode-languageserver-types';
import { detectLanguage, validate } from '../../server/src/service/languageService';
import { applyEdits, type DiagnosticData } from '../../server/src/core/rules';

const DIR = join(__dirname, 'fixtures', 'seeds');

function check(file: string, version: string): { doc: TextDocument; ds: Diagnostic[] } {
  const text = readFileSync(join(DIR, file), 'utf8');
  // the product's one detector, as the editor and the CLI would tell these files apart
  const lang = detectLanguage(file, text);
  const doc = TextDocument.create(`file:///${file}`, lang, 1, text);
  return { doc, ds: validate(doc, lang, lang === 'nginx' ? { nginxVersion: version } : { haproxyVersion: version }) };
}

/** `line:code` of each diagnostic (1-based lines), optionally only for codes with a prefix set. */
function marks(ds: Diagnostic[], filter?: (code: string) => boolean): string[] {
  return ds
    .filter((d) => !filter || filter(String(d.code)))
    .map((d) => `${d.range.start.line + 1}:${String(d.code)}`)
    .sort();
}

const TUNING = new Set([
  'nginx/worker-processes-not-auto',
  'nginx/worker-connections-low',
  'nginx/worker-rlimit-nofile',
  'nginx/redundant-event-setting',
  'nginx/upstream-keepalive',
  'nginx/upstream-keepalive-headers',
  'nginx/upstream-keepalive-small',
  'nginx/proxy-pass-no-upstream',
  'nginx/ssl-session-cache',
  'nginx/ssl-protocols-old',
  'nginx/http2-missing',
  'nginx/ssl-stapling-no-resolver',
  'haproxy/nbproc',
  'haproxy/server-no-check',
  'haproxy/balance-long-lived',
  'haproxy/splice-auto',
  'haproxy/global-maxconn',
  'haproxy/bufsize-without-maxrewrite',
  'haproxy/log-without-dontlognull',
  'haproxy/http-reuse',
]);
const isTuning = (c: string) => TUNING.has(c);

describe('seed 000', () => {
  it('template: the lost "" of `Connection ;` is an arity error; `http2 on` needs 1.25.1; use epoll is only a hint', () => {
    const { doc, ds } = check('000-template.conf', '1.22.1');
    const all = marks(ds);
    assert.ok(all.includes('24:nginx/arg-count'), all.join(' '));
    assert.ok(all.includes('18:nginx/needs-newer-version'), all.join(' '));
    assert.deepEqual(
      marks(ds, isTuning),
      ['17:nginx/ssl-protocols-old', '17:nginx/ssl-session-cache', '5:nginx/redundant-event-setting'].sort(),
    );
    const epoll = ds.find((d) => d.code === 'nginx/redundant-event-setting')!;
    assert.equal(epoll.severity, 4);
    assert.deepEqual(epoll.tags, [1]);
    const fix = (epoll.data as DiagnosticData).fixes![0];
    assert.ok(!applyEdits(doc, fix.edits).includes('use epoll'));
    // the session-cache note is a hint: tickets are on in this server
    assert.equal(ds.find((d) => d.code === 'nginx/ssl-session-cache')!.severity, 4);
  });
  it('template at 1.29.7: no version complaints, keep-alive upstream accepted', () => {
    const { ds } = check('000-template.conf', '1.29.7');
    assert.ok(!marks(ds).some((m) => m.endsWith('needs-newer-version') || m.endsWith('ssl-protocols-old') || m.includes('keepalive')));
  });
  it('TLS block: stapling without a resolver; tickets off with a shared cache is fine', () => {
    const { ds } = check('000-tls.conf', '1.22.1');
    assert.deepEqual(marks(ds, isTuning), ['8:nginx/ssl-stapling-no-resolver']);
  });
});

describe('seed 002', () => {
  it('proxy_pass to a literal address is flagged at every version (measured: 1 backend connection per request on 1.22.1 and 1.30.6)', () => {
    assert.deepEqual(marks(check('002-apisix.conf', '1.22.1').ds, isTuning), ['6:nginx/proxy-pass-no-upstream']);
    assert.deepEqual(marks(check('002-apisix.conf', '1.29.7').ds, isTuning), ['6:nginx/proxy-pass-no-upstream']);
  });
});

describe('seed 004', () => {
  it('nginx: proxy_buffers in stream is a context error; the fd limit is missing; event lines are hints', () => {
    const { ds } = check('004-stream.conf', '1.22.1');
    assert.ok(marks(ds).includes('19:nginx/not-allowed-here'));
    assert.deepEqual(
      marks(ds, isTuning),
      ['3:nginx/redundant-event-setting', '4:nginx/redundant-event-setting', '5:nginx/worker-rlimit-nofile'].sort(),
    );
    for (const d of ds.filter((x) => x.code === 'nginx/redundant-event-setting')) assert.equal(d.severity, 4);
  });
  it('HAProxy 2.6: nbproc removed, splice/no log not global keywords, plus the tuning advice', () => {
    const { ds } = check('004-haproxy.cfg', '2.6');
    const all = marks(ds);
    for (const m of [
      '3:haproxy/removed-keyword',
      '6:haproxy/unknown-keyword',
      '7:haproxy/unknown-keyword',
      '8:haproxy/unknown-keyword',
      '9:haproxy/unknown-keyword',
    ]) {
      assert.ok(all.includes(m), `${m} in ${all.join(' ')}`);
    }
    assert.deepEqual(
      marks(ds, isTuning),
      ['12:haproxy/splice-auto', '18:haproxy/balance-long-lived', '21:haproxy/server-no-check', '22:haproxy/server-no-check'].sort(),
    );
  });
  it('HAProxy 2.4: nbproc still loads but is flagged as multi-process mode', () => {
    assert.ok(marks(check('004-haproxy.cfg', '2.4').ds, isTuning).includes('3:haproxy/nbproc'));
  });
});
