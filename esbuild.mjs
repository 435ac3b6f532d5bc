// One build script for every bundle: the extension client, the language server,
// the command line, the benchmark load worker and the webview.
import * as esbuild from 'esbuild';
import { existsSync, readFileSync } from 'node:fs';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

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

const builds = [
  { ...node, entryPoints: { extension: 'client/src/extension.ts' }, outdir: 'dist' },
  { ...node, entryPoints: { server: 'server/src/lsp/main.ts' }, outdir: 'dist' },
  // whitespace-free: less to read and pre-parse at each start (names and code are unchanged)
  {
    ...node,
    entryPoints: { cli: 'cli/src/main.ts' },
    outdir: 'dist',
    plugins: [referenceApart, benchApart, jsonAsParse],
    minifyWhitespace: true,
  },
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

if (watch) {
  for (const b of builds) (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
