// `npm run bench:loadgen`: the built-in load generator side by side with wrk and h2load, in one run,
// against the same nginx (`return 200`, one worker) on loopback; generator pinned to CPU 0 and
// nginx to CPU 1 with taskset; 3 interleaved repeats. Writes its section of docs/benchmarks.md.
// Options (env): LOADGEN_DURATION (s, default 5), LOADGEN_CONNECTIONS (default 50), LOADGEN_REPEATS (3).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtin, loadavg, machine, median, parseWrkLatency, sh, startNginx, timed, writeDocSection } from './bench-common.mjs';

const durationS = Number(process.env.LOADGEN_DURATION ?? 5);
const connections = Number(process.env.LOADGEN_CONNECTIONS ?? 50);
const repeats = Number(process.env.LOADGEN_REPEATS ?? 3);
const GEN_CPU = 0;
const PROXY_CPU = 1;

for (const tool of ['nginx', 'wrk', 'h2load', 'taskset']) {
  if (sh('sh', ['-c', `command -v ${tool}`]).code !== 0) {
    console.error(`bench:loadgen needs ${tool} on PATH (Debian: apt-get install nginx wrk nghttp2-client util-linux)`);
    process.exit(1);
  }
}
if (sh('node', ['-e', `require('fs').accessSync(${JSON.stringify(path.resolve('dist/cli.js'))})`]).code !== 0) {
  console.error('bench:loadgen needs dist/cli.js: run `npm run build` first');
  process.exit(1);
}

function wrk(port) {
  const cmd = [
    'taskset',
    '-c',
    String(GEN_CPU),
    'wrk',
    '-t1',
    `-c${connections}`,
    `-d${durationS}s`,
    '--latency',
    `http://127.0.0.1:${port}/`,
  ];
  const r = timed(cmd, durationS + 30);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(r.out)?.[1]);
  const p50 = parseWrkLatency(/^\s+50%\s+(\S+)/m.exec(r.out)?.[1] ?? '');
  const p99 = parseWrkLatency(/^\s+99%\s+(\S+)/m.exec(r.out)?.[1] ?? '');
  const errors = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(r.out)?.[1] ?? 0);
  if (!Number.isFinite(rps)) throw new Error(`wrk output not understood:\n${r.out}${r.err}`);
  return { rps, p50, p99, errors, perCpu: (rps * durationS) / r.cpu, cmd: cmd.join(' ') };
}

function h2load(port) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'proxy-tuner-h2load-'));
  const log = path.join(dir, 'requests.log');
  try {
    const cmd = [
      'taskset',
      '-c',
      String(GEN_CPU),
      'h2load',
      '--h1',
      '-t1',
      `-c${connections}`,
      `-D${durationS}`,
      '--warm-up-time=1',
      `--log-file=${log}`,
      `http://127.0.0.1:${port}/`,
    ];
    const r = timed(cmd, durationS + 30);
    const rps = Number(/finished in [\d.]+\w+, ([\d.]+) req\/s/.exec(r.out)?.[1]);
    if (!Number.isFinite(rps)) throw new Error(`h2load output not understood:\n${r.out}${r.err}`);
    // The log has one line per request: start (µs since epoch), status, elapsed µs.
    const lat = [];
    let errors = 0;
    for (const line of readFileSync(log, 'utf8').split('\n')) {
      const f = line.split('\t');
      if (f.length < 3) continue;
      lat.push(Number(f[2]) / 1000);
      if (!f[1].startsWith('2')) errors++;
    }
    lat.sort((a, b) => a - b);
    const pct = (p) => (lat.length ? lat[Math.min(lat.length - 1, Math.ceil((p / 100) * lat.length) - 1)] : NaN);
    // its CPU time covers the 1 s warm-up too, at the same rate
    return { rps, p50: pct(50), p99: pct(99), errors, perCpu: (rps * (durationS + 1)) / r.cpu, cmd: cmd.join(' ').replace(log, 'LOG') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// keepalive_requests raised: h2load's clients stop when nginx closes a kept-alive connection
// (after 1000 requests by default), which would end its run early.
const nginx = await startNginx({
  httpBody: 'server { listen 127.0.0.1:PORT; keepalive_requests 1000000; location / { return 200; } }',
  cpu: PROXY_CPU,
});
const results = { builtin: [], wrk: [], h2load: [] };
const cmds = {};
const loadBefore = loadavg();
try {
  const order = ['builtin', 'wrk', 'h2load'];
  for (let rep = 0; rep < repeats; rep++) {
    // rotate the order so no tool always runs first (or right after another)
    const turn = order.slice(rep % 3).concat(order.slice(0, rep % 3));
    for (const tool of turn) {
      const r =
        tool === 'wrk'
          ? wrk(nginx.port)
          : tool === 'h2load'
            ? h2load(nginx.port)
            : builtin({ port: nginx.port, connections, durationS, warmupS: 1, cpu: GEN_CPU });
      results[tool].push(r);
      cmds[tool] = r.cmd;
      console.log(
        `repeat ${rep + 1} ${tool.padEnd(8)} ${Math.round(r.rps)} req/s  p50 ${r.p50.toFixed(3)} ms  p99 ${r.p99.toFixed(3)} ms  ${Math.round(r.perCpu)} req/CPU-s  errors ${r.errors}  (load ${loadavg()})`,
      );
    }
  }
} finally {
  await nginx.stop();
}
const loadAfter = loadavg();

const ratio = (tool, base, key) => results[tool].map((r, i) => r[key] / results[base][i][key]);
const fmtRange = (xs, d = 2) => `${median(xs).toFixed(d)} (${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)})`;
const rows = ['builtin', 'wrk', 'h2load'].map((tool) => {
  const rs = results[tool];
  return `| ${tool === 'builtin' ? 'built-in (proxy-tuner)' : tool} | ${Math.round(median(rs.map((r) => r.rps)))} | ${fmtRange(ratio(tool, 'wrk', 'rps'))} | ${median(rs.map((r) => r.p50)).toFixed(3)} | ${median(rs.map((r) => r.p99)).toFixed(3)} | ${fmtRange(ratio(tool, 'h2load', 'p99'))} | ${Math.round(median(rs.map((r) => r.perCpu)))} | ${fmtRange(ratio(tool, 'wrk', 'perCpu'))} | ${rs.reduce((a, r) => a + r.errors, 0)} |`;
});
const rpsRatio = median(ratio('builtin', 'wrk', 'rps'));
const p99Ratio = median(ratio('builtin', 'h2load', 'p99'));
const cpuRatio = median(ratio('builtin', 'wrk', 'perCpu'));
const body = `## Load generator: built-in vs wrk vs h2load

How the built-in generator works (bench/src/generator.ts, load.ts): worker threads drive raw
\`net\`/\`tls\` sockets with a small HTTP/1.1 response parser (keep-alive, no pipelining; the read
buffer is reused and only the response head is parsed), \`node:http2\` for HTTP/2. Closed model:
each connection sends its next request when the answer is complete. Open model (\`--rate\`):
request i is due at t0 + i/R and its latency is timed from that intended time, so a stalled
server shows in the percentiles instead of being hidden by a waiting generator (the stall test in
test/bench/accuracy.test.ts: the backend freezes 800 ms during a 2 s run at 200 req/s; the
expected P99 is 800 × (1 − 0.01 × 2000/800) = 780 ms; measured 783–819 ms in repeated runs on this busy machine).
Latencies go into Node's native HdrHistogram (\`perf_hooks.createHistogram\`, microseconds): one per
second and one for the whole measured run.

Written by \`npm run bench:loadgen\` (scripts/bench-loadgen.mjs) on ${new Date().toISOString()}.
nginx \`return 200\` (\`keepalive_requests 1000000\`), one worker, pinned to CPU ${PROXY_CPU}; each generator pinned to CPU ${GEN_CPU};
${connections} connections, HTTP/1.1 keep-alive, ${durationS} s per run, ${repeats} interleaved repeats
(order rotated each repeat). Ratios are per repeat (same repeat, back to back), median (min–max).

Machine: ${machine()}.
Load average before ${loadBefore}, after ${loadAfter} — the machine is shared with other
work, so absolute numbers are noisy; compare the ratios.

| generator | req/s (median) | req/s ratio to wrk | P50 ms | P99 ms | P99 ratio to h2load | requests per generator CPU-second | per-CPU ratio to wrk | errors |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Requests per generator CPU-second is the cost of the generator itself (wrk and h2load: user+system
time of the process from /usr/bin/time; built-in: CPU of its whole process, all threads, during the
measured seconds);
on a machine busy with other work it is the steadier of the two comparisons.

Targets: built-in ≥ 0.8 of wrk's req/s — measured ${rpsRatio.toFixed(2)} (${rpsRatio >= 0.8 ? 'met' : 'NOT met'});
built-in P99 within 25% of h2load's — measured ${p99Ratio.toFixed(2)}× (${Math.abs(p99Ratio - 1) <= 0.25 ? 'met' : 'NOT met'}).

Commands:
- built-in: \`${cmds.builtin}\`
- wrk: \`${cmds.wrk}\`
- h2load: \`${cmds.h2load}\` (P50/P99 computed from its per-request log)

Per-run numbers:

| repeat | built-in req/s | wrk req/s | h2load req/s | built-in P99 | wrk P99 | h2load P99 |
|---|---|---|---|---|---|---|
${results.builtin.map((b, i) => `| ${i + 1} | ${Math.round(b.rps)} | ${Math.round(results.wrk[i].rps)} | ${Math.round(results.h2load[i].rps)} | ${b.p99.toFixed(3)} | ${results.wrk[i].p99.toFixed(3)} | ${results.h2load[i].p99.toFixed(3)} |`).join('\n')}
`;
const file = writeDocSection('bench:loadgen', body);
console.log(
  `\nbuilt-in/wrk req/s ${rpsRatio.toFixed(2)}, per CPU-second ${cpuRatio.toFixed(2)}; built-in/h2load P99 ${p99Ratio.toFixed(2)}; written to ${file}`,
);
