// HAProxy security rules (tuning/haproxy/security.ts): configs that should be flagged and
// configs that should not, and the fixed text where a fix is offered.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyFix, expectNone, expectRule, fixOf } from './helpers';

const G = 'global\n    maxconn 4096\n\ndefaults\n    mode http\n    timeout connect 5s\n    timeout client 30s\n    timeout server 30s\n\n';

describe('haproxy/stats-no-auth', () => {
  it('flags a stats page on all interfaces without auth, and says when admin is on', () => {
    expectRule('haproxy', `${G}listen stats\n    bind :8404\n    stats <|enable|>\n    stats uri /stats\n`, 'haproxy/stats-no-auth');
    const { found } = expectRule(
      'haproxy',
      `${G}frontend fe\n    bind 0.0.0.0:80\n    stats <|uri|> /haproxy?stats\n    stats admin if TRUE\n    default_backend be\n\nbackend be\n    server s1 127.0.0.1:8080\n`,
      'haproxy/stats-no-auth',
    );
    assert.match(found[0].message, /stats admin/);
  });
  it('accepts auth, an access rule, a loopback or UNIX bind, and TCP mode', () => {
    expectNone('haproxy', `${G}listen stats\n    bind :8404\n    stats enable\n    stats auth admin:secret\n`, 'haproxy/stats-no-auth');
    expectNone(
      'haproxy',
      `${G}listen stats\n    bind :8404\n    stats enable\n    http-request deny unless { src 10.0.0.0/8 }\n`,
      'haproxy/stats-no-auth',
    );
    expectNone('haproxy', `${G}listen stats\n    bind 127.0.0.1:8404\n    stats enable\n`, 'haproxy/stats-no-auth');
    expectNone(
      'haproxy',
      `${G}listen stats\n    bind unix@/run/haproxy/stats.sock\n    bind [::1]:8404\n    stats enable\n`,
      'haproxy/stats-no-auth',
    );
    expectNone('haproxy', `${G}listen stats\n    mode tcp\n    bind :8404\n    stats enable\n`, 'haproxy/stats-no-auth');
  });
});

describe('haproxy/stats-socket-exposed', () => {
  it('flags the runtime API on an IP address', () => {
    expectRule('haproxy', 'global\n    maxconn 100\n    stats socket <|ipv4@0.0.0.0:9999|> level admin\n', 'haproxy/stats-socket-exposed');
    const { found } = expectRule(
      'haproxy',
      'global\n    maxconn 100\n    stats socket <|:9999|> level user\n',
      'haproxy/stats-socket-exposed',
    );
    assert.equal(found[0].severity, 3);
  });
  it('accepts UNIX sockets and loopback', () => {
    expectNone(
      'haproxy',
      'global\n    maxconn 100\n    stats socket /run/haproxy/admin.sock mode 660 level admin\n    stats socket ipv4@127.0.0.1:9999 level admin\n',
      'haproxy/stats-socket-exposed',
    );
  });
});

describe('haproxy/client-chosen-backend', () => {
  it('flags a backend name taken from a header, cookie or variable set from client input', () => {
    expectRule(
      'haproxy',
      `${G}frontend fe\n    bind :80\n    use_backend <|%[req.hdr(x-backend)]|>\n    default_backend be\n\nbackend be\n    server s1 127.0.0.1:8080\n`,
      'haproxy/client-chosen-backend',
    );
    expectRule(
      'haproxy',
      `${G}frontend fe\n    bind :80\n    http-request set-var(txn.target) req.cook(route)\n    use_backend <|be_%[var(txn.target)]|>\n    default_backend be\n\nbackend be\n    server s1 127.0.0.1:8080\n`,
      'haproxy/client-chosen-backend',
    );
  });
  it('flags set-header copying client input into a header that routing reads', () => {
    const { found } = expectRule(
      'haproxy',
      `${G}frontend fe\n    bind :80\n    http-request set-header <|X-Tenant|> %[url_param(tenant)]\n    acl is_admin req.hdr(x-tenant) -m str admin\n    use_backend admin if is_admin\n    default_backend be\n\nbackend admin\n    server a 127.0.0.1:9000\n\nbackend be\n    server s1 127.0.0.1:8080\n`,
      'haproxy/client-chosen-backend',
    );
    assert.match(found[0].message, /line 14/);
  });
  it('accepts a map lookup, a header the proxy sets itself, and routing on other headers', () => {
    expectNone(
      'haproxy',
      `${G}frontend fe\n    bind :80\n    use_backend %[req.hdr(host),lower,map(/etc/haproxy/hosts.map,be)]\n    default_backend be\n\nbackend be\n    server s1 127.0.0.1:8080\n`,
      'haproxy/client-chosen-backend',
    );
    expectNone(
      'haproxy',
      `${G}frontend fe\n    bind :80\n    http-request set-header X-Tenant %[src]\n    use_backend admin if { req.hdr(x-tenant) -m str 10.0.0.1 }\n    default_backend be\n\nbackend admin\n    server a 127.0.0.1:9000\n\nbackend be\n    server s1 127.0.0.1:8080\n`,
      'haproxy/client-chosen-backend',
    );
    expectNone(
      'haproxy',
      `${G}frontend fe\n    bind :80\n    http-request set-header X-Seen %[req.hdr(user-agent)]\n    use_backend admin if { req.hdr(host) -m str admin.example.com }\n    default_backend be\n\nbackend admin\n    server a 127.0.0.1:9000\n\nbackend be\n    server s1 127.0.0.1:8080\n`,
      'haproxy/client-chosen-backend',
    );
  });
});

describe('haproxy/forwardfor-no-hygiene', () => {
  it('warns on if-none, informs on a plain forwardfor, and offers del-header', () => {
    const text = `${G}frontend fe\n    bind :80\n    option forwardfor <|if-none|>\n    default_backend be\n\nbackend be\n    server s1 127.0.0.1:8080\n`;
    const { doc, found } = expectRule('haproxy', text, 'haproxy/forwardfor-no-hygiene');
    assert.equal(found[0].severity, 2);
    assert.equal(fixOf(found[0]).safe, false);
    assert.match(applyFix(doc, found[0]), /option forwardfor if-none\n    http-request del-header X-Forwarded-For\n/);
    const { found: f2 } = expectRule(
      'haproxy',
      `${G}backend be\n    option <|forwardfor|>\n    server s1 127.0.0.1:8080\n`,
      'haproxy/forwardfor-no-hygiene',
    );
    assert.equal(f2[0].severity, 3);
  });
  it('accepts del-header or set-header of the header, and TCP mode', () => {
    expectNone(
      'haproxy',
      `${G}frontend fe\n    bind :80\n    http-request del-header X-Forwarded-For\n    default_backend be\n\nbackend be\n    option forwardfor\n    server s1 127.0.0.1:8080\n`,
      'haproxy/forwardfor-no-hygiene',
    );
    expectNone(
      'haproxy',
      `${G}frontend fe\n    bind :80\n    option forwardfor header X-Real-IP\n    http-request set-header X-Real-IP %[src]\n    default_backend be\n\nbackend be\n    server s1 127.0.0.1:8080\n`,
      'haproxy/forwardfor-no-hygiene',
    );
    expectNone(
      'haproxy',
      `${G}backend be\n    mode tcp\n    option forwardfor\n    server s1 127.0.0.1:8080\n`,
      'haproxy/forwardfor-no-hygiene',
    );
  });
});

describe('haproxy/ssl-weak-ciphers', () => {
  it('flags global and per-line cipher lists with broken ciphers', () => {
    expectRule('haproxy', 'global\n    maxconn 100\n    ssl-default-bind-ciphers <|RC4:HIGH:!aNULL|>\n', 'haproxy/ssl-weak-ciphers');
    expectRule(
      'haproxy',
      `${G}frontend fe\n    bind :443 ssl crt /etc/haproxy/site.pem ciphers <|DES-CBC3-SHA:HIGH|>\n    default_backend be\n\nbackend be\n    server s1 127.0.0.1:8080\n`,
      'haproxy/ssl-weak-ciphers',
    );
  });
  it('accepts current lists', () => {
    expectNone(
      'haproxy',
      'global\n    maxconn 100\n    ssl-default-bind-ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256\n    ssl-default-server-ciphers HIGH:!aNULL:!MD5\n',
      'haproxy/ssl-weak-ciphers',
    );
  });
});

describe('haproxy/server-ssl-verify-none', () => {
  it('flags verify none to a remote server and ssl-server-verify none', () => {
    expectRule('haproxy', `${G}backend be\n    server s1 192.0.2.10:443 ssl verify <|none|>\n`, 'haproxy/server-ssl-verify-none');
    expectRule('haproxy', 'global\n    maxconn 100\n    ssl-server-verify <|none|>\n', 'haproxy/server-ssl-verify-none');
  });
  it('accepts loopback, verification, and plain TCP', () => {
    expectNone(
      'haproxy',
      `${G}backend be\n    server s1 127.0.0.1:8443 ssl verify none\n    server s2 192.0.2.10:443 ssl verify required ca-file /etc/ssl/certs/ca.pem\n    server s3 192.0.2.11:80\n`,
      'haproxy/server-ssl-verify-none',
    );
  });
});

describe('haproxy/weak-dh-param', () => {
  it('flags DH parameters below 2048 bits', () => {
    expectRule('haproxy', 'global\n    maxconn 100\n    tune.ssl.default-dh-param <|1024|>\n', 'haproxy/weak-dh-param');
    expectNone('haproxy', 'global\n    maxconn 100\n    tune.ssl.default-dh-param 2048\n', 'haproxy/weak-dh-param');
  });
});
