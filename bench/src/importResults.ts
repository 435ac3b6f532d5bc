// `proxy-tuner import RESULTS`: a distributed run's results as a BenchResult, so the panel's store
// and the CLI's table show it beside local runs (A/B). Reads k6's `--summary-export` JSON and
// Locust's `--csv` files (OUT_stats.csv, with OUT_stats_history.csv for the per-second series
// and OUT_failures.csv for the kinds of errors when they lie beside it).
// What the other engine does not report is left empty, never made up: CPU seconds, backend
// connections, the latency distribution beyond the percentiles the engine printed.
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { BenchResult, ErrorCounts, LatencySummaryMs, ScenarioName, SecondSample } from '../../protocol/bench';
import { SCENARIOS } from '../../protocol/bench';
import { scenarioFacts } from '../../protocol/scenarios';
import { readScenarioLine, type ExportScenario } from './export';

/** The results file cannot be read as k6 or Locust output. */
export class ImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportError';
  }
}

const MAX_BYTES = 64 * 1024 * 1024;

function readText(file: string): string {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (e) {
    throw new ImportError(`cannot read ${file}: ${(e as Error).message}`);
  }
  if (size > MAX_BYTES) throw new ImportError(`${file} is ${size} bytes: more than a results file (at most ${MAX_BYTES})`);
  return readFileSync(file, 'utf8');
}

const emptyErrors = (): ErrorCounts => ({ connect: 0, timeout: 0, reset: 0, non2xx: 0, tls: 0, protocol: 0 });
const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** A CSV line split on commas, with "quoted, fields" (Locust quotes error messages). */
export function csvFields(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let q = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (q) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') q = false;
      else cur += c;
    } else if (c === '"') q = true;
    else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

function csvRows(text: string): Record<string, string>[] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines.length === 0) return [];
  const head = csvFields(lines[0]);
  return lines.slice(1).map((l) => {
    const f = csvFields(l);
    const row: Record<string, string> = {};
    head.forEach((h, i) => (row[h] = f[i] ?? ''));
    return row;
  });
}

const num = (s: string | undefined): number => {
  const x = Number(s);
  return s === undefined || s === '' || s === 'N/A' || !Number.isFinite(x) ? 0 : x;
};

function baseResult(engine: 'k6' | 'locust', file: string, sc: ExportScenario | null, override: { connections?: number }): BenchResult {
  const scenario: ScenarioName = sc && (SCENARIOS as readonly string[]).includes(sc.scenario) ? sc.scenario : 'http1-keepalive';
  let listener: BenchResult['listener'] = { host: '', port: 0, tls: false, http2: false, stream: false };
  if (sc) {
    try {
      const u = new URL(sc.baseUrl);
      listener = {
        host: u.hostname,
        port: Number(u.port) || (u.protocol === 'https:' ? 443 : 80),
        tls: u.protocol === 'https:',
        http2: scenarioFacts(scenario).transport === 'http2',
        stream: false,
      };
    } catch {
      // no URL: left empty
    }
  }
  return {
    scenario,
    model: sc?.model ?? 'closed',
    connections: override.connections ?? sc?.connections ?? 0,
    rate: sc && sc.rate > 0 ? sc.rate : undefined,
    durationS: 0,
    proxy: { kind: 'external', binary: '', version: '' },
    listener,
    requests: 0,
    rps: 0,
    latencyMs: { p50: 0, p90: 0, p99: 0, p999: 0, max: 0, mean: 0 },
    distribution: [],
    perSecond: [],
    errors: emptyErrors(),
    cpuSeconds: { proxy: 0, generator: 0, backend: 0 },
    backend: { connections: 0, requests: 0, connectionsPerRequest: 0 },
    host: { cpus: 0, loadavgStart: [], loadavgEnd: [] },
    warnings: sc ? [] : ['no --scenario file given: the options the run used (scenario, connections, rate) are unknown'],
    imported: { engine, file: path.resolve(file) },
  };
}

/** k6 `--summary-export` JSON (the legacy summary format k6 keeps for that flag). */
export function fromK6Summary(text: string, file: string, sc: ExportScenario | null): BenchResult {
  let j: { metrics?: Record<string, Record<string, unknown>>; state?: { testRunDurationMs?: number } };
  try {
    j = JSON.parse(text);
  } catch (e) {
    throw new ImportError(`${file}: not JSON (${(e as Error).message})`);
  }
  const m = j.metrics;
  if (!m || typeof m !== 'object') throw new ImportError(`${file}: no "metrics" object: not a k6 --summary-export file`);
  const metric = (name: string) => m[`${name}{scenario:main}`] ?? m[name];
  const dur = metric('http_req_duration') as Record<string, number> | undefined;
  const reqs = metric('http_reqs') as Record<string, number> | undefined;
  if (!dur || !reqs || typeof reqs.count !== 'number')
    throw new ImportError(`${file}: no http_req_duration / http_reqs metrics: not an HTTP test's summary`);
  const gauge = (name: string) => {
    const g = m[name] as { value?: number } | undefined;
    return typeof g?.value === 'number' ? g.value : undefined;
  };
  const connections = gauge('proxy_tuner_connections');
  const r = baseResult('k6', file, sc, { connections });
  const mainOnly = m['http_req_duration{scenario:main}'] !== undefined;
  const durationS = gauge('proxy_tuner_duration_s') ?? sc?.durationS ?? (j.state?.testRunDurationMs ?? 0) / 1000;
  if (!(durationS > 0))
    throw new ImportError(
      `${file}: the measured duration is unknown (no proxy_tuner_duration_s gauge, no --scenario file, no testRunDurationMs)`,
    );
  r.durationS = durationS;
  r.requests = reqs.count;
  r.rps = Math.round(reqs.count / durationS);
  const p = (k: string) => (typeof dur[k] === 'number' ? r3(dur[k]) : 0);
  r.latencyMs = { p50: p('med'), p90: p('p(90)'), p99: p('p(99)'), p999: p('p(99.9)'), max: p('max'), mean: p('avg') };
  r.distribution = (
    [
      [0, 'min'],
      [50, 'med'],
      [90, 'p(90)'],
      [95, 'p(95)'],
      [99, 'p(99)'],
      [99.9, 'p(99.9)'],
      [100, 'max'],
    ] as [number, string][]
  )
    .filter(([, k]) => typeof dur[k] === 'number')
    .map(([q, k]) => [q, r3(dur[k])]);
  const failed = metric('http_req_failed') as { value?: number; passes?: number } | undefined;
  // a Rate's "passes" counts its non-zero samples: for http_req_failed, the failed requests
  const nFailed = typeof failed?.passes === 'number' ? failed.passes : Math.round((failed?.value ?? 0) * reqs.count);
  r.errors.non2xx = nFailed;
  if (nFailed > 0)
    r.warnings.push(`k6 counts failed requests (4xx/5xx answers and transport errors) together: ${nFailed} shown as non-2xx`);
  if (!mainOnly)
    r.warnings.push('the summary has no {scenario:main} sub-metrics (not a proxy-tuner export?): the figures include any warm-up');
  const dropped = (m.dropped_iterations as { count?: number } | undefined)?.count ?? 0;
  if (dropped > 0)
    r.warnings.push(`k6 dropped ${dropped} iterations: the arrival rate needed more VUs than allowed, so the offered rate was not kept`);
  const th = (dur.thresholds ?? undefined) as unknown as Record<string, boolean> | undefined;
  // in --summary-export a threshold's value is true when it FAILED
  for (const [expr, failedTh] of Object.entries(th ?? {})) r.warnings.push(`k6 threshold ${expr}: ${failedTh ? 'failed' : 'passed'}`);
  r.warnings.push('k6 reports no per-second series, CPU or backend connections in its summary export');
  return r;
}

/** Locust `--csv` stats (OUT_stats.csv), with its history and failures files beside it. */
export function fromLocustCsv(
  statsText: string,
  file: string,
  sc: ExportScenario | null,
  side: { history?: string; failures?: string },
): BenchResult {
  const rows = csvRows(statsText);
  const agg = rows.find((x) => x.Name === 'Aggregated');
  if (!agg || agg['Request Count'] === undefined) throw new ImportError(`${file}: no "Aggregated" row: not a Locust --csv stats file`);
  const r = baseResult('locust', file, sc, {});
  r.requests = num(agg['Request Count']);
  const rps = num(agg['Requests/s']);
  r.rps = Math.round(rps);
  r.durationS = rps > 0 ? Math.round((r.requests / rps) * 100) / 100 : (sc?.durationS ?? 0);
  r.latencyMs = {
    p50: num(agg['50%']),
    p90: num(agg['90%']),
    p99: num(agg['99%']),
    p999: num(agg['99.9%']),
    max: r3(num(agg['Max Response Time'])),
    mean: r3(num(agg['Average Response Time'])),
  };
  r.distribution = [[0, r3(num(agg['Min Response Time']))]] as [number, number][];
  for (const q of ['50', '66', '75', '80', '90', '95', '98', '99', '99.9', '99.99'])
    if (agg[`${q}%`] !== undefined && agg[`${q}%`] !== 'N/A') r.distribution.push([Number(q), num(agg[`${q}%`])]);
  r.distribution.push([100, r.latencyMs.max]);
  const failures = num(agg['Failure Count']);
  if (side.failures) {
    for (const f of csvRows(side.failures)) {
      const n = num(f.Occurrences);
      const e = (f.Error ?? '').toLowerCase();
      if (/timeout|timed out/.test(e)) r.errors.timeout += n;
      else if (/refused|connecterror|connection.*(failed|error)|name or service/.test(e)) r.errors.connect += n;
      else if (/reset|broken pipe|remotedisconnected|connection aborted/.test(e)) r.errors.reset += n;
      else if (/ssl|certificate|tls/.test(e)) r.errors.tls += n;
      else if (/\b[1-5]\d\d\b|httperror|bad ?status/.test(e)) r.errors.non2xx += n;
      else r.errors.protocol += n;
    }
  }
  const counted = Object.values(r.errors).reduce((a, b) => a + b, 0);
  if (failures > counted) r.errors.protocol += failures - counted;
  if (side.history) {
    // the measurement starts where the totals were reset (the locustfile forgets the warm-up)
    const hist = csvRows(side.history).filter((x) => x.Name === 'Aggregated');
    let start = 0;
    for (let i = 1; i < hist.length; i++) if (num(hist[i]['Total Request Count']) < num(hist[i - 1]['Total Request Count'])) start = i;
    const samples: SecondSample[] = [];
    // Requests per second from the totals' differences (Locust's own "Requests/s" column lags);
    // its per-row percentiles are over a rolling window of the last seconds.
    for (let i = start; i < hist.length; i++) {
      const h = hist[i];
      if (num(h['User Count']) === 0) continue;
      const total = num(h['Total Request Count']);
      const prev = i > start ? num(hist[i - 1]['Total Request Count']) : 0;
      const dt = i > start ? num(h.Timestamp) - num(hist[i - 1].Timestamp) : 1;
      const prevFail = i > start ? num(hist[i - 1]['Total Failure Count']) : 0;
      samples.push({
        t: samples.length + 1,
        phase: 'measure',
        rps: Math.round(Math.max(0, total - prev) / Math.max(1, dt)),
        p50: num(h['50%']),
        p90: num(h['90%']),
        p99: num(h['99%']),
        p999: num(h['99.9%']),
        max: num(h['100%']),
        errors: Math.max(0, num(h['Total Failure Count']) - prevFail),
        load: num(h['User Count']),
      });
    }
    r.perSecond = samples;
    if (!sc) r.connections = Math.max(0, ...samples.map((s) => s.load));
  }
  r.warnings.push(
    'Locust reports response times in whole milliseconds above 100 ms and percentiles rounded to 2 significant digits; it is a closed model (each user waits for its answer)',
  );
  return r;
}

/**
 * Reads a results file: k6 summary JSON, a Locust OUT_stats.csv, or a Locust --csv prefix (OUT).
 * `scenarioFile` is the exported script or locustfile, whose scenario line labels the run.
 */
export function importResults(file: string, scenarioFile?: string): BenchResult {
  let sc: ExportScenario | null = null;
  if (scenarioFile) {
    sc = readScenarioLine(readText(scenarioFile));
    if (!sc) throw new ImportError(`${scenarioFile}: no proxy-tuner-scenario line: not a file written by \`proxy-tuner bench --export\``);
  }
  let stats = file;
  if (!existsSync(stats) && existsSync(`${file}_stats.csv`)) stats = `${file}_stats.csv`;
  const text = readText(stats);
  const t = text.trimStart();
  if (t.startsWith('{')) return fromK6Summary(text, stats, sc);
  if (/^Type,Name,Request Count/.test(t)) {
    const prefix = stats.replace(/_stats\.csv$/, '');
    const side = (suffix: string) => (prefix !== stats && existsSync(prefix + suffix) ? readText(prefix + suffix) : undefined);
    return fromLocustCsv(text, stats, sc, { history: side('_stats_history.csv'), failures: side('_failures.csv') });
  }
  throw new ImportError(`${stats}: neither a k6 --summary-export JSON nor a Locust --csv stats file (OUT_stats.csv)`);
}

/** The summary lines of two runs side by side (A/B), as the CLI prints them. */
export function compareLines(a: { label: string; r: BenchResult }, b: { label: string; r: BenchResult }): string[] {
  const row = (label: string, x: LatencySummaryMs, rps: number, n: number) =>
    `${label.padEnd(28)} ${String(rps).padStart(9)} ${String(x.p50).padStart(9)} ${String(x.p90).padStart(9)} ${String(x.p99).padStart(9)} ${String(n).padStart(10)}`;
  const ratio = (p: number, q: number) => (q > 0 ? `×${(p / q).toFixed(2)}` : '—');
  return [
    `${''.padEnd(28)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(9)} ${'p90 ms'.padStart(9)} ${'p99 ms'.padStart(9)} ${'requests'.padStart(10)}`,
    row(a.label, a.r.latencyMs, a.r.rps, a.r.requests),
    row(b.label, b.r.latencyMs, b.r.rps, b.r.requests),
    `${'B / A'.padEnd(28)} ${ratio(b.r.rps, a.r.rps).padStart(9)} ${ratio(b.r.latencyMs.p50, a.r.latencyMs.p50).padStart(9)} ${ratio(b.r.latencyMs.p90, a.r.latencyMs.p90).padStart(9)} ${ratio(b.r.latencyMs.p99, a.r.latencyMs.p99).padStart(9)}`,
  ];
}
