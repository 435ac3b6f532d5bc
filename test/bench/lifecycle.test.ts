// Process control when our own process dies: the proxy's process group, the backend child and
// the sandbox folder must all go away by themselves (the supervisor sees its pipe close, the
// backend its IPC channel).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { readStat } from '../../server/src/runner/proc';
import { eventually, liveInGroup, tempConfig } from './helpers';

const NGINX = 'events {}\nhttp {\n  server {\n    listen 8080;\n    location / { proxy_pass http://10.9.8.7:80; }\n  }\n}\n';

test('SIGKILL of the process running a benchmark leaves no proxy, backend or temp folder behind', async () => {
  const cfg = tempConfig('nginx.conf', NGINX);
  const child = spawn(process.execPath, [...process.execArgv, path.join(__dirname, 'fixtures', 'dyingParent.ts'), cfg.file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const info = await new Promise<{ pgid: number; dir: string; backendPid: number }>((resolve, reject) => {
      let out = '';
      let err = '';
      const timer = setTimeout(() => reject(new Error(`no report from the child: ${err}`)), 30_000);
      child.stdout.on('data', (b: Buffer) => {
        out += b.toString();
        const nl = out.indexOf('\n');
        if (nl >= 0) {
          clearTimeout(timer);
          resolve(JSON.parse(out.slice(0, nl)));
        }
      });
      child.stderr.on('data', (b: Buffer) => (err += b.toString()));
      child.once('exit', () => reject(new Error(`child exited early: ${err}`)));
    });
    assert.ok(liveInGroup(info.pgid).length >= 2, 'the proxy runs (supervisor + nginx master/worker)');
    assert.ok(existsSync(info.dir));
    child.kill('SIGKILL');
    assert.ok(
      await eventually(() => liveInGroup(info.pgid).length === 0, 8000),
      `left in the proxy group: ${liveInGroup(info.pgid).join(' ')}`,
    );
    assert.ok(
      await eventually(() => {
        const s = readStat(info.backendPid);
        return s === null || s.state === 'Z';
      }, 5000),
      'the backend child is still running',
    );
    assert.ok(await eventually(() => !existsSync(info.dir), 5000), `sandbox folder left: ${info.dir}`);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    cfg.cleanup();
  }
});
