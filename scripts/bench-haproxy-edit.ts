// The compute of one HAProxy edit, in-process: the 5,000-line generated file, `timeout server 30s`
// typed and erased on a new line of the middle backend, the document updated in place and
// validated through one workspace index and parse cache as the language server does
// (`diagnose`). Prints CPU per edit (process.cpuUsage around each validation; a shared
// machine inflates wall times, far less CPU), the heap allocated per edit (the heap's growth over
// the runs without a collection: run it with a young generation that holds several edits,
// `--min-semi-space-size=64 --max-semi-space-size=64`), and how many sections the last run of
// the module's validation took over.
//
//   node --min-semi-space-size=64 --max-semi-space-size=64 --import tsx scripts/bench-haproxy-edit.ts [--edits N] [--root DIR]
//
// `--root DIR`: the checkout whose server/src to load (another worktree, for before/after runs
// alternated in the same minutes).
import { getHeapStatistics } from 'node:v8';
import { resolve } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
// @ts-expect-error a plain .mjs script without type declarations
import { haproxyConfig } from './gen-large-config.mjs';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const EDITS = Number(opt('edits') ?? 300);
const root = resolve(opt('root') ?? resolve(__dirname, '..'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const service = require(`${root}/server/src/service/languageService`) as typeof import('../server/src/service/languageService');
let memoOf: ((bag: Record<string, unknown>) => { computed: number; reused: number } | undefined) | undefined;
try {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  memoOf = require(`${root}/server/src/languages/haproxy/validation`).haproxyValidationMemo;
} catch {
  memoOf = undefined;
}
// the node file system of a checkout that injects it (server/src/host/nodeHost.ts); older ones read the disk themselves
let fs: import('../server/src/service/host').FileSystem | undefined;
try {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  fs = require(`${root}/server/src/host/nodeHost`).nodeFileSystem;
} catch {
  fs = undefined;
}

const text: string = haproxyConfig({ lines: 5000 });
const lines = text.split('\n');
const line = lines.findIndex((l, i) => i > lines.length / 2 && l.startsWith('backend ')) + 1;
const word = 'timeout server 30s';
const doc = TextDocument.create('file:///bench/haproxy-edit.cfg', 'haproxy', 1, text);
const ws = service.createWorkspaceIndex({ fs: fs!, open: { get: (u: string) => (u === doc.uri ? doc : undefined), all: () => [doc] } });
const cache = new service.ParseCache();
service.diagnose(doc, 'haproxy', {}, ws, { cache });
TextDocument.update(doc, [{ range: { start: { line, character: 0 }, end: { line, character: 0 } }, text: '    \n' }], 2);

const cpu: number[] = [];
const alloc: number[] = [];
let typed = '';
let typing = true;
for (let e = 0; e < EDITS; e++) {
  const col = 4 + typed.length;
  if (typing) {
    const ch = word[typed.length];
    typed += ch;
    TextDocument.update(doc, [{ range: { start: { line, character: col }, end: { line, character: col } }, text: ch }], doc.version + 1);
    if (typed.length === word.length) typing = false;
  } else {
    typed = typed.slice(0, -1);
    TextDocument.update(
      doc,
      [{ range: { start: { line, character: col - 1 }, end: { line, character: col } }, text: '' }],
      doc.version + 1,
    );
    if (!typed.length) typing = true;
  }
  const h0 = getHeapStatistics().used_heap_size;
  const c0 = process.cpuUsage();
  service.diagnose(doc, 'haproxy', {}, ws, { cache });
  const c = process.cpuUsage(c0);
  const grown = getHeapStatistics().used_heap_size - h0;
  if (e < 20) continue; // the first edits compile the code
  cpu.push((c.user + c.system) / 1000);
  if (grown > 0) alloc.push(grown); // a collection during the run shrinks the heap: not counted
}
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)] ?? NaN;
const mean = cpu.reduce((a, b) => a + b, 0) / cpu.length;
const memo = memoOf?.(cache.memoOf(doc.uri));
console.log(
  `haproxy edit (5,000 lines, ${cpu.length} edits after 20 of warm-up, ${root}): CPU per edit mean ${mean.toFixed(2)} ms, median ${median(cpu).toFixed(2)} ms, p99 ${sorted(cpu)[Math.floor(cpu.length * 0.99)].toFixed(2)} ms; allocated per edit median ${(median(alloc) / 1e6).toFixed(2)} MB (${alloc.length} runs without a collection)${memo ? `; last run: ${memo.computed} sections computed, ${memo.reused} taken over` : ''}`,
);
