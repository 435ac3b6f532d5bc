// The host probe asks `nginx -V` once per process: the build facts (module notes) and the
// loadable modules (load_module quick fix) read the same answer. The nginx here is a script that
// answers as the host's nginx does and counts its runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localNginxBuild } from '../../server/src/host/binaryFacts';
import { localNginxModules } from '../../server/src/host/hostFacts';

test('the build facts and the loadable modules come from one run of nginx -V', (t) => {
  if (process.platform === 'win32') return t.skip('a shell script stands in for nginx');
  delete process.env.PROXY_TUNER_NO_LOCAL_VERSION;
  delete process.env.PROXY_TUNER_NO_HOST_FACTS;
  const dir = mkdtempSync(join(tmpdir(), 'pt-nginx-v-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const runs = join(dir, 'runs');
  const modules = join(dir, 'modules');
  writeFileSync(runs, '');
  const bin = join(dir, 'nginx');
  writeFileSync(
    bin,
    [
      '#!/bin/sh',
      `echo run >> '${runs}'`,
      "echo 'nginx version: nginx/1.22.1' >&2",
      `echo 'configure arguments: --prefix=/usr/share/nginx --modules-path=${modules} --add-module=/src/echo --with-http_ssl_module' >&2`,
      '',
    ].join('\n'),
  );
  chmodSync(bin, 0o755);
  const build = localNginxBuild(bin);
  const loadable = localNginxModules(bin);
  assert.equal(build?.version, '1.22.1');
  assert.deepEqual(loadable?.added, ['/src/echo']);
  assert.equal(localNginxBuild(bin), build, 'asked again: the same facts');
  assert.equal(readFileSync(runs, 'utf8').split('\n').filter(Boolean).length, 1, 'nginx -V ran once');
});
