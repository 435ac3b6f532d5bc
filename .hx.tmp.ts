import { readFileSync } from 'node:fs';
import { parseHaproxy } from './server/src/haproxy/parser';
import { buildHaproxyContext, runHaproxyChecks } from './server/src/tuning/haproxy/checks';
const text = readFileSync('/tmp/big.cfg', 'utf8');
const gc = (globalThis as any).gc;
const cpu: number[] = [];
for (let i = 0; i < 12; i++) {
  const f = parseHaproxy(text);
  gc();
  const c0 = process.cpuUsage();
  runHaproxyChecks(buildHaproxyContext(f, {}));
  const c = process.cpuUsage(c0);
  cpu.push((c.user + c.system) / 1000);
}
cpu.sort((a, b) => a - b);
console.log(process.env.NO_SEC ? 'no security' : 'security   ', `p50 ${cpu[6].toFixed(1)} min ${cpu[0].toFixed(1)}`);
