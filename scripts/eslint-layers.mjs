// A lint rule that holds the layers of scripts/layers.mjs: a file may import only the layers its
// row allows, and node's built-ins or npm packages only where its row says so. The import-graph
// test checks the same table over the whole tree at once; this rule shows the line in the editor.
import { dirname, relative, resolve } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { LAYERS, PURE_BUILTINS, layerOf, mayImport } from './layers.mjs';
import { REPO } from './import-graph.mjs';

function resolveSpec(file, spec) {
  const base = resolve(dirname(file), spec);
  for (const e of ['', '.ts', '.mts', '/index.ts', '.json']) {
    const p = base + e;
    if (existsSync(p) && statSync(p).isFile()) return p;
  }
  return null;
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'imports follow the layers of scripts/layers.mjs (docs/architecture.md)' },
    schema: [],
    messages: {
      layer: "{{from}} may not import {{to}} ('{{spec}}'): {{from}} may use {{may}} (scripts/layers.mjs, docs/architecture.md)",
      node: "{{from}} does no I/O: '{{spec}}' belongs in server/src/host/ behind an injected interface (docs/architecture.md)",
      pkg: "{{from}} may not use the package '{{spec}}' (scripts/layers.mjs)",
    },
  },
  create(context) {
    const file = context.filename;
    const rel = relative(REPO, file);
    const here = layerOf(rel);
    if (!here) return {};
    const row = LAYERS.find((l) => l.name === (here.syntaxOf ?? here.name));
    const check = (node, spec) => {
      if (typeof spec !== 'string') return;
      if (spec.startsWith('.')) {
        const target = resolveSpec(file, spec);
        if (!target) return;
        const to = relative(REPO, target);
        if (!mayImport(rel, to)) {
          const tl = layerOf(to);
          context.report({
            node,
            messageId: 'layer',
            data: { from: row.name, to: tl ? tl.name : to, spec, may: row.may.join(', ') || 'nothing' },
          });
        }
        return;
      }
      if (spec.startsWith('node:')) {
        if (!row.node && !PURE_BUILTINS.includes(spec)) context.report({ node, messageId: 'node', data: { from: row.name, spec } });
        return;
      }
      if (row.packages !== '*' && !row.packages.some((p) => spec === p || spec.startsWith(p + '/'))) {
        context.report({ node, messageId: 'pkg', data: { from: row.name, spec } });
      }
    };
    return {
      ImportDeclaration: (n) => check(n.source, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n.source, n.source.value),
      ExportAllDeclaration: (n) => check(n.source, n.source.value),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n.source, n.source.value),
      TSImportEqualsDeclaration: (n) =>
        n.moduleReference.type === 'TSExternalModuleReference' && check(n.moduleReference.expression, n.moduleReference.expression.value),
      CallExpression: (n) => {
        if (n.callee.type === 'Identifier' && n.callee.name === 'require' && n.arguments[0]?.type === 'Literal')
          check(n.arguments[0], n.arguments[0].value);
      },
    };
  },
};

export default { rules: { layers: rule } };
