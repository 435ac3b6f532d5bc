// The import graph of the code base: every relative import of every TypeScript file, folded into
// layers (scripts/layers.mjs). Prints the edges between layers, the edges the table forbids, the
// loops between layers and the loops between files.
//
//   npm run graph:imports [-- --json]
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { LAYERS, PURE_BUILTINS, layerOf, mayImport } from './layers.mjs';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROOTS = ['protocol', 'server/src', 'bench/src', 'cli/src', 'client/src', 'webview/src'];

function walk(dir, out) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function resolveSpec(file, spec) {
  const base = resolve(dirname(file), spec);
  for (const e of ['', '.ts', '.mts', '/index.ts', '.json']) {
    const p = base + e;
    if (existsSync(p) && statSync(p).isFile()) return p;
  }
  return null;
}

/**
 * A file's import specifiers as TypeScript reads them (imports, re-exports, import(), require()),
 * so that text in comments and strings (a glob such as `modules/*.so`, the k6 script bench/src/export.ts
 * writes) is neither counted nor allowed to hide a real import.
 */
const specifiers = (src) => ts.preProcessFile(src, true, true).importedFiles.map((f) => f.fileName);

export function importGraph(repo = REPO) {
  const files = ROOTS.flatMap((r) => walk(join(repo, r), []));
  const edges = [];
  for (const f of files) {
    for (const spec of specifiers(readFileSync(f, 'utf8'))) {
      const from = relative(repo, f);
      if (spec.startsWith('.')) {
        const t = resolveSpec(f, spec);
        if (t) edges.push({ from, to: relative(repo, t), spec });
      } else edges.push({ from, pkg: spec });
    }
  }
  return { files: files.map((f) => relative(repo, f)), edges };
}

const layerName = (rel) => {
  const l = layerOf(rel);
  return l ? (l.syntaxOf ?? l.name) : 'other';
};

/** Strongly connected components of more than one node (Tarjan), for a graph given as a Map. */
export function loops(adj) {
  let index = 0;
  const idx = new Map(),
    low = new Map(),
    on = new Set(),
    stack = [],
    out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of adj.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const c = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of adj.keys()) if (!idx.has(v)) visit(v);
  return out;
}

export function analyse(repo = REPO) {
  const { files, edges } = importGraph(repo);
  const layerEdges = new Map();
  const forbidden = [];
  const fileAdj = new Map(files.map((f) => [f, new Set()]));
  for (const e of edges) {
    if (!e.to) continue;
    fileAdj.get(e.from)?.add(e.to);
    const a = layerName(e.from),
      b = layerName(e.to);
    if (a !== b) {
      const k = `${a} -> ${b}`;
      layerEdges.set(k, (layerEdges.get(k) ?? 0) + 1);
    }
    if (!mayImport(e.from, e.to)) forbidden.push(e);
  }
  const layerAdj = new Map();
  for (const k of layerEdges.keys()) {
    const [a, b] = k.split(' -> ');
    if (!layerAdj.has(a)) layerAdj.set(a, new Set());
    layerAdj.get(a).add(b);
  }
  // node built-ins and packages per layer
  const badPackages = [];
  for (const e of edges) {
    if (!e.pkg) continue;
    const l = layerOf(e.from);
    const layer = l && (l.syntaxOf ? LAYERS.find((x) => x.name === l.syntaxOf) : l);
    if (!layer) continue;
    const isNode = e.pkg.startsWith('node:');
    if (PURE_BUILTINS.includes(e.pkg)) continue;
    if (isNode ? !layer.node : layer.packages !== '*' && !layer.packages.some((p) => e.pkg === p || e.pkg.startsWith(p + '/')))
      badPackages.push(e);
  }
  return {
    files: files.length,
    edges: edges.filter((e) => e.to).length,
    layerEdges: Object.fromEntries([...layerEdges].sort()),
    forbidden,
    badPackages,
    layerLoops: loops(layerAdj),
    fileLoops: loops(fileAdj),
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const repoArg = process.argv.indexOf('--repo');
  const r = analyse(repoArg > 0 ? resolve(process.argv[repoArg + 1]) : REPO);
  if (process.argv.includes('--json')) console.log(JSON.stringify(r, null, 1));
  else {
    console.log(`${r.files} files, ${r.edges} relative imports`);
    console.log('layer edges:');
    for (const [k, n] of Object.entries(r.layerEdges)) console.log(`  ${k}  (${n})`);
    console.log(`forbidden imports: ${r.forbidden.length}`);
    for (const e of r.forbidden) console.log(`  ${e.from} -> ${e.to}`);
    console.log(`imports of packages or node built-ins a layer may not use: ${r.badPackages.length}`);
    for (const e of r.badPackages) console.log(`  ${e.from} -> ${e.pkg}`);
    console.log(`loops between layers: ${r.layerLoops.length}`);
    for (const c of r.layerLoops) console.log(`  ${c.join(' <-> ')}`);
    console.log(`loops between files: ${r.fileLoops.length}`);
    for (const c of r.fileLoops) console.log(`  ${c.length} files: ${c.slice(0, 6).join(', ')}${c.length > 6 ? ', ...' : ''}`);
  }
}
