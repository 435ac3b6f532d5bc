// The diagnosis a benchmark run carries: what was read from the run's processes and network
// namespace, and the findings that tie a measured symptom to the config line that causes it.
// Plain data (survives JSON.stringify / postMessage); made by bench/src/diagnosis, shown by the
// command line's table, `--json` and the panel.

/** Where a finding points: a line of the user's config (1-based), the file as the user named it. */
export interface ConfigLocation {
  file: string;
  line: number;
  /** The directive or keyword on that line (`keepalive`, `worker_connections`, `server`...). */
  setting: string;
}

/** One edit of a fix: replace a whole line, or insert lines after it (indentation included). */
export interface FixEdit {
  file: string;
  /** 1-based. */
  line: number;
  replaceLine?: string;
  insertAfter?: string[];
}

export interface FindingFix {
  title: string;
  edits: FixEdit[];
}

export type FindingKind =
  | 'upstream-keepalive'
  | 'worker-connections'
  | 'tls-session-cache'
  | 'listen-backlog'
  | 'access-log'
  | 'rate-limit'
  | 'server-queue'
  | 'workers-below-cpus'
  | 'ephemeral-ports'
  | 'file-limit'
  | 'errors'
  | 'failover';

export interface Finding {
  kind: FindingKind;
  severity: 'warning' | 'info';
  /** The measured fact, one sentence with its numbers. */
  measured: string;
  /** Why it matters and what to change, one sentence. */
  advice: string;
  /** The numbers behind `measured`, for --json and tests. */
  numbers: Record<string, number>;
  /** The config line responsible, when there is one. */
  at?: ConfigLocation;
  /** The linter rule that reads the same cause from the config alone, when there is one. */
  rule?: string;
  fix?: FindingFix;
}

/** Proxy CPU over the measured time, split by mode and by worker (process or thread). */
export interface CpuReading {
  userSeconds: number;
  systemSeconds: number;
  /** CPU seconds of each worker (nginx worker process, HAProxy thread), busiest first. */
  perWorker: number[];
  /**
   * Share of the measured time each worker was running or waiting for a CPU (/proc schedstat),
   * busiest first: near 1, the worker had work all the time (saturated, even when other programs
   * took the CPU from it). Absent where the kernel keeps no schedstat.
   */
  demand?: number[];
  /** The CPUs the proxy could run on. */
  cpusGiven: number;
}

export interface DiagnosisReadings {
  cpu?: CpuReading;
  /** Sockets of the proxy's network namespace at the end of measurement (TIME_WAIT lasts 60 s: all the run made). */
  sockets?: { timeWaitPeak: number; ephemeralInUsePeak: number; portRange: [number, number] };
  /** Listen queue: host-wide overflow counters (the listening sockets live on the host's loopback). */
  listen?: { overflows: number; drops: number; backlog: number | null; somaxconn: number | null };
  /** Files open in the proxy's busiest process at the peak, against its soft limit. */
  files?: { peak: number; limit: number | null };
  /** Responses by status code (non-2xx only), and where they came from. */
  statuses?: Record<string, number>;
  /** Lines the proxy's error log gained during the run, by cause. */
  errorLog?: Record<string, number>;
  /** Bytes the access log gained during measurement. */
  accessLogBytes?: number;
  /** HAProxy's stats: the longest queue of each server/backend that queued (`qmax`). */
  queues?: { proxy: string; server: string; qmax: number; qtime: number }[];
  /** Readings this run could not make, with why. */
  missing: string[];
  /**
   * Wall milliseconds the engine spent reading during measurement (the diagnosis' own cost; the
   * readings at the end, after measurement, are not counted).
   */
  costMs?: number;
}

export interface Diagnosis {
  findings: Finding[];
  readings: DiagnosisReadings;
}

/**
 * How the second server of an upstream/backend fails in a failover run: refuse new connections
 * (dropping the open ones), reset each connection at its next request, hang (accept, never
 * answer), or answer 502.
 */
export const FAIL_MODES = ['refuse', 'reset', 'hang', '502'] as const;
export type FailMode = (typeof FAIL_MODES)[number];

/** What the clients saw when one server failed mid-run (seconds of measurement, 1 s resolution). */
export interface FailoverResult {
  mode: FailMode;
  /** When the server failed, in seconds since the start of measurement. */
  failedAtS: number;
  errorsBefore: number;
  /** Errors from the failure to the end of the run. */
  errorsAfter: number;
  /** Highest per-second P99 before the failure, in the seconds with errors after it, and after those. */
  p99BeforeMs: number;
  p99DuringMs: number;
  p99AfterMs: number | null;
  /** Seconds from the failure until no more errors (0: none reached the clients; null: errors until the end). */
  recoveredAfterS: number | null;
}
