// One short benchmark per binary of the version matrix (nginx 1.22.1 / 1.26.3 / 1.30.6, HAProxy
// 2.6.12 / 3.0.11 / 3.2.26; .matrix/binaries.json), through the engine the panel and `bench` use:
// each runs a real config on loopback, nothing is left behind, and the version-sensitive fact
// the rules rest on holds per binary (docs/rule-evidence.md has the longer measurements):
// `proxy_pass` to a literal address opens a backend connection per request on every nginx;
// an `upstream` block without `keepalive` reuses connections from 1.29.7 on only.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { runBenchmark } from '../../bench/src/index';
import { loadMatrix, matrixDir } from '../../server/src/runner/matrix';
import { compareVersions } from '../../server/src/core/version';
import { liveDescendants, tempConfig } from './helpers';

const binaries = loadMatrix();
const skip = binaries.length === 0 && !process.env.CI ? 'no .matrix (scripts/provision-matrix.sh)' : false;

const NGINX_LITERAL =
  'events {}\nhttp {\n    access_log off;\n    server {\n        listen 1990;\n        location / { proxy_pass http://127.0.0.1:1980; }\n    }\n}\n';
const NGINX_UPSTREAM =
  'events {}\nhttp {\n    access_log off;\n    upstream app { server 127.0.0.1:1980; }\n    server {\n        listen 1990;\n        location / { proxy_pass http://app; }\n    }\n}\n';
const HAPROXY =
  'defaults\n    mode http\n    timeout connect 5s\n    timeout client 30s\n    timeout server 30s\nfrontend fe\n    bind :8080\n    default_backend be\nbackend be\n    server s1 127.0.0.1:1980\n';

const short = { connections: 5, durationMs: 1000, warmupMs: 300 };

async function bench(name: string, text: string, binary: string) {
  const t = tempConfig(name, text);
  try {
    return await runBenchmark({ configPath: t.file, binary, ...short });
  } finally {
    t.cleanup();
  }
}

describe('one benchmark per binary of the version matrix', { skip }, () => {
  after(() => assert.deepEqual(liveDescendants(), [], 'no process left behind'));

  it('has all six binaries', () => {
    assert.ok(matrixDir(), 'a .matrix folder');
    for (const [p, v] of [
      ['nginx', '1.22'],
      ['nginx', '1.26'],
      ['nginx', '1.30'],
      ['haproxy', '2.6'],
      ['haproxy', '3.0'],
      ['haproxy', '3.2'],
    ]) {
      assert.ok(
        binaries.some((b) => b.product === p && b.version.startsWith(v + '.')),
        `${p} ${v}`,
      );
    }
  });

  for (const b of binaries.filter((x) => x.product === 'nginx')) {
    it(`nginx ${b.version}: proxy_pass to an address opens a backend connection per request; an upstream block reuses them ${compareVersions(b.version, '1.29.7') >= 0 ? 'by default' : 'only with keepalive (not here)'}`, async () => {
      const literal = await bench('nginx.conf', NGINX_LITERAL, b.path);
      assert.equal(literal.proxy.version, b.version);
      assert.ok(literal.requests > 100, `${literal.requests} requests`);
      assert.equal(
        Object.values(literal.errors).reduce((x, y) => x + y, 0),
        0,
      );
      assert.ok(
        literal.backend.connectionsPerRequest > 0.9,
        `literal proxy_pass: ${literal.backend.connectionsPerRequest} connections per request`,
      );
      const upstream = await bench('nginx.conf', NGINX_UPSTREAM, b.path);
      const reuses = upstream.backend.connectionsPerRequest < 0.1;
      assert.equal(
        reuses,
        compareVersions(b.version, '1.29.7') >= 0,
        `upstream without keepalive: ${upstream.backend.connectionsPerRequest} connections per request`,
      );
    });
  }

  for (const b of binaries.filter((x) => x.product === 'haproxy')) {
    it(`haproxy ${b.version}: proxies with backend connections kept alive`, async () => {
      const r = await bench('haproxy.cfg', HAPROXY, b.path);
      assert.equal(r.proxy.version.split('-')[0], b.version);
      assert.ok(r.requests > 100, `${r.requests} requests`);
      assert.equal(
        Object.values(r.errors).reduce((x, y) => x + y, 0),
        0,
      );
      assert.ok(r.backend.connectionsPerRequest < 0.1, `${r.backend.connectionsPerRequest} connections per request`);
    });
  }
});
