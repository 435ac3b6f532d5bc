// The default target version shared by the server and `check`: the local binary's `-v`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findBinary, localVersion, parseVersionOutput } from '../../server/src/service/localVersions';

describe('local version probe', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'proxy-tuner-probe-'));
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function fakeBinary(name: string, script: string): string {
    const p = join(dir, name);
    writeFileSync(p, `#!/bin/sh\n${script}\n`);
    chmodSync(p, 0o755);
    return p;
  }

  it('reads the versions the binaries print', () => {
    assert.equal(parseVersionOutput('nginx', 'nginx version: nginx/1.22.1\n'), '1.22.1');
    assert.equal(parseVersionOutput('nginx', 'nginx version: openresty/1.21.4.1\n'), '1.21.4');
    assert.equal(parseVersionOutput('haproxy', 'HAProxy version 2.6.12-1+deb12u4 2026/10/17 - https://haproxy.org/\n'), '2.6.12');
    assert.equal(parseVersionOutput('haproxy', 'HA-Proxy version 1.8.19 2019/02/11\n'), '1.8.19');
    assert.equal(parseVersionOutput('nginx', 'sh: nginx: not found'), undefined);
  });

  it('asks an explicit binary, on stderr or stdout', () => {
    const nginx = fakeBinary('nginx', 'echo "nginx version: nginx/1.25.3" >&2');
    const haproxy = fakeBinary('haproxy', 'echo "HAProxy version 2.8.5-1 2023/12/07"');
    assert.equal(localVersion('nginx', nginx), '1.25.3');
    assert.equal(localVersion('haproxy', haproxy), '2.8.5');
  });

  it('gives undefined, without throwing, for a missing, failing or hanging binary', () => {
    assert.equal(localVersion('nginx', join(dir, 'no-such-nginx')), undefined);
    assert.equal(localVersion('nginx', fakeBinary('broken-nginx', 'exit 1')), undefined);
    const hang = fakeBinary('hanging-haproxy', 'exec sleep 30');
    assert.equal(localVersion('haproxy', hang, 300), undefined);
  });

  it('finds binaries on PATH', () => {
    const nginx = fakeBinary('nginx', 'true');
    assert.equal(findBinary('nginx', undefined, dir), nginx);
    assert.equal(findBinary('nginx', join(dir, 'absent')), undefined);
  });

  it('can be turned off for reproducible runs', () => {
    const prev = process.env.PROXY_TUNER_NO_LOCAL_VERSION;
    process.env.PROXY_TUNER_NO_LOCAL_VERSION = '1';
    try {
      assert.equal(localVersion('nginx', fakeBinary('nginx2', 'echo "nginx version: nginx/1.2.3" >&2')), undefined);
    } finally {
      if (prev === undefined) delete process.env.PROXY_TUNER_NO_LOCAL_VERSION;
      else process.env.PROXY_TUNER_NO_LOCAL_VERSION = prev;
    }
  });
});
