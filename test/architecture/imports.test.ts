// The layers hold: the import graph of the whole tree against the table in scripts/layers.mjs
// (docs/architecture.md), and the TypeScript project references against the same table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
// @ts-expect-error plain .mjs module without types
import { analyse, importGraph, REPO } from '../../scripts/import-graph.mjs';
// @ts-expect-error plain .mjs module without types
import { LAYERS, layerOf } from '../../scripts/layers.mjs';

type Edge = { from: string; to?: string; pkg?: string };
const result = analyse();

test('every source file belongs to a layer', () => {
  const { files } = importGraph() as { files: string[] };
  const orphans = files.filter((f) => !layerOf(f));
  assert.deepEqual(orphans, []);
  assert.ok(files.length > 100, `only ${files.length} files found: the walk is broken`);
});

test('no import crosses a layer the table forbids', () => {
  const lines = (result.forbidden as Edge[]).map((e) => `${e.from} -> ${e.to}`);
  assert.deepEqual(lines, []);
});

test('node built-ins and packages only where the table allows them (the service and core do no I/O)', () => {
  const lines = (result.badPackages as Edge[]).map((e) => `${e.from} -> ${e.pkg}`);
  assert.deepEqual(lines, []);
});

test('no loop between layers, and none between files', () => {
  assert.deepEqual(result.layerLoops, []);
  assert.deepEqual(result.fileLoops, []);
});

test('the analysis sees a forbidden edge when there is one', () => {
  // a self-check of the checker: the service importing the language server must be caught
  // @ts-expect-error plain .mjs module without types
  return import('../../scripts/layers.mjs').then((m: { mayImport: (a: string, b: string) => boolean }) => {
    assert.equal(m.mayImport('server/src/service/languageService.ts', 'server/src/lsp/server.ts'), false);
    assert.equal(m.mayImport('server/src/languages/haproxy/format.ts', 'server/src/languages/nginx/format.ts'), false);
    assert.equal(m.mayImport('server/src/runner/sandbox/nginx.ts', 'server/src/languages/nginx/parser.ts'), true);
    assert.equal(m.mayImport('server/src/runner/sandbox/nginx.ts', 'server/src/languages/nginx/validation.ts'), false);
    assert.equal(m.mayImport('server/src/runner/proxy.ts', 'bench/src/index.ts'), false);
    assert.equal(m.mayImport('server/src/host/binaryCheck.ts', 'bench/src/index.ts'), false);
    assert.equal(m.mayImport('webview/src/main.ts', 'protocol/panel.ts'), true);
  });
});

test('project references allow no more than the layers do', () => {
  // each TypeScript project (tsconfig.json with references) may reference only projects some
  // layer of which its own layers may import: tsc -b then refuses the rest (a project holds
  // several layers at most; the lint rule and the graph above check the finer table)
  const projects: Record<string, string[]> = {
    protocol: ['protocol'],
    'server/src/core': ['core'],
    'server/src/languages': ['nginx', 'haproxy', 'detect'],
    'server/src/service': ['service', 'published'],
    'server/src/host': ['host'],
    'server/src/lsp': ['lsp'],
    'server/src/runner': ['runner'],
    'bench/src': ['bench'],
    'cli/src': ['cli'],
    'client/src': ['client'],
    'webview/src': ['webview'],
  };
  const rows = LAYERS as { name: string; may: string[] }[];
  const mayOf = (l: string) => rows.find((r) => r.name === l)!.may;
  for (const [dir, layers] of Object.entries(projects)) {
    const cfg = JSON.parse(readFileSync(join(REPO, dir, 'tsconfig.json'), 'utf8')) as {
      references?: { path: string }[];
      compilerOptions?: { lib?: string[] };
    };
    for (const ref of cfg.references ?? []) {
      const target = join(dir, ref.path).replace(/\\/g, '/');
      const refLayers = projects[target];
      assert.ok(refLayers, `${dir} references ${target}, which is not a known project`);
      const ok = layers.some((own) => refLayers.some((other) => mayOf(own).includes(other) || mayOf(own).includes(`${other}-syntax`)));
      assert.ok(ok, `${dir}/tsconfig.json references ${target}: none of ${layers.join(', ')} may import ${refLayers.join(', ')}`);
    }
    const lib = cfg.compilerOptions?.lib ?? [];
    assert.equal(
      lib.some((l) => l.toUpperCase().startsWith('DOM')),
      dir === 'webview/src',
      `${dir}: the DOM lib is for the webview only`,
    );
  }
});
