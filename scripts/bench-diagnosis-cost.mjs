// `npm run bench:diagnosis-cost`: what the diagnosis costs. The same run (seed 002's config with
// the keep-alive fix, closed model) with the diagnosis on and off, alternated for N rounds; the
// proxy's CPU per request (from /proc, as every run reports it) and the engine's own time spent
// reading /proc, medians. Writes its section of docs/benchmarks.md.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadavg, machine, median, writeDocSection } from './bench-common.mjs';

const { runBenchmark } = await import('../bench/src/index.ts');
const rounds = Number(process.env.COST_ROUNDS ?? 5);
const durationMs = Number(process.env.COST_DURATION_MS ?? 3000);
const connections = Number(process.env.COST_CONNECTIONS ?? 20);
const CONFIG = `worker_processes 1;
events {}
http {
    access_log off;
    upstream app {
        server 127.0.0.1:1980;
        keepalive 64;
    }
    server {
        listen 1990;
        location / {
            proxy_pass http://app;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
`;
const dir = mkdtempSync(path.join(os.tmpdir(), 'pt-diag-cost-'));
const file = path.join(dir, 'nginx.conf');
writeFileSync(file, CONFIG);
const load0 = loadavg();
const t0 = Date.now();
const runs = { on: [], off: [] };
try {
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
    for (const side of order) {
      const r = await runBenchmark({ configPath: file, connections, durationMs, warmupMs: 500, diagnose: side === 'on' });
      runs[side].push({
        rps: r.rps,
        proxyUs: r.cost?.proxyCpuUsPerRequest ?? NaN,
        costMs: r.diagnosis?.readings.costMs ?? 0,
      });
      console.error(
        `${side}: ${r.rps} req/s, proxy ${r.cost?.proxyCpuUsPerRequest} us/request, readings ${r.diagnosis?.readings.costMs ?? '-'} ms`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const load1 = loadavg();
const med = (side, k) => median(runs[side].map((x) => x[k]));
const onUs = med('on', 'proxyUs');
const offUs = med('off', 'proxyUs');
const ratios = runs.on.map((x, i) => x.proxyUs / runs.off[i].proxyUs);
const body = `## The diagnosis' cost (bench:diagnosis-cost)

Written by \`npm run bench:diagnosis-cost\` (scripts/bench-diagnosis-cost.mjs) on ${new Date().toISOString()}.
The same run with the diagnosis on and off, alternated, ${rounds} rounds: nginx (host binary), seed 002's config with the
keep-alive fix, closed model, ${connections} connections, ${durationMs / 1000} s measured after 0.5 s of warm-up.
Machine: ${machine()}. Load average ${load0} before, ${load1} after (${Math.round((Date.now() - t0) / 1000)} s in all).

| diagnosis | req/s (median) | proxy CPU µs per request (median) | per-round µs | engine time reading /proc per run (median) |
|---|---|---|---|---|
| on | ${med('on', 'rps')} | ${onUs} | ${runs.on.map((x) => x.proxyUs).join(', ')} | ${med('on', 'costMs')} ms |
| off | ${med('off', 'rps')} | ${offUs} | ${runs.off.map((x) => x.proxyUs).join(', ')} | - |

Proxy CPU per request, on / off: x${Math.round((onUs / offUs) * 1000) / 1000} (medians); per round ${ratios.map((x) => Math.round(x * 100) / 100).join(', ')}.
The readings run in the engine's process (a few /proc files twice a second), not in the proxy: what they can
add to the proxy's CPU per request is the CPU they take from it on a shared machine. They took ${med('on', 'costMs')} ms of
wall time per run, ${Math.round((med('on', 'costMs') / (durationMs + 500)) * 100000) / 1000}% of the run's ${(durationMs + 500) / 1000} s.
${
  Math.max(...ratios) - Math.min(...ratios) > 0.04
    ? `The per-round ratios spread over ${Math.round((Math.max(...ratios) - Math.min(...ratios)) * 100)} points: on this machine, at this load, a 2% difference in the proxy's CPU per request cannot be measured; the bound that holds is the readings' own time above.`
    : 'The per-round ratios are within 4 points of each other: the difference above is measured.'
}
`;
writeDocSection('bench:diagnosis-cost', body);
console.log(body);
