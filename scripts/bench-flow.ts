// The cost of the nginx variable-flow analysis and the security rules, in-process:
//   node --expose-gc --import tsx scripts/bench-flow.ts FILE [runs]
// Per run, on a fresh parse each (a collection before every timed phase, so one phase's garbage
// is not billed to the next): the parse, the flow walk alone (flowOf), the security checks
// (their flow walk included), the whole nginx tuning pass (which runs the security checks), and
// the facade's whole `validate` (parse, the module's checks, tuning: what the editor publishes).
// Prints p50 and min wall time and the CPU time of each phase.
import { readFileSync } from 'node:fs';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { parseNginx } from '../server/src/languages/nginx/parser';
import { flowOf } from '../server/src/languages/nginx/flow';
import { nginxTuning } from '../server/src/service/tuning';
import { buildContext } from '../server/src/languages/nginx/tuning/checks';
import { runSecurityChecks } from '../server/src/languages/nginx/tuning/security';
import { validate } from '../server/src/service/languageService';

const file = process.argv[2];
const runs = Number(process.argv[3] ?? 15);
const text = readFileSync(file, 'utf8');
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
type Phase = { wall: number[]; cpu: number[] };
const phases: Record<string, Phase> = {};
function time<T>(name: string, f: () => T): T {
  gc();
  const p = (phases[name] ??= { wall: [], cpu: [] });
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = f();
  p.wall.push(performance.now() - t0);
  const c = process.cpuUsage(c0);
  p.cpu.push((c.user + c.system) / 1000);
  return r;
}
for (let i = 0; i < runs; i++) {
  const ast = time('parse', () => parseNginx(text));
  time('flow walk (flowOf)', () => flowOf(ast, 'main'));
  const ast2 = parseNginx(text);
  const ctx = buildContext(ast2, {});
  time('security checks (+ flow)', () => runSecurityChecks(ctx));
  const ast3 = parseNginx(text);
  const doc = TextDocument.create('file:///x.conf', 'nginx', 1, text);
  time('whole nginx tuning pass', () => nginxTuning(doc, ast3, {}));
  const doc2 = TextDocument.create(`file:///v${i}.conf`, 'nginx', 1, text);
  time('whole validate (parse incl.)', () => validate(doc2, 'nginx', {}));
}
console.log(`${file}: ${text.split('\n').length} lines, ${runs} runs (wall p50 / min; CPU p50 / min per run)`);
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
for (const [name, p] of Object.entries(phases)) {
  const w = sorted(p.wall);
  const c = sorted(p.cpu);
  const f = (x: number) => x.toFixed(1).padStart(6);
  console.log(
    `  ${name.padEnd(26)} wall p50 ${f(w[w.length >> 1])} ms  min ${f(w[0])} ms   CPU p50 ${f(c[c.length >> 1])} ms  min ${f(c[0])} ms`,
  );
}
