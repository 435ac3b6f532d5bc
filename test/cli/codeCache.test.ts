// dist/cli.js starts the command line (dist/cli-main.js) from V8's code cache the build writes
// (cli/src/launch.ts): the cache is used when it was made from this very bundle by this V8,
// ignored when the bundle changed, another V8 made it or it is damaged, and the output is the
// same either way. Where the package's cache does not fit, the first run writes one of its own
// into the user's cache folder and the next runs use it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, REPO } from './build';
import { SEED002 } from './helpers';

const DIST = join(REPO, 'dist');
let dir = '';

/** A copy of the launcher, the bundle and its cache, to damage without touching dist/. */
function copyDist(): string {
  const d = mkdtempSync(join(dir, 'dist-'));
  for (const f of ['cli.js', 'cli-main.js', 'cli-main.js.cache']) copyFileSync(join(DIST, f), join(d, f));
  return d;
}

/**
 * A cache folder of the test's own per call unless `env` names one (the user's is never touched);
 * `node`: node's own options. No NODE_OPTIONS from the environment (one that changes V8's flags,
 * a CI's `--max-old-space-size`, makes V8 refuse the package's cache) unless `env` sets it.
 */
function run(launcher: string, args: string[], env: NodeJS.ProcessEnv = {}, node: string[] = []) {
  const r = spawnSync(process.execPath, [...node, launcher, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      NODE_OPTIONS: undefined,
      PROXY_TUNER_NO_LOCAL_VERSION: '1',
      PROXY_TUNER_CODE_CACHE_DEBUG: '1',
      PROXY_TUNER_CACHE_DIR: mkdtempSync(join(dir, 'cache-')),
      ...env,
    },
  });
  const [first, ...rest] = r.stderr.split('\n');
  return { status: r.status, stdout: r.stdout, cache: first, stderr: rest.join('\n') };
}

describe('the command line starts from its code cache (cli/src/launch.ts)', () => {
  let conf = '';
  before(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'proxy-tuner-codecache-'));
    conf = join(dir, 'nginx.conf');
    writeFileSync(conf, SEED002);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the build wrote a cache of this bundle, and the launcher uses it', () => {
    assert.ok(existsSync(join(DIST, 'cli-main.js.cache')), 'npm run build writes dist/cli-main.js.cache');
    const r = run(join(DIST, 'cli.js'), ['--version']);
    assert.equal(r.cache, 'proxy-tuner: code cache used (package)');
    assert.equal(r.stdout.trim(), JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version);
  });

  it('check gives the same report, exit code and stderr with the cache, without it and with a stale or damaged one', () => {
    const base = run(join(DIST, 'cli.js'), ['check', '--select', 'all', '--format', 'json', conf]);
    assert.equal(base.cache, 'proxy-tuner: code cache used (package)');
    assert.equal(base.status, 0, base.stderr);
    assert.ok(JSON.parse(base.stdout).length > 0, 'seed 002 has findings');
    const plain = run(join(DIST, 'cli.js'), ['check', '--select', 'all', '--format', 'json', conf], { PROXY_TUNER_NO_CODE_CACHE: '1' });
    assert.deepEqual([plain.status, plain.stdout, plain.stderr], [base.status, base.stdout, base.stderr]);

    // the bundle rebuilt (same length, other bytes) after the cache was written: its hash no longer matches
    const stale = copyDist();
    const main = readFileSync(join(stale, 'cli-main.js'), 'utf8');
    writeFileSync(join(stale, 'cli-main.js'), main.replace('Usage: proxy-tuner <command>', 'Usage: proxy-tuner <commanD>'));
    const s = run(join(stale, 'cli.js'), ['check', '--select', 'all', '--format', 'json', conf]);
    assert.equal(s.cache, 'proxy-tuner: code cache absent');
    assert.deepEqual([s.status, s.stdout, s.stderr], [base.status, base.stdout, base.stderr]);

    // V8's part damaged (the hash still right): V8 refuses it, the bundle compiles as usual
    const damaged = copyDist();
    const cache = readFileSync(join(damaged, 'cli-main.js.cache'));
    const head = cache.indexOf(10) + 1; // the bundle's hash and the V8 version, kept
    writeFileSync(
      join(damaged, 'cli-main.js.cache'),
      Buffer.concat([cache.subarray(0, head), Buffer.alloc(64, 7), cache.subarray(head + 64)]),
    );
    const d = run(join(damaged, 'cli.js'), ['check', '--select', 'all', '--format', 'json', conf]);
    assert.equal(d.cache, 'proxy-tuner: code cache rejected');
    assert.deepEqual([d.status, d.stdout, d.stderr], [base.status, base.stdout, base.stderr]);

    // no cache at all
    const none = copyDist();
    rmSync(join(none, 'cli-main.js.cache'));
    const n = run(join(none, 'cli.js'), ['check', '--select', 'all', '--format', 'json', conf]);
    assert.equal(n.cache, 'proxy-tuner: code cache absent');
    assert.deepEqual([n.status, n.stdout, n.stderr], [base.status, base.stdout, base.stderr]);
  });

  it("where the package's cache does not fit, the first run writes its own and the next ones use it", () => {
    const base = run(join(DIST, 'cli.js'), ['check', '--select', 'all', '--format', 'json', conf]);
    const cases: [string, (d: string) => void][] = [
      // made by another V8: its header names another version
      [
        'another V8',
        (d) => {
          const cache = readFileSync(join(d, 'cli-main.js.cache'));
          const head = cache.indexOf(10);
          writeFileSync(
            join(d, 'cli-main.js.cache'),
            Buffer.concat([cache.subarray(0, 40), Buffer.from('0.0.0-other', 'latin1'), cache.subarray(head)]),
          );
        },
      ],
      // V8's part damaged: V8 refuses it at every start, so the own one takes over
      [
        'damaged',
        (d) => {
          const cache = readFileSync(join(d, 'cli-main.js.cache'));
          const head = cache.indexOf(10) + 1;
          writeFileSync(
            join(d, 'cli-main.js.cache'),
            Buffer.concat([cache.subarray(0, head), Buffer.alloc(64, 7), cache.subarray(head + 64)]),
          );
        },
      ],
      ['absent', (d) => rmSync(join(d, 'cli-main.js.cache'))],
    ];
    for (const [what, spoil] of cases) {
      const d = copyDist();
      spoil(d);
      const cacheDir = mkdtempSync(join(dir, 'own-'));
      const first = run(join(d, 'cli.js'), ['check', '--select', 'all', '--format', 'json', conf], { PROXY_TUNER_CACHE_DIR: cacheDir });
      assert.equal(first.cache, `proxy-tuner: code cache ${what === 'damaged' ? 'rejected' : 'absent'}`, what);
      const own = join(cacheDir, 'code-cache');
      assert.equal(readdirSync(own).length, 1, `${what}: one cache written in ${own}`);
      assert.ok(statSync(own).mode & 0o700 && !(statSync(own).mode & 0o077), `${what}: the folder is the user's alone`);
      const second = run(join(d, 'cli.js'), ['check', '--select', 'all', '--format', 'json', conf], { PROXY_TUNER_CACHE_DIR: cacheDir });
      assert.equal(second.cache, 'proxy-tuner: code cache used (own)', what);
      for (const r of [first, second]) assert.deepEqual([r.status, r.stdout, r.stderr], [base.status, base.stdout, base.stderr], what);
      // the bundle rebuilt: the own cache no longer fits either, and is replaced
      const main = readFileSync(join(d, 'cli-main.js'), 'utf8');
      writeFileSync(join(d, 'cli-main.js'), main.replace('Usage: proxy-tuner <command>', 'Usage: proxy-tuner <commanD>'));
      assert.equal(
        run(join(d, 'cli.js'), ['--version'], { PROXY_TUNER_CACHE_DIR: cacheDir }).cache,
        'proxy-tuner: code cache absent',
        what,
      );
      assert.equal(
        run(join(d, 'cli.js'), ['--version'], { PROXY_TUNER_CACHE_DIR: cacheDir }).cache,
        'proxy-tuner: code cache used (own)',
        what,
      );
      assert.equal(readdirSync(own).length, 1, `${what}: still one file`);
    }
    // a cache folder that cannot be made (node's recursive mkdir never returned under /proc): the run ends, same output
    if (process.platform === 'linux') {
      const d = copyDist();
      rmSync(join(d, 'cli-main.js.cache'));
      const t0 = Date.now();
      const r = spawnSync(process.execPath, [join(d, 'cli.js'), 'check', '--select', 'all', '--format', 'json', conf], {
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, PROXY_TUNER_NO_LOCAL_VERSION: '1', PROXY_TUNER_CACHE_DIR: '/proc/proxy-tuner-none/x' },
      });
      assert.equal(r.signal, null, `the run ended by itself (${Date.now() - t0} ms)`);
      assert.deepEqual([r.status, r.stdout, r.stderr], [base.status, base.stdout, base.stderr]);
    }
    // PROXY_TUNER_NO_CODE_CACHE=1 writes nothing
    const none = copyDist();
    rmSync(join(none, 'cli-main.js.cache'));
    const cacheDir = mkdtempSync(join(dir, 'own-'));
    run(join(none, 'cli.js'), ['--version'], { PROXY_TUNER_CACHE_DIR: cacheDir, PROXY_TUNER_NO_CODE_CACHE: '1' });
    assert.equal(existsSync(join(cacheDir, 'code-cache')), false);
  });

  it("runs under node options that change V8's flags keep a cache of their own; plain runs keep the package's", () => {
    // V8 refuses a cache made under other flags. One own file for every set of options made a run
    // under other options and a plain one take turns refusing and rewriting it (a full compile each).
    const cacheDir = mkdtempSync(join(dir, 'options-'));
    const launcher = join(DIST, 'cli.js');
    const plain = () => run(launcher, ['--version'], { PROXY_TUNER_CACHE_DIR: cacheDir }).cache;
    const flagged = () => run(launcher, ['--version'], { PROXY_TUNER_CACHE_DIR: cacheDir }, ['--stack-size=900']).cache;
    const viaEnv = () => run(launcher, ['--version'], { PROXY_TUNER_CACHE_DIR: cacheDir, NODE_OPTIONS: '--max-old-space-size=512' }).cache;
    assert.equal(plain(), 'proxy-tuner: code cache used (package)');
    assert.equal(flagged(), 'proxy-tuner: code cache rejected', "V8 refuses the package's cache under --stack-size");
    assert.equal(flagged(), 'proxy-tuner: code cache used (own)');
    assert.equal(plain(), 'proxy-tuner: code cache used (package)', "the flagged run's cache is not read by a plain run");
    assert.equal(viaEnv(), 'proxy-tuner: code cache rejected', 'NODE_OPTIONS counts as well');
    assert.equal(viaEnv(), 'proxy-tuner: code cache used (own)');
    assert.equal(flagged(), 'proxy-tuner: code cache used (own)', 'each set of options keeps its own');
    assert.equal(plain(), 'proxy-tuner: code cache used (package)');
    assert.equal(readdirSync(join(cacheDir, 'code-cache')).filter((f) => f.endsWith('.cache')).length, 2);
  });

  it('the commands in bundles of their own load through it (bench, whose import() became a require)', () => {
    const r = run(join(DIST, 'cli.js'), ['bench', '--help']);
    assert.equal(r.cache, 'proxy-tuner: code cache used (package)');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /usage: proxy-tuner bench/i);
  });
});
