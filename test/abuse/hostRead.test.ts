// The host's reads of files a config names (server/src/host/safeRead.ts, through nodeFileSystem
// and the command line's readConfigFile): links are resolved before the /proc, /sys, /dev test,
// only regular files are read, within a bound, and nothing blocks on a FIFO.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkReadable, readRegularFile } from '../../server/src/host/safeRead';
import { nodeFileSystem } from '../../server/src/host/nodeHost';
import { readConfigFile, readIfExists } from '../../cli/src/files';

describe('host reads that cannot hang', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'proxy-tuner-hostread-'));
    writeFileSync(join(dir, 'ok.conf'), 'events {}\n');
    symlinkSync(join(dir, 'ok.conf'), join(dir, 'link.conf'));
    symlinkSync('/dev/zero', join(dir, 'zero.conf'));
    symlinkSync('/proc/self/environ', join(dir, 'env.conf'));
    symlinkSync('/proc/self', join(dir, 'proc'));
    execFileSync('mkfifo', [join(dir, 'fifo.conf')]);
    mkdirSync(join(dir, 'folder.conf'));
    writeFileSync(join(dir, 'big.conf'), 'x'.repeat(4096));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a regular file, also through a link', () => {
    assert.deepEqual(readRegularFile(join(dir, 'ok.conf'), 1024), { ok: true, path: join(dir, 'ok.conf'), text: 'events {}\n' });
    const viaLink = readRegularFile(join(dir, 'link.conf'), 1024);
    assert.equal(viaLink.ok && viaLink.text, 'events {}\n');
    assert.equal(nodeFileSystem.readFile(join(dir, 'link.conf')), 'events {}\n');
  });

  it('refuses what a link resolves to under /proc, /sys, /dev, a FIFO, a folder, a file over the bound, at once', () => {
    const t = performance.now();
    const cases: [string, string][] = [
      ['zero.conf', 'kernel'],
      ['env.conf', 'kernel'],
      ['proc/environ', 'kernel'],
      ['fifo.conf', 'not-regular'],
      ['folder.conf', 'not-regular'],
      ['big.conf', 'too-large'],
      ['missing.conf', 'missing'],
    ];
    for (const [name, reason] of cases) {
      const r = readRegularFile(join(dir, name), 1024);
      assert.equal(r.ok, false, name);
      assert.equal(!r.ok && r.reason, reason, name);
      assert.equal(nodeFileSystem.readFile(join(dir, name)), name === 'big.conf' ? 'x'.repeat(4096) : undefined, name);
      assert.equal(checkReadable(join(dir, name), 1024).ok, false, name);
    }
    for (const p of ['/dev/zero', '/dev/urandom', '/proc/self/environ', '/sys/kernel/mm/transparent_hugepage/enabled']) {
      assert.equal(readRegularFile(p, 1 << 20).ok, false, p);
      assert.equal(nodeFileSystem.readFile(p), undefined, p);
    }
    assert.ok(performance.now() - t < 5000, 'no read blocked');
  });

  it('the command line says why it does not read a file', () => {
    assert.throws(() => readConfigFile(join(dir, 'zero.conf')), /kernel or device file.*\/dev\/zero/);
    assert.throws(() => readConfigFile(join(dir, 'fifo.conf')), /not a regular file/);
    assert.equal(readConfigFile(join(dir, 'ok.conf')), 'events {}\n');
    // the project-config walk: a folder or a FIFO of that name is no config, a device is an error
    assert.equal(readIfExists(join(dir, 'folder.conf')), undefined);
    assert.equal(readIfExists(join(dir, 'fifo.conf')), undefined);
    assert.throws(() => readIfExists(join(dir, 'zero.conf')), /kernel/);
  });
});
