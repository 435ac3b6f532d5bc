// The layers of the code base and which may import which: the one table the import-graph test
// (test/architecture/imports.test.ts), the lint rule (scripts/eslint-layers.mjs) and
// `npm run graph:imports` read. docs/architecture.md explains each layer.
//
// A file belongs to the first layer whose prefix its path starts with. `may` lists the layers it
// may import (its own is always allowed); `node` says whether it may import node's built-in
// modules (I/O); `packages` lists the npm packages it may import (a prefix match), or '*'.
export const LAYERS = [
  { name: 'protocol', prefix: 'protocol/', may: [], node: false, packages: ['vscode-languageserver-types'] },
  {
    name: 'core',
    prefix: 'server/src/core/',
    may: ['protocol'],
    node: false,
    packages: ['vscode-languageserver-types', 'vscode-languageserver-textdocument'],
  },
  // the one language detector: a name and a text in, nginx or HAProxy out (a leaf the bench can use)
  { name: 'detect', prefix: 'server/src/languages/detect.ts', may: ['core', 'nginx-syntax', 'haproxy-syntax'], node: false, packages: [] },
  {
    name: 'nginx',
    prefix: 'server/src/languages/nginx/',
    may: ['core', 'protocol'],
    node: false,
    packages: ['vscode-languageserver-types', 'vscode-languageserver-textdocument', 'chevrotain', '@nginx/reference-lib'],
  },
  {
    name: 'haproxy',
    prefix: 'server/src/languages/haproxy/',
    may: ['core', 'protocol'],
    node: false,
    packages: ['vscode-languageserver-types', 'vscode-languageserver-textdocument', 'chevrotain'],
  },
  // the client: the service's published surface only (service/published.ts), never the rest of server/src
  { name: 'published', prefix: 'server/src/service/published.ts', may: ['core', 'detect', 'nginx', 'haproxy'], node: false, packages: [] },
  {
    name: 'service',
    prefix: 'server/src/service/',
    may: ['core', 'detect', 'nginx', 'haproxy', 'protocol'],
    node: false,
    packages: ['vscode-languageserver-types', 'vscode-languageserver-textdocument'],
  },
  // the runner: starts the real binaries on a sandboxed, contained copy of a config, and finds them
  // (the version matrix, the PATH lookup); below both the host ("Validate with nginx -t") and the bench
  {
    name: 'runner',
    prefix: 'server/src/runner/',
    may: ['core', 'detect', 'nginx-syntax', 'haproxy-syntax', 'protocol'],
    node: true,
    packages: [],
  },
  // host implements the interfaces the service declares (service/host.ts): host -> service, never back
  {
    name: 'host',
    prefix: 'server/src/host/',
    may: ['core', 'detect', 'nginx', 'haproxy', 'service', 'protocol', 'runner'],
    node: true,
    packages: ['vscode-languageserver-types', 'vscode-languageserver-textdocument'],
  },
  {
    name: 'lsp',
    prefix: 'server/src/lsp/',
    may: ['core', 'detect', 'nginx', 'haproxy', 'service', 'host', 'protocol'],
    node: true,
    packages: ['vscode-languageserver', 'vscode-languageserver-types', 'vscode-languageserver-textdocument'],
  },
  { name: 'server-types', prefix: 'server/src/types/', may: [], node: false, packages: '*' },
  // bench: 'k6/...' appears only inside the k6 script bench/src/export.ts writes (a template string)
  {
    name: 'bench',
    prefix: 'bench/src/',
    may: ['core', 'detect', 'nginx-syntax', 'haproxy-syntax', 'protocol', 'runner'],
    node: true,
    packages: ['k6'],
  },
  {
    name: 'cli',
    prefix: 'cli/src/',
    may: ['core', 'detect', 'nginx', 'haproxy', 'service', 'host', 'bench', 'protocol'],
    node: true,
    packages: ['vscode-languageserver-types', 'vscode-languageserver-textdocument'],
  },
  // the client runs the benchmark engine in-process, finds the binaries with the runner's lookup and
  // uses the service's published surface only
  {
    name: 'client',
    prefix: 'client/src/',
    may: ['protocol', 'bench', 'runner', 'core', 'published'],
    node: true,
    packages: ['vscode', 'vscode-languageclient'],
  },
  { name: 'webview', prefix: 'webview/src/', may: ['protocol'], node: false, packages: ['chart.js', '@vscode-elements/elements'] },
];

/**
 * The languages' syntax and tables: what the benchmark engine may use of a language (it rewrites configs
 * through our own parsers), never its validation, features or tuning.
 */
export const SYNTAX = {
  'nginx-syntax': [
    'server/src/languages/nginx/parser.ts',
    'server/src/languages/nginx/ast.ts',
    'server/src/languages/nginx/includes.ts',
    // the directive tables (which directives carry addresses, paths, modules): data, not checks
    'server/src/languages/nginx/data.ts',
    'server/src/languages/nginx/modules.ts',
  ],
  'haproxy-syntax': [
    'server/src/languages/haproxy/parser.ts',
    'server/src/languages/haproxy/ast.ts',
    'server/src/languages/haproxy/overrides.ts',
    // the keyword tables (which quoted words of a message are HAProxy's own): data, not checks
    'server/src/languages/haproxy/data.ts',
  ],
};

/** node's built-ins that do no I/O (string work on paths and URLs): allowed in every layer. */
export const PURE_BUILTINS = ['node:path', 'node:url'];

export function layerOf(rel) {
  for (const [name, files] of Object.entries(SYNTAX)) if (files.includes(rel)) return { name, syntaxOf: name.replace('-syntax', '') };
  return LAYERS.find((l) => rel.startsWith(l.prefix)) ?? null;
}

/** Whether a file of layer `from` may import file `toRel`. */
export function mayImport(fromRel, toRel) {
  const from = layerOf(fromRel);
  const to = layerOf(toRel);
  if (!from || !to) return true;
  const fromName = from.syntaxOf ?? from.name;
  const toName = to.syntaxOf && to.syntaxOf !== fromName ? to.name : (to.syntaxOf ?? to.name);
  if (fromName === toName) return true;
  const may = LAYERS.find((l) => l.name === fromName)?.may ?? [];
  if (may.includes(toName)) return true;
  // a layer allowed a language's whole tree may use its syntax too
  if (to.syntaxOf && may.includes(to.syntaxOf)) return true;
  return false;
}
