// dist/cli.js: starts the command line (dist/cli-main.js) from V8's code cache of it when one
// matches, instead of having node parse and compile the 1.3 MB bundle at every start.
//
// The package's cache (dist/cli-main.js.cache) is written by the build (esbuild.mjs runs this
// file with PROXY_TUNER_WRITE_CODE_CACHE=1 on a small nginx config, so it holds the code a `check`
// runs, not only the top level). A cache starts with the SHA-1 of the bundle it was made from and
// the V8 version that made it: a rebuilt bundle (watch mode, an edit) does not get a stale cache.
// V8 reads only caches of its own version and flags, so a node other than the build's (the package
// built with node 20, run with node 24), or node options that change V8's flags (NODE_OPTIONS'
// --max-old-space-size), get their own cache in the user's cache folder (server/src/host/cacheDir.ts),
// one per node version and set of options, written at the exit of the first run and read from the second.
// V8 itself refuses one made with other flags, or a damaged one (`cachedDataRejected`); the bundle
// then compiles as usual. Measured: docs/benchmarks.md. PROXY_TUNER_NO_CODE_CACHE=1 loads the bundle
// as a plain module and writes no cache.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import * as vm from 'node:vm';
import { cacheDir, makeCacheDir } from '../../server/src/host/cacheDir';

const MAIN = join(__dirname, 'cli-main.js');
const SHIPPED = `${MAIN}.cache`;
const HASH_BYTES = 40; // hex SHA-1 of the bundle, then the V8 version and a line break, then V8's data
const V8 = process.versions.v8;

const sha1 = (data: string | Buffer): string => createHash('sha1').update(data).digest('hex');

/** V8's data in `file` when the file was made from this bundle by this V8, else undefined. */
function cacheIn(file: string, hash: string): Buffer | undefined {
  let cache: Buffer;
  try {
    cache = readFileSync(file);
  } catch {
    return undefined; // none
  }
  if (cache.subarray(0, HASH_BYTES).toString('latin1') !== hash) return undefined;
  const eol = cache.indexOf(10, HASH_BYTES);
  if (eol < 0 || cache.subarray(HASH_BYTES, eol).toString('latin1') !== V8) return undefined;
  return cache.subarray(eol + 1);
}

/**
 * A key for this run's node options (command line and NODE_OPTIONS; all of them, since which
 * ones change V8's flags is V8's affair). V8 refuses a cache made under other flags
 * (`--max-old-space-size`, common in CI's NODE_OPTIONS, `--stack-size`, `--trace-opt`...), so each
 * set of options keeps its own file. With one file for all, a run under other options refused it
 * and wrote its own over it, which the next plain run refused and wrote over again: a full compile
 * at every switch. '' without options (the plain file name).
 */
function optionsKey(): string {
  const opts = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join('\0');
  return opts === '' ? '' : `-o${sha1(opts).slice(0, 8)}`;
}

/**
 * The user's cache for this bundle's folder, this V8 and these node options (two installs of the
 * package each get theirs; an upgrade in place overwrites its own), or undefined without a cache folder.
 */
function ownCacheFile(): string | undefined {
  const dir = cacheDir();
  return dir ? join(dir, 'code-cache', `cli-main-${V8}-${sha1(MAIN).slice(0, 12)}${optionsKey()}.cache`) : undefined;
}

/** Writes `data` to `file` whole or not at all: a run starting meanwhile reads the old file or the new one. */
function writeWhole(file: string, data: Buffer): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

function launch(): void {
  // the bundle has no `import()` (esbuild.mjs makes them `require`s): a vm.Script has no loader for one
  if (process.env.PROXY_TUNER_NO_CODE_CACHE === '1') {
    createRequire(MAIN)(MAIN);
    return;
  }
  const source = readFileSync(MAIN);
  const hash = sha1(source);
  const building = process.env.PROXY_TUNER_WRITE_CODE_CACHE === '1';
  // the user's own first: it exists only where the package's did not fit or V8 refused it
  const own = building ? undefined : ownCacheFile();
  let from = 'own';
  let cachedData = own ? cacheIn(own, hash) : undefined;
  if (!cachedData && !building) {
    cachedData = cacheIn(SHIPPED, hash);
    from = 'package';
  }
  // node's own wrapper for a CommonJS module, on the bundle's first line (its source map still fits)
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source.toString('utf8')}\n})`, {
    filename: MAIN,
    cachedData,
  });
  const used = cachedData !== undefined && !script.cachedDataRejected;
  if (process.env.PROXY_TUNER_CODE_CACHE_DEBUG === '1')
    process.stderr.write(`proxy-tuner: code cache ${cachedData ? (used ? `used (${from})` : 'rejected') : 'absent'}\n`);
  // the package's cache at the build; the user's own when none fitted or V8 refused the one read
  const target = building ? SHIPPED : !used && own ? own : undefined;
  if (target) {
    // at exit, so the cache holds every function the run compiled. V8 keys a cache by its flags:
    // `check` sets one at run time (cli/src/main.ts), put back to V8's default first.
    process.on('exit', () => {
      try {
        setFlagsFromString('--semi-space-growth-factor=2');
        if (!building) makeCacheDir(join(target, '..'));
        writeWhole(target, Buffer.concat([Buffer.from(`${hash}${V8}\n`, 'latin1'), script.createCachedData()]));
      } catch (e) {
        // a read-only or full cache folder costs the next start its compile, nothing else
        if (building) throw e;
      }
    });
  }
  const mod = { exports: {} as unknown, filename: MAIN, id: MAIN, loaded: false };
  const run = script.runInThisContext() as (e: unknown, r: NodeJS.Require, m: unknown, f: string, d: string) => void;
  run(mod.exports, createRequire(MAIN), mod, MAIN, __dirname);
  mod.loaded = true;
}

launch();
