// CPU placement (bench --pin): the plan for each machine size, and a real pinned run on this one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import { planPlacement, AUTO_PIN_MIN_CPUS } from '../../bench/src/placement';
import { runBenchmark } from '../../bench/src/index';
import { liveInGroup, tempConfig } from './helpers';

const hasTaskset = spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;

test('placement plan: off, one CPU, auto below and from 4 CPUs, more threads', { skip: !hasTaskset && 'taskset missing' }, () => {
  assert.equal(planPlacement(false, 1, 8).placement, null);
  assert.match(planPlacement(false, 1, 8).why!, /turned off/);
  assert.match(planPlacement(true, 1, 1).why!, /one CPU/);
  const two = planPlacement('auto', 1, 2);
  assert.equal(two.placement, null);
  // the note is shown in the panel too: it names no command-line flag
  assert.match(two.why!, /2 CPUs .*pinned by default from 4 CPUs/);
  for (const p of [planPlacement(false, 1, 8), two, planPlacement('auto', 1, 3)]) assert.doesNotMatch(p.why!, /--/);
  assert.equal(planPlacement(undefined, 1, 3).placement, null);
  assert.deepEqual(planPlacement(true, 1, 2).placement, { generator: [0], system: [1] });
  assert.deepEqual(planPlacement('auto', 1, AUTO_PIN_MIN_CPUS).placement, { generator: [0], system: [1, 2, 3] });
  // one CPU per generator thread, never more than half the machine
  assert.deepEqual(planPlacement(true, 3, 8).placement, { generator: [0, 1, 2], system: [3, 4, 5, 6, 7] });
  assert.deepEqual(planPlacement(true, 8, 4).placement, { generator: [0, 1], system: [2, 3] });
});

/** CPUs a thread may run on, from /proc. */
function allowed(pid: number | string, tid?: number | string): string {
  const f = tid === undefined ? `/proc/${pid}/status` : `/proc/${pid}/task/${tid}/status`;
  try {
    return /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(f, 'utf8'))?.[1] ?? '';
  } catch {
    return 'gone';
  }
}

test(
  'a pinned run: proxy and backend on the system CPUs, the generator thread on its own, the caller unmoved; the result says so',
  { skip: (!hasTaskset || os.cpus().length < 2) && 'needs taskset and 2 CPUs', timeout: 60_000 },
  async () => {
    const t = tempConfig(
      'nginx.conf',
      'events {}\nhttp {\n  access_log off;\n  upstream u { server 127.0.0.1:1980; keepalive 8; }\n  server {\n    listen 1990;\n' +
        '    location / { proxy_pass http://u; proxy_http_version 1.1; proxy_set_header Connection ""; }\n  }\n}\n',
    );
    try {
      const n = os.cpus().length;
      const system = n === 2 ? '1' : `1-${n - 1}`;
      const mainBefore = allowed(process.pid);
      const groups: number[] = [];
      const proxySeen = new Set<string>();
      const ownThreads = new Set<string>();
      const r = await runBenchmark(
        { configPath: t.file, connections: 4, durationMs: 2000, warmupMs: 200, pin: true },
        {
          onProxyReady: (info) => {
            groups.push(info.pgid);
            const be = (info.backend as { pgid?: number }).pgid;
            if (be && be > 0) groups.push(be);
          },
          onProgress: () => {
            // during the load: every process of the proxy's and the backend's groups, and this process's threads
            for (const g of groups) for (const pid of liveInGroup(g)) proxySeen.add(allowed(pid));
            for (const tid of readdirSync('/proc/self/task')) ownThreads.add(allowed('self', tid));
          },
        },
      );
      assert.deepEqual(r.placement, { pinned: true, generatorCpus: [0], systemCpus: Array.from({ length: n - 1 }, (_, i) => i + 1) });
      assert.ok(r.requests > 0);
      assert.deepEqual(
        r.warnings.filter((w) => /placement/.test(w)),
        [],
      );
      assert.equal(groups.length, 2, 'proxy and native backend groups');
      proxySeen.delete('gone');
      assert.deepEqual([...proxySeen], [system]);
      assert.ok(ownThreads.has('0'), `a generator thread on CPU 0 (threads: ${[...ownThreads].join(' ')})`);
      // the caller's main thread is not moved (in the editor that is the extension host)
      assert.equal(allowed(process.pid), mainBefore);
    } finally {
      t.cleanup();
    }
  },
);
