// `proxy-tuner bench FILE [options]`: runs the benchmark engine (bench/src) on a sandboxed copy of
// the config and prints a live progress line (on a terminal), a final table, or one JSON document.
// Exit codes: 0 done, 1 failure (refused config, binary missing, proxy failed...), 2 bad usage,
// 130 interrupted.
import { FAIL_MODES, type FailMode } from '../../protocol/diagnosis';
import { capacityCommand } from './capacity';
import { reportBenchError } from './benchError';
import { parseSlo, type Slo } from '../../bench/src/capacity';
import { diagnosisLines } from './diagnosisText';
import type { BenchOptions, BenchResult, ProxyKind, ScenarioName, SecondSample } from '../../protocol/bench';
import { readFileSync, statSync } from 'node:fs';
import { BACKEND_KIND_OPTIONS, HTTP_METHODS, MAX_REQUEST_BODY_BYTES, SCENARIOS, type BackendKindOption } from '../../protocol/bench';
import { scenarioFacts } from '../../protocol/scenarios';
import {
  BenchUsageError,
  ConfigCheckError,
  EXPORT_ENGINES,
  exportScenario,
  k6Script,
  locustfile,
  runBenchmark,
  SandboxRefusal,
  type ExportEngine,
} from '../../bench/src/index';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs, UsageError, type FlagSpec } from './args';
import { escapeControls, notTextReason } from '../../server/src/core/text';

const HELP = `usage: proxy-tuner bench FILE [options]

Runs the real nginx/haproxy binary on a private copy of FILE (rewritten to listen on 127.0.0.1 and
to proxy to a built-in backend), sends load on loopback and reports throughput and latency.
FILE is never written.

options:
  --scenario NAME      ${SCENARIOS.join(', ')}
                       (default http1-keepalive)
  --connections N      concurrent connections (default 10)
  --rate R             open model: R requests/s in total, latency timed from each request's
                       intended send time (default: closed model, as fast as the connections go)
  --duration T         measured time, e.g. 10s, 500ms, 1m (default 10s)
  --warmup T           warm-up before measuring (default 2s)
  --step P%/T          step load: +P% of the start rate (or connections) every T, e.g. 20%/5s
  --path P             request path (default /)
  --host NAME          Host header (default: the listener's server_name, else localhost)
  --method M           request method: ${HTTP_METHODS.join(', ')} (default GET)
  --body TEXT          request body sent with every request (at most 1 MiB; not with GET/HEAD;
                       the method is POST unless --method says otherwise)
  --body-file PATH     request body read from a file (at most 1 MiB)
  --content-type T     Content-Type of the body (default application/octet-stream)
  --listener LINE      send the load to the listener of the nginx \`server\` or HAProxy
                       \`frontend\`/\`listen\` block whose header is on LINE of FILE
                       (default: the first listener that fits the scenario)
  --streams N          HTTP/2 streams per connection (default 10)
  --threads N          load generator threads (default 1)
  --timeout T          per-request timeout (default 5s)
  --response-bytes N   backend response size, e.g. 512, 16k, 1m (max 1m)
  --latency T          backend latency per response, e.g. 5ms
  --status N           backend response status (default 200)
  --backend KIND       auto, native or node (default auto): native is a second nginx (or HAProxy
                       where only HAProxy is installed) answering a fixed response, so the backend
                       costs little next to the proxy; node is the built-in Node backend, the only
                       one with --latency, per-method accounting and TCP echo; auto takes native
                       for fixed GET/HEAD responses
  --kind nginx|haproxy the config's kind (default: from the file name/contents)
  --binary PATH        the nginx/haproxy binary (default: found on PATH). Repeat it to run
                       the same config on each binary in turn and compare them A/B (e.g. the
                       installed version against a newer one: what upgrading buys)
  --rounds N           with several --binary: rounds of runs, the order alternated each round
                       (default 1; medians are compared)
  --target HOST:PORT   instead of FILE: send the load to a server already running on loopback
                       (no sandbox, no backend; for comparing load generators)
  --direct             also run the same load straight at the backend (the proxy's own cost)
  --allow-uncontained-native-code
                       where the run cannot be contained (no namespaces: rewrite-only), run a
                       config that loads modules (load_module) anyway; their code runs as you
  --pin, --no-pin      CPU placement: the generator's threads on their own CPU, the proxy and
                       the backend on the others, so neither takes CPU from the other (default:
                       pinned from 4 CPUs; --pin also on 2-3 CPUs, where the proxy gets one CPU)
  --export k6|locust OUT
                       run nothing: write the scenario (requests, connection model, rate or
                       connections, duration, warm-up) as a k6 script or a locustfile to OUT,
                       for an engine that scales past one machine; the default target is the
                       config's listener as written (BASE_URL overrides it)
  --p99-threshold T    the exported file's pass/fail threshold on P99 (default 250ms)
  --slo 'p99<50ms'     capacity: search (open model) for the highest offered rate at which the
                       percentile (p50, p90, p99, p99.9) stays under the target and errors under
                       a bound (',errors<1%', the default); climbs from --rate (default 1000)
                       doubling, then bisects, at most 8 runs of --duration each, then repeats
                       the knee twice. With two --binary or --compare-config: both knees, A/B
  --compare-config F   with --slo: also search the knee of config F (A = FILE, B = F)
  --failover MODE      make the second server of each upstream (nginx) or backend (HAProxy) fail
                       a third into the run: refuse, reset, hang or 502; reports the errors, P99
                       during and after, the time until no errors remain, and the setting that
                       would have retried (the built-in backend serves the run)
  --json               print one JSON document instead of the table
  -h, --help           this help
`;

const SPEC: Record<string, FlagSpec> = {
  scenario: { value: true, choices: SCENARIOS },
  connections: { value: true, aliases: ['-c'] },
  rate: { value: true },
  duration: { value: true, aliases: ['-d'] },
  warmup: { value: true },
  step: { value: true },
  path: { value: true },
  host: { value: true },
  method: { value: true, choices: HTTP_METHODS },
  body: { value: true },
  'body-file': { value: true },
  'content-type': { value: true },
  listener: { value: true },
  streams: { value: true },
  threads: { value: true },
  timeout: { value: true },
  'response-bytes': { value: true },
  latency: { value: true },
  status: { value: true },
  backend: { value: true, choices: BACKEND_KIND_OPTIONS },
  kind: { value: true, choices: ['nginx', 'haproxy'] },
  binary: { value: true },
  rounds: { value: true },
  direct: { value: false },
  'allow-uncontained-native-code': { value: false },
  pin: { value: false },
  'no-pin': { value: false },
  target: { value: true },
  json: { value: false },
  export: { value: true, choices: EXPORT_ENGINES },
  'p99-threshold': { value: true },
  slo: { value: true },
  failover: { value: true, choices: FAIL_MODES },
  'compare-config': { value: true },
  help: { value: false, aliases: ['-h'] },
};

/** "10s", "500ms", "1m", "2.5s", or a bare number of seconds → milliseconds. */
export function parseDuration(s: string, what: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(s.trim());
  if (!m) throw new UsageError(`${what}: expected a duration like 10s, 500ms or 1m (got '${s}')`);
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return Math.round(unit === 'ms' ? n : unit === 'm' ? n * 60_000 : n * 1000);
}

/** "512", "16k", "1m" → bytes. */
export function parseSize(s: string, what: string): number {
  const m = /^(\d+)([kKmM])?[bB]?$/.exec(s.trim());
  if (!m) throw new UsageError(`${what}: expected a size like 512, 16k or 1m (got '${s}')`);
  const mult = !m[2] ? 1 : m[2].toLowerCase() === 'k' ? 1024 : 1024 * 1024;
  return Number(m[1]) * mult;
}

function parseNumber(s: string, what: string, integer = true): number {
  const n = Number(s);
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n)))
    throw new UsageError(`${what}: expected ${integer ? 'an integer' : 'a number'} (got '${s}')`);
  return n;
}

/** A body file's text, refused beyond the engine's limit before it is read whole. */
function readBodyFile(file: string): string {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (e) {
    throw new UsageError(`--body-file: cannot read ${file}: ${(e as Error).message}`);
  }
  if (size > MAX_REQUEST_BODY_BYTES) throw new UsageError(`--body-file: ${file} is ${size} bytes, at most ${MAX_REQUEST_BODY_BYTES}`);
  return readFileSync(file, 'utf8');
}

/** Every `--binary` value, in order, and the arguments without them (the parser keeps one value per flag). */
export function splitBinaries(argv: readonly string[]): { binaries: string[]; rest: string[] } {
  const binaries: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (a === '--binary' && i + 1 < argv.length && argv[i + 1] !== '') binaries.push(argv[++i]);
    else if (a.startsWith('--binary=') && a.length > 9) binaries.push(a.slice(9));
    else rest.push(a);
  }
  return { binaries, rest };
}

/** Builds engine options from the command line (throws UsageError). */
export function benchOptionsFromArgs(argv: string[]): {
  options: BenchOptions;
  json: boolean;
  help: boolean;
  binaries: string[];
  rounds: number;
  exportTo?: { engine: ExportEngine; file: string; p99ThresholdMs: number };
  /** --slo: a capacity search instead of one run; compareConfig: the B side of an A/B of configs. */
  slo?: Slo;
  compareConfig?: string;
} {
  // `--export ENGINE OUT`: the flag parser takes one value; OUT is the word after it
  const ei = argv.findIndex((a) => a === '--export');
  let exportFile: string | undefined;
  if (ei >= 0 && ei + 2 < argv.length + 1) {
    exportFile = argv[ei + 2];
    if (exportFile === undefined || exportFile.startsWith('-'))
      throw new UsageError('--export: expected an engine (k6 or locust) and an output file');
    argv = [...argv.slice(0, ei + 2), ...argv.slice(ei + 3)];
  }
  const split = splitBinaries(argv);
  const { flags, positionals } = parseArgs(split.rest, SPEC);
  const binaries = split.binaries;
  if (flags.has('help')) return { options: {}, json: false, help: true, binaries, rounds: 1 };
  const get = (k: string) => {
    const v = flags.get(k);
    return typeof v === 'string' ? v : undefined;
  };
  const o: BenchOptions = {};
  const target = get('target');
  if (target) {
    if (positionals.length !== 0) throw new UsageError('give either FILE or --target, not both');
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(target);
    if (!m) throw new UsageError(`--target: expected HOST:PORT (got '${target}')`);
    o.target = { host: m[1].replace(/^\[|\]$/g, ''), port: Number(m[2]) };
  } else {
    if (positionals.length !== 1)
      throw new UsageError(positionals.length === 0 ? 'missing FILE (nginx.conf or haproxy.cfg)' : 'exactly one FILE expected');
    o.configPath = positionals[0];
  }
  const scenario = get('scenario');
  if (scenario) o.scenario = scenario as ScenarioName;
  if (get('connections')) o.connections = parseNumber(get('connections')!, '--connections');
  if (get('rate')) o.rate = parseNumber(get('rate')!, '--rate', false);
  if (get('duration')) o.durationMs = parseDuration(get('duration')!, '--duration');
  if (get('warmup')) o.warmupMs = parseDuration(get('warmup')!, '--warmup');
  if (get('step')) {
    const m = /^(\d+(?:\.\d+)?)%?\/(.+)$/.exec(get('step')!);
    if (!m) throw new UsageError(`--step: expected PERCENT%/INTERVAL like 20%/5s (got '${get('step')}')`);
    o.step = { percent: Number(m[1]), intervalMs: parseDuration(m[2], '--step interval') };
  }
  if (get('path')) o.path = get('path');
  if (get('host')) o.host = get('host');
  if (get('method')) o.method = get('method');
  const body = get('body');
  const bodyFile = get('body-file');
  if (body !== undefined && bodyFile !== undefined) throw new UsageError('give either --body or --body-file, not both');
  if (body !== undefined) o.body = body;
  if (bodyFile !== undefined) o.body = readBodyFile(bodyFile);
  if (o.body !== undefined && o.method === undefined) o.method = 'POST';
  if (get('content-type')) o.contentType = get('content-type');
  if (get('listener')) {
    const line = parseNumber(get('listener')!, '--listener');
    if (line < 1) throw new UsageError(`--listener: a line number from 1 (got '${get('listener')}')`);
    o.listener = { line };
  }
  if (get('streams')) o.streams = parseNumber(get('streams')!, '--streams');
  if (get('threads')) o.threads = parseNumber(get('threads')!, '--threads');
  if (get('timeout')) o.timeoutMs = parseDuration(get('timeout')!, '--timeout');
  if (get('kind')) o.kind = get('kind') as ProxyKind;
  if (binaries.length === 1) o.binary = binaries[0];
  if (binaries.length > 1 && o.target) throw new UsageError('several --binary need a FILE, not --target');
  if (binaries.length > 8) throw new UsageError(`at most 8 --binary (got ${binaries.length})`);
  let rounds = 1;
  if (get('rounds')) {
    rounds = parseNumber(get('rounds')!, '--rounds');
    if (rounds < 1 || rounds > 10) throw new UsageError(`--rounds: from 1 to 10 (got ${rounds})`);
    if (binaries.length < 2) throw new UsageError('--rounds needs at least two --binary');
  }
  if (flags.has('direct')) o.direct = true;
  if (flags.has('allow-uncontained-native-code')) o.allowUncontainedNativeCode = true;
  if (flags.has('pin') && flags.has('no-pin')) throw new UsageError('--pin and --no-pin exclude each other');
  if (flags.has('pin')) o.pin = true;
  if (flags.has('no-pin')) o.pin = false;
  const backend: BenchOptions['backend'] = {};
  if (get('response-bytes')) backend.responseBytes = parseSize(get('response-bytes')!, '--response-bytes');
  if (get('latency'))
    backend.latency = { kind: 'fixed', ms: parseDuration(get('latency')!.replace(/^(\d+(?:\.\d+)?)$/, '$1ms'), '--latency') };
  if (get('status')) backend.status = parseNumber(get('status')!, '--status');
  if (get('backend')) backend.kind = get('backend') as BackendKindOption;
  if (Object.keys(backend).length) o.backend = backend;
  if (get('failover')) o.failover = { mode: get('failover') as FailMode };
  let exportTo: { engine: ExportEngine; file: string; p99ThresholdMs: number } | undefined;
  if (flags.has('export')) {
    const p99 = get('p99-threshold');
    exportTo = {
      engine: get('export') as ExportEngine,
      file: exportFile!,
      p99ThresholdMs: p99 ? parseDuration(p99.replace(/^(\d+(?:\.\d+)?)$/, '$1ms'), '--p99-threshold') : 250,
    };
    if (o.configPath && path.resolve(exportFile!) === path.resolve(o.configPath))
      throw new UsageError('--export: the output file is the config itself');
  } else if (get('p99-threshold')) throw new UsageError('--p99-threshold goes with --export');
  let slo: Slo | undefined;
  const compareConfig = get('compare-config');
  if (get('slo')) {
    try {
      slo = parseSlo(get('slo')!);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    if (exportTo) throw new UsageError('--slo and --export exclude each other');
    if (o.step) throw new UsageError('--slo sets the rate itself: not with --step');
    if (flags.has('rounds')) throw new UsageError('--slo repeats at the knee itself: not with --rounds');
    if (compareConfig && binaries.length > 1)
      throw new UsageError('--compare-config compares configs on one binary: not with two --binary');
    if (compareConfig && !o.configPath) throw new UsageError('--compare-config needs a FILE');
  } else if (compareConfig) throw new UsageError('--compare-config goes with --slo');
  return { options: o, json: flags.has('json'), help: false, binaries, rounds, exportTo, slo, compareConfig };
}

// ---- A/B: the same config on several binaries -------------------------------------------------

export interface AbSide {
  binary: string;
  version: string;
  runs: BenchResult[];
  /** Medians over the rounds. */
  rps: number;
  p50: number;
  p99: number;
  connectionsPerRequest: number;
  proxyCpuSeconds: number;
  errors: number;
}

const medianOf = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const totalErrors = (e: BenchResult['errors']) => Object.values(e).reduce((a, b) => a + b, 0);

export function abSide(binary: string, runs: BenchResult[]): AbSide {
  return {
    binary,
    version: runs[0]?.proxy.version ?? '',
    runs,
    rps: Math.round(medianOf(runs.map((r) => r.rps))),
    p50: medianOf(runs.map((r) => r.latencyMs.p50)),
    p99: medianOf(runs.map((r) => r.latencyMs.p99)),
    connectionsPerRequest: medianOf(runs.map((r) => r.backend.connectionsPerRequest)),
    proxyCpuSeconds: Math.round(medianOf(runs.map((r) => r.cpuSeconds.proxy)) * 100) / 100,
    errors: runs.reduce((a, r) => a + totalErrors(r.errors), 0),
  };
}

/** The A/B table: one row per binary, ratios against the first. */
export function formatAbTable(sides: AbSide[], rounds: number): string {
  const first = sides[0];
  const ratio = (x: number, y: number) => (y > 0 ? `x${(x / y).toFixed(2)}` : '-');
  const lines: string[] = [];
  const r0 = first.runs[0];
  lines.push(
    `A/B: the same config on ${sides.length} binaries — ${r0.scenario}, ${r0.model === 'open' ? `open model ${r0.rate} req/s` : 'closed model'}, ${r0.connections} connections, ${r0.durationS}s per run, ${rounds} round(s), order alternated`,
  );
  lines.push('');
  lines.push(
    `${'binary'.padEnd(24)} ${pad('req/s', 9)} ${pad('p50 ms', 8)} ${pad('p99 ms', 8)} ${pad('conn/req', 9)} ${pad('proxy cpu', 10)} ${pad('errors', 7)}   vs first`,
  );
  for (const s of sides) {
    const name = `${r0.proxy.kind} ${s.version}`.padEnd(24);
    const vs = s === first ? '' : `req/s ${ratio(s.rps, first.rps)}, p99 ${ratio(s.p99, first.p99)}`;
    lines.push(
      `${name} ${pad(s.rps, 9)} ${pad(s.p50, 8)} ${pad(s.p99, 8)} ${pad(s.connectionsPerRequest, 9)} ${pad(s.proxyCpuSeconds + 's', 10)} ${pad(s.errors, 7)}   ${vs}`,
    );
  }
  lines.push('');
  for (const s of sides)
    lines.push(
      `${r0.proxy.kind} ${s.version}: ${s.runs[0]?.proxy.binary || s.binary}; per round req/s ${s.runs.map((r) => r.rps).join(', ')}, p99 ${s.runs.map((r) => r.latencyMs.p99).join(', ')} ms`,
    );
  for (const s of sides) {
    const reuse = s.connectionsPerRequest > 0.5 && scenarioFacts(r0.scenario).transport !== 'tcp';
    if (reuse) lines.push(`${r0.proxy.kind} ${s.version}: a new upstream connection per request (${s.connectionsPerRequest} per request)`);
  }
  // one line per kind of warning (the busy-machine one differs only in its numbers)
  const warnings = [
    ...new Map(sides.flatMap((s) => s.runs.flatMap((r) => r.warnings)).map((w) => [w.replace(/[\d.]+/g, '#'), w])).values(),
  ];
  for (const w of warnings) lines.push(`warning: ${w}`);
  return lines.join('\n') + '\n';
}

/** The JSON document of `--json`. */
export function resultJson(r: BenchResult): unknown {
  return {
    scenario: r.scenario,
    proxy: r.proxy,
    requests: r.requests,
    rps: r.rps,
    latencyMs: { p50: r.latencyMs.p50, p90: r.latencyMs.p90, p99: r.latencyMs.p99, p999: r.latencyMs.p999, max: r.latencyMs.max },
    perSecond: r.perSecond.map((s) => ({ t: s.t, rps: s.rps, p50: s.p50, p99: s.p99, p999: s.p999, errors: s.errors })),
    errors: r.errors,
    cpuSeconds: {
      proxy: r.cpuSeconds.proxy,
      generator: r.cpuSeconds.generator,
      generatorProcess: r.cpuSeconds.generatorProcess,
      backend: r.cpuSeconds.backend,
    },
    backend: r.backend,
    model: r.model,
    connections: r.connections,
    rate: r.rate,
    durationS: r.durationS,
    listener: r.listener,
    direct: r.direct,
    cost: r.cost,
    imported: r.imported,
    tls: r.tls,
    distribution: r.distribution,
    placement: r.placement,
    host: r.host,
    sandbox: r.sandbox,
    diagnosis: r.diagnosis,
    failover: r.failover,
    warnings: r.warnings,
  };
}

const pad = (s: string | number, n: number) => String(s).padStart(n);

/** "native nginx 1.22.1" / "built-in Node (scenario ... needs it)". */
export function backendLabel(b: BenchResult['backend']): string {
  if (!b.kind || b.kind === 'node') return `built-in Node${b.why ? ` (${b.why})` : ''}`;
  return `native ${b.kind}${b.version ? ` ${b.version}` : ''}`;
}

export function formatTable(r: BenchResult): string {
  const L = r.latencyMs;
  const lines: string[] = [];
  const errs = Object.entries(r.errors)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  lines.push(
    `${r.imported ? `${r.imported.engine} run (imported)` : `${r.proxy.kind} ${r.proxy.version}`} — ${r.scenario}, ${r.model === 'open' ? `open model ${r.rate} req/s` : 'closed model'}, ` +
      `${r.connections} connections, ${r.durationS}s on ${r.listener.tls ? 'https' : 'http'}://${r.listener.host}:${r.listener.port}`,
  );
  lines.push('');
  lines.push(
    `             ${pad('req/s', 9)} ${pad('p50 ms', 9)} ${pad('p90 ms', 9)} ${pad('p99 ms', 9)} ${pad('p99.9 ms', 9)} ${pad('max ms', 9)} ${pad('errors', 7)}`,
  );
  const row = (name: string, rps: number, l: typeof L, e: number) =>
    `${name.padEnd(12)} ${pad(rps, 9)} ${pad(l.p50, 9)} ${pad(l.p90, 9)} ${pad(l.p99, 9)} ${pad(l.p999, 9)} ${pad(l.max, 9)} ${pad(e, 7)}`;
  const total = (e: BenchResult['errors']) => Object.values(e).reduce((a, b) => a + b, 0);
  lines.push(row('through proxy', r.rps, L, total(r.errors)));
  if (r.direct) lines.push(row('direct', r.direct.rps, r.direct.latencyMs, total(r.direct.errors)));
  lines.push('');
  lines.push(`requests     ${r.requests}${errs ? `   errors: ${errs}` : ''}`);
  if (!r.imported)
    lines.push(`cpu seconds  proxy ${r.cpuSeconds.proxy}, generator ${r.cpuSeconds.generator}, backend ${r.cpuSeconds.backend}`);
  if (r.cost)
    lines.push(
      `bench cost   ${r.cost.benchCpuUsPerRequest} us CPU per request (generator ${r.cost.generatorCpuUsPerRequest}, backend ${r.cost.backendCpuUsPerRequest}; proxy ${r.cost.proxyCpuUsPerRequest}); ` +
        `busiest generator thread ${Math.round(r.cost.generatorCoreShare * 100)}% of a core, backend ${Math.round(r.cost.backendCoreShare * 100)}%`,
    );
  if (r.imported)
    lines.push(
      `imported     ${r.imported.engine} results from ${r.imported.file}${r.imported.workers ? ` (${r.imported.workers} workers)` : ''}`,
    );
  if (r.backend.kind) lines.push(`backend kind ${backendLabel(r.backend)}`);
  if (!r.imported)
    lines.push(
      `backend      ${r.backend.connections} connections for ${r.backend.requests} requests (${r.backend.connectionsPerRequest} per request)` +
        (r.backend.connectionsPerRequest > 0.5 && scenarioFacts(r.scenario).transport !== 'tcp' && r.listener.stream === false
          ? ' — a new upstream connection per request: upstream keep-alive is off'
          : ''),
    );
  const rec = r.backend.received;
  if (rec && Object.keys(rec.methods).length > 0)
    lines.push(
      `received     ${Object.entries(rec.methods)
        .map(([m, n]) => `${m} ${n}`)
        .join(
          ', ',
        )}; request bodies ${rec.bodyBytesMin === rec.bodyBytesMax ? rec.bodyBytesMin : `${rec.bodyBytesMin}-${rec.bodyBytesMax}`} bytes (whole run)`,
    );
  else if (r.backend.receivedRequests !== undefined && !r.imported)
    lines.push(
      `received     ${r.backend.receivedRequests} requests (whole run; per-method accounting is the built-in backend's: --backend node)`,
    );
  if (r.tls) lines.push(`tls          ${r.tls.handshakes} handshakes, ${r.tls.resumed} resumed a session`);
  if (r.sandbox)
    lines.push(
      `sandbox      ${r.sandbox.mode === 'namespace' ? 'contained (own network namespace with loopback only, read-only file system)' : `config rewrite only: ${r.sandbox.reason ?? 'no namespaces'}`}`,
    );
  if (r.placement)
    lines.push(
      `cpus         ${r.placement.pinned ? `pinned: generator on CPU ${r.placement.generatorCpus!.join(',')}, proxy and backend on CPU ${r.placement.systemCpus!.join(',')}` : (r.placement.note ?? 'not pinned')}`,
    );
  if (r.direct && r.direct.rps > 0) lines.push(`proxy cost   ${Math.round((r.rps / r.direct.rps) * 100)}% of the direct throughput`);
  lines.push('');
  lines.push(`  t   req/s    p50     p99   p99.9  errors`);
  for (const s of r.perSecond)
    lines.push(`${pad(s.t, 3)} ${pad(s.rps, 7)} ${pad(s.p50, 6)} ${pad(s.p99, 7)} ${pad(s.p999, 7)} ${pad(s.errors, 7)}`);
  if (r.failover) {
    const f = r.failover;
    lines.push(
      `failover     one server failed (${f.mode}) at ${f.failedAtS}s: ${f.errorsAfter} errors after it; P99 ${f.p99BeforeMs} ms before, ${f.p99DuringMs} ms during, ${f.p99AfterMs ?? '-'} ms after; ${f.recoveredAfterS === null ? 'errors until the end of the run' : `no more errors ${f.recoveredAfterS}s after the failure`}`,
    );
  }
  lines.push(...diagnosisLines(r.diagnosis));
  for (const w of r.warnings) lines.push(`warning: ${w}`);
  if (!r.imported) lines.push(`load average ${r.host.loadavgStart.join(' ')} → ${r.host.loadavgEnd.join(' ')} on ${r.host.cpus} CPUs`);
  return lines.join('\n') + '\n';
}

function progressLine(s: SecondSample): string {
  return `${s.phase === 'warmup' ? 'warm-up' : `t=${s.t}s`}  ${s.rps} req/s  p50 ${s.p50} ms  p99 ${s.p99} ms  p99.9 ${s.p999} ms  errors ${s.errors}`;
}

export async function benchCommand(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof benchOptionsFromArgs>;
  try {
    parsed = benchOptionsFromArgs(argv);
  } catch (e) {
    process.stderr.write(`bench: ${(e as Error).message}\n(see: proxy-tuner bench --help)\n`);
    return 2;
  }
  if (parsed.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (parsed.options.configPath) {
    // a file that is no text is refused before any process starts (exit 2, like a usage error)
    let text: string | undefined;
    try {
      text = readFileSync(parsed.options.configPath, 'utf8');
    } catch {
      // a missing or unreadable file: the engine says which
    }
    const notText = text === undefined ? undefined : notTextReason(text);
    if (notText) {
      process.stderr.write(`bench: ${escapeControls(parsed.options.configPath)}: ${notText}\n`);
      return 2;
    }
  }
  if (parsed.exportTo) return exportCommand(parsed.options, parsed.exportTo);
  if (parsed.slo) return capacityCommand(parsed.options, parsed.slo, parsed.binaries, parsed.compareConfig, parsed.json);
  const tty = !parsed.json && !!process.stderr.isTTY;
  const ac = new AbortController();
  const onSig = () => ac.abort();
  process.once('SIGINT', onSig);
  process.once('SIGTERM', onSig);
  try {
    if (parsed.binaries.length > 1) {
      const runs = new Map<string, BenchResult[]>(parsed.binaries.map((b) => [b, []]));
      for (let round = 0; round < parsed.rounds; round++) {
        const order = round % 2 === 0 ? parsed.binaries : [...parsed.binaries].reverse();
        for (const binary of order) {
          if (tty) process.stderr.write(`\r\x1b[K${binary}: starting`);
          const r = await runBenchmark(
            { ...parsed.options, binary },
            {
              signal: ac.signal,
              onProgress: (s) => {
                if (tty) process.stderr.write(`\r\x1b[K${binary}: ${progressLine(s)}`);
              },
            },
          );
          runs.get(binary)!.push(r);
        }
      }
      if (tty) process.stderr.write('\r\x1b[K');
      const sides = parsed.binaries.map((b) => abSide(b, runs.get(b)!));
      process.stdout.write(
        parsed.json
          ? JSON.stringify(
              {
                ab: sides.map((s) => ({
                  binary: s.binary,
                  version: s.version,
                  rps: s.rps,
                  p50: s.p50,
                  p99: s.p99,
                  connectionsPerRequest: s.connectionsPerRequest,
                  proxyCpuSeconds: s.proxyCpuSeconds,
                  errors: s.errors,
                  runs: s.runs.map(resultJson),
                })),
                rounds: parsed.rounds,
              },
              null,
              2,
            ) + '\n'
          : formatAbTable(sides, parsed.rounds),
      );
      return 0;
    }
    const r = await runBenchmark(parsed.options, {
      signal: ac.signal,
      onProgress: (s) => {
        if (tty) process.stderr.write(`\r\x1b[K${progressLine(s)}`);
      },
    });
    if (tty) process.stderr.write('\r\x1b[K');
    process.stdout.write(parsed.json ? JSON.stringify(resultJson(r), null, 2) + '\n' : formatTable(r));
    return 0;
  } catch (e) {
    return reportBenchError(e, tty);
  } finally {
    process.removeListener('SIGINT', onSig);
    process.removeListener('SIGTERM', onSig);
  }
}

/** `bench FILE --export k6|locust OUT`: writes the scenario for another engine; runs nothing. */
async function exportCommand(options: BenchOptions, to: { engine: ExportEngine; file: string; p99ThresholdMs: number }): Promise<number> {
  try {
    const s = await exportScenario(options, to.p99ThresholdMs);
    const meta = {
      source: options.configPath ? path.basename(options.configPath) : `${options.target?.host}:${options.target?.port}`,
      generatedAt: new Date().toISOString(),
    };
    writeFileSync(to.file, to.engine === 'k6' ? k6Script(s, meta) : locustfile(s, meta));
    process.stdout.write(
      `wrote ${to.file}: ${to.engine} ${s.scenario}, ${s.model === 'open' ? `${s.rate} req/s` : `${s.connections} connections`}, ${s.warmupS}s warm-up + ${s.durationS}s, P99 threshold ${s.p99ThresholdMs} ms, target ${s.baseUrl} (BASE_URL overrides it)\n`,
    );
    return 0;
  } catch (e) {
    return reportBenchError(e, false);
  }
}
