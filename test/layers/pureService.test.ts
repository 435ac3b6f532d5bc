// Invariant 2 of docs/architecture.md, checked on the source: the service (server/src/service)
// and the core (server/src/core) do no I/O and keep no module-level state that could change an
// answer. No import of Node's I/O modules, of server/src/host or of bench; every module-level
// `let` and every module-level collection that its file writes to is a memo of a pure function
// named below with the reason its answers cannot differ from a fresh computation. A new one
// fails here: give the state to its owner (the WorkspaceIndex, a ParseCache, the server's
// per-document state, the host) or add it with its proof.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', 'server', 'src');
const FOLDERS = ['service', 'core'];

/** Node modules without I/O that the service may use. */
const PURE_NODE = new Set(['node:url']);

/** Module-level state that is a memo of a pure function, by `folder/file.ts:name`. */
const MEMOS: Record<string, string> = {
  'core/editDistance.ts:rowA': 'scratch rows of the distance table, written before they are read on every call (grown, never shrunk)',
  'core/editDistance.ts:rowB': 'the second scratch row, likewise',
  'core/findingText.ts:eolCache': "the last text's line ending; answered anew for any other text (compared by value)",
  'core/findingText.ts:SPACES': "runs of spaces by length, each filled with the ' '.repeat(n) it stands for",
  'core/rules.ts:linePositions':
    "per TextDocument (weakly), the line table of its text, recomputed when the document's text is not the one it was made from",
  'core/rules.ts:scanned':
    'per TextDocument (weakly), the suppression comments of its text, rescanned when the text differs (each call hands out fresh objects)',
};

function sources(): { rel: string; text: string }[] {
  const out: { rel: string; text: string }[] = [];
  for (const folder of FOLDERS) {
    for (const name of readdirSync(join(ROOT, folder))) {
      if (name.endsWith('.ts')) out.push({ rel: `${folder}/${name}`, text: readFileSync(join(ROOT, folder, name), 'utf8') });
    }
  }
  return out;
}

/** Runtime imports (not `import type`) and require() calls. */
function runtimeImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(?!type\b)[^;]*?\bfrom\s+'([^']+)'/gms)) out.push(m[2]);
  for (const m of text.matchAll(/^\s*import\s+'([^']+)'/gm)) out.push(m[1]);
  for (const m of text.matchAll(/\brequire\(\s*'([^']+)'\s*\)/g)) out.push(m[1]);
  return out;
}

const NODE_BUILTINS = new Set([
  'fs',
  'fs/promises',
  'child_process',
  'os',
  'net',
  'http',
  'https',
  'dgram',
  'dns',
  'worker_threads',
  'cluster',
  'process',
  'readline',
  'tls',
  'v8',
  'vm',
  'url',
  'path',
  'crypto',
  'stream',
  'timers',
  'perf_hooks',
]);

describe('the service and the core do no I/O (docs/architecture.md, invariant 2)', () => {
  it('import nothing of Node that reads, writes or starts anything, nor the host adapters or bench', () => {
    const bad: string[] = [];
    for (const { rel, text } of sources()) {
      for (const spec of runtimeImports(text)) {
        const node = spec.startsWith('node:') || NODE_BUILTINS.has(spec);
        if (node && !PURE_NODE.has(spec)) bad.push(`${rel} imports ${spec}`);
        if (/(^|\/)host\//.test(spec) && spec.startsWith('.')) bad.push(`${rel} imports ${spec}`);
        if (/(^|\/)bench\//.test(spec)) bad.push(`${rel} imports ${spec}`);
      }
    }
    assert.deepEqual(bad, []);
  });

  it('keep no module-level state but the memos of pure functions listed here', () => {
    const found: string[] = [];
    for (const { rel, text } of sources()) {
      for (const m of text.matchAll(/^(?:export\s+)?(let|var)\s+([A-Za-z_$][\w$]*)/gm)) found.push(`${rel}:${m[2]}`);
      for (const m of text.matchAll(
        /^(?:export\s+)?const\s+([A-Za-z_$][\w$]*)\b[^=\n]*=\s*(new\s+(?:Map|Set|WeakMap|WeakSet|Array)\b|\[|\{)/gm,
      )) {
        const name = m[1];
        const esc = name.replace(/\$/g, '\\$');
        const writes = new RegExp(
          `\\b${esc}\\s*(\\.(set|add|delete|clear|push|pop|shift|unshift|splice|sort|reverse|fill)\\(|\\[[^\\]]*\\]\\s*(\\?\\?=|\\|\\|=|=(?!=))|\\.[A-Za-z_$][\\w$]*\\s*=(?!=))`,
        );
        if (writes.test(text)) found.push(`${rel}:${name}`);
      }
    }
    const unexplained = found.filter((k) => !(k in MEMOS));
    assert.deepEqual(unexplained, [], 'module-level state without an owner or a proof');
    const gone = Object.keys(MEMOS).filter((k) => !found.includes(k));
    assert.deepEqual(gone, [], 'listed memos that no longer exist: drop them from MEMOS');
  });
});
