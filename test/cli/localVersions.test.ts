// The default target version shared by the server and `check`: the local binary's `-v`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  findBinary,
  localVersion,
  parseVersionOutput,
  prefetchLocalVersion,
  recordedVersion,
  recordVersion,
  versionCacheFile,
} from '../../server/src/host/localVersions';
import { resolveSettings } from '../../server/src/service/settings';

describe('local version probe', () => {
  let dir: string;
  let cacheDir: string;
  const prevCacheDir = process.env.PROXY_TUNER_CACHE_DIR;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'proxy-tuner-probe-'));
    // the versions found are recorded here, not in the user's cache folder
    cacheDir = join(dir, 'cache');
    process.env.PROXY_TUNER_CACHE_DIR = cacheDir;
  });
  after(() => {
    if (prevCacheDir === undefined) delete process.env.PROXY_TUNER_CACHE_DIR;
    else process.env.PROXY_TUNER_CACHE_DIR = prevCacheDir;
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

  it('asks in the background once; localVersion then answers from what it found', async () => {
    const runs = join(dir, 'runs');
    writeFileSync(runs, '');
    const nginx = fakeBinary('counted-nginx', `echo run >> ${runs}; echo "nginx version: nginx/1.24.0" >&2`);
    await prefetchLocalVersion('nginx', nginx);
    assert.equal(localVersion('nginx', nginx), '1.24.0');
    await prefetchLocalVersion('nginx', nginx);
    assert.equal(readFileSync(runs, 'utf8'), 'run\n');
  });

  it('gives undefined in the background too for a missing, failing or hanging binary', async () => {
    const missing = join(dir, 'no-such-haproxy');
    await prefetchLocalVersion('haproxy', missing);
    assert.equal(localVersion('haproxy', missing), undefined);
    const broken = fakeBinary('broken-haproxy', 'echo "garbage" >&2; exit 1');
    await prefetchLocalVersion('haproxy', broken);
    assert.equal(localVersion('haproxy', broken), undefined);
    const hang = fakeBinary('hanging-nginx', 'exec sleep 30');
    await prefetchLocalVersion('nginx', hang, 300);
    assert.equal(localVersion('nginx', hang), undefined);
  });

  it('runs a binary only when its version is read (checking nginx files never runs haproxy -v)', () => {
    const asked: string[] = [];
    const settings = resolveSettings({}, (lang) => {
      asked.push(lang);
      return lang === 'nginx' ? '1.22.1' : '2.6.12';
    });
    assert.deepEqual(asked, []);
    assert.equal(settings.nginxVersion, '1.22.1');
    assert.equal(settings.nginxVersion, '1.22.1');
    assert.deepEqual(asked, ['nginx']);
    assert.equal(settings.haproxyVersion, '2.6.12');
    assert.deepEqual(asked, ['nginx', 'haproxy']);
    assert.deepEqual({ ...settings }, { nginxVersion: '1.22.1', haproxyVersion: '2.6.12', lint: { select: ['default'] } });
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

  it('keeps the cache in the platform cache folder unless told otherwise', () => {
    assert.equal(versionCacheFile({ PROXY_TUNER_CACHE_DIR: '/x/y' }), join('/x/y', 'local-versions.json'));
    if (process.platform === 'linux') {
      assert.equal(versionCacheFile({ XDG_CACHE_HOME: '/c' }), join('/c', 'proxy-tuner', 'local-versions.json'));
      assert.match(versionCacheFile({})!, /\.cache\/proxy-tuner\/local-versions\.json$/);
    }
  });

  it('remembers a version across runs until the binary changes', () => {
    const bin = join(dir, 'sbin', 'nginx');
    const runs = join(dir, 'recorded-runs');
    writeFileSync(runs, '');
    const write = (v: string) => {
      mkdirSync(join(dir, 'sbin'), { recursive: true });
      writeFileSync(bin, `#!/bin/sh\necho "run $1" >> ${runs}\necho "nginx version: nginx/${v}" >&2\n`);
      chmodSync(bin, 0o755);
    };
    write('1.24.0');
    assert.equal(recordedVersion(bin), undefined);
    assert.equal(localVersion('nginx', bin), '1.24.0');
    assert.equal(recordedVersion(bin), '1.24.0');
    assert.ok(existsSync(join(cacheDir, 'local-versions.json')));

    // a later run (a fresh process: the command line) answers from the record, without asking the version
    const config = join(dir, 'nginx.conf');
    writeFileSync(config, 'events {}\nhttp {}\n');
    const cli = join(__dirname, '..', '..', 'dist', 'cli.js');
    const env = { ...process.env, PATH: `${join(dir, 'sbin')}:/usr/bin:/bin`, PROXY_TUNER_CACHE_DIR: cacheDir };
    // the first run asks `nginx -V` once (the module notes), the next ones answer from the record too
    const first = spawnSync(process.execPath, [cli, 'check', config], { env, encoding: 'utf8' });
    assert.equal(first.status, 0, first.stderr);
    assert.equal(readFileSync(runs, 'utf8'), 'run -v\nrun -V\n');
    const again = spawnSync(process.execPath, [cli, 'check', config], { env, encoding: 'utf8' });
    assert.equal(again.status, 0, again.stderr);
    assert.equal(readFileSync(runs, 'utf8'), 'run -v\nrun -V\n');

    // a new build of the binary (other size and times) is asked again, and its answer replaces the record
    write('1.26.10');
    assert.equal(recordedVersion(bin), undefined);
    const second = spawnSync(process.execPath, [cli, 'check', config], { env, encoding: 'utf8' });
    assert.equal(second.status, 0, second.stderr);
    assert.equal(readFileSync(runs, 'utf8'), 'run -v\nrun -V\nrun -v\nrun -V\n'); // -v and -V of the new build
    assert.equal(recordedVersion(bin), '1.26.10');
  });

  it('works without a usable cache: unwritable, corrupt or absent', () => {
    const nginx = fakeBinary('nginx-nocache', 'echo "nginx version: nginx/1.25.1" >&2');
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, 'not a folder');
    const unwritable = join(blocker, 'sub', 'local-versions.json');
    recordVersion(nginx, '1.25.1', unwritable); // no throw
    assert.equal(recordedVersion(nginx, unwritable), undefined);
    const corrupt = join(dir, 'corrupt.json');
    writeFileSync(corrupt, '{"binaries": [1, 2');
    assert.equal(recordedVersion(nginx, corrupt), undefined);
    recordVersion(nginx, '1.25.1', corrupt);
    assert.equal(recordedVersion(nginx, corrupt), '1.25.1');
  });
});
