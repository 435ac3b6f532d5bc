// dist/cli.js: starts the command line (dist/cli-main.js) from V8's code cache of it when one
// matches, instead of having node parse and compile the 1.3 MB bundle at every start.
//
// The cache (dist/cli-main.js.cache) is written by the build (esbuild.mjs runs this file with
// PROXY_TUNER_WRITE_CODE_CACHE=1 on a small nginx config, so it holds the code a `check` runs, not
// only the top level). It starts with the SHA-1 of the bundle it was made from: a rebuilt bundle
// (watch mode, an edit) does not get a stale cache. V8 itself refuses one made by another V8
// version or with other flags (`cachedDataRejected`); the bundle then compiles as usual. Measured:
// docs/benchmarks.md. PROXY_TUNER_NO_CODE_CACHE=1 loads the bundle as a plain module.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import * as vm from 'node:vm';

const MAIN = join(__dirname, 'cli-main.js');
const CACHE = `${MAIN}.cache`;
const HASH_BYTES = 40; // hex SHA-1 of the bundle, then V8's data

function launch(): void {
  // the bundle has no `import()` (esbuild.mjs makes them `require`s): a vm.Script has no loader for one
  if (process.env.PROXY_TUNER_NO_CODE_CACHE === '1') {
    createRequire(MAIN)(MAIN);
    return;
  }
  const source = readFileSync(MAIN);
  const hash = createHash('sha1').update(source).digest('hex');
  let cachedData: Buffer | undefined;
  try {
    const cache = readFileSync(CACHE);
    if (cache.subarray(0, HASH_BYTES).toString('latin1') === hash) cachedData = cache.subarray(HASH_BYTES);
  } catch {
    // no cache: compile as usual
  }
  // node's own wrapper for a CommonJS module, on the bundle's first line (its source map still fits)
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source.toString('utf8')}\n})`, {
    filename: MAIN,
    cachedData,
  });
  if (process.env.PROXY_TUNER_CODE_CACHE_DEBUG === '1')
    process.stderr.write(`proxy-tuner: code cache ${cachedData ? (script.cachedDataRejected ? 'rejected' : 'used') : 'absent'}\n`);
  if (process.env.PROXY_TUNER_WRITE_CODE_CACHE === '1') {
    // at exit, so the cache holds every function the run compiled. V8 keys a cache by its flags:
    // `check` sets one at run time (cli/src/main.ts), put back to V8's default first.
    process.on('exit', () => {
      setFlagsFromString('--semi-space-growth-factor=2');
      // whole or not at all: a run starting meanwhile reads the old file or the new one
      const tmp = `${CACHE}.${process.pid}.tmp`;
      writeFileSync(tmp, Buffer.concat([Buffer.from(hash, 'latin1'), script.createCachedData()]));
      renameSync(tmp, CACHE);
    });
  }
  const mod = { exports: {} as unknown, filename: MAIN, id: MAIN, loaded: false };
  const run = script.runInThisContext() as (e: unknown, r: NodeJS.Require, m: unknown, f: string, d: string) => void;
  run(mod.exports, createRequire(MAIN), mod, MAIN, __dirname);
  mod.loaded = true;
}

launch();
