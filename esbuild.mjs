// One build script for every bundle: the extension client, the language server,
// the command line, the benchmark load worker and the webview.
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const watch = process.argv.includes('--watch');
// `npm pack` / `npm publish` run `prepare`: the package gets the minified bundles without source maps
const production = process.argv.includes('--production') || ['pack', 'publish'].includes(process.env.npm_command ?? '');

const node = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  external: ['vscode'],
};

/**
 * The command line starts often and never shows hover text: @nginx/reference-lib (1.8 MB of
 * nginx's documentation, about 60% of the bundle) goes to a bundle of its own,
 * dist/nginx-reference.js, which `require('@nginx/reference-lib')` (server/src/languages/nginx/reference.ts,
 * called lazily) loads when first needed, so start-up does not compile it.
 */
const referenceApart = {
  name: 'nginx-reference-apart',
  setup(build) {
    build.onResolve({ filter: /^@nginx\/reference-lib$/ }, () => ({ path: './nginx-reference.js', external: true }));
  },
};

/**
 * JSON files (the directive and keyword tables, ~0.5 MB) as `JSON.parse('...')` rather than
 * object literals: V8 scans a string and parses JSON much faster than it compiles and runs a
 * literal of that size (~30 ms less CPU at every `proxy-tuner` start here). Same values.
 */
const jsonAsParse = {
  name: 'json-as-parse',
  setup(build) {
    build.onLoad({ filter: /\.json$/ }, (args) => {
      const data = JSON.parse(readFileSync(args.path, 'utf8'));
      return { contents: `module.exports = JSON.parse(${JSON.stringify(JSON.stringify(data))});`, loader: 'js' };
    });
  },
};

/**
 * `check` starts often; `bench` (the benchmark engine: sandbox, backend, load generator) is only
 * read when asked for: `import('./bench.js')` in cli/src/main.ts resolves to a bundle of its own,
 * dist/cli-bench.js, so `check` does not read and pre-parse its code at every start.
 */
const benchApart = {
  name: 'cli-bench-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/bench\.js$/ }, () => ({ path: './cli-bench.js', external: true }));
  },
};

/**
 * The language server in a web worker (dist/browserServer.js, server/src/lsp/browserMain.ts): the
 * protocol's browser build, `node:url` as a small file: URL module, and every other Node module
 * (the desktop host's probes, which the worker's host never calls) as one that throws when used.
 */
const inTheBrowser = {
  name: 'server-in-the-browser',
  setup(build) {
    build.onResolve({ filter: /^vscode-languageserver\/node$/ }, (args) =>
      build.resolve('vscode-languageserver/browser', { kind: args.kind, resolveDir: args.resolveDir }),
    );
    build.onResolve({ filter: /^(node:)?url$/ }, () => ({ path: join(process.cwd(), 'server/src/lsp/browser/nodeUrl.ts') }));
    build.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, namespace: 'desktop-only' }));
    build.onLoad({ filter: /.*/, namespace: 'desktop-only' }, (args) => ({
      contents: `module.exports = new Proxy({}, { get: (_, name) => name === '__esModule' ? false : () => { throw new Error(${JSON.stringify(
        `${args.path} is not available in the browser`,
      )} + ': ' + String(name)); } });`,
      loader: 'js',
    }));
  },
};

const browser = {
  bundle: true,
  platform: 'browser',
  target: 'es2022',
  format: 'iife',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
};

const builds = [
  { ...browser, entryPoints: { browserServer: 'server/src/lsp/browserMain.ts' }, outdir: 'dist', plugins: [inTheBrowser, jsonAsParse] },
  { ...browser, format: 'cjs', entryPoints: { browserExtension: 'client/src/browserExtension.ts' }, outdir: 'dist', external: ['vscode'] },
  { ...node, entryPoints: { extension: 'client/src/extension.ts' }, outdir: 'dist' },
  { ...node, entryPoints: { server: 'server/src/lsp/main.ts' }, outdir: 'dist' },
  // whitespace-free: less to read and pre-parse at each start (names and code are unchanged);
  // started by dist/cli.js (cli/src/launch.ts) from V8's code cache of it, see codeCache() below
  {
    ...node,
    entryPoints: { 'cli-main': 'cli/src/main.ts' },
    outdir: 'dist',
    // `import('./bench.js')` as `require`: the launcher's vm.Script has no module loader for import()
    supported: { 'dynamic-import': false },
    plugins: [referenceApart, benchApart, jsonAsParse],
    minifyWhitespace: true,
  },
  { ...node, entryPoints: { cli: 'cli/src/launch.ts' }, outdir: 'dist', sourcemap: false },
  { ...node, entryPoints: { 'cli-bench': 'cli/src/bench.ts' }, outdir: 'dist', plugins: [referenceApart, jsonAsParse] },
  { ...node, entryPoints: { 'nginx-reference': '@nginx/reference-lib' }, outdir: 'dist', sourcemap: false },
  { ...node, entryPoints: { loadWorker: 'bench/src/loadWorker.ts' }, outdir: 'dist' },
  {
    bundle: true,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    sourcemap: !production,
    minify: production,
    logLevel: 'warning',
    entryPoints: { webview: 'webview/src/main.ts' },
    outdir: 'dist',
  },
].filter((b) => Object.values(b.entryPoints).every((p) => p.startsWith('@') || existsSync(p)));

/**
 * V8's code cache of the command line (dist/cli-main.js.cache, read by dist/cli.js): written by a
 * `check` of a small nginx config with this node, then tried once; a cache V8 refuses (another
 * flag set at run time, say) is removed rather than read for nothing at every start. A node of
 * another version refuses it too and compiles the bundle as before. Not in watch mode (the
 * launcher's hash check then skips the stale one).
 */
function codeCache() {
  const cache = 'dist/cli-main.js.cache';
  rmSync(cache, { force: true });
  const dir = mkdtempSync(join(tmpdir(), 'proxy-tuner-build-'));
  try {
    const conf = join(dir, 'nginx.conf');
    writeFileSync(
      conf,
      [
        'worker_processes auto;',
        'events { worker_connections 1024; }',
        'http {',
        '    upstream app { server 127.0.0.1:8080; keepalive 16; }',
        '    server {',
        '        listen 80;',
        '        server_name example.test;',
        '        gzip on;',
        '        location / { proxy_pass http://app; proxy_set_header Host $host; }',
        '        location /static/ { root /srv; expires 1h; }',
        '    }',
        '}',
        '',
      ].join('\n'),
    );
    const env = { ...process.env, PROXY_TUNER_NO_LOCAL_VERSION: '1', PROXY_TUNER_NO_HOST_FACTS: '1', PROXY_TUNER_CACHE_DIR: dir };
    delete env.NODE_OPTIONS;
    spawnSync(process.execPath, ['dist/cli.js', 'check', conf], { env: { ...env, PROXY_TUNER_WRITE_CODE_CACHE: '1' }, stdio: 'ignore' });
    const probe = spawnSync(process.execPath, ['dist/cli.js', '--version'], {
      env: { ...env, PROXY_TUNER_CODE_CACHE_DEBUG: '1' },
      encoding: 'utf8',
    });
    if (!/code cache used/.test(probe.stderr ?? '')) {
      rmSync(cache, { force: true });
      if (existsSync('dist/cli.js'))
        process.stderr.write(`build: no code cache for dist/cli-main.js (${(probe.stderr ?? '').trim() || 'not written'})\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (watch) {
  for (const b of builds) (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  if (builds.some((b) => b.entryPoints.cli)) codeCache();
}
