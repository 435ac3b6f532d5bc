import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareVersions, findMatrixBinary, loadMatrix, matrixDir } from '../../server/src/runner/matrix';

test('the registry: entries whose path exists, sorted by version; prefix look-up picks the newest match', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pt-matrix-'));
  const exe = join(dir, 'nginx-x');
  writeFileSync(exe, '#!/bin/sh\n');
  const entry = (version: string, path = exe) => ({
    product: 'nginx',
    version,
    suite: 's',
    root: dir,
    path,
    modulesDir: dir,
    confDir: dir,
  });
  writeFileSync(
    join(dir, 'binaries.json'),
    JSON.stringify({
      binaries: [entry('1.30.6'), entry('1.26.3'), entry('1.26.10'), entry('9.9.9', join(dir, 'absent')), { product: 'x' }],
    }),
  );
  const list = loadMatrix(dir);
  assert.deepEqual(
    list.map((b) => b.version),
    ['1.26.3', '1.26.10', '1.30.6'],
  );
  assert.equal(findMatrixBinary('nginx', '1.26', list)?.version, '1.26.10');
  assert.equal(findMatrixBinary('nginx', '1.2', list), undefined);
  assert.equal(findMatrixBinary('haproxy', '3.0', list), undefined);
  assert.equal(compareVersions('2.10', '2.9') > 0, true);
  assert.deepEqual(loadMatrix(join(dir, 'nowhere')), []);
  assert.equal(matrixDir({ PROXY_TUNER_MATRIX_DIR: dir }), dir);
});

test(
  'this machine: the provisioned matrix has the six binaries of nginx 1.22/1.26/1.30 and HAProxy 2.6/3.0/3.2',
  { skip: !matrixDir() && !process.env.CI && 'no .matrix (scripts/provision-matrix.sh)' },
  () => {
    const list = loadMatrix();
    for (const [p, v] of [
      ['nginx', '1.22'],
      ['nginx', '1.26'],
      ['nginx', '1.30'],
      ['haproxy', '2.6'],
      ['haproxy', '3.0'],
      ['haproxy', '3.2'],
    ] as const) {
      assert.ok(findMatrixBinary(p, v, list), `${p} ${v} in ${matrixDir()}`);
    }
  },
);
