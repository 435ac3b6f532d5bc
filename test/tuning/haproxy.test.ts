// HAProxy tuning and safety rules: trigger, no trigger, fixed text, version and host cases.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { parseHaproxy } from '../../server/src/languages/haproxy/parser';
import { haproxyTuning } from '../../server/src/service/tuning';
import { applyFix, expectNone, expectRule, fixOf } from './helpers';

const TIMEOUTS = '    timeout connect 5s\n    timeout client 30s\n    timeout server 30s\n';

describe('haproxy/global-maxconn', () => {
  it('flags global without maxconn and adds it after the header', () => {
    const { doc, found } = expectRule('haproxy', '<|global|>\n    log stdout local0\n', 'haproxy/global-maxconn');
    assert.equal(applyFix(doc, found[0]), 'global\n    maxconn 4096\n    log stdout local0\n');
  });
  it('sizes the fix from the host fd limit when known', () => {
    const { doc, found } = expectRule('haproxy', '<|global|>\n    daemon\n', 'haproxy/global-maxconn', {
      host: { nofileLimit: 65536, target: true },
    });
    assert.equal(applyFix(doc, found[0]), 'global\n    maxconn 32768\n    daemon\n');
  });
  it('accepts a maxconn', () => {
    expectNone('haproxy', 'global\n    maxconn 100000\n', 'haproxy/global-maxconn');
  });
});

describe('haproxy/nbproc (the seed 004 config; until 2.5)', () => {
  const text = 'global\n    maxconn 100000\n    <|nbproc|> 4          # 2 cores\n';
  it('warns before 2.5, and the fix switches to nbthread keeping the comment', () => {
    const { doc, found } = expectRule('haproxy', text, 'haproxy/nbproc', { haproxyVersion: '2.4' });
    assert.equal(found[0].severity, 2);
    assert.equal(applyFix(doc, found[0]), 'global\n    maxconn 100000\n    nbthread 4          # 2 cores\n');
  });
  it('leaves 2.5 and later to the module (removed keyword), and ignores nbproc 1', () => {
    expectNone('haproxy', text.replace(/<\||\|>/g, ''), 'haproxy/nbproc', { haproxyVersion: '2.6' });
    expectNone('haproxy', 'global\n    nbproc 1\n', 'haproxy/nbproc', { haproxyVersion: '2.4' });
  });
});

describe('haproxy/nbthread-above-cores (host-aware)', () => {
  it('flags more threads than cores and sets the core count', () => {
    const { doc, found } = expectRule('haproxy', 'global\n    maxconn 10\n    nbthread <|8|>\n', 'haproxy/nbthread-above-cores', {
      host: { cpuCount: 2, target: true },
    });
    assert.equal(applyFix(doc, found[0]), 'global\n    maxconn 10\n    nbthread 2\n');
  });
  it("applies this machine's cores only to a file the local binary loads (/etc/haproxy/...)", () => {
    const text = 'global\n    maxconn 10\n    nbthread 8\n';
    const codes = (uri: string) =>
      haproxyTuning(TextDocument.create(uri, 'haproxy', 1, text), parseHaproxy(text), { host: { cpuCount: 2 } }).map((d) => d.code);
    assert.ok(codes('file:///etc/haproxy/haproxy.cfg').includes('haproxy/nbthread-above-cores'));
    assert.ok(!codes('file:///home/me/repo/deploy/haproxy.cfg').includes('haproxy/nbthread-above-cores'));
  });
  it('is silent without host facts or within the core count', () => {
    expectNone('haproxy', 'global\n    nbthread 8\n', 'haproxy/nbthread-above-cores');
    expectNone('haproxy', 'global\n    nbthread 2\n', 'haproxy/nbthread-above-cores', { host: { cpuCount: 2, target: true } });
  });
});

describe('haproxy/option-httpclose', () => {
  it('flags httpclose and http-server-close, and removes the line', () => {
    const text = 'defaults\n    mode http\n    option <|http-server-close|>\n    option <|httpclose|>\n';
    const { doc, found } = expectRule('haproxy', text, 'haproxy/option-httpclose');
    assert.equal(applyFix(doc, found[0]), 'defaults\n    mode http\n    option httpclose\n');
    assert.equal(fixOf(found[0]).safe, false);
  });
  it('accepts "no option httpclose"', () => {
    expectNone('haproxy', 'defaults\n    no option httpclose\n', 'haproxy/option-httpclose');
  });
  it('is silent where only TCP proxies read it: a defaults feeding tcp-mode proxies, a tcp-mode proxy', () => {
    expectNone(
      'haproxy',
      'defaults\n    mode tcp\n    option httpclose\nfrontend f\n    bind :6443\n    default_backend k\nbackend k\n    server a 127.0.0.1:6443\n',
      'haproxy/option-httpclose',
    );
    expectNone(
      'haproxy',
      'defaults\n    mode http\n    option http-server-close\nlisten db\n    mode tcp\n    bind :5432\n    server a 127.0.0.1:5432\n',
      'haproxy/option-httpclose',
    );
    expectNone('haproxy', 'defaults\n    option httpclose\n', 'haproxy/option-httpclose');
    expectNone('haproxy', 'listen db\n    mode tcp\n    option httpclose\n    server a 127.0.0.1:5432\n', 'haproxy/option-httpclose');
    // one HTTP proxy among them is enough
    expectRule(
      'haproxy',
      'defaults\n    mode tcp\n    option <|httpclose|>\nlisten db\n    bind :5432\n    server a 127.0.0.1:5432\nlisten web\n    mode http\n    bind :80\n    server a 127.0.0.1:8080\n',
      'haproxy/option-httpclose',
    );
  });
});

describe('haproxy/http-reuse', () => {
  const text = `defaults\n    mode <|http|>\n${TIMEOUTS}\nbackend app\n    server a 127.0.0.1:1 check\nbackend api\n    server a 127.0.0.1:2 check\n`;
  it('hints once, in defaults, when the HTTP mode comes from there, and adds it there (the default is right for keep-alive clients)', () => {
    const { doc, found } = expectRule('haproxy', text, 'haproxy/http-reuse');
    assert.equal(found[0].severity, 4);
    assert.equal(applyFix(doc, found[0]), text.replace(/<\||\|>/g, '').replace('mode http\n', 'mode http\n    http-reuse always\n'));
  });
  it('informs on a backend that sets mode http itself', () => {
    const own = 'backend <|app|>\n    mode http\n    server a 127.0.0.1:1 check\n';
    const { doc, found } = expectRule('haproxy', own, 'haproxy/http-reuse');
    assert.equal(applyFix(doc, found[0]), own.replace(/<\||\|>/g, '') + '    http-reuse always\n');
  });
  it('accepts an explicit http-reuse, and TCP backends', () => {
    expectNone('haproxy', text.replace(/<\||\|>/g, '').replace('defaults\n', 'defaults\n    http-reuse safe\n'), 'haproxy/http-reuse');
    expectNone('haproxy', 'backend b\n    mode tcp\n    server a 127.0.0.1:1\n', 'haproxy/http-reuse');
  });
});

describe('haproxy/tcp-timeout-tunnel', () => {
  const KUBE =
    'defaults\n    mode tcp\n    timeout connect 5s\n    timeout client 35s\n    timeout server 35s\nfrontend kube-api\n    bind :6443\n    default_backend masters\nbackend <|masters|>\n    server m1 192.0.2.10:6443 check\n    server m2 192.0.2.11:6443 check\n';
  it('flags the backend of a Kubernetes API balancer whose idle timeouts cut kubectl exec / logs -f, and adds timeout tunnel there', () => {
    const { doc, found } = expectRule('haproxy', KUBE, 'haproxy/tcp-timeout-tunnel');
    assert.match(found[0].message, /timeout client 35s/);
    assert.match(applyFix(doc, found[0]), /server m2 192\.0\.2\.11:6443 check\n    timeout tunnel 1h\n$/);
  });
  it('not on a frontend, which ignores timeout tunnel; a backend fed by a 6443 frontend counts whatever its name', () => {
    const renamed = KUBE.replace(/<\||\|>/g, '')
      .replace(/masters/g, 'pool')
      .replace(/192\.0\.2\.1(\d):6443/g, '192.0.2.1$1:7443');
    const { found } = expectRule('haproxy', renamed.replace('\nbackend pool', '\nbackend <|pool|>'), 'haproxy/tcp-timeout-tunnel');
    assert.equal(found.length, 1);
  });
  it('accepts a timeout tunnel (here or in defaults), long timeouts, HTTP mode and other TCP services', () => {
    const plain = KUBE.replace(/<\||\|>/g, '');
    expectNone('haproxy', plain.replace('timeout server 35s', 'timeout server 35s\n    timeout tunnel 1h'), 'haproxy/tcp-timeout-tunnel');
    expectNone('haproxy', plain.replace(/35s/g, '2h'), 'haproxy/tcp-timeout-tunnel');
    expectNone('haproxy', plain.replace('mode tcp', 'mode http'), 'haproxy/tcp-timeout-tunnel');
    expectNone('haproxy', plain.replace(/6443/g, '5432').replace('kube-api', 'db'), 'haproxy/tcp-timeout-tunnel');
  });
});

describe('haproxy/server-no-check', () => {
  const text = 'backend b\n    server <|rs1|> 192.168.1.10:80 weight 2  # main\n    server rs2 192.168.1.11:80 check\n';
  it('flags servers without check and appends check before the comment', () => {
    const { doc, found } = expectRule('haproxy', text, 'haproxy/server-no-check');
    assert.equal(
      applyFix(doc, found[0]),
      'backend b\n    server rs1 192.168.1.10:80 weight 2 check  # main\n    server rs2 192.168.1.11:80 check\n',
    );
  });
  it('accepts a single server, or default-server check', () => {
    expectNone('haproxy', 'backend b\n    server rs1 127.0.0.1:80\n', 'haproxy/server-no-check');
    expectNone(
      'haproxy',
      'defaults\n    default-server check\nbackend b\n    server a 127.0.0.1:1\n    server b 127.0.0.1:2\n',
      'haproxy/server-no-check',
    );
  });
});

describe('haproxy/balance-long-lived', () => {
  it('flags roundrobin in TCP mode (once, in defaults) and switches to leastconn', () => {
    const text = `defaults\n    mode tcp\n    balance <|roundrobin|>\n${TIMEOUTS}\nbackend a\n    server s 127.0.0.1:1\nbackend b\n    server s 127.0.0.1:2\n`;
    const { doc, found } = expectRule('haproxy', text, 'haproxy/balance-long-lived');
    assert.equal(applyFix(doc, found[0]), text.replace(/<\||\|>/g, '').replace('balance roundrobin', 'balance leastconn'));
  });
  it('flags roundrobin with a tunnel timeout in HTTP mode', () => {
    expectRule(
      'haproxy',
      'backend ws\n    mode http\n    timeout tunnel 1h\n    balance <|static-rr|>\n    server a 127.0.0.1:1\n',
      'haproxy/balance-long-lived',
    );
  });
  it('accepts roundrobin for plain HTTP, and leastconn for TCP', () => {
    expectNone('haproxy', 'backend a\n    mode http\n    balance roundrobin\n    server s 127.0.0.1:1\n', 'haproxy/balance-long-lived');
    expectNone('haproxy', 'backend a\n    mode tcp\n    balance leastconn\n    server s 127.0.0.1:1\n', 'haproxy/balance-long-lived');
  });
});

describe('haproxy/bufsize-without-maxrewrite', () => {
  it('flags a smaller buffer without a rewrite reserve', () => {
    expectRule('haproxy', 'global\n    maxconn 1\n    tune.bufsize <|8192|>\n', 'haproxy/bufsize-without-maxrewrite');
  });
  it('accepts larger buffers (HAProxy keeps 1024) and explicit reserves (seed 004)', () => {
    expectNone('haproxy', 'global\n    tune.bufsize 32768\n', 'haproxy/bufsize-without-maxrewrite');
    expectNone('haproxy', 'global\n    tune.bufsize 8192\n    tune.maxrewrite 1024\n', 'haproxy/bufsize-without-maxrewrite');
  });
});

describe('haproxy/splice-auto', () => {
  it('hints once for TCP defaults and inserts the option after mode', () => {
    const text = `defaults\n    mode <|tcp|>\n${TIMEOUTS}\nbackend a\n    server s 127.0.0.1:1\nbackend b\n    server s 127.0.0.1:2\n`;
    const { doc, found } = expectRule('haproxy', text, 'haproxy/splice-auto');
    assert.equal(found[0].severity, 4);
    assert.equal(applyFix(doc, found[0]), text.replace(/<\||\|>/g, '').replace('mode tcp\n', 'mode tcp\n    option splice-auto\n'));
  });
  it('accepts splice on the backend or on a frontend that uses it, and HTTP mode', () => {
    expectNone('haproxy', 'backend a\n    mode tcp\n    option splice-auto\n    server s 127.0.0.1:1\n', 'haproxy/splice-auto');
    expectNone(
      'haproxy',
      'frontend f\n    mode tcp\n    option splice-auto\n    default_backend a\nbackend a\n    mode tcp\n    server s 127.0.0.1:1\n',
      'haproxy/splice-auto',
    );
    expectNone('haproxy', 'backend a\n    mode http\n    server s 127.0.0.1:1\n', 'haproxy/splice-auto');
  });
});

describe('haproxy/ssl-old-protocols (version-aware: TLSv1.2 default since 2.2)', () => {
  const text = 'global\n    maxconn 10\nfrontend f\n    <|bind|> :443 ssl crt /etc/haproxy/site.pem\n';
  it('before 2.2, flags TLS binds without a floor and adds ssl-default-bind-options', () => {
    const { doc, found } = expectRule('haproxy', text, 'haproxy/ssl-old-protocols', { haproxyVersion: '2.1' });
    assert.equal(
      applyFix(doc, found[0]),
      'global\n    maxconn 10\n    ssl-default-bind-options ssl-min-ver TLSv1.2\nfrontend f\n    bind :443 ssl crt /etc/haproxy/site.pem\n',
    );
  });
  it('since 2.2, only an explicit old minimum is flagged', () => {
    expectNone('haproxy', text.replace(/<\||\|>/g, ''), 'haproxy/ssl-old-protocols', { haproxyVersion: '2.6' });
    const old = 'global\n    ssl-default-bind-options ssl-min-ver TLSv1.0 no-tls-tickets\nfrontend f\n    <|bind|> :443 ssl crt /x.pem\n';
    const { doc, found } = expectRule('haproxy', old, 'haproxy/ssl-old-protocols', { haproxyVersion: '2.6' });
    assert.equal(applyFix(doc, found[0]), old.replace(/<\||\|>/g, '').replace('TLSv1.0', 'TLSv1.2'));
  });
  it('accepts no-tlsv10 no-tlsv11 before 2.2', () => {
    expectNone(
      'haproxy',
      'global\n    ssl-default-bind-options no-sslv3 no-tlsv10 no-tlsv11\nfrontend f\n    bind :443 ssl crt /x.pem\n',
      'haproxy/ssl-old-protocols',
      { haproxyVersion: '2.0' },
    );
  });
});

describe('haproxy/log-without-dontlognull', () => {
  it('flags logging defaults once and inserts the option after log', () => {
    const text = `defaults\n    mode http\n    <|log|> global\n${TIMEOUTS}\nfrontend a\n    bind :80\nfrontend b\n    bind :81\n`;
    const { doc, found } = expectRule('haproxy', text, 'haproxy/log-without-dontlognull');
    assert.equal(applyFix(doc, found[0]), text.replace(/<\||\|>/g, '').replace('log global\n', 'log global\n    option dontlognull\n'));
  });
  it('accepts dontlognull, and proxies that do not log', () => {
    expectNone(
      'haproxy',
      'defaults\n    log global\n    option dontlognull\nfrontend a\n    bind :80\n',
      'haproxy/log-without-dontlognull',
    );
    expectNone('haproxy', 'frontend a\n    bind :80\n', 'haproxy/log-without-dontlognull');
  });
});
