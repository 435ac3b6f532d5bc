// The built-in backend: a node:http (and https) server plus a TCP echo server, all on 127.0.0.1,
// running in a child process so its CPU is accounted apart from the generator's and a busy
// generator cannot delay its answers. It counts connections opened vs requests served (a new
// upstream connection per request is the missing-keepalive symptom) and can stall for tests.
// The child exits when its IPC channel closes, so it never outlives the process that started it.
import { fork, type ChildProcess } from 'node:child_process';
import * as http from 'node:http';
import * as https from 'node:https';
import * as http2 from 'node:http2';
import * as net from 'node:net';
import { readFileSync } from 'node:fs';
import type { BackendOptions, LatencySpec } from '../../protocol/bench';
import type { FailMode } from '../../protocol/diagnosis';
import { workerEntryPath, tsxExecArgv } from './paths';
import { readProcCpuSeconds } from '../../server/src/runner/proc';
import { closeHostListeners, hostListeners, INHERITED_FD_BASE, type Containment } from '../../server/src/runner/contain';
import { SupervisedProcess } from '../../server/src/runner/proxy';
import { FAILOVER_HOST } from '../../server/src/runner/sandbox/common';

export const MAX_RESPONSE_BYTES = 1024 * 1024;
export const BACKEND_FLAG = '--proxy-tuner-backend';

export interface BackendPorts {
  http: number;
  https: number;
  tcp: number;
  /** HTTP/2 without TLS (prior knowledge), for the direct baseline of the http2 scenario. */
  h2c: number;
  /**
   * Contained runs: the ports above are on the run's namespace loopback (where the proxy is);
   * these are the same servers on the host's loopback, where the engine's own load comes from.
   */
  host?: { http: number; https: number; tcp: number; h2c: number };
}

export interface BackendStats {
  /** HTTP(S) connections accepted. */
  connections: number;
  /** HTTP(S) requests answered. */
  requests: number;
  /** TCP echo connections accepted. */
  tcpConnections: number;
  /** Bytes echoed. */
  tcpBytes: number;
  /** Requests received per method (whole life, from `stats()` only). */
  methods?: Record<string, number>;
  /** Smallest and largest request body received, in bytes (whole life, from `stats()` only; 0/0 before any request). */
  bodyBytesMin?: number;
  bodyBytesMax?: number;
}

type ToChild =
  | { id: number; op: 'configure'; options: BackendOptions }
  | { id: number; op: 'stall'; ms: number }
  | { id: number; op: 'stats'; reset?: boolean }
  | { id: number; op: 'range'; from: number; to: number }
  | { id: number; op: 'fail'; mode: FailMode };

type FromChild = { op: 'ready'; ports: BackendPorts } | { op: 'fatal'; message: string } | { id: number; op: 'ok'; stats?: BackendStats };

const DEFAULT_BODY = Buffer.from(JSON.stringify({ ok: true, service: 'proxy-tuner-backend', items: [1, 2, 3] }) + '\n');

/**
 * Runs `fn` once at least `ms` have passed since now. Node's timers count from the time the event
 * loop read at the start of its current turn, so a timer armed late in a turn can fire up to that
 * turn's length early: the accuracy test once saw a 200 ms answer after 199.9 ms. When the timer
 * fires early, it is armed again for what is left.
 */
export function atLeastAfter(ms: number, fn: () => void): void {
  const due = performance.now() + ms;
  const check = () => {
    const left = due - performance.now();
    if (left > 0) setTimeout(check, Math.ceil(left));
    else fn();
  };
  setTimeout(check, ms);
}

/** Draws one latency (ms) from the spec; exported for tests of the distribution itself. */
export function sampleLatency(spec: LatencySpec | undefined, rnd: () => number = Math.random): number {
  if (!spec) return 0;
  switch (spec.kind) {
    case 'fixed':
      return Math.max(0, spec.ms);
    case 'uniform':
      return Math.max(0, spec.minMs + rnd() * (spec.maxMs - spec.minMs));
    case 'choice': {
      const total = spec.values.reduce((a, v) => a + Math.max(0, v.weight), 0);
      if (total <= 0) return 0;
      let x = rnd() * total;
      for (const v of spec.values) {
        x -= Math.max(0, v.weight);
        if (x < 0) return Math.max(0, v.ms);
      }
      return Math.max(0, spec.values[spec.values.length - 1].ms);
    }
    case 'exponential':
      return (spec.minMs ?? 0) + -Math.log(1 - rnd()) * spec.meanMs;
    default:
      return 0;
  }
}

function validateOptions(o: BackendOptions): void {
  if (o.responseBytes !== undefined && (!Number.isInteger(o.responseBytes) || o.responseBytes < 0 || o.responseBytes > MAX_RESPONSE_BYTES))
    throw new Error(`backend response size must be an integer from 0 to ${MAX_RESPONSE_BYTES} bytes`);
  if (o.status !== undefined && (!Number.isInteger(o.status) || o.status < 200 || o.status > 599))
    throw new Error('backend status must be an integer from 200 to 599');
}

/** Runs inside the child process. */
export function runBackendChild(): void {
  const send = (m: FromChild) => process.send?.(m);
  let options: BackendOptions = {};
  let body = DEFAULT_BODY;
  let stallUntil = 0;
  const stats: BackendStats = { connections: 0, requests: 0, tcpConnections: 0, tcpBytes: 0 };
  // Counts per 50 ms of wall time (a ring of 10 minutes), so that the parent can ask for exactly
  // the measured interval whatever the delay of its messages.
  const SLOT_MS = 50;
  const SLOTS = 12_000;
  const ring = { at: new Float64Array(SLOTS), conn: new Uint32Array(SLOTS), req: new Uint32Array(SLOTS), tcp: new Uint32Array(SLOTS) };
  const slot = () => {
    const t = Math.floor(Date.now() / SLOT_MS);
    const i = t % SLOTS;
    if (ring.at[i] !== t) {
      ring.at[i] = t;
      ring.conn[i] = 0;
      ring.req[i] = 0;
      ring.tcp[i] = 0;
    }
    return i;
  };
  const range = (from: number, to: number): BackendStats => {
    const out: BackendStats = { connections: 0, requests: 0, tcpConnections: 0, tcpBytes: 0 };
    const a = Math.floor(from / SLOT_MS);
    const b = Math.floor(to / SLOT_MS);
    for (let i = 0; i < SLOTS; i++) {
      const t = ring.at[i];
      if (t >= a && t < b) {
        out.connections += ring.conn[i];
        out.requests += ring.req[i];
        out.tcpConnections += ring.tcp[i];
      }
    }
    return out;
  };

  // What arrived: requests per method and the range of request body sizes (checks that a proxy
  // forwards the method and the body it was sent).
  let methods: Record<string, number> = {};
  let bodyMin = Number.POSITIVE_INFINITY;
  let bodyMax = 0;
  const received = (method: string, bytes: number) => {
    const m = method.length <= 16 ? method : method.slice(0, 16);
    methods[m] = (methods[m] ?? 0) + 1;
    if (bytes < bodyMin) bodyMin = bytes;
    if (bytes > bodyMax) bodyMax = bytes;
  };
  const handler = (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => {
    const answer = () => {
      const delay = Math.max(0, stallUntil - Date.now()) + sampleLatency(options.latency);
      const reply = () => {
        stats.requests++;
        ring.req[slot()]++;
        res.writeHead(options.status ?? 200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
        res.end(body);
      };
      if (delay > 0) atLeastAfter(delay, reply);
      else reply();
    };
    if (req.method === 'GET' || req.method === 'HEAD') {
      received(req.method, 0);
      req.resume();
      answer();
    } else {
      let bytes = 0;
      req.on('data', (b: Buffer) => (bytes += b.length));
      req.on('end', () => {
        received(req.method ?? '', bytes);
        answer();
      });
    }
  };
  const tuneServer = (s: http.Server) => {
    s.keepAliveTimeout = 120_000;
    s.headersTimeout = 130_000;
    s.requestTimeout = 0;
    s.maxRequestsPerSocket = 0;
    s.on('connection', (sock: net.Socket) => {
      stats.connections++;
      ring.conn[slot()]++;
      sock.setNoDelay(true);
    });
  };
  const certFile = process.env.PROXY_TUNER_BACKEND_CERT;
  const keyFile = process.env.PROXY_TUNER_BACKEND_KEY;
  const tlsPair = certFile && keyFile ? { cert: readFileSync(certFile), key: readFileSync(keyFile) } : null;
  const mkPlain = () => {
    const s = http.createServer(handler);
    tuneServer(s);
    return s;
  };
  const mkSecure = () => {
    if (!tlsPair) return null;
    const s = https.createServer(tlsPair, handler);
    tuneServer(s);
    return s;
  };
  const mkH2 = () => {
    const s = http2.createServer({}, handler);
    s.on('session', () => {
      stats.connections++;
      ring.conn[slot()]++;
    });
    return s;
  };
  const mkEcho = () =>
    net.createServer((sock) => {
      stats.tcpConnections++;
      ring.tcp[slot()]++;
      sock.setNoDelay(true);
      sock.on('data', (b) => {
        stats.tcpBytes += b.length;
        const delay = Math.max(0, stallUntil - Date.now());
        if (delay > 0) atLeastAfter(delay, () => sock.write(b));
        else sock.write(b);
      });
      sock.on('error', () => undefined);
    });
  const plain = mkPlain();
  // A failover run: the same HTTP server on a second loopback address (the upstream's second
  // server), which fails alone when told to.
  let failMode: FailMode | null = null;
  const secondSockets = new Set<net.Socket>();
  const second =
    process.env.PROXY_TUNER_BACKEND_SECOND === '1'
      ? http.createServer((req, res) => {
          if (failMode === '502') {
            req.resume();
            res.writeHead(502, { 'Content-Type': 'text/plain', 'Content-Length': 12 });
            res.end('bad gateway\n');
          } else if (failMode === 'reset') req.socket.resetAndDestroy();
          else if (failMode === 'hang') req.resume();
          else handler(req, res);
        })
      : null;
  if (second) {
    tuneServer(second);
    second.on('connection', (sock: net.Socket) => {
      if (failMode === 'refuse') return void sock.destroy();
      secondSockets.add(sock);
      sock.on('close', () => secondSockets.delete(sock));
    });
  }
  const secure = mkSecure();
  const h2 = mkH2();
  const echo = mkEcho();
  // Contained: the proxy reaches the servers above on the namespace's loopback; the engine's
  // direct baseline reaches these copies through listening sockets made on the host's loopback
  // and handed over as fds (http, https, tcp, h2c).
  const hostFds = (process.env.PROXY_TUNER_BACKEND_FDS ?? '').split(',').filter(Boolean).map(Number);
  const onFd = (s: net.Server | null, fd: number | undefined) =>
    new Promise<number>((resolve, reject) => {
      if (!s || fd === undefined || !(fd >= 0)) return resolve(0);
      s.once('error', reject);
      s.listen({ fd }, () => resolve((s.address() as net.AddressInfo).port));
    });
  const listen = (s: net.Server) =>
    new Promise<number>((resolve, reject) => {
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => resolve((s.address() as net.AddressInfo).port));
    });

  process.on('disconnect', () => process.exit(0));
  process.on('message', (m: ToChild) => {
    try {
      if (m.op === 'configure') {
        validateOptions(m.options);
        options = m.options;
        body = options.responseBytes === undefined ? DEFAULT_BODY : Buffer.alloc(options.responseBytes, 0x78);
        send({ id: m.id, op: 'ok' });
      } else if (m.op === 'fail') {
        failMode = m.mode;
        if (second && m.mode === 'refuse') {
          second.close();
          for (const sock of secondSockets) sock.destroy();
        }
        send({ id: m.id, op: 'ok' });
      } else if (m.op === 'stall') {
        stallUntil = Date.now() + Math.max(0, m.ms);
        send({ id: m.id, op: 'ok' });
      } else if (m.op === 'range') {
        send({ id: m.id, op: 'ok', stats: range(m.from, m.to) });
      } else if (m.op === 'stats') {
        const hadAny = Object.keys(methods).length > 0;
        send({
          id: m.id,
          op: 'ok',
          stats: { ...stats, methods: { ...methods }, bodyBytesMin: hadAny ? bodyMin : 0, bodyBytesMax: bodyMax },
        });
        if (m.reset) {
          methods = {};
          bodyMin = Number.POSITIVE_INFINITY;
          bodyMax = 0;
          stats.connections = 0;
          stats.requests = 0;
          stats.tcpConnections = 0;
          stats.tcpBytes = 0;
        }
      }
    } catch (e) {
      send({ op: 'fatal', message: (e as Error).message });
    }
  });
  Promise.all([
    listen(plain).then(async (port) => {
      if (second)
        await new Promise<void>((resolve, reject) => {
          second.once('error', reject);
          second.listen(port, FAILOVER_HOST, () => resolve());
        });
      return port;
    }),
    secure ? listen(secure) : Promise.resolve(0),
    listen(echo),
    listen(h2),
    ...(hostFds.length === 4
      ? [onFd(mkPlain(), hostFds[0]), onFd(mkSecure(), hostFds[1]), onFd(mkEcho(), hostFds[2]), onFd(mkH2(), hostFds[3])]
      : []),
  ]).then(
    ([h, s, t, h2c, hh, hs, ht, hh2]) =>
      send({
        op: 'ready',
        ports: { http: h, https: s, tcp: t, h2c, ...(hh !== undefined ? { host: { http: hh, https: hs, tcp: ht, h2c: hh2 } } : {}) },
      }),
    (e: Error) => {
      send({ op: 'fatal', message: e.message });
      process.exit(1);
    },
  );
}

/** Parent side: a running backend child. */
export class Backend {
  private seq = 0;
  private pending = new Map<number, { resolve: (s?: BackendStats) => void; reject: (e: Error) => void }>();
  private exited = false;
  private exitPromise: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly ports: BackendPorts,
    /** Set when the child runs contained under the supervisor (its process group). */
    private readonly supervised: SupervisedProcess | null = null,
  ) {
    this.exitPromise = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
    child.on('exit', () => {
      this.exited = true;
      for (const p of this.pending.values()) p.reject(new Error('backend exited'));
      this.pending.clear();
    });
    child.on('message', (m: FromChild) => {
      if ('id' in m) {
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        p?.resolve(m.stats);
      }
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Where the engine's own load (the direct baseline) reaches the backend. */
  get hostPorts(): Omit<BackendPorts, 'host'> {
    return this.ports.host ?? this.ports;
  }

  /**
   * Starts the backend child; `tls` gives it a certificate for its HTTPS port. With
   * `run.containment` (a run in namespace mode) it runs contained in the run's network namespace,
   * through the common spawn path (SupervisedProcess.start), with `run.dir` its writable folder.
   */
  static async start(
    options: BackendOptions = {},
    tls?: { certFile: string; keyFile: string },
    run?: { containment: Containment; dir: string },
    extra: { second?: boolean } = {},
  ): Promise<Backend> {
    validateOptions(options);
    const env = { ...process.env };
    if (extra.second) env.PROXY_TUNER_BACKEND_SECOND = '1';
    else delete env.PROXY_TUNER_BACKEND_SECOND;
    if (tls) {
      env.PROXY_TUNER_BACKEND_CERT = tls.certFile;
      env.PROXY_TUNER_BACKEND_KEY = tls.keyFile;
    } else {
      delete env.PROXY_TUNER_BACKEND_CERT;
      delete env.PROXY_TUNER_BACKEND_KEY;
    }
    const entry = workerEntryPath();
    let child: ChildProcess;
    let supervised: SupervisedProcess | null = null;
    if (run?.containment.contained) {
      const hl = await hostListeners(4);
      try {
        supervised = SupervisedProcess.start(process.execPath, [...tsxExecArgv(entry), entry, BACKEND_FLAG], run.dir, undefined, {
          containment: run.containment,
          ipc: true,
          fds: hl.map((l) => l.fd),
          env: {
            ...(tls ? { PROXY_TUNER_BACKEND_CERT: tls.certFile, PROXY_TUNER_BACKEND_KEY: tls.keyFile } : {}),
            PROXY_TUNER_BACKEND_FDS: hl.map((_l, i) => INHERITED_FD_BASE + i).join(','),
            ...(extra.second ? { PROXY_TUNER_BACKEND_SECOND: '1' } : {}),
          },
        });
      } finally {
        closeHostListeners(hl);
      }
      child = supervised.process;
    } else {
      child = fork(entry, [BACKEND_FLAG], {
        env,
        execArgv: tsxExecArgv(entry),
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        serialization: 'json',
      });
    }
    const kill = () => (supervised ? void supervised.stop() : child.kill('SIGKILL'));
    let stderr = '';
    child.stderr?.on('data', (b: Buffer) => {
      if (stderr.length < 8192) stderr += b.toString();
    });
    const ports = await new Promise<BackendPorts>((resolve, reject) => {
      const timer = setTimeout(() => {
        kill();
        reject(new Error('the built-in backend did not start within 10 s'));
      }, 10_000);
      child.on('message', (m: FromChild) => {
        if (m.op === 'ready') {
          clearTimeout(timer);
          resolve(m.ports);
        } else if (m.op === 'fatal') {
          clearTimeout(timer);
          kill();
          reject(new Error(`built-in backend: ${m.message}`));
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`built-in backend exited (code ${code}) ${(supervised?.output ?? stderr).trim()}`));
      });
    });
    const b = new Backend(child, ports, supervised);
    await b.call({ op: 'configure', options });
    return b;
  }

  private call(
    m:
      | { op: 'configure'; options: BackendOptions }
      | { op: 'stall'; ms: number }
      | { op: 'stats'; reset?: boolean }
      | { op: 'range'; from: number; to: number }
      | { op: 'fail'; mode: FailMode },
  ): Promise<BackendStats | undefined> {
    if (this.exited) return Promise.reject(new Error('backend exited'));
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.send({ ...m, id } as ToChild);
    });
  }

  configure(options: BackendOptions): Promise<void> {
    validateOptions(options);
    return this.call({ op: 'configure', options }).then(() => undefined);
  }

  /** Makes the second server (a backend started with `second`) fail from now on. */
  fail(mode: FailMode): Promise<void> {
    return this.call({ op: 'fail', mode }).then(() => undefined);
  }

  /** Holds every answer (and echo) for `ms` from now. */
  stall(ms: number): Promise<void> {
    return this.call({ op: 'stall', ms }).then(() => undefined);
  }

  async stats(reset = false): Promise<BackendStats> {
    const s = await this.call({ op: 'stats', reset });
    return s ?? { connections: 0, requests: 0, tcpConnections: 0, tcpBytes: 0 };
  }

  /**
   * Connections and requests between two wall-clock times (Date.now() values), to 50 ms. TCP
   * echo bytes are not kept per interval (tcpBytes is 0 here).
   */
  async statsBetween(from: number, to: number): Promise<BackendStats> {
    const s = await this.call({ op: 'range', from, to });
    return s ?? { connections: 0, requests: 0, tcpConnections: 0, tcpBytes: 0 };
  }

  cpuSeconds(): number {
    if (this.supervised) return this.supervised.cpuSeconds();
    return this.exited ? 0 : readProcCpuSeconds([this.pid]);
  }

  /** Process group of a contained backend (-1 when it is a plain child). */
  get pgid(): number {
    return this.supervised?.pgid ?? -1;
  }

  /** Stops the child (closing the IPC channel makes it exit; SIGKILL after 2 s). */
  async stop(): Promise<void> {
    if (this.exited) return;
    try {
      this.child.disconnect();
    } catch {
      // already disconnected
    }
    if (this.supervised) {
      // the child exits on the closed channel; the supervisor then ends its group (bounded)
      const t = setTimeout(() => void this.supervised?.stop(), 2000);
      await this.exitPromise;
      clearTimeout(t);
      await this.supervised.stop();
      return;
    }
    const t = setTimeout(() => this.child.kill('SIGKILL'), 2000);
    await this.exitPromise;
    clearTimeout(t);
  }
}
