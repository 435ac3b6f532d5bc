// Typed options, progress samples and results of the benchmark engine. Shared by the engine
// (bench/src), the command line (cli/src/bench.ts), the panel host (client/src) and the webview.
// Plain data only: everything here survives JSON.stringify / postMessage.
import type { Diagnosis, FailMode, FailoverResult } from './diagnosis';

// The scenarios' names; what each one is (transport, listener, connections, TLS, its own
// requests, response size, backend) is the facts table in protocol/scenarios.ts.
export { SCENARIOS, type ScenarioName } from './scenarios';
import type { ScenarioName } from './scenarios';

/** Methods the generator can send (BenchOptions.method). */
export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
/** Methods that carry no request body here. */
export const BODYLESS_METHODS: readonly string[] = ['GET', 'HEAD'];
/** Largest request body (BenchOptions.body), in bytes. */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;

export type ProxyKind = 'nginx' | 'haproxy';

/** Backend response latency: fixed, uniform, weighted choice, or exponential with a minimum. */
export type LatencySpec =
  | { kind: 'fixed'; ms: number }
  | { kind: 'uniform'; minMs: number; maxMs: number }
  | { kind: 'choice'; values: { ms: number; weight: number }[] }
  | { kind: 'exponential'; meanMs: number; minMs?: number };

export interface BackendOptions {
  /** Response body size in bytes (default: a small fixed JSON document); at most 1 MiB. */
  responseBytes?: number;
  /** Added response latency (default none). */
  latency?: LatencySpec;
  /** HTTP status of every response (default 200). */
  status?: number;
  /**
   * Which backend answers (default 'auto'): 'native' is a second instance of a real server binary
   * (nginx `return`, or HAProxy `http-request return` where only HAProxy is installed), for
   * fixed responses; 'node' is the built-in Node backend, the only one with added latencies,
   * per-method accounting, TCP echo and stalls; 'auto' takes the native one when the run needs
   * nothing only the Node backend does and a binary is installed.
   */
  kind?: BackendKindOption;
}

export const BACKEND_KIND_OPTIONS = ['auto', 'native', 'node'] as const;
export type BackendKindOption = (typeof BACKEND_KIND_OPTIONS)[number];
/** The backend that ran: the built-in Node one, or a native nginx / HAProxy. */
export type BackendKind = 'node' | 'nginx' | 'haproxy';

export interface StepLoad {
  /** Increase by this percentage (of the starting value) every interval. */
  percent: number;
  intervalMs: number;
}

/**
 * The run options' bounds, [least, most]: the engine refuses a value outside them (bench/src
 * resolveOptions), and the panel's form, its message check (protocol/panel.ts LIMITS) and the
 * extension's settings (package.json, checked by test/client/limits.test.ts) offer the same.
 */
export const RUN_LIMITS = {
  connections: [1, 10_000],
  rate: [0, 1_000_000],
  durationMs: [100, 600_000],
  warmupMs: [0, 600_000],
  streams: [1, 1000],
  threads: [1, 16],
  timeoutMs: [10, 120_000],
} as const;

export interface BenchOptions {
  /** The user's nginx.conf or haproxy.cfg (read, never written). Omit with `target`. */
  configPath?: string;
  /** Which proxy; default from the file name/contents. */
  kind?: ProxyKind;
  /** Path of the nginx / haproxy binary; default found on PATH. */
  binary?: string;
  /** Run against an already running server instead of a sandboxed proxy (loopback only). */
  target?: { host: string; port: number; tls?: boolean };
  scenario?: ScenarioName;
  /** Concurrent connections (closed model) or connection pool size (open model). Default 10. */
  connections?: number;
  /** Open model: requests per second in total; 0/undefined = closed model. */
  rate?: number;
  /** Measured duration in ms (default 10000, at most 600000). */
  durationMs?: number;
  /** Warm-up before measuring in ms (default 2000). */
  warmupMs?: number;
  /** Request path (default "/"). */
  path?: string;
  /**
   * Request method (default GET): one of HTTP_METHODS. Not with `get-post-mix` (which has its own
   * mix) nor `tcp`.
   */
  method?: string;
  /** Request body sent with every request (UTF-8, at most MAX_REQUEST_BODY_BYTES); not with GET/HEAD. */
  body?: string;
  /** Content-Type of the body (default application/octet-stream); only with `body`. */
  contentType?: string;
  /**
   * Send the load to the listener of one block instead of the first that fits the scenario: the
   * 1-based line of an nginx `server` or a HAProxy `frontend`/`listen` header in `file`
   * (default: the config file itself). Its absence of a suitable listener is a usage error.
   */
  listener?: { line: number; file?: string };
  /** Host header (default "localhost"). */
  host?: string;
  /** HTTP/2 streams per connection (default 10). */
  streams?: number;
  /** Generator worker threads (default 1). */
  threads?: number;
  /** Per-request timeout in ms (default 5000). */
  timeoutMs?: number;
  /** Step load: raise the rate (open model) or the connections (closed model). */
  step?: StepLoad;
  backend?: BackendOptions;
  /** Also run the same load straight at the backend (baseline without the proxy). */
  direct?: boolean;
  /**
   * Where the run cannot be contained (rewrite-only), run a config that loads native code
   * (`load_module`) anyway: that code then runs as the user. Default false: such a config is refused.
   */
  allowUncontainedNativeCode?: boolean;
  /**
   * CPU placement: the generator's threads on their own CPU(s), the proxy and the backend on the
   * others, so neither takes CPU from the other. true: whenever the machine has 2 CPUs or more;
   * false: never; 'auto' (default): from 4 CPUs (on 2-3 the proxy would be left a single CPU).
   */
  pin?: boolean | 'auto';
  /**
   * Diagnose the run (default true): read the proxy's CPU, sockets, files, logs and queues while
   * it runs and tie what they show to the config's lines (BenchResult.diagnosis).
   */
  diagnose?: boolean;
  /**
   * Failover: the second server of each upstream (nginx) or backend (HAProxy) fails `atMs`
   * into measurement (default a third of it); the built-in Node backend serves the run.
   */
  failover?: { mode: FailMode; atMs?: number };
}

export interface LatencySummaryMs {
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}

export interface ErrorCounts {
  connect: number;
  timeout: number;
  reset: number;
  non2xx: number;
  tls: number;
  protocol: number;
}

export interface SecondSample {
  /** Seconds since the start of measurement (1 = the first second). */
  t: number;
  /** 'warmup' samples are reported for progress but excluded from the result. */
  phase: 'warmup' | 'measure';
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  errors: number;
  /** Offered rate in the open model, connections in the closed model. */
  load: number;
}

export interface DirectResult {
  requests: number;
  rps: number;
  latencyMs: LatencySummaryMs;
  errors: ErrorCounts;
  backend: { connections: number; requests: number };
}

/** A setting the sandbox lowered so that the run fits the machine. */
export interface SandboxAdjustment {
  file: string;
  line: number;
  /** The directive or keyword: `worker_processes`, `maxconn`... */
  setting: string;
  from: string;
  to: string;
  why: string;
}

/**
 * How the run was confined. namespace: the proxy and backend ran in a network namespace with
 * only loopback and a read-only file system except the run's folder (Linux, bubblewrap);
 * rewrite-only: the config rewrite alone (no namespaces here: `reason` says why).
 */
export interface SandboxInfo {
  mode: 'namespace' | 'rewrite-only';
  reason?: string;
  adjustments: SandboxAdjustment[];
}

export interface BenchResult {
  scenario: ScenarioName;
  model: 'closed' | 'open';
  connections: number;
  rate?: number;
  durationS: number;
  proxy: { kind: ProxyKind | 'external'; binary: string; version: string };
  /** Address the load was sent to. */
  listener: { host: string; port: number; tls: boolean; http2: boolean; stream: boolean };
  requests: number;
  rps: number;
  latencyMs: LatencySummaryMs;
  /** Whole-run distribution: [percentile, ms] pairs (HDR iteration). */
  distribution: [number, number][];
  perSecond: SecondSample[];
  errors: ErrorCounts;
  /**
   * generator: the generator's threads (per thread, so an editor's other work is not counted);
   * generatorProcess: the whole process that ran it (all threads, V8's own included).
   */
  cpuSeconds: { proxy: number; generator: number; generatorProcess?: number; backend: number };
  /** Connections the backend accepted vs requests it served during measurement. */
  backend: {
    /** Which backend ran (absent in runs kept before the native backend existed: the Node one). */
    kind?: BackendKind;
    /** The native backend's binary and version. */
    binary?: string;
    version?: string;
    /** Why this backend was used, when 'auto' did not take the native one. */
    why?: string;
    connections: number;
    requests: number;
    connectionsPerRequest: number;
    /**
     * What reached the backend over the whole run through the proxy (warm-up included): requests
     * per method and the smallest/largest request body it received, in bytes.
     */
    received?: { methods: Record<string, number>; bodyBytesMin: number; bodyBytesMax: number };
    /** Requests that reached the backend over the whole run through the proxy (warm-up included), whatever the backend. */
    receivedRequests?: number;
  };
  direct?: DirectResult;
  /**
   * The bench's own cost and where the bottleneck was: CPU seconds of the generator and the
   * backend per measured request (microseconds), and the busiest share of one core of the
   * generator's busiest thread and of the backend's busiest process over the measured time
   * (1 = a core at 100%: that part, not the proxy, limited the run).
   */
  cost?: {
    benchCpuUsPerRequest: number;
    generatorCpuUsPerRequest: number;
    backendCpuUsPerRequest: number;
    proxyCpuUsPerRequest: number;
    generatorCoreShare: number;
    backendCoreShare: number;
    /** What limited the run when it was not the proxy: 'generator' or 'backend'. */
    bottleneck?: 'generator' | 'backend';
  };
  /** Results imported from another engine (`proxy-tuner import`): which one and from what file. */
  imported?: { engine: 'k6' | 'locust'; file: string; workers?: number };
  /** TLS handshakes made by the generator during measurement, and how many resumed a session. */
  tls?: { handshakes: number; resumed: number };
  /**
   * Where the run's parts ran: pinned, the generator's worker threads on generatorCpus and the
   * proxy's and the backend's processes on systemCpus (the generator's aggregating thread is not
   * moved); `note` says why a run was not pinned.
   */
  placement?: { pinned: boolean; generatorCpus?: number[]; systemCpus?: number[]; note?: string };
  /** Load average at start/end and the CPU count, to judge noise from other processes. */
  host: { cpus: number; loadavgStart: number[]; loadavgEnd: number[] };
  /** Containment mode and lowered settings (absent for an external target). */
  sandbox?: SandboxInfo;
  /** Findings tying what was measured to the config's lines, and the readings behind them. */
  diagnosis?: Diagnosis;
  /** A failover run: what the clients saw. */
  failover?: FailoverResult;
  warnings: string[];
}
