// Pure data shaping for the benchmark panel: progress samples to chart series, a run's
// distribution to a percentile curve, two runs to their difference, and a run to CSV, JSON or a
// markdown table. No DOM and no chart library here, so the host (exports, CodeLens text) and the
// unit tests use the same functions as the webview.
import type { BenchResult, SecondSample } from './bench';
import type { RunRecord } from './panel';

export interface Point {
  x: number;
  y: number;
}

export interface LiveSeries {
  p50: Point[];
  p90: Point[];
  p99: Point[];
  p999: Point[];
  rps: Point[];
  errors: Point[];
}

/**
 * Progress samples to one series per line of the live chart. Warm-up seconds are placed before
 * zero (t - warm-up length) so the measured part starts at 1. A latency of 0 cannot sit on a log
 * axis: it is left out rather than drawn at a fake value. Samples are sorted and deduplicated
 * by time (a repeated second keeps its last value).
 */
export function liveSeries(samples: readonly SecondSample[], opts: { includeWarmup?: boolean } = {}): LiveSeries {
  const includeWarmup = opts.includeWarmup ?? true;
  const warm = samples.filter((s) => s.phase === 'warmup');
  const warmLen = warm.reduce((m, s) => Math.max(m, s.t), 0);
  const byX = new Map<number, SecondSample>();
  for (const s of samples) {
    if (s.phase === 'warmup' && !includeWarmup) continue;
    const x = s.phase === 'warmup' ? s.t - warmLen : s.t;
    byX.set(x, s);
  }
  const xs = [...byX.keys()].sort((a, b) => a - b);
  const out: LiveSeries = { p50: [], p90: [], p99: [], p999: [], rps: [], errors: [] };
  for (const x of xs) {
    const s = byX.get(x)!;
    for (const k of ['p50', 'p90', 'p99', 'p999'] as const) {
      if (s[k] > 0) out[k].push({ x, y: s[k] });
    }
    out.rps.push({ x, y: s.rps });
    out.errors.push({ x, y: s.errors });
  }
  return out;
}

/** Number of seconds the live chart shows (what the panel exposes as `data-points`). */
export function livePointCount(series: LiveSeries): number {
  return series.rps.length;
}

/** Largest percentile drawn: 1/(1-p) is infinite at 100. */
export const MAX_CURVE_PERCENTILE = 99.9999;

/** `percentile` (0-100) to the x of the HdrHistogram-style plot: 1/(1-p). */
export function percentileToX(percentile: number): number {
  const p = Math.min(Math.max(percentile, 0), MAX_CURVE_PERCENTILE) / 100;
  return 1 / (1 - p);
}

/** Inverse of percentileToX, for axis labels. */
export function xToPercentile(x: number): number {
  return (1 - 1 / x) * 100;
}

/**
 * The whole-run distribution as (1/(1-p), ms) points. Percentiles given as fractions (all
 * values at most 1) are scaled to 0-100. Points with the same x keep the largest latency, so
 * the curve never steps back; zero latencies are dropped (log axis).
 */
export function percentileCurve(distribution: readonly (readonly [number, number])[]): Point[] {
  if (!distribution.length) return [];
  const fraction = distribution.every(([p]) => p <= 1) && distribution.some(([p]) => p > 0 && p < 1);
  const pts = new Map<number, number>();
  for (const [p, ms] of distribution) {
    if (!(ms > 0) || !Number.isFinite(p)) continue;
    const x = percentileToX(fraction ? p * 100 : p);
    pts.set(x, Math.max(pts.get(x) ?? 0, ms));
  }
  const sorted = [...pts.entries()].sort((a, b) => a[0] - b[0]);
  const out: Point[] = [];
  let top = 0;
  for (const [x, y] of sorted) {
    top = Math.max(top, y);
    out.push({ x, y: top });
  }
  return out;
}

/** Tick labels of the percentile axis: the nines. */
export const PERCENTILE_TICKS: { x: number; label: string }[] = [
  { x: 2, label: '50%' },
  { x: 10, label: '90%' },
  { x: 100, label: '99%' },
  { x: 1000, label: '99.9%' },
  { x: 10000, label: '99.99%' },
  { x: 100000, label: '99.999%' },
  { x: 1000000, label: '99.9999%' },
];

/**
 * A logarithmic axis labels every 1..9 of a decade: on a short axis, or an empty chart (whose
 * default range is 1 to 10), the labels of 2..9 overlap. Only 1, 2 and 5 of each decade are kept,
 * and only the decades when that still leaves more than 8.
 */
export function readableLogTicks<T extends { value: number }>(ticks: T[]): T[] {
  const mantissa = (v: number) => Math.round(v / 10 ** Math.floor(Math.log10(v) + 1e-9));
  const oneTwoFive = ticks.filter((t) => t.value > 0 && [1, 2, 5].includes(mantissa(t.value)));
  const decades = oneTwoFive.filter((t) => mantissa(t.value) === 1);
  return oneTwoFive.length > 8 && decades.length >= 2 ? decades : oneTwoFive.length ? oneTwoFive : ticks;
}

export interface Change {
  a: number;
  b: number;
  /** b - a */
  delta: number;
  /** (b - a) / a in percent; null when a is 0. */
  percent: number | null;
  /** True when b is better than a (lower latency, higher throughput, fewer errors). */
  better: boolean;
}

function change(a: number, b: number, lowerIsBetter: boolean): Change {
  const delta = b - a;
  return {
    a,
    b,
    delta,
    percent: a === 0 ? null : (delta / a) * 100,
    better: lowerIsBetter ? b < a : b > a,
  };
}

export function totalErrors(r: BenchResult): number {
  return Object.values(r.errors).reduce((s, n) => s + (Number.isFinite(n) ? n : 0), 0);
}

export interface Comparison {
  p50: Change;
  p99: Change;
  p999: Change;
  rps: Change;
  errors: Change;
  backendConnectionsPerRequest: Change;
}

/** A/B difference of two results (B relative to A). */
export function compareResults(a: BenchResult, b: BenchResult): Comparison {
  return {
    p50: change(a.latencyMs.p50, b.latencyMs.p50, true),
    p99: change(a.latencyMs.p99, b.latencyMs.p99, true),
    p999: change(a.latencyMs.p999, b.latencyMs.p999, true),
    rps: change(a.rps, b.rps, false),
    errors: change(totalErrors(a), totalErrors(b), true),
    backendConnectionsPerRequest: change(a.backend.connectionsPerRequest, b.backend.connectionsPerRequest, true),
  };
}

/** Milliseconds with about three significant digits: 0.412 ms, 4.12 ms, 41.2 ms, 412 ms. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  const a = Math.abs(ms);
  if (a >= 100) return `${Math.round(ms)} ms`;
  if (a >= 10) return `${ms.toFixed(1)} ms`;
  if (a >= 1) return `${ms.toFixed(2)} ms`;
  return `${ms.toFixed(3)} ms`;
}

/** Requests per second: 950 req/s, 18.2k req/s, 1.20M req/s. */
export function formatRps(rps: number): string {
  if (!Number.isFinite(rps)) return '–';
  if (Math.abs(rps) >= 1e6) return `${(rps / 1e6).toFixed(2)}M req/s`;
  if (Math.abs(rps) >= 1e3) return `${(rps / 1e3).toFixed(1)}k req/s`;
  return `${Math.round(rps)} req/s`;
}

export function formatPercent(p: number | null): string {
  if (p === null || !Number.isFinite(p)) return 'n/a';
  return `${p > 0 ? '+' : ''}${p.toFixed(1)}%`;
}

/** The one-line summary a CodeLens shows after a run. */
export function summaryLine(r: BenchResult): string {
  const errors = totalErrors(r);
  return `P99 ${formatMs(r.latencyMs.p99)} · ${formatRps(r.rps)} · ${errors} error${errors === 1 ? '' : 's'}`;
}

/** Which backend answered: "native nginx 1.22.1", "built-in Node" (runs before the field: Node). */
export function backendKindLabel(r: BenchResult): string {
  const b = r.backend;
  if (!b.kind || b.kind === 'node') return b.why ? `built-in Node (${b.why})` : 'built-in Node';
  return `native ${b.kind}${b.version ? ` ${b.version}` : ''}`;
}

/**
 * The warning to show above the numbers when the bench itself (its generator or its backend), not
 * the proxy, limited the run: one of its cores was at (nearly) 100%.
 */
export function bottleneckWarning(r: BenchResult): string | null {
  const c = r.cost;
  if (!c?.bottleneck) return null;
  return c.bottleneck === 'generator'
    ? `Bottleneck: the load generator, not the proxy (its busiest thread used ${Math.round(c.generatorCoreShare * 100)}% of a core). The proxy could do more than this: add generator threads or lower the load.`
    : `Bottleneck: the ${r.backend.kind && r.backend.kind !== 'node' ? `native ${r.backend.kind}` : 'built-in Node'} backend, not the proxy (${Math.round(c.backendCoreShare * 100)}% of a core). These numbers measure the backend.`;
}

/** Rows of the numbers table: [label, value] in display order. */
export function resultRows(r: BenchResult): [string, string][] {
  const rows: [string, string][] = [
    ['Requests', String(r.requests)],
    ['Throughput', formatRps(r.rps)],
    ['P50', formatMs(r.latencyMs.p50)],
    ['P90', formatMs(r.latencyMs.p90)],
    ['P99', formatMs(r.latencyMs.p99)],
    ['P99.9', formatMs(r.latencyMs.p999)],
    ['Max', formatMs(r.latencyMs.max)],
    ['Mean', formatMs(r.latencyMs.mean)],
    ['Errors', String(totalErrors(r))],
  ];
  if (r.imported) {
    rows.push(['Engine', `${r.imported.engine} (imported${r.imported.workers ? `, ${r.imported.workers} workers` : ''})`]);
  } else {
    rows.push(
      ['Proxy CPU', `${r.cpuSeconds.proxy.toFixed(2)} s`],
      ['Generator CPU', `${r.cpuSeconds.generator.toFixed(2)} s`],
      ['Backend', backendKindLabel(r)],
    );
    if (r.cost) {
      rows.push([
        'Bench CPU / request',
        `${r.cost.benchCpuUsPerRequest.toFixed(1)} µs (generator ${r.cost.generatorCpuUsPerRequest.toFixed(1)}, backend ${r.cost.backendCpuUsPerRequest.toFixed(1)}; proxy ${r.cost.proxyCpuUsPerRequest.toFixed(1)})`,
      ]);
      rows.push([
        'Busiest core',
        `generator ${Math.round(r.cost.generatorCoreShare * 100)}%, backend ${Math.round(r.cost.backendCoreShare * 100)}%`,
      ]);
    }
    rows.push(['Backend connections / request', r.backend.connectionsPerRequest.toFixed(3)]);
    const cpu = r.diagnosis?.readings.cpu;
    if (cpu && cpu.userSeconds + cpu.systemSeconds > 0)
      rows.push([
        'Proxy CPU user / system',
        `${cpu.userSeconds.toFixed(2)} s / ${cpu.systemSeconds.toFixed(2)} s (${Math.round((cpu.systemSeconds / (cpu.userSeconds + cpu.systemSeconds)) * 100)}% system); ${cpu.perWorker.length} worker(s) on ${cpu.cpusGiven} CPUs`,
      ]);
    if (r.failover) {
      const f = r.failover;
      rows.push([
        `Failover (${f.mode})`,
        `${f.errorsAfter} errors after ${f.failedAtS} s; P99 ${formatMs(f.p99BeforeMs)} before, ${formatMs(f.p99DuringMs)} during; ${f.recoveredAfterS === null ? 'errors until the end' : `recovered after ${f.recoveredAfterS} s`}`,
      ]);
    }
    const pl = placementRow(r);
    if (pl) rows.push(pl);
  }
  if (r.direct) {
    rows.push(['Direct P99 (no proxy)', formatMs(r.direct.latencyMs.p99)], ['Direct throughput', formatRps(r.direct.rps)]);
  }
  const sb = sandboxRow(r);
  if (sb) rows.push(sb);
  for (const a of r.sandbox?.adjustments ?? []) rows.push([`Lowered: ${a.setting}`, `${a.from} → ${a.to} (line ${a.line}: ${a.why})`]);
  return rows;
}

/** Where the generator and the proxy ran (runs kept before the field have none). */
export function placementRow(r: BenchResult): [string, string] | undefined {
  const p = r.placement;
  if (!p) return undefined;
  return p.pinned && p.generatorCpus && p.systemCpus
    ? ['CPU placement', `generator on CPU ${p.generatorCpus.join(', ')}; proxy and backend on CPU ${p.systemCpus.join(', ')}`]
    : ['CPU placement', p.note ?? 'not pinned'];
}

/** Which containment the run had: the panel always says it. */
export function sandboxRow(r: BenchResult): [string, string] | undefined {
  if (!r.sandbox) return undefined;
  return r.sandbox.mode === 'namespace'
    ? ['Sandbox', 'contained: own network namespace (loopback only), read-only file system']
    : ['Sandbox', `config rewrite only (no namespace: ${r.sandbox.reason ?? 'unavailable'})`];
}

// ---- export ---------------------------------------------------------------------------------

function csvCell(v: string | number): string {
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function csvLine(cells: (string | number)[]): string {
  return cells.map(csvCell).join(',');
}

/**
 * A run as CSV: a summary section (metric,value), then the per-second samples, then the
 * distribution, separated by blank lines. Numbers are raw (ms, req/s), not formatted.
 */
export function runToCsv(run: RunRecord): string {
  const r = run.result;
  const lines: string[] = [];
  lines.push(csvLine(['metric', 'value']));
  const summary: [string, string | number][] = [
    ['label', run.label],
    ['finished_at', run.finishedAt],
    ['config', run.configUri],
    ['scenario', r.scenario],
    ['model', r.model],
    ['connections', r.connections],
    ['rate', r.rate ?? 0],
    ['duration_s', r.durationS],
    ['path', run.options.path],
    ['proxy', `${r.proxy.kind} ${r.proxy.version}`],
    ['requests', r.requests],
    ['rps', r.rps],
    ['p50_ms', r.latencyMs.p50],
    ['p90_ms', r.latencyMs.p90],
    ['p99_ms', r.latencyMs.p99],
    ['p999_ms', r.latencyMs.p999],
    ['max_ms', r.latencyMs.max],
    ['mean_ms', r.latencyMs.mean],
    ['errors', totalErrors(r)],
    ['proxy_cpu_s', r.cpuSeconds.proxy],
    ['generator_cpu_s', r.cpuSeconds.generator],
    ['backend_connections_per_request', r.backend.connectionsPerRequest],
  ];
  for (const [k, v] of summary) lines.push(csvLine([k, v]));
  lines.push('');
  lines.push(csvLine(['second', 'phase', 'rps', 'p50_ms', 'p90_ms', 'p99_ms', 'p999_ms', 'max_ms', 'errors', 'load']));
  for (const s of r.perSecond) lines.push(csvLine([s.t, s.phase, s.rps, s.p50, s.p90, s.p99, s.p999, s.max, s.errors, s.load]));
  lines.push('');
  lines.push(csvLine(['percentile', 'latency_ms']));
  for (const [p, ms] of r.distribution) lines.push(csvLine([p, ms]));
  return lines.join('\n') + '\n';
}

export function runToJson(run: RunRecord): string {
  return JSON.stringify(run, null, 2) + '\n';
}

function mdCell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/**
 * One run as a two-column markdown table, or two runs side by side with the change of B
 * relative to A.
 */
export function runsToMarkdown(runs: readonly RunRecord[]): string {
  if (runs.length === 0) return '';
  const metrics: { name: string; get: (r: BenchResult) => number; fmt: (n: number) => string; lower: boolean }[] = [
    { name: 'Throughput', get: (r) => r.rps, fmt: formatRps, lower: false },
    { name: 'P50', get: (r) => r.latencyMs.p50, fmt: formatMs, lower: true },
    { name: 'P90', get: (r) => r.latencyMs.p90, fmt: formatMs, lower: true },
    { name: 'P99', get: (r) => r.latencyMs.p99, fmt: formatMs, lower: true },
    { name: 'P99.9', get: (r) => r.latencyMs.p999, fmt: formatMs, lower: true },
    { name: 'Max', get: (r) => r.latencyMs.max, fmt: formatMs, lower: true },
    { name: 'Errors', get: totalErrors, fmt: (n) => String(n), lower: true },
    { name: 'Proxy CPU', get: (r) => r.cpuSeconds.proxy, fmt: (n) => `${n.toFixed(2)} s`, lower: true },
    { name: 'Backend conns / request', get: (r) => r.backend.connectionsPerRequest, fmt: (n) => n.toFixed(3), lower: true },
  ];
  const [a, b] = runs;
  if (!b) {
    const rows = metrics.map((m) => `| ${m.name} | ${mdCell(m.fmt(m.get(a.result)))} |`);
    return [`| ${mdCell(a.label)} | |`, '|---|---:|', ...rows].join('\n') + '\n';
  }
  const rows = metrics.map((m) => {
    const c = change(m.get(a.result), m.get(b.result), m.lower);
    return `| ${m.name} | ${mdCell(m.fmt(c.a))} | ${mdCell(m.fmt(c.b))} | ${formatPercent(c.percent)} |`;
  });
  return [`| Metric | A: ${mdCell(a.label)} | B: ${mdCell(b.label)} | B vs A |`, '|---|---:|---:|---:|', ...rows].join('\n') + '\n';
}
