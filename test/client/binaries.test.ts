// The binaries the status bar, the version picker and the benchmark panel list
// (client/src/versions/binaries.ts): PATH, the path settings, proxyTuner.binaries; each asked
// for its version once; the target version is the setting, else the local binary's.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defaultBinary, discoverBinaries, parseVersionOutput, targetVersion } from '../../client/src/versions/binaries';
import { findMatrixBinary, loadMatrix } from '../../bench/src/matrix';

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
});
