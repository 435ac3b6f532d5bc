// Read-only, bounded readings of a running proxy for the diagnosis (Linux /proc): CPU split into
// user and system per worker, open files against the limit, sockets in TIME_WAIT and ephemeral
// ports of the proxy's network namespace (/proc/PID/net/tcp), the host's listen-queue counters
// (the proxy's listening sockets are the engine's, on the host's loopback), what the proxy's logs
// gained, and HAProxy's queues from its stats socket. Nothing here writes or signals anything.
import { closeSync, constants as fsc, fstatSync, openSync, readFileSync, readSync, readdirSync, statSync, existsSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { CpuReading, DiagnosisReadings } from '../../../protocol/diagnosis';
import { groupMembers } from '../../../server/src/runner/proc';

const TICKS = 100;
/** Lines of /proc/PID/net/tcp read per sample at most (a namespace with huge socket tables is cut). */
const MAX_SOCKET_LINES = 200_000;
/** Bytes of a log read at most per run. */
const MAX_LOG_BYTES = 4 * 1024 * 1024;
/** How often sockets, files and accept queues are sampled during measurement. */
export const SAMPLE_MS = 500;

interface Ticks {
  user: number;
  system: number;
  /** Nanoseconds on a CPU plus waiting for one (/proc/.../schedstat), NaN where unavailable. */
  demandNs: number;
}

function schedDemandNs(statFile: string): number {
  try {
    const [run, wait] = readFileSync(statFile.replace(/stat$/, 'schedstat'), 'latin1').trim().split(/\s+/).map(Number);
    return run + wait;
  } catch {
    return Number.NaN;
  }
}

function statTicks(file: string): Ticks | null {
  let s: string;
  try {
    s = readFileSync(file, 'latin1');
  } catch {
    return null;
  }
  const close = s.lastIndexOf(')');
  if (close < 0) return null;
  const f = s.slice(close + 2).split(' ');
  return { user: Number(f[11]), system: Number(f[12]), demandNs: schedDemandNs(file) };
}

function ppidOf(pid: number): number {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return -1;
  }
}

function comm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'latin1').trim();
  } catch {
    return '';
  }
}

/** Programs that start the proxy (containment, the matrix's loader scripts) rather than being it. */
const WRAPPERS = new Set(['bwrap', 'nsenter', 'sh', 'dash', 'bash', 'env', 'timeout', 'setpriv', 'unshare', 'prlimit']);

/**
 * The proxy's own processes in its group, wrappers left out. A binary may run through a loader
 * (the version matrix's `ld-linux` scripts), so the name is not enough: any member that is not a
 * known wrapper is the proxy.
 */
export function proxyPids(pgid: number): number[] {
  if (pgid <= 0) return [];
  return groupMembers(pgid)
    .map((s) => s.pid)
    .filter((p) => {
      const c = comm(p);
      return c !== '' && !WRAPPERS.has(c);
    });
}

/**
 * The workers: nginx's worker processes (children of its master), HAProxy's threads. Keyed by a
 * stable id, valued by the /proc stat file to read.
 */
export function workerStatFiles(kind: 'nginx' | 'haproxy', pids: number[]): Map<string, string> {
  const out = new Map<string, string>();
  const set = new Set(pids);
  for (const p of pids) {
    if (kind === 'nginx') {
      if (set.has(ppidOf(p))) out.set(String(p), `/proc/${p}/stat`);
      continue;
    }
    let tids: string[] = [];
    try {
      tids = readdirSync(`/proc/${p}/task`);
    } catch {
      continue;
    }
    for (const t of tids.slice(0, 256)) out.set(`${p}/${t}`, `/proc/${p}/task/${t}/stat`);
  }
  // nginx with `master_process off` or a single process: the process itself works
  if (out.size === 0) for (const p of pids) out.set(String(p), `/proc/${p}/stat`);
  return out;
}

/** TcpExt counters of a /proc/.../net/netstat file. */
export function netstatCounters(file: string): Record<string, number> {
  const out: Record<string, number> = {};
  let text = '';
  try {
    text = readFileSync(file, 'latin1');
  } catch {
    return out;
  }
  const lines = text.split('\n');
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const names = lines[i].split(/\s+/);
    const values = lines[i + 1].split(/\s+/);
    if (names[0] !== 'TcpExt:' || values[0] !== 'TcpExt:') continue;
    for (let k = 1; k < names.length; k++) out[names[k]] = Number(values[k]);
  }
  return out;
}

export function readNumberFile(file: string): number[] | null {
  try {
    return readFileSync(file, 'latin1').trim().split(/\s+/).map(Number);
  } catch {
    return null;
  }
}

export interface SocketCounts {
  timeWait: number;
  ephemeralInUse: number;
  /** Accept-queue length of listening sockets on the given ports. */
  acceptQueue: number;
}

/** Counts sockets of /proc/.../net/tcp and tcp6 (states: 06 TIME_WAIT, 0A LISTEN). */
export function countSockets(dir: string, range: [number, number], listenPorts: ReadonlySet<number> = new Set()): SocketCounts {
  const out: SocketCounts = { timeWait: 0, ephemeralInUse: 0, acceptQueue: 0 };
  let seen = 0;
  for (const f of ['tcp', 'tcp6']) {
    let text = '';
    try {
      text = readFileSync(path.join(dir, f), 'latin1');
    } catch {
      continue;
    }
    let at = text.indexOf('\n') + 1;
    while (at > 0 && at < text.length && seen < MAX_SOCKET_LINES) {
      const end = text.indexOf('\n', at);
      const line = text.slice(at, end < 0 ? text.length : end).trim();
      at = end < 0 ? text.length : end + 1;
      seen++;
      const cols = line.split(/\s+/);
      if (cols.length < 5) continue;
      const port = parseInt(cols[1].slice(cols[1].lastIndexOf(':') + 1), 16);
      const st = cols[3];
      if (st === '0A') {
        if (listenPorts.has(port)) out.acceptQueue += parseInt(cols[4].split(':')[1] ?? '0', 16) || 0;
        continue;
      }
      if (st === '06') out.timeWait++;
      if (port >= range[0] && port <= range[1]) out.ephemeralInUse++;
    }
  }
  return out;
}

function fileCount(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

/** The soft limit on open files of a process (`Max open files`), null when unknown. */
export function fileLimit(pid: number): number | null {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync(`/proc/${pid}/limits`, 'latin1'));
    return m && m[1] !== 'unlimited' ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** A regular file's size (0 for anything else: the proxy may swap a log for a FIFO or a device). */
function sizeOf(file: string): number {
  try {
    const st = statSync(file);
    return st.isFile() ? st.size : 0;
  } catch {
    return 0;
  }
}

/** The bytes a regular file gained after `from` (at most MAX_LOG_BYTES), as text; never blocks. */
function readFrom(file: string, from: number): string {
  let fd = -1;
  try {
    fd = openSync(file, fsc.O_RDONLY | (fsc.O_NONBLOCK ?? 0) | (fsc.O_NOCTTY ?? 0));
    const st = fstatSync(fd);
    if (!st.isFile()) return '';
    const size = Math.min(st.size - from, MAX_LOG_BYTES);
    if (size <= 0) return '';
    const buf = Buffer.alloc(size);
    const n = readSync(fd, buf, 0, size, from);
    return buf.subarray(0, n).toString('latin1');
  } catch {
    return '';
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/** Causes the diagnosis counts in nginx's error log, by the text nginx writes. */
export const ERROR_LOG_CAUSES: [string, RegExp][] = [
  ['worker_connections', /worker_connections are not enough/],
  ['limit_req', /limiting requests/],
  ['limit_conn', /limiting connections/],
  ['upstream_refused', /connect\(\) failed \(111/],
  ['upstream_reset', /\(104: Connection reset by peer\) while reading response header from upstream/],
  ['upstream_timeout', /upstream timed out/],
  ['upstream_closed', /upstream prematurely closed/],
  ['no_live_upstreams', /no live upstreams/],
  ['too_many_files', /Too many open files/],
];

export function countErrorLog(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line) continue;
    for (const [k, re] of ERROR_LOG_CAUSES)
      if (re.test(line)) {
        out[k] = (out[k] ?? 0) + 1;
        break;
      }
  }
  return out;
}

/** HAProxy's `show stat` rows that queued (qmax > 0), from its stats socket; bounded to 1 s. */
export function haproxyQueues(socket: string): Promise<NonNullable<DiagnosisReadings['queues']>> {
  return new Promise((resolve) => {
    if (!existsSync(socket)) return resolve([]);
    let text = '';
    const done = () => {
      clearTimeout(timer);
      s.destroy();
      resolve(parseShowStat(text));
    };
    const s = net.connect(socket, () => s.end('show stat\n'));
    const timer = setTimeout(done, 1000);
    s.setEncoding('latin1');
    s.on('data', (d: string) => {
      if (text.length < 1_000_000) text += d;
    });
    s.on('end', done);
    s.on('error', done);
  });
}

export function parseShowStat(text: string): NonNullable<DiagnosisReadings['queues']> {
  const lines = text.split('\n').filter((l) => l.trim());
  if (lines.length === 0 || !lines[0].startsWith('#')) return [];
  const head = lines[0].replace(/^#\s*/, '').split(',');
  const col = (n: string) => head.indexOf(n);
  const [px, sv, qmax, qtime] = [col('pxname'), col('svname'), col('qmax'), col('qtime')];
  if (px < 0 || sv < 0 || qmax < 0) return [];
  const out: NonNullable<DiagnosisReadings['queues']> = [];
  for (const l of lines.slice(1)) {
    const f = l.split(',');
    const q = Number(f[qmax]);
    if (q > 0) out.push({ proxy: f[px], server: f[sv], qmax: q, qtime: qtime >= 0 ? Number(f[qtime]) || 0 : 0 });
  }
  return out;
}

export interface ProbeTarget {
  kind: 'nginx' | 'haproxy';
  pgid: number;
  /** The sandbox folder (its logs/ and admin.sock). */
  dir: string;
  mode: 'namespace' | 'rewrite-only';
  cpusGiven: number;
}

/**
 * Samples a running proxy between start() (the start of measurement) and finish(). Each sample
 * reads a few /proc files; the sampler stops at finish() or dispose() whatever happens.
 */
export class Probe {
  private timer: NodeJS.Timeout | null = null;
  private cpu0 = new Map<string, Ticks>();
  private t0 = 0;
  private net0: Record<string, number> = {};
  private accessFrom = 0;
  private errorFrom = 0;
  private timeWaitPeak = 0;
  private ephemeralPeak = 0;
  private filesPeak = 0;
  private filesLimit: number | null = null;
  private pids: number[] = [];
  /** Milliseconds the engine spent reading during measurement (the diagnosis' own cost). */
  private spentMs = 0;
  readonly range: [number, number];

  constructor(readonly target: ProbeTarget) {
    const r = readNumberFile('/proc/sys/net/ipv4/ip_local_port_range');
    this.range = r && r.length === 2 ? [r[0], r[1]] : [32768, 60999];
  }

  /**
   * Where the engine sees a path of the proxy's run folder: a contained proxy writes into a tmpfs
   * of its own mount namespace, reached through /proc/PID/root (read-only use: sizes, counts,
   * the stats socket); a proxy in rewrite-only mode writes into the folder itself.
   */
  private seen(p: string): string {
    for (const pid of this.pids) {
      const q = `/proc/${pid}/root${p}`;
      if (existsSync(q)) return q;
    }
    return p;
  }

  private get accessLog(): string {
    return this.seen(path.join(this.target.dir, 'logs', 'access.log'));
  }

  private get errorLog(): string {
    return this.seen(path.join(this.target.dir, 'logs', 'error.log'));
  }

  private workerTicks(): Map<string, Ticks> {
    const out = new Map<string, Ticks>();
    for (const [k, f] of workerStatFiles(this.target.kind, this.pids)) {
      const t = statTicks(f);
      if (t) out.set(k, t);
    }
    return out;
  }

  /** Readings at the start of measurement, then a sample every SAMPLE_MS. */
  start(): void {
    this.pids = proxyPids(this.target.pgid);
    this.cpu0 = this.workerTicks();
    this.t0 = performance.now();
    this.net0 = netstatCounters('/proc/self/net/netstat');
    this.accessFrom = sizeOf(this.accessLog);
    this.errorFrom = sizeOf(this.errorLog);
    this.filesLimit = this.pids.length ? fileLimit(this.pids[this.pids.length - 1]) : null;
    this.sample();
    this.timer = setInterval(() => this.sample(), SAMPLE_MS);
    this.timer.unref();
  }

  private sample(): void {
    const t0 = performance.now();
    this.sampleOnce();
    this.spentMs += performance.now() - t0;
  }

  private sampleOnce(): void {
    for (const p of this.pids) this.filesPeak = Math.max(this.filesPeak, fileCount(p));
  }

  /**
   * The socket table of the proxy's namespace, read once at the end: a TIME_WAIT socket stays 60 s,
   * so the count at the end of a run holds every one the run made (and reading the table walks
   * the kernel's whole hash, several ms of CPU: too dear to repeat during the run).
   */
  private readSockets(): void {
    const nsPid = this.pids[0];
    if (nsPid === undefined) return;
    const s = countSockets(`/proc/${nsPid}/net`, this.range);
    this.timeWaitPeak = s.timeWait;
    this.ephemeralPeak = s.ephemeralInUse;
  }

  /** Stops sampling and returns what was read (before the proxy stops). */
  async finish(): Promise<DiagnosisReadings> {
    this.dispose();
    this.sample();
    this.readSockets();
    const missing: string[] = [];
    const t1 = this.workerTicks();
    const wallNs = (performance.now() - this.t0) * 1e6;
    const perWorker: number[] = [];
    const demand: number[] = [];
    let user = 0;
    let system = 0;
    for (const [k, t] of t1) {
      const a = this.cpu0.get(k) ?? { user: 0, system: 0, demandNs: 0 };
      const du = Math.max(0, t.user - a.user);
      const ds = Math.max(0, t.system - a.system);
      user += du;
      system += ds;
      perWorker.push((du + ds) / TICKS);
      const dd = t.demandNs - a.demandNs;
      if (Number.isFinite(dd) && wallNs > 0) demand.push(Math.round((Math.max(0, dd) / wallNs) * 100) / 100);
    }
    perWorker.sort((a, b) => b - a);
    demand.sort((a, b) => b - a);
    const cpu: CpuReading = {
      userSeconds: user / TICKS,
      systemSeconds: system / TICKS,
      perWorker: perWorker.map((x) => Math.round(x * 100) / 100),
      demand: demand.length === perWorker.length ? demand : undefined,
      cpusGiven: this.target.cpusGiven,
    };
    const net1 = netstatCounters('/proc/self/net/netstat');
    const somax = readNumberFile('/proc/sys/net/core/somaxconn');
    const readings: DiagnosisReadings = {
      cpu: this.pids.length ? cpu : undefined,
      sockets: this.pids.length
        ? { timeWaitPeak: this.timeWaitPeak, ephemeralInUsePeak: this.ephemeralPeak, portRange: this.range }
        : undefined,
      listen: {
        overflows: Math.max(0, (net1.ListenOverflows ?? 0) - (this.net0.ListenOverflows ?? 0)),
        drops: Math.max(0, (net1.ListenDrops ?? 0) - (this.net0.ListenDrops ?? 0)),
        backlog: null,
        somaxconn: somax ? somax[0] : null,
      },
      files: this.pids.length ? { peak: this.filesPeak, limit: this.filesLimit } : undefined,
      missing,
    };
    if (this.pids.length === 0) missing.push('the proxy processes were not found: no CPU, socket or file readings');
    if (this.target.mode === 'rewrite-only')
      missing.push('rewrite-only mode: socket counts (TIME_WAIT, ephemeral ports) are the whole host, other programs included');
    missing.push('listen-queue overflows are counted host-wide (the listening sockets are on the host loopback)');
    if (this.target.kind === 'nginx') {
      readings.errorLog = countErrorLog(readFrom(this.errorLog, this.errorFrom));
      readings.accessLogBytes = Math.max(0, sizeOf(this.accessLog) - this.accessFrom);
    } else {
      const sock = this.seen(path.join(this.target.dir, 'admin.sock'));
      if (existsSync(sock)) readings.queues = await haproxyQueues(sock);
      else missing.push('HAProxy queues: the config has no `stats socket` to read them from');
    }
    readings.costMs = Math.round(this.spentMs * 100) / 100;
    return readings;
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
