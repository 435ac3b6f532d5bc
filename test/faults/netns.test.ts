// Loopback proof: the engine runs inside a network namespace that has nothing but loopback
// (`unshare -n`, root only), on configs whose listeners, upstreams, resolvers and log targets are
// public addresses and host names. It still serves (upstreams rewritten to the built-in backend) or
// refuses with a reason; and every address in the sandboxed copy the proxy ran, read back with our
// own parsers, is a loopback one (or a unix socket).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { parseNginx } from '../../server/src/languages/nginx/parser';
import { parseHaproxy } from '../../server/src/languages/haproxy/parser';
import type { Directive } from '../../server/src/languages/nginx/ast';
import { findBinary } from '../../bench/src/index';
import { tempConfig } from '../bench/helpers';

const canUnshare = process.getuid?.() === 0 && spawnSync('unshare', ['-n', 'true']).status === 0;

const NGINX = `user www-data;
worker_processes 1;
events { worker_connections 64; }
http {
    upstream app {
        server app.example.com:8080;
        server 203.0.113.10:80 max_fails=3;
        keepalive 16;
    }
    server {
        listen 198.51.100.1:80;
        listen [2001:db8::1]:8080;
        server_name example.com;
        location / {
            proxy_pass http://app;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
        location /direct {
            proxy_pass http://198.51.100.20:9000/x;
        }
    }
}
stream {
    server {
        listen 0.0.0.0:9000;
        proxy_pass 192.0.2.30:9000;
    }
}
`;

const HAPROXY = `global
    log 192.0.2.99:514 local0
    maxconn 1000

defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s

frontend web
    bind 198.51.100.1:80
    bind [2001:db8::1]:81
    default_backend app

backend app
    server a1 203.0.113.10:8080
    server a2 app.example.com:80
`;

/** The same with a public resolver: nginx would query it at run time, so the engine refuses. */
const NGINX_RESOLVER = NGINX.replace('http {\n', 'http {\n    resolver 8.8.8.8 1.1.1.1 valid=30s;\n');

type Run = {
  interfaces: string[];
  loUp: boolean;
  ok: boolean;
  requests?: number;
  error?: string;
  copies: { name: string; text: string }[];
};

function runInNamespace(file: string): Run {
  const fixture = path.join(__dirname, 'fixtures', 'netnsRun.ts');
  const r = spawnSync('unshare', ['-n', process.execPath, ...process.execArgv, fixture, file], { encoding: 'utf8', timeout: 60_000 });
  const line = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  assert.ok(line.startsWith('{'), `no report from the namespaced run (status ${r.status}): ${r.stderr?.slice(-2000)}`);
  return JSON.parse(line) as Run;
}

/** The host part of an address word: `127.0.0.1:80`, `[::1]:80`, `http://h:1/p`, `8080`, `unix:/x`. */
function hostOf(word: string): string | null {
  let w = word.replace(/^[a-z0-9+]+:\/\//i, '');
  if (/^unix:/i.test(w) || w.startsWith('/') || w.startsWith('@')) return null; // a socket file
  if (/^fd@\d+$/.test(w)) return null; // a listening socket the engine made on 127.0.0.1 and handed over
  w = w.split('/')[0];
  if (w.startsWith('[')) return w.slice(1, w.indexOf(']'));
  if (/^\d+$/.test(w)) return '*'; // a bare port listens on every address
  const c = w.lastIndexOf(':');
  return c >= 0 && w.indexOf(':') === c ? w.slice(0, c) : w;
}

const isLoopback = (h: string) => /^127\.\d+\.\d+\.\d+$/.test(h) || h === '::1';

function nginxAddresses(text: string): { directive: string; host: string | null }[] {
  const out: { directive: string; host: string | null }[] = [];
  const ast = parseNginx(text);
  // `proxy_pass http://app` names an upstream block: its `server` lines are the addresses
  const upstreams = new Set<string>();
  const collect = (list: Directive[]) => {
    for (const d of list) {
      if (d.name === 'upstream' && d.args[0]) upstreams.add(d.args[0].value);
      if (d.block) collect(d.block.children);
    }
  };
  collect(ast.directives);
  const walk = (list: Directive[], parents: string[]) => {
    for (const d of list) {
      const inUpstream = parents[parents.length - 1] === 'upstream';
      if (d.name === 'listen' || (d.name === 'server' && inUpstream) || /^(proxy|fastcgi|grpc|uwsgi|scgi|memcached)_pass$/.test(d.name)) {
        const host = d.args[0] ? hostOf(d.args[0].value) : null;
        if (d.args[0] && !(d.name !== 'listen' && !inUpstream && host !== null && upstreams.has(host)))
          out.push({ directive: d.name, host });
      }
      if (d.name === 'resolver')
        for (const a of d.args) if (!a.value.includes('=')) out.push({ directive: 'resolver', host: hostOf(a.value) });
      if (d.block) walk(d.block.children, [...parents, d.name]);
    }
  };
  walk(ast.directives, []);
  return out;
}

function haproxyAddresses(text: string): { directive: string; host: string | null }[] {
  const out: { directive: string; host: string | null }[] = [];
  for (const s of parseHaproxy(text).sections) {
    for (const st of s.statements) {
      const k = st.keyword?.value;
      const w = st.words.map((x) => x.value);
      if (k === 'bind') for (const a of (w[1] ?? '').split(',')) out.push({ directive: k, host: hostOf(a) });
      else if (k === 'server' && w[2]) out.push({ directive: k, host: hostOf(w[2]) });
      else if (k === 'nameserver' && w[2]) out.push({ directive: k, host: hostOf(w[2]) });
      else if ((k === 'dispatch' || k === 'source') && w[1]) out.push({ directive: k, host: hostOf(w[1]) });
      else if (k === 'log' && w[1] && !/^(global|stdout|stderr)$/.test(w[1])) out.push({ directive: k, host: hostOf(w[1]) });
    }
  }
  return out;
}

function assertOnlyLoopback(addresses: { directive: string; host: string | null }[]) {
  const bad = addresses.filter((a) => a.host !== null && !isLoopback(a.host));
  assert.deepEqual(bad, [], 'non-loopback addresses in the sandboxed copy');
}

for (const [kind, text, name, addresses] of [
  ['nginx', NGINX, 'nginx.conf', nginxAddresses],
  ['haproxy', HAPROXY, 'haproxy.cfg', haproxyAddresses],
] as const) {
  test(
    `${kind} in a loopback-only network namespace: public listeners and upstreams are rewritten, the run serves`,
    { skip: (!canUnshare && 'needs root and unshare -n') || (!findBinary(kind) && `${kind} not installed`) },
    () => {
      const cfg = tempConfig(name, text);
      try {
        const run = runInNamespace(cfg.file);
        assert.ok(run.loUp, 'lo brought up inside the namespace');
        assert.deepEqual(run.interfaces, ['lo'], 'the namespace has loopback only');
        assert.ok(run.ok, `the run failed: ${run.error}`);
        assert.ok((run.requests ?? 0) > 0, 'requests were served through the rewritten upstreams');
        assert.ok(run.copies.length > 0, 'the sandboxed copy was captured');
        const found = run.copies.flatMap((c) => addresses(c.text));
        // the check covers what the config had: listeners and upstreams at least
        assert.ok(found.filter((a) => a.directive === 'listen' || a.directive === 'bind').length >= 2, JSON.stringify(found));
        assert.ok(
          found.some((a) => a.directive === 'server' || a.directive === 'proxy_pass'),
          JSON.stringify(found),
        );
        assertOnlyLoopback(found);
      } finally {
        cfg.cleanup();
      }
    },
  );
}

test(
  'nginx with a public resolver in the namespace: refused with the line and a reason, nothing started',
  { skip: (!canUnshare && 'needs root and unshare -n') || (!findBinary('nginx') && 'nginx not installed') },
  () => {
    const cfg = tempConfig('nginx.conf', NGINX_RESOLVER);
    try {
      const run = runInNamespace(cfg.file);
      assert.equal(run.ok, false);
      assert.match(run.error ?? '', /SandboxRefusal: .*nginx\.conf:5: `resolver 8\.8\.8\.8` is not a loopback address/);
      assert.deepEqual(run.copies, [], 'the proxy never reached ready');
    } finally {
      cfg.cleanup();
    }
  },
);

test('the address checker itself: it finds the public addresses of the original configs', () => {
  const n = nginxAddresses(NGINX_RESOLVER)
    .filter((a) => a.host !== null && !isLoopback(a.host))
    .map((a) => `${a.directive} ${a.host}`);
  assert.ok(
    n.includes('resolver 8.8.8.8') &&
      n.includes('listen 198.51.100.1') &&
      n.includes('server app.example.com') &&
      n.includes('proxy_pass 198.51.100.20'),
    n.join(', '),
  );
  assert.ok(n.includes('listen 2001:db8::1') && n.includes('listen 0.0.0.0') && n.includes('proxy_pass 192.0.2.30'), n.join(', '));
  const h = haproxyAddresses(HAPROXY)
    .filter((a) => a.host !== null && !isLoopback(a.host))
    .map((a) => `${a.directive} ${a.host}`);
  assert.deepEqual(
    h.sort(),
    ['bind 198.51.100.1', 'bind 2001:db8::1', 'log 192.0.2.99', 'server 203.0.113.10', 'server app.example.com'].sort(),
  );
});
