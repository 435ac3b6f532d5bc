// Faults of the benchmark engine not covered by test/bench (which has: cancel through the
// AbortSignal, SIGKILL of the parent, public/host-name upstreams, a config the binary rejects):
// the proxy crashing mid-run, its port taken by someone else (once, and every time), the binary
// missing, a config that cannot even be planned. Each ends with a clear message, no process left
// (scanned in /proc), the sandbox folder gone and the user's file byte-identical.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { runBenchmark, ConfigCheckError, SandboxRefusal, findBinary } from '../../bench/src/index';
import { groupMembers } from '../../server/src/runner/proc';
import { sha256, tempConfig } from '../bench/helpers';
import { assertCleanEnd, entriesOf, trace } from './helpers';

const NGINX = `worker_processes 1;
events { worker_connections 64; }
http {
    upstream app {
        server 203.0.113.7:8080;
        keepalive 8;
    }
    server {
        listen 80;
        location / {
            proxy_pass http://app;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
`;

// the engine makes its sandbox folders under os.tmpdir(): a private one here, so "nothing left"
// is exact even while other runs share /tmp
const realTmp = os.tmpdir();
let privateTmp = '';
before(() => {
  privateTmp = mkdtempSync(path.join(realTmp, 'pt-faults-'));
  process.env.TMPDIR = privateTmp;
});
after(() => {
  process.env.TMPDIR = realTmp;
  const left = entriesOf(privateTmp).filter((n) => n.startsWith('proxy-tuner-bench-'));
  rmSync(privateTmp, { recursive: true, force: true });
  assert.deepEqual(left, [], 'sandbox folders left in the private temp folder');
});

const nginxBin = findBinary('nginx');

test(
  'the proxy crashes mid-run (its master killed): the run ends on its own, errors counted and a warning that nginx exited, nothing left',
  { skip: !nginxBin && 'nginx not installed' },
  async () => {
    const cfg = tempConfig('nginx.conf', NGINX);
    const hash = sha256(cfg.file);
    const t = trace();
    let killed: number[] = [];
    try {
      const started = Date.now();
      const result = await runBenchmark(
        { configPath: cfg.file, durationMs: 2500, warmupMs: 0, connections: 2, timeoutMs: 500 },
        {
          onProxyReady: (i) => {
            t.onProxyReady(i);
            setTimeout(() => {
              // the engine's own record: its process group; the nginx master and workers in it
              const members = groupMembers(i.pgid).filter((s) => /nginx/.test(readFileSync(`/proc/${s.pid}/cmdline`, 'latin1')));
              killed = members.map((s) => s.pid);
              for (const pid of killed) process.kill(pid, 'SIGKILL');
            }, 600);
          },
        },
      ).then(
        (r) => ({ ok: true as const, r }),
        (e: Error) => ({ ok: false as const, e }),
      );
      assert.ok(killed.length >= 1, 'found the nginx processes through the recorded process group');
      assert.ok(Date.now() - started < 30_000, 'the run ended by itself');
      // the run finishes (its numbers marked as not measuring the config): a cancel-free, bounded end
      assert.ok(result.ok, `the run should end with a result, not: ${result.ok ? '' : result.e.message}`);
      const e = result.r.errors;
      assert.ok(e.connect + e.reset + e.timeout + e.protocol > 0, `a dead proxy must show as errors: ${JSON.stringify(e)}`);
      assert.ok(
        result.r.warnings.some((w) => /nginx exited during the run/.test(w)),
        `a clear message: ${result.r.warnings.join(' | ')}`,
      );
      await assertCleanEnd(t, cfg.file, hash);
    } finally {
      cfg.cleanup();
    }
  },
);

/**
 * A stand-in for the nginx binary: on its first `times` real starts (not -t/-v) it points the
 * sandbox copy's listeners at `port`, which the test holds, then runs the real nginx.
 */
function portStealingNginx(dir: string, port: number, times: number): string {
  const file = path.join(dir, 'nginx');
  const counter = path.join(dir, 'starts');
  writeFileSync(
    file,
    `#!/bin/sh
case " $* " in *" -t "*|*" -v "*|*" -V "*) exec ${nginxBin} "$@";; esac
n=$(cat ${counter} 2>/dev/null || echo 0)
echo $((n + 1)) > ${counter}
if [ "$n" -lt ${times} ]; then
  conf=""; prev=""
  for a in "$@"; do [ "$prev" = "-c" ] && conf="$a"; prev="$a"; done
  sed -i -E 's/listen 127\\.0\\.0\\.1:[0-9]+/listen 127.0.0.1:${port}/' "$conf"
fi
exec ${nginxBin} "$@"
`,
  );
  chmodSync(file, 0o755);
  return file;
}

async function holdPort(): Promise<{ port: number; close(): Promise<void> }> {
  const s = net.createServer((c) => c.destroy());
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return { port: (s.address() as net.AddressInfo).port, close: () => new Promise<void>((r) => s.close(() => r())) };
}

test(
  'the port is taken when the proxy starts: the engine picks other ports and the run succeeds',
  { skip: !nginxBin && 'nginx not installed' },
  async () => {
    // a lost bind race exists only without the namespace (contained listeners are sockets the engine
    // holds), and the port-stealing wrapper writes next to the config: the rewrite-only mode
    const savedMode = process.env.PROXY_TUNER_CONTAINMENT;
    process.env.PROXY_TUNER_CONTAINMENT = 'off';
    const cfg = tempConfig('nginx.conf', NGINX);
    const hash = sha256(cfg.file);
    const held = await holdPort();
    const bin = portStealingNginx(cfg.dir, held.port, 1);
    const t = trace();
    try {
      const r = await runBenchmark(
        { configPath: cfg.file, binary: bin, durationMs: 500, warmupMs: 0, connections: 2 },
        { onProxyReady: t.onProxyReady },
      );
      assert.equal(readFileSync(path.join(cfg.dir, 'starts'), 'utf8').trim(), '2', 'first start lost the port, the second ran');
      assert.ok(r.requests > 0, `requests ${r.requests}`);
      assert.notEqual(r.listener.port, held.port);
      await assertCleanEnd(t, cfg.file, hash);
    } finally {
      if (savedMode === undefined) delete process.env.PROXY_TUNER_CONTAINMENT;
      else process.env.PROXY_TUNER_CONTAINMENT = savedMode;
      await held.close();
      cfg.cleanup();
    }
  },
);

test(
  'the port is taken on every attempt: a clear "Address already in use" error after bounded retries, nothing left',
  { skip: !nginxBin && 'nginx not installed' },
  async () => {
    // a lost bind race exists only without the namespace (contained listeners are sockets the engine
    // holds), and the port-stealing wrapper writes next to the config: the rewrite-only mode
    const savedMode = process.env.PROXY_TUNER_CONTAINMENT;
    process.env.PROXY_TUNER_CONTAINMENT = 'off';
    const cfg = tempConfig('nginx.conf', NGINX);
    const hash = sha256(cfg.file);
    const held = await holdPort();
    const bin = portStealingNginx(cfg.dir, held.port, 99);
    const t = trace();
    try {
      await assert.rejects(
        runBenchmark({ configPath: cfg.file, binary: bin, durationMs: 500, warmupMs: 0, connections: 2 }, { onProxyReady: t.onProxyReady }),
        (e: Error) => {
          assert.match(e.message, /did not start/);
          assert.match(e.message, /Address already in use/);
          return true;
        },
      );
      const starts = Number(readFileSync(path.join(cfg.dir, 'starts'), 'utf8').trim());
      assert.ok(starts >= 2 && starts <= 4, `retries are bounded: ${starts} starts`);
      await assertCleanEnd(t, cfg.file, hash);
    } finally {
      if (savedMode === undefined) delete process.env.PROXY_TUNER_CONTAINMENT;
      else process.env.PROXY_TUNER_CONTAINMENT = savedMode;
      await held.close();
      cfg.cleanup();
    }
  },
);

test('the binary is missing: an explicit path that is not there, and none on PATH', async () => {
  const cfg = tempConfig('nginx.conf', NGINX);
  const hash = sha256(cfg.file);
  const t = trace();
  const savedPath = process.env.PATH;
  try {
    await assert.rejects(
      runBenchmark(
        { configPath: cfg.file, binary: path.join(cfg.dir, 'no-such-nginx'), durationMs: 500 },
        { onProxyReady: t.onProxyReady },
      ),
      (e: Error) => {
        assert.match(e.message, /no-such-nginx is not an executable file/);
        return true;
      },
    );
    // haproxy looked up on an empty PATH (the engine also looks in the sbin folders: only when it is really absent)
    process.env.PATH = cfg.dir;
    const haveHaproxy = findBinary('haproxy') !== null;
    const hcfg = path.join(cfg.dir, 'haproxy.cfg');
    writeFileSync(hcfg, 'frontend f\n  bind :80\n  default_backend b\nbackend b\n  server s 192.0.2.1:80\n');
    if (!haveHaproxy) {
      await assert.rejects(runBenchmark({ configPath: hcfg, durationMs: 500 }), /haproxy was not found on PATH/);
    }
    assert.equal(t.dirs.length, 0, 'no proxy was started');
    await assertCleanEnd(t, cfg.file, hash);
  } finally {
    process.env.PATH = savedPath;
    cfg.cleanup();
  }
});

test(
  'invalid configs: one nginx rejects, one that does not parse, one with no listener; clear messages, nothing started or left',
  { skip: !nginxBin && 'nginx not installed' },
  async () => {
    const misplaced = tempConfig('nginx.conf', 'events {}\nhttp {\n  server {\n    listen 80;\n    worker_connections 10;\n  }\n}\n');
    const unbalanced = tempConfig(
      'nginx.conf',
      'events {}\nhttp {\n  server {\n    listen 80;\n    location / {\n      return 200;\n  }\n',
    );
    const none = tempConfig('nginx.conf', 'events {}\nhttp {\n  server_tokens off;\n}\n');
    const t = trace();
    try {
      const h1 = sha256(misplaced.file);
      await assert.rejects(runBenchmark({ configPath: misplaced.file, durationMs: 500 }, { onProxyReady: t.onProxyReady }), (e: Error) => {
        assert.ok(e instanceof ConfigCheckError, `${e.name}: ${e.message}`);
        assert.match(e.message, /nginx rejected the config: .*worker_connections.* not allowed here/);
        assert.ok(e.message.includes(`${misplaced.file}:5`), `the message names the user's file and line: ${e.message}`);
        return true;
      });
      await assertCleanEnd(t, misplaced.file, h1);
      const h2 = sha256(unbalanced.file);
      await assert.rejects(runBenchmark({ configPath: unbalanced.file, durationMs: 500 }, { onProxyReady: t.onProxyReady }), (e: Error) => {
        assert.ok(e instanceof SandboxRefusal, `${e.name}: ${e.message}`);
        assert.match(e.message, /unexpected end of file/);
        return true;
      });
      await assertCleanEnd(t, unbalanced.file, h2);
      const h3 = sha256(none.file);
      await assert.rejects(runBenchmark({ configPath: none.file, durationMs: 500 }, { onProxyReady: t.onProxyReady }), (e: Error) => {
        assert.ok(e instanceof SandboxRefusal, `${e.name}: ${e.message}`);
        assert.match(e.message, /no listener/);
        return true;
      });
      assert.equal(t.dirs.length, 0, 'no proxy reached ready');
      await assertCleanEnd(t, none.file, h3);
    } finally {
      misplaced.cleanup();
      unbalanced.cleanup();
      none.cleanup();
    }
  },
);
