// The binaries the status bar, the version picker and the benchmark panel list
// (client/src/versions/binaries.ts): PATH, the path settings, proxyTuner.binaries; each asked
// for its version once; the target version is the setting, else the local binary's.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  defaultBinary,
  discoverBinaries,
  discoverInputKey,
  parseVersionOutput,
  probe,
  targetVersion,
} from '../../client/src/versions/binaries';
import { findMatrixBinary, loadMatrix } from '../../server/src/runner/matrix';

function fakeBinary(dir: string, name: string, output: string): string {
  const p = join(dir, name);
  writeFileSync(p, `#!/bin/sh\necho '${output}' >&2\n`);
  chmodSync(p, 0o755);
  return p;
}

describe('installed binaries', () => {
  it('reads the versions nginx and HAProxy print for -v', () => {
    assert.deepEqual(parseVersionOutput('nginx version: nginx/1.30.6\n'), { kind: 'nginx', version: '1.30.6' });
    assert.deepEqual(parseVersionOutput('HAProxy version 3.2.26-1 2025/11/27 - https://haproxy.org/\n'), {
      kind: 'haproxy',
      version: '3.2.26',
    });
    assert.deepEqual(parseVersionOutput('HA-Proxy version 2.0.33 2023/08/05\n'), { kind: 'haproxy', version: '2.0.33' });
    assert.equal(parseVersionOutput('bash: nginx: command not found'), undefined);
  });

  it('finds PATH, the setting and the extra list, each path once, and skips what is not such a binary', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pt-binaries-'));
    try {
      const onPath = fakeBinary(dir, 'nginx', 'nginx version: nginx/1.22.1');
      const newer = fakeBinary(dir, 'nginx-next', 'nginx version: nginx/1.30.6');
      const ha = fakeBinary(dir, 'haproxy-3.2', 'HAProxy version 3.2.26-1 2025/11/27');
      const junk = fakeBinary(dir, 'junk', 'hello');
      writeFileSync(join(dir, 'not-exec'), '');
      // the sbin folders are searched too (a host binary may show up): keep this folder's
      const all = await discoverBinaries({
        configured: { nginx: newer, haproxy: '' },
        extra: [onPath, ha, junk, join(dir, 'not-exec'), join(dir, 'missing'), newer],
        envPath: dir,
      });
      const found = all.filter((b) => b.path.startsWith(dir));
      assert.deepEqual(
        found.map((b) => [b.kind, b.version, b.source]),
        [
          ['nginx', '1.30.6', 'proxyTuner.nginx.path'],
          ['nginx', '1.22.1', 'PATH'],
          ['haproxy', '3.2.26', 'proxyTuner.binaries'],
        ],
      );
      assert.equal(defaultBinary(found, 'nginx')?.version, '1.30.6', 'the setting before PATH');
      assert.deepEqual(targetVersion('1.26', found, 'nginx'), { version: '1.26', from: 'setting' });
      assert.equal(targetVersion('', found, 'nginx').version, '1.30.6');
      assert.equal(targetVersion('', found, 'haproxy').from, 'newest', 'an extra binary is not the default');
      // a binary configured as the wrong kind is not listed
      const wrong = await discoverBinaries({ configured: { haproxy: newer }, extra: [], envPath: '/nonexistent' });
      assert.ok(!wrong.some((b) => b.source === 'proxyTuner.haproxy.path'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('asks a binary again after a -v that timed out or printed no version (only answers are kept)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pt-binaries-'));
    try {
      // the first -v hangs (a machine busy right after a window reload), later ones answer
      const marker = join(dir, 'asked');
      const slow = join(dir, 'nginx-slow');
      writeFileSync(
        slow,
        `#!/bin/sh\nif [ ! -e '${marker}' ]; then : > '${marker}'; exec sleep 5; fi\necho 'nginx version: nginx/1.30.6' >&2\n`,
      );
      chmodSync(slow, 0o755);
      assert.equal(await probe(slow, 300), undefined, 'the first ask times out');
      assert.deepEqual(await probe(slow, 3000), { kind: 'nginx', version: '1.30.6' }, 'the next discovery asks again');
      const found = await discoverBinaries({ configured: {}, extra: [slow], envPath: '/nonexistent' });
      assert.ok(found.some((b) => b.path === slow && b.version === '1.30.6'));
      // an answer is kept: the binary is not run again while its file is unchanged
      rmSync(marker);
      assert.deepEqual(await probe(slow, 300), { kind: 'nginx', version: '1.30.6' });
      assert.ok(!existsSync(marker), 'not run again');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keys the settings discovery reads, so a changed value is noticed whatever the event names', () => {
    const base = { configured: { nginx: '', haproxy: '' }, extra: ['/opt/nginx-next'] };
    assert.equal(discoverInputKey(base), discoverInputKey({ configured: { nginx: ' ', haproxy: '' }, extra: ['/opt/nginx-next'] }));
    assert.notEqual(discoverInputKey(base), discoverInputKey({ ...base, extra: [] }));
    assert.notEqual(discoverInputKey(base), discoverInputKey({ ...base, configured: { nginx: '/usr/local/sbin/nginx' } }));
  });

  it(
    'lists the version matrix launchers by their real versions',
    { skip: !findMatrixBinary('nginx', '1.30') && 'no version matrix' },
    async () => {
      const m = loadMatrix();
      const found = await discoverBinaries({ configured: {}, extra: m.map((b) => b.path), envPath: '/nonexistent' });
      for (const b of m)
        assert.ok(
          found.some((f) => f.kind === b.product && f.version === b.version),
          `${b.product} ${b.version}`,
        );
    },
  );

  it(
    'lists the matrix set-up installed without any setting naming it (the picker and the panel show it)',
    { skip: !findMatrixBinary('nginx', '1.30') && 'no version matrix' },
    async () => {
      const m = loadMatrix();
      const matrix = m.map((b) => ({ kind: b.product, path: b.path }));
      const found = await discoverBinaries({ configured: {}, extra: [], envPath: '/nonexistent', matrix });
      for (const b of m.filter((x) => x.root))
        assert.ok(
          found.some((f) => f.kind === b.product && f.version === b.version && f.source.startsWith('version matrix')),
          `${b.product} ${b.version}: ${JSON.stringify(found)}`,
        );
      assert.notEqual(discoverInputKey({ configured: {}, extra: [] }), discoverInputKey({ configured: {}, extra: [], matrix }));
    },
  );
});
