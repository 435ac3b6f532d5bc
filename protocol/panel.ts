// Every message between the benchmark panel (webview/src) and its host (client/src/benchmark),
// typed once here and checked on receipt by the hand-written validators below. A message that
// does not match its type exactly (unknown `type`, missing or mistyped field, out-of-range
// number) is rejected, never half-used: the webview is treated as untrusted input.
import {
  BODYLESS_METHODS,
  HTTP_METHODS,
  MAX_REQUEST_BODY_BYTES,
  RUN_LIMITS,
  SCENARIOS,
  type BenchResult,
  type HttpMethod,
  type ScenarioName,
  type SecondSample,
} from './bench';

export { HTTP_METHODS, type HttpMethod } from './bench';

/** What the panel's form asks for; the host turns it into BenchOptions. */
export interface PanelRunOptions {
  scenario: ScenarioName;
  /** 'closed': `connections` concurrent clients; 'open': `rate` requests per second. */
  model: 'closed' | 'open';
  connections: number;
  rate: number;
  durationS: number;
  warmupS: number;
  /** Request path, starting with `/`. */
  path: string;
  /** Host header; empty for the engine's default. */
  host: string;
  method: HttpMethod;
  /**
   * Request body sent with every request (at most 1 MiB as UTF-8); empty or absent for none, and
   * empty with GET/HEAD. Runs kept before this field existed have no `body`.
   */
  body?: string;
  /** Also load the backend directly (baseline without the proxy). */
  direct: boolean;
  /**
   * The binary to run, one of the init message's `binaries` paths; empty or absent: the
   * setting's (`proxyTuner.<kind>.path`), else the one on PATH. The host runs only listed ones.
   */
  binary?: string;
  /** A second listed binary: the same config runs on it right after, and the two runs are compared A/B. */
  binaryB?: string;
}

/** An installed binary the panel may pick (found by the host: PATH, the settings). */
export interface PanelBinary {
  path: string;
  version: string;
  /** Where it was found: `PATH`, `proxyTuner.nginx.path`, `proxyTuner.binaries`. */
  source: string;
}

/** The panel's bounds: the engine's (RUN_LIMITS), in the form's units (seconds). */
export const LIMITS = {
  connections: RUN_LIMITS.connections,
  rate: RUN_LIMITS.rate,
  durationS: [1, RUN_LIMITS.durationMs[1] / 1000],
  warmupS: [RUN_LIMITS.warmupMs[0] / 1000, RUN_LIMITS.warmupMs[1] / 1000],
  pathLength: 2048,
  hostLength: 255,
} as const;

export const DEFAULT_RUN_OPTIONS: PanelRunOptions = {
  scenario: 'http1-keepalive',
  model: 'closed',
  connections: 10,
  rate: 0,
  durationS: 10,
  warmupS: 2,
  path: '/',
  host: '',
  method: 'GET',
  body: '',
  direct: false,
};

/** One finished run, as kept per config file and shown in the panel. */
export interface RunRecord {
  id: string;
  /** Short name shown in lists and legends ("#3 http1-keepalive /api"). */
  label: string;
  /** ISO time the run finished. */
  finishedAt: string;
  configUri: string;
  /** A route key (`server:…`, `location:…`, `frontend:…`) when started from a CodeLens. */
  route?: string;
  /** Why the run exists, e.g. "after fix: add upstream keepalive". */
  note?: string;
  options: PanelRunOptions;
  result: BenchResult;
}

export interface PanelConfigInfo {
  uri: string;
  /** File name shown in the header. */
  name: string;
  kind: 'nginx' | 'haproxy';
}

/** Where an error belongs in the config, when the engine's message names a line. */
export interface ErrorLocation {
  uri: string;
  /** 0-based line. */
  line: number;
}

// ---- host -> webview ----------------------------------------------------------------------

export type HostToPanel =
  | {
      type: 'init';
      config: PanelConfigInfo | null;
      /** False in an untrusted workspace: the panel shows `disabledReason` and no Run button. */
      enabled: boolean;
      disabledReason: string;
      options: PanelRunOptions;
      runs: RunRecord[];
      compare: { a: string | null; b: string | null };
      running: boolean;
      /** The installed binaries of the config's kind (absent from older hosts). */
      binaries?: PanelBinary[];
    }
  | { type: 'runStarted'; runId: string; label: string; options: PanelRunOptions }
  | { type: 'progress'; runId: string; sample: SecondSample }
  | { type: 'runDone'; run: RunRecord }
  | { type: 'runError'; runId: string | null; message: string; location: ErrorLocation | null; stopped: boolean }
  | { type: 'runs'; runs: RunRecord[] }
  | { type: 'compare'; a: string | null; b: string | null };

// ---- webview -> host ----------------------------------------------------------------------

export type PanelToHost =
  | { type: 'ready' }
  | { type: 'run'; options: PanelRunOptions }
  | { type: 'stop' }
  | { type: 'compare'; a: string | null; b: string | null }
  | { type: 'export'; runId: string; format: 'json' | 'csv' }
  | { type: 'copyMarkdown'; runIds: string[] }
  | { type: 'deleteRun'; runId: string }
  | { type: 'revealLine'; line: number }
  /** Apply the fix of a stored run's finding (by index): the host reads the edits from its own store. */
  | { type: 'applyFix'; runId: string; finding: number };

// ---- validation ---------------------------------------------------------------------------

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown, max = 4096): v is string => typeof v === 'string' && v.length <= max;
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isInt = (v: unknown, min: number, max: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
const RUN_ID = /^[A-Za-z0-9_-]{1,64}$/;
const isRunId = (v: unknown): v is string => typeof v === 'string' && RUN_ID.test(v);

/** Only these keys, each present. */
function exactKeys(o: Obj, keys: readonly string[]): boolean {
  const have = Object.keys(o);
  return have.length === keys.length && keys.every((k) => Object.prototype.hasOwnProperty.call(o, k));
}

/** A request path the generator may send: absolute, printable ASCII, no spaces. */
export function isRequestPath(v: unknown): v is string {
  return typeof v === 'string' && v.length >= 1 && v.length <= LIMITS.pathLength && /^\/[\x21-\x7e]*$/.test(v);
}

/** A Host header value: empty (default) or a host name / address with an optional port. */
export function isHostHeader(v: unknown): v is string {
  return typeof v === 'string' && v.length <= LIMITS.hostLength && /^[A-Za-z0-9.:[\]_-]*$/.test(v);
}

const RUN_OPTION_KEYS = ['scenario', 'model', 'connections', 'rate', 'durationS', 'warmupS', 'path', 'host', 'method', 'direct'] as const;
/** Keys a PanelRunOptions may have besides RUN_OPTION_KEYS. */
const OPTIONAL_RUN_OPTION_KEYS = ['body', 'binary', 'binaryB'] as const;

/** All of `keys`, any of `optional`, nothing else. */
function keysWithin(o: Obj, keys: readonly string[], optional: readonly string[]): boolean {
  const have = Object.keys(o);
  return keys.every((k) => Object.prototype.hasOwnProperty.call(o, k)) && have.every((k) => keys.includes(k) || optional.includes(k));
}

/** UTF-8 length of a string (TextEncoder exists in the webview and in Node). */
export function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

/** Why `v` is not valid PanelRunOptions, or undefined when it is. */
export function runOptionsProblem(v: unknown): string | undefined {
  if (!isObj(v)) return 'options: not an object';
  if (!keysWithin(v, RUN_OPTION_KEYS, OPTIONAL_RUN_OPTION_KEYS))
    return `options: expected exactly the keys ${RUN_OPTION_KEYS.join(', ')} (and optionally ${OPTIONAL_RUN_OPTION_KEYS.join(', ')})`;
  if (!(SCENARIOS as readonly unknown[]).includes(v.scenario)) return 'options.scenario: unknown scenario';
  if (v.model !== 'closed' && v.model !== 'open') return 'options.model: must be "closed" or "open"';
  if (!isInt(v.connections, ...LIMITS.connections)) return `options.connections: an integer from ${LIMITS.connections.join(' to ')}`;
  if (!isInt(v.rate, ...LIMITS.rate)) return `options.rate: an integer from ${LIMITS.rate.join(' to ')}`;
  if (v.model === 'open' && v.rate < 1) return 'options.rate: the open model needs a rate of at least 1 req/s';
  if (!isInt(v.durationS, ...LIMITS.durationS)) return `options.durationS: an integer from ${LIMITS.durationS.join(' to ')}`;
  if (!isInt(v.warmupS, ...LIMITS.warmupS)) return `options.warmupS: an integer from ${LIMITS.warmupS.join(' to ')}`;
  if (!isRequestPath(v.path)) return 'options.path: must start with "/" and hold printable characters without spaces';
  if (!isHostHeader(v.host)) return 'options.host: a host name or address';
  if (!(HTTP_METHODS as readonly unknown[]).includes(v.method)) return `options.method: one of ${HTTP_METHODS.join(', ')}`;
  if (v.body !== undefined) {
    // a cheap bound first (UTF-8 takes at least one byte per UTF-16 unit), then the exact size
    if (typeof v.body !== 'string' || v.body.length > MAX_REQUEST_BODY_BYTES || utf8Length(v.body) > MAX_REQUEST_BODY_BYTES)
      return `options.body: a string of at most ${MAX_REQUEST_BODY_BYTES} bytes (UTF-8)`;
    if (v.body !== '' && BODYLESS_METHODS.includes(v.method as string)) return `options.body: ${v.method as string} requests carry no body`;
  }
  if (!isBool(v.direct)) return 'options.direct: a boolean';
  for (const k of ['binary', 'binaryB'] as const) {
    if (v[k] !== undefined && (typeof v[k] !== 'string' || (v[k] as string).length > 4096 || /[\0\n\r]/.test(v[k] as string)))
      return `options.${k}: a binary path`;
  }
  if (v.binaryB && !v.binary) return 'options.binaryB: pick the first binary too';
  if (v.binaryB && v.binaryB === v.binary) return 'options.binaryB: pick two different binaries to compare';
  return undefined;
}

export function isRunOptions(v: unknown): v is PanelRunOptions {
  return runOptionsProblem(v) === undefined;
}

export type Validation<T> = { ok: true; message: T } | { ok: false; error: string };

/** Checks a message received from the webview. */
export function validatePanelMessage(raw: unknown): Validation<PanelToHost> {
  const bad = (error: string): Validation<PanelToHost> => ({ ok: false, error });
  if (!isObj(raw)) return bad('message is not an object');
  const m = raw;
  switch (m.type) {
    case 'ready':
    case 'stop':
      return exactKeys(m, ['type']) ? { ok: true, message: { type: m.type } } : bad(`${m.type}: unexpected fields`);
    case 'run': {
      if (!exactKeys(m, ['type', 'options'])) return bad('run: expected { type, options }');
      const problem = runOptionsProblem(m.options);
      return problem ? bad(`run: ${problem}`) : { ok: true, message: { type: 'run', options: m.options as PanelRunOptions } };
    }
    case 'compare':
      if (!exactKeys(m, ['type', 'a', 'b'])) return bad('compare: expected { type, a, b }');
      if (!(m.a === null || isRunId(m.a)) || !(m.b === null || isRunId(m.b))) return bad('compare: a and b are run ids or null');
      return { ok: true, message: { type: 'compare', a: m.a as string | null, b: m.b as string | null } };
    case 'export':
      if (!exactKeys(m, ['type', 'runId', 'format'])) return bad('export: expected { type, runId, format }');
      if (!isRunId(m.runId)) return bad('export: bad run id');
      if (m.format !== 'json' && m.format !== 'csv') return bad('export: format is json or csv');
      return { ok: true, message: { type: 'export', runId: m.runId, format: m.format } };
    case 'copyMarkdown':
      if (!exactKeys(m, ['type', 'runIds'])) return bad('copyMarkdown: expected { type, runIds }');
      if (!Array.isArray(m.runIds) || m.runIds.length < 1 || m.runIds.length > 2 || !m.runIds.every(isRunId)) {
        return bad('copyMarkdown: one or two run ids');
      }
      return { ok: true, message: { type: 'copyMarkdown', runIds: [...(m.runIds as string[])] } };
    case 'deleteRun':
      if (!exactKeys(m, ['type', 'runId']) || !isRunId(m.runId)) return bad('deleteRun: expected { type, runId }');
      return { ok: true, message: { type: 'deleteRun', runId: m.runId } };
    case 'revealLine':
      if (!exactKeys(m, ['type', 'line']) || !isInt(m.line, 0, 10_000_000)) return bad('revealLine: expected { type, line }');
      return { ok: true, message: { type: 'revealLine', line: m.line } };
    case 'applyFix':
      if (!exactKeys(m, ['type', 'runId', 'finding']) || !isRunId(m.runId) || !isInt(m.finding, 0, 1000))
        return bad('applyFix: expected { type, runId, finding }');
      return { ok: true, message: { type: 'applyFix', runId: m.runId, finding: m.finding } };
    default:
      return bad(`unknown message type ${JSON.stringify(typeof m.type === 'string' ? m.type.slice(0, 40) : m.type)}`);
  }
}

// The host's messages come from our own process, but a stale or mismatched bundle must not
// crash the panel: the webview checks the shape it relies on.

const SAMPLE_NUMBERS = ['t', 'rps', 'p50', 'p90', 'p99', 'p999', 'max', 'errors', 'load'] as const;

export function isSecondSample(v: unknown): v is SecondSample {
  return isObj(v) && (v.phase === 'warmup' || v.phase === 'measure') && SAMPLE_NUMBERS.every((k) => isNum(v[k]));
}

const SUMMARY_NUMBERS = ['p50', 'p90', 'p99', 'p999', 'max', 'mean'] as const;

export function isBenchResult(v: unknown): v is BenchResult {
  if (!isObj(v)) return false;
  const lat = v.latencyMs;
  return (
    isStr(v.scenario) &&
    isNum(v.requests) &&
    isNum(v.rps) &&
    isNum(v.durationS) &&
    isObj(lat) &&
    SUMMARY_NUMBERS.every((k) => isNum(lat[k])) &&
    Array.isArray(v.distribution) &&
    v.distribution.every((p) => Array.isArray(p) && p.length === 2 && isNum(p[0]) && isNum(p[1])) &&
    Array.isArray(v.perSecond) &&
    v.perSecond.every(isSecondSample) &&
    isObj(v.errors) &&
    Object.values(v.errors).every(isNum) &&
    isObj(v.cpuSeconds) &&
    isObj(v.backend) &&
    isObj(v.proxy)
  );
}

export function isRunRecord(v: unknown): v is RunRecord {
  return (
    isObj(v) &&
    isRunId(v.id) &&
    isStr(v.label, 200) &&
    isStr(v.finishedAt, 64) &&
    isStr(v.configUri) &&
    (v.route === undefined || isStr(v.route)) &&
    (v.note === undefined || isStr(v.note)) &&
    isRunOptions(v.options) &&
    isBenchResult(v.result)
  );
}

function isConfigInfo(v: unknown): v is PanelConfigInfo {
  return isObj(v) && isStr(v.uri) && isStr(v.name, 512) && (v.kind === 'nginx' || v.kind === 'haproxy');
}

/** Checks a message received from the host. */
export function validateHostMessage(raw: unknown): Validation<HostToPanel> {
  const bad = (error: string): Validation<HostToPanel> => ({ ok: false, error });
  if (!isObj(raw)) return bad('message is not an object');
  const m = raw;
  const ok = (): Validation<HostToPanel> => ({ ok: true, message: m as unknown as HostToPanel });
  const idOrNull = (v: unknown) => v === null || isRunId(v);
  switch (m.type) {
    case 'init':
      return (m.config === null || isConfigInfo(m.config)) &&
        isBool(m.enabled) &&
        isStr(m.disabledReason) &&
        isRunOptions(m.options) &&
        Array.isArray(m.runs) &&
        m.runs.every(isRunRecord) &&
        isObj(m.compare) &&
        idOrNull(m.compare.a) &&
        idOrNull(m.compare.b) &&
        isBool(m.running) &&
        (m.binaries === undefined ||
          (Array.isArray(m.binaries) &&
            m.binaries.length <= 64 &&
            m.binaries.every((b) => isObj(b) && isStr(b.path) && isStr(b.version, 64) && isStr(b.source, 200))))
        ? ok()
        : bad('init: malformed');
    case 'runStarted':
      return isRunId(m.runId) && isStr(m.label, 200) && isRunOptions(m.options) ? ok() : bad('runStarted: malformed');
    case 'progress':
      return isRunId(m.runId) && isSecondSample(m.sample) ? ok() : bad('progress: malformed');
    case 'runDone':
      return isRunRecord(m.run) ? ok() : bad('runDone: malformed');
    case 'runError': {
      const loc = m.location;
      const locOk = loc === null || (isObj(loc) && isStr(loc.uri) && isInt(loc.line, 0, 10_000_000));
      return idOrNull(m.runId) && isStr(m.message, 20_000) && locOk && isBool(m.stopped) ? ok() : bad('runError: malformed');
    }
    case 'runs':
      return Array.isArray(m.runs) && m.runs.every(isRunRecord) ? ok() : bad('runs: malformed');
    case 'compare':
      return idOrNull(m.a) && idOrNull(m.b) ? ok() : bad('compare: malformed');
    default:
      return bad('unknown message type');
  }
}
