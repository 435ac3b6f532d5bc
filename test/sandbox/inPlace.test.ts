// Files a config reads where they are (an HAProxy `acl -f` list and `map_str()` file, an nginx
// `root` folder), beside the config in a project folder outside every folder the containment
// shows by default: the contained proxy serves them, and a secret file beside them, which the
// config does not name, stays invisible to code inside the containment (issue 33).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import { join } from 'node:path';
import { Containment, unavailableReason } from '../../server/src/runner/contain';
import { makeSandboxDir, makeTlsPair, removeSandboxDir, visibleReads, BACKEND_SLOTS } from '../../server/src/runner/sandbox/common';
import { planSandbox, ProxySandbox } from '../../server/src/runner/sandbox';

const NGINX = '/usr/sbin/nginx';
const HAPROXY = '/usr/sbin/haproxy';
const SECRET = `pt-inplace-secret-${process.pid}`;

const skip = (() => {
  if (process.platform !== 'linux') return 'Linux only';
  const why = unavailableReason();
  if (why) return why;
  if (!existsSync(NGINX) || !existsSync(HAPROXY)) return 'host nginx/haproxy missing';
  return false;
})();

interface Project {
  dir: string;
  nginx: string;
  haproxy: string;
  cleanup: () => void;
}

function project(): Project {
  const dir = mkdtempSync(join(os.tmpdir(), 'pt-project-'));
  chmodSync(dir, 0o755); // as root the contained uid is another user: the files must be readable by others
  mkdirSync(join(dir, 'www'));
  writeFileSync(join(dir, 'www', 'index.html'), 'served-from-project-root\n');
  writeFileSync(join(dir, 'paths.lst'), '/\n');
  writeFileSync(join(dir, 'paths.map'), '/ served-from-project-map\n');
  writeFileSync(join(dir, 'secret.txt'), `${SECRET}\n`, { mode: 0o644 });
  const nginx = join(dir, 'nginx.conf');
  writeFileSync(nginx, `events {}\nhttp {\n  server {\n    listen 8080;\n    location / { root ${join(dir, 'www')}; }\n  }\n}\n`);
  const haproxy = join(dir, 'haproxy.cfg');
  writeFileSync(
    haproxy,
    [
      'defaults',
      '  mode http',
      '  timeout client 5s',
      '  timeout server 5s',
      '  timeout connect 5s',
      'frontend f',
      '  bind :8080',
      `  acl known path -f ${join(dir, 'paths.lst')}`,
      `  http-request return status 200 content-type text/plain lf-string "%[path,map_str(${join(dir, 'paths.map')})]" if known`,
      '  http-request deny',
      '',
    ].join('\n'),
  );
  return { dir, nginx, haproxy, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function get(port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (b: Buffer) => (body += b.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
  });
}

test(
  'a contained run serves the files its config names beside it (nginx root, HAProxy acl -f and map)',
  { skip, timeout: 60_000 },
  async () => {
    const p = project();
    try {
      for (const kind of ['nginx', 'haproxy'] as const) {
        const sb = ProxySandbox.create({ configPath: kind === 'nginx' ? p.nginx : p.haproxy, kind });
        try {
          const c = await sb.contain();
          assert.equal(c.mode, 'namespace', c.reason);
          sb.plan({ http: 1, https: 2, tcp: 3 });
          await sb.start();
          const r = await get(sb.listeners[0].port);
          assert.equal(r.status, 200, `${kind}: ${r.body}`);
          assert.match(r.body, kind === 'nginx' ? /served-from-project-root/ : /served-from-project-map/);
        } finally {
          await sb.dispose();
        }
      }
    } finally {
      p.cleanup();
    }
  },
);

test('only the named files are shown: a secret beside them stays invisible inside the containment', { skip, timeout: 60_000 }, async () => {
  const p = project();
  try {
    for (const kind of ['nginx', 'haproxy'] as const) {
      const dir = makeSandboxDir();
      const c = await Containment.open(dir);
      try {
        assert.equal(c.mode, 'namespace', c.reason);
        const configPath = kind === 'nginx' ? p.nginx : p.haproxy;
        const plan = planSandbox(kind, { configPath, dir, backend: BACKEND_SLOTS, tls: makeTlsPair(dir), contained: true });
        const shown = visibleReads(plan.reads, configPath, dir);
        assert.deepEqual(shown.skipped, []);
        const named = kind === 'nginx' ? [join(p.dir, 'www')] : [join(p.dir, 'paths.lst'), join(p.dir, 'paths.map')];
        assert.deepEqual(shown.binds.map(([, dest]) => dest).sort(), named.sort());
        c.showReadOnly(shown.binds);
        // code inside the containment (the proxy's uid and namespaces) looks around the project folder
        const probe = [
          `ls -a ${p.dir}`,
          `cat ${join(p.dir, 'secret.txt')} || echo SECRET-REFUSED`,
          `cat ${configPath} >/dev/null 2>&1 && echo CONFIG-SEEN || echo CONFIG-REFUSED`,
          kind === 'nginx' ? `cat ${join(p.dir, 'www', 'index.html')}` : `cat ${join(p.dir, 'paths.map')}`,
          `echo x > ${named[0]}/w 2>&1 || echo WRITE-REFUSED; echo x >> ${named[0]} 2>&1 || echo WRITE-REFUSED`,
        ].join('; ');
        const w = c.wrap('/bin/sh', ['-c', probe]);
        const r = spawnSync(w.cmd, w.args, { encoding: 'utf8', cwd: dir, timeout: 20_000 });
        const out = `${r.stdout}${r.stderr}`;
        assert.ok(!out.includes(SECRET), `${kind}: the secret was read:\n${out}`);
        assert.match(out, /SECRET-REFUSED/);
        assert.match(out, /CONFIG-REFUSED/, `${kind}: the config itself (copied into the run) is not shown in place`);
        assert.match(out, kind === 'nginx' ? /served-from-project-root/ : /served-from-project-map/);
        assert.match(out, /WRITE-REFUSED/);
        const listing = r.stdout.split('\n').slice(0, 8).join(' ');
        assert.doesNotMatch(listing, /secret\.txt/, `${kind}: the project folder's other files are listed: ${listing}`);
      } finally {
        await c.dispose();
        removeSandboxDir(dir);
      }
    }
  } finally {
    p.cleanup();
  }
});

test('folders too broad to show are left out with a warning: the config folder, home, top level', () => {
  const p = project();
  try {
    const dir = makeSandboxDir();
    try {
      const reads = [p.dir, os.homedir(), '/opt', '/', join(p.dir, 'www'), 'relative/path', '/srv/$host'].map((x, i) => ({
        path: x,
        file: p.nginx,
        line: i + 1,
      }));
      const shown = visibleReads(reads, p.nginx, dir);
      assert.deepEqual(
        shown.binds.map(([, d]) => d),
        [join(p.dir, 'www')],
      );
      assert.equal(shown.skipped.length, 4, shown.skipped.join('\n'));
      assert.ok(shown.skipped.every((s) => /is not visible inside the sandbox/.test(s)));
    } finally {
      removeSandboxDir(dir);
    }
  } finally {
    p.cleanup();
  }
});
