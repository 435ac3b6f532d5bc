// The cost of the nginx variable-flow analysis and the security rules on a file, in-process:
//   node --import tsx scripts/bench-flow.ts FILE [runs]
// Prints p50/min of: the parse, the flow walk alone (flowOf on a fresh parse), and the whole
// tuning pass with and without the security checks' share (the security checks run inside it).
import { readFileSync } from 'node:fs';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { parseNginx } from '../server/src/nginx/parser';
import { flowOf } from '../server/src/nginx/flow';
import { nginxTuning } from '../server/src/tuning';
import { buildContext } from '../server/src/tuning/nginx/checks';
import { runSecurityChecks } from '../server/src/tuning/nginx/security';

const file = process.argv[2];
const runs = Number(process.argv[3] ?? 15);
const text = readFileSync(file, 'utf8');
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `p50 ${s[Math.floor(s.length / 2)].toFixed(1)} ms, min ${s[0].toFixed(1)} ms`;
};
const parse: number[] = [];
const flow: number[] = [];
const security: number[] = [];
const tuning: number[] = [];
const cpu0 = process.cpuUsage();
for (let i = 0; i < runs; i++) {
  let t = performance.now();
  const ast = parseNginx(text);
  parse.push(performance.now() - t);
  t = performance.now();
  flowOf(ast, 'main');
  flow.push(performance.now() - t);
  // the security checks on a fresh parse (their flow walk included)
  const ast2 = parseNginx(text);
  const ctx = buildContext(ast2, {});
  t = performance.now();
  runSecurityChecks(ctx);
  security.push(performance.now() - t);
  const ast3 = parseNginx(text);
  const doc = TextDocument.create('file:///x.conf', 'nginx', 1, text);
  t = performance.now();
  nginxTuning(doc, ast3, {});
  tuning.push(performance.now() - t);
}
const cpu = process.cpuUsage(cpu0);
console.log(`${file}: ${text.split('\n').length} lines, ${runs} runs`);
console.log(`  parse                      ${stats(parse)}`);
console.log(`  flow walk (flowOf)         ${stats(flow)}`);
console.log(`  security checks (+ flow)   ${stats(security)}`);
console.log(`  whole nginx tuning pass    ${stats(tuning)}`);
console.log(`  process CPU ${(cpu.user / 1e6).toFixed(2)} s user, ${(cpu.system / 1e6).toFixed(2)} s system`);
