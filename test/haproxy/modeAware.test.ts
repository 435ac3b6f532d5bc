// Mode-aware completion and log-format completion for HAProxy. The HTTP-only keyword table
// (overrides.ts HTTP_ONLY_KEYWORDS) is checked against the real `haproxy -c` of the matrix: each
// line draws the "requires HTTP mode" warning in a tcp-mode proxy and nothing in an http one.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { HTTP_ONLY_KEYWORDS } from '../../server/src/languages/haproxy/overrides';
import { diagnose, fixture, hoverText, labels } from './helpers';
import { haproxyModule } from '../../server/src/languages/haproxy/index';
import { matchProxyKeyword } from '../../server/src/languages/haproxy/data';
import { haproxyCheck, matrixBinaries, tempDir } from '../snippets/helpers';

const DEFAULTS = 'defaults\n  timeout connect 5s\n  timeout client 5s\n  timeout server 5s\n';

describe('mode-aware completion', () => {
  it('a tcp section: no http-request, stats, cookie, redirect; tcp keywords stay', () => {
    const tcp = labels('listen l\n  mode tcp\n  bind :1\n  <|>\n');
    for (const k of ['http-request', 'http-response', 'http-after-response', 'stats', 'cookie', 'redirect', 'monitor-uri'])
      assert.ok(!tcp.includes(k), `${k} hidden in tcp mode`);
    for (const k of ['tcp-request', 'server', 'balance', 'option', 'timeout', 'capture', 'default_backend'])
      assert.ok(tcp.includes(k), `${k} offered in tcp mode`);
    const http = labels('listen l\n  mode http\n  bind :1\n  <|>\n');
    for (const k of ['http-request', 'stats', 'cookie', 'redirect']) assert.ok(http.includes(k), `${k} offered in http mode`);
  });

  it('the mode may come after the cursor: it holds for the whole section', () => {
    assert.ok(!labels('backend b\n  <|>\n  mode tcp\n').includes('http-request'));
  });

  it('option members and capture kinds follow the mode', () => {
    const opts = labels('frontend f\n  mode tcp\n  option <|>\n');
    for (const o of ['httplog', 'forwardfor', 'http-buffer-request']) assert.ok(!opts.includes(o), o);
    for (const o of ['tcplog', 'tcpka', 'dontlognull']) assert.ok(opts.includes(o), o);
    assert.ok(labels('frontend f\n  mode http\n  option <|>\n').includes('forwardfor'));
    const cap = labels('frontend f\n  mode tcp\n  capture <|>\n');
    assert.ok(!cap.includes('cookie') && cap.includes('request'), cap.join(','));
  });

  it('inherited from defaults: the last one before, or the one named by `from`', () => {
    assert.ok(!labels(`${DEFAULTS}  mode tcp\nfrontend f\n  <|>\n`).includes('http-request'));
    assert.ok(
      labels(`${DEFAULTS}  mode tcp\nfrontend f\n  mode http\n  <|>\n`).includes('http-request'),
      'the section overrides its defaults',
    );
    assert.ok(labels(`defaults web\n  mode http\ndefaults raw\n  mode tcp\nfrontend f from web\n  <|>\n`).includes('http-request'));
    assert.ok(!labels(`defaults web\n  mode http\ndefaults raw\n  mode tcp\nfrontend f from raw\n  <|>\n`).includes('http-request'));
    assert.ok(
      !labels(`defaults raw\n  mode tcp\ndefaults d2 from raw\n  timeout client 1s\nbackend b\n  <|>\n`).includes('http-request'),
      'through a chain of defaults',
    );
    assert.ok(!labels(`defaults\n  mode tcp\n  <|>\n`).includes('http-request'), 'a tcp defaults section itself');
  });

  it('no mode written anywhere: everything stays on offer', () => {
    assert.ok(labels('frontend f\n  <|>\n').includes('http-request'));
  });
});

describe('HTTP-only keywords in tcp mode: warnings', () => {
  const warned = (text: string) =>
    diagnose(text)
      .diags.filter((d) => d.code === 'haproxy/http-option-in-tcp')
      .map((d) => `${d.range.start.line}: ${d.message}`);

  it('tcp is the default: a proxy without any mode line is told so', () => {
    assert.deepEqual(warned(`${DEFAULTS}backend b\n  http-request deny\n  server s 127.0.0.1:1\n`), [
      "5: 'http-request' needs 'mode http'; backend 'b' runs in tcp mode (no 'mode' line: tcp is the default), so HAProxy ignores it.",
    ]);
  });

  it('inherited from defaults: reported once, on the defaults line; a nearer no-option or log format overrides it', () => {
    const base = `defaults\n  mode tcp\n  option forwardfor\n  option httplog\n  timeout connect 1s\n  timeout client 1s\n  timeout server 1s\n`;
    assert.deepEqual(warned(`${base}frontend f\n  bind 127.0.0.1:1\n  default_backend b\nbackend b\n  server s 127.0.0.1:1\n`), [
      "2: 'option forwardfor' needs 'mode http'; frontend 'f' runs in tcp mode, so HAProxy ignores it.",
      "3: 'option httplog' needs 'mode http'; frontend 'f' runs in tcp mode and falls back to 'option tcplog'.",
    ]);
    assert.deepEqual(
      warned(
        `${base}frontend f\n  bind 127.0.0.1:1\n  option tcplog\n  no option forwardfor\n  default_backend b\nbackend b\n  no option forwardfor\n  server s 127.0.0.1:1\n`,
      ),
      [],
    );
  });
});

describe('log-format completion', () => {
  it('aliases after %, with their field names; HTTP-only ones left out in tcp mode', () => {
    const f = fixture('frontend f\n  mode http\n  log-format "%c<|>"\n');
    const items = haproxyModule.complete(f.doc, haproxyModule.parse(f.text), f.cursor!, {}).items;
    const ci = items.find((i) => i.label === 'ci');
    assert.match(ci!.detail!, /client_ip/);
    assert.match(items.find((i) => i.label === 'ST')!.detail!, /status_code, numeric/);
    assert.match(items.find((i) => i.label === 'HM')!.detail!, /HTTP only/);
    const tcp = labels('frontend f\n  mode tcp\n  log-format "%<|>"\n');
    assert.ok(tcp.includes('ci') && !tcp.includes('HM') && !tcp.includes('r'), 'HTTP-only aliases hidden in tcp mode');
  });

  it('after %{ : the item flags of the target version, after a comma the next one; then the alias', () => {
    const at32 = labels('frontend f\n  log-format "%{<|>"\n', { haproxyVersion: '3.2' });
    for (const x of ['+Q', '-Q', '+X', '+E', '+json', '+utf8']) assert.ok(at32.includes(x), x);
    const at26 = labels('frontend f\n  log-format "%{<|>"\n', { haproxyVersion: '2.6' });
    assert.deepEqual(at26.sort(), ['+E', '+Q', '+X', '-E', '-Q', '-X']);
    const at30 = labels('frontend f\n  log-format "%{<|>"\n', { haproxyVersion: '3.0' });
    assert.ok(at30.includes('+json') && !at30.includes('+utf8'));
    const f = fixture('frontend f\n  log-format "%{+Q,+<|>"\n');
    const item = haproxyModule.complete(f.doc, haproxyModule.parse(f.text), f.cursor!, {}).items.find((i) => i.label === '+E')!;
    assert.equal(
      f.doc.offsetAt((item.textEdit as { range: { start: { line: number; character: number } } }).range.start),
      f.text.indexOf('+Q,') + 3,
    );
    assert.ok(labels('frontend f\n  log-format "%{+Q}<|>"\n').includes('ci'));
  });

  it('inside %[ : sample fetches', () => {
    assert.ok(labels('frontend f\n  log-format "%[src<|>"\n').includes('src'));
  });
});

describe('hover versions', () => {
  it('keywords without a bound say nothing about versions (the tables start at 2.4)', () => {
    for (const t of [hoverText('backend b\n  http-re<|>use safe\n'), hoverText('backend b\n  maxc<|>onn 10\n')]) {
      assert.ok(t);
      assert.doesNotMatch(t!, /2\.4/);
      assert.doesNotMatch(t!, /every version/);
    }
    // a bound is still shown
    assert.match(hoverText('global\n  nbpr<|>oc 2\n', { haproxyVersion: '2.4' }) ?? '', /removed in 2\.5/);
  });

  it('facts before the description', () => {
    const t = hoverText('backend b\n  bal<|>ance roundrobin\n')!;
    assert.ok(t.indexOf('Allowed in') < t.indexOf('[HAProxy documentation]'));
    assert.ok(t.indexOf('```haproxy') < t.indexOf('Allowed in'));
  });
});

const bins = matrixBinaries('haproxy', ['2.6', '3.0', '3.2']);

describe('the HTTP-only table against the real haproxy -c', { skip: !bins.length && 'no haproxy binaries' }, () => {
  for (const bin of bins) {
    it(`haproxy ${bin.version}: each line warns in tcp mode and not in http mode (where the version knows it)`, () => {
      const dir = tempDir('httponly');
      const unknown: string[] = [];
      try {
        for (const [name, line] of Object.entries(HTTP_ONLY_KEYWORDS)) {
          const conf = (mode: string) =>
            `global\n  log stderr local0\n${DEFAULTS}listen p\n  mode ${mode}\n  log global\n  bind 127.0.0.1:18999\n  ${line}\n  server s 127.0.0.1:18998\n`;
          const http = haproxyCheck(bin, dir, conf('http'));
          if (/unknown option|unknown keyword/.test(http.output)) {
            unknown.push(name);
            continue;
          }
          assert.equal(http.status, 0, `${name} in http mode:\n${http.output}`);
          // (a deprecation notice is not about the mode: 3.2 renamed the accept-invalid-* options)
          const warnings = http.output.split('\n').filter((l) => /\[WARNING\]/.test(l) && !/deprecated/.test(l));
          assert.deepEqual(warnings, [], `${name} in http mode:\n${http.output}`);
          const tcp = haproxyCheck(bin, dir, conf('tcp'));
          assert.match(tcp.output, /require[s]? HTTP mode|needs 'mode http'/, `${name} in tcp mode:\n${tcp.output}`);
          // and our linter says so on that line, only in tcp mode (for the keywords our tables know:
          // 3.2's accept-unsafe-violations-* options are not in data/keywords.json yet)
          if (!matchProxyKeyword(line.split(' '))) continue;
          const ours = (mode: string) =>
            diagnose(conf(mode), { haproxyVersion: bin.version })
              .diags.filter((d) => d.code === 'haproxy/http-option-in-tcp')
              .map((d) => d.range.start.line);
          assert.deepEqual(ours('tcp'), [10], `${name}: our warning in tcp mode`);
          assert.deepEqual(ours('http'), [], `${name}: nothing in http mode`);
        }
        // only the options newer or older than this version are unknown to it
        for (const n of unknown) assert.match(n, /^option (forwarded|accept-)/, `${n} unknown to ${bin.version}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('action hover', () => {
  it('shows the action syntax', () => {
    const t = hoverText('frontend f\n  http-request set-hea<|>der X-A 1\n')!;
    assert.match(t, /set-header <name> <fmt>/);
    assert.match(hoverText('frontend f\n  http-request track-s<|>c1 src\n')!, /track-sc1 <key> \[table <table>\]/);
  });
});
