// The load generator's inner loop; runs inside a worker thread (see loadWorker.ts).
// Raw net/tls sockets with a lean HTTP/1.1 parser (no pipelining), node:http2 for HTTP/2 and a
// raw echo exchange for L4. Closed model: each connection sends its next request as soon as the
// previous answer is complete. Open model: request i is due at t0 + i/R and its latency is measured
// from that intended time, so a stalled server cannot hide behind a waiting generator.
// The loop stops by itself at endAt (plus a short grace for requests in flight).
import * as net from 'node:net';
import * as tls from 'node:tls';
import * as http2 from 'node:http2';
import { performance } from 'node:perf_hooks';
import type { ErrorCounts, ScenarioName, StepLoad } from '../../protocol/bench';
import { GET_POST_MIX, scenarioFacts, TCP_ECHO_BYTES } from '../../protocol/scenarios';
import { Feed, H1ResponseParser } from './h1parser';
import { threadCpuSeconds } from '../../server/src/runner/proc';

export interface LoadTarget {
  host: string;
  port: number;
  tls: boolean;
}

export interface WorkerConfig {
  id: number;
  scenario: ScenarioName;
  target: LoadTarget;
  /** TLS listener for the TLS share of the `mixed` scenario. */
  tlsTarget?: LoadTarget;
  connections: number;
  /** Requests per second for this worker; 0 = closed model. */
  rate: number;
  /** Shifts this worker's schedule so workers interleave (ms). */
  phaseOffsetMs: number;
  path: string;
  hostHeader: string;
  streams: number;
  timeoutMs: number;
  /** Epoch ms (performance.timeOrigin + performance.now()) of warm-up start, measurement start, end. */
  startAt: number;
  measureAt: number;
  endAt: number;
  step?: StepLoad;
  /** How long to wait for requests in flight after endAt. */
  graceMs: number;
  /** Request method of the HTTP scenarios (get-post-mix keeps its own mix). */
  method: string;
  /** Body sent with each request (a structured clone of the caller's bytes), or null. */
  body: Uint8Array | null;
  contentType: string;
  /** CPUs this worker thread pins itself to before it reports ready (placement.ts); absent: not pinned. */
  cpus?: number[];
}

/** Methods that need a Content-Length even without a body (nginx answers 411 otherwise). */
const LENGTH_REQUIRED = new Set(['POST', 'PUT', 'PATCH']);

export type ErrorKind = keyof ErrorCounts;

export interface BatchMessage {
  type: 'batch';
  worker: number;
  /** Second (relative to measureAt) in which these requests were due or started: 0 = first measured second; negative = warm-up. */
  sec: number;
  /** Latencies in microseconds; the first n entries are valid. */
  lat: Float64Array;
  n: number;
  errors: Partial<ErrorCounts>;
  tlsFull: number;
  tlsResumed: number;
  /** Non-2xx responses by status code. */
  statuses?: Record<number, number>;
}

export interface DoneMessage {
  type: 'done';
  worker: number;
  inFlightDropped: number;
  /** CPU seconds of this thread from measurement start to the end; null where unknown. */
  cpuSeconds: number | null;
}

export type WorkerMessage =
  BatchMessage | DoneMessage | { type: 'ready'; worker: number; pinError?: string } | { type: 'fatal'; worker: number; message: string };

const READ_BUF_SIZE = 64 * 1024;
const TCP_MESSAGE = Buffer.alloc(TCP_ECHO_BYTES, 0x61);
const POST_BODY = Buffer.from(GET_POST_MIX.postBody);

interface Slot {
  busy: boolean;
  /** performance.now() when the current request started (connect or write). */
  startedAt: number;
  /** intended: when the request was due (latency start); now: performance.now() at the call. */
  start(intended: number, now: number): void;
  checkTimeout(now: number, timeoutMs: number): void;
  destroy(): void;
}

type Sink = (slot: Slot, latencyStartRel: number, status: number) => void;

interface Batch {
  lat: Float64Array;
  n: number;
  errors: Partial<ErrorCounts>;
  tlsFull: number;
  tlsResumed: number;
  statuses?: Record<number, number>;
}

function classify(err: NodeJS.ErrnoException | undefined, connected: boolean, tlsConn: boolean): ErrorKind {
  const code = err?.code ?? '';
  if (!connected) {
    if (tlsConn && (code.startsWith('ERR_SSL') || code === 'ECONNRESET' || /ssl|tls|handshake/i.test(err?.message ?? ''))) return 'tls';
    return 'connect';
  }
  if (code === 'ETIMEDOUT') return 'timeout';
  return 'reset';
}

export class Generator {
  private readonly cfg: WorkerConfig;
  private readonly post: (m: WorkerMessage, transfer?: ArrayBuffer[]) => void;
  /** performance.now() value of cfg.startAt / measureAt / endAt in this thread. */
  private readonly tStart: number;
  private readonly tMeasure: number;
  private readonly tEnd: number;
  private running = true;
  private finished = false;
  private slots: Slot[] = [];
  private free: Slot[] = [];
  private readonly readBuf = Buffer.allocUnsafe(READ_BUF_SIZE);
  // open model
  private nextIntended = 0;
  private pumpTimer: NodeJS.Timeout | null = null;
  private stepIndex = 0;
  // latencies waiting to go to the main thread, by second
  private sec = Number.NaN;
  private batches = new Map<number, Batch>();
  private timers: NodeJS.Timeout[] = [];
  private readonly reqGet: Buffer;
  private readonly reqGetClose: Buffer;
  private readonly reqPost: Buffer;
  /** The get-post-mix scenario's GET (the other scenarios' request may have another method). */
  private readonly reqMixGet: Buffer;
  private readonly headRequest: boolean;
  private readonly h2Body: Buffer | null;
  private reqCounter = 0;

  constructor(cfg: WorkerConfig, post: (m: WorkerMessage, transfer?: ArrayBuffer[]) => void) {
    this.cfg = cfg;
    this.post = post;
    const origin = performance.timeOrigin;
    this.tStart = cfg.startAt - origin;
    this.tMeasure = cfg.measureAt - origin;
    this.tEnd = cfg.endAt - origin;
    // The scenario's request: GET unless a method (and body) was given.
    const method = cfg.method || 'GET';
    const body = cfg.body && cfg.body.byteLength > 0 ? Buffer.from(cfg.body.buffer, cfg.body.byteOffset, cfg.body.byteLength) : null;
    let base = `${method} ${cfg.path} HTTP/1.1\r\nHost: ${cfg.hostHeader}\r\nUser-Agent: proxy-tuner-bench\r\n`;
    if (body) base += `Content-Type: ${cfg.contentType}\r\nContent-Length: ${body.length}\r\n`;
    else if (LENGTH_REQUIRED.has(method)) base += 'Content-Length: 0\r\n';
    const withBody = (head: string) => (body ? Buffer.concat([Buffer.from(head, 'latin1'), body]) : Buffer.from(head, 'latin1'));
    this.reqGet = withBody(base + '\r\n');
    this.reqGetClose = withBody(base + 'Connection: close\r\n\r\n');
    this.headRequest = method === 'HEAD';
    this.h2Body = body;
    this.reqPost = Buffer.concat([
      Buffer.from(
        `POST ${cfg.path} HTTP/1.1\r\nHost: ${cfg.hostHeader}\r\nUser-Agent: proxy-tuner-bench\r\n` +
          `Content-Type: ${GET_POST_MIX.postContentType}\r\nContent-Length: ${POST_BODY.length}\r\n\r\n`,
        'latin1',
      ),
      POST_BODY,
    ]);
    this.reqMixGet = Buffer.from(`GET ${cfg.path} HTTP/1.1\r\nHost: ${cfg.hostHeader}\r\nUser-Agent: proxy-tuner-bench\r\n\r\n`, 'latin1');
  }

  run(): void {
    const c = this.cfg;
    const conns = Math.max(1, Math.floor(c.connections));
    for (let i = 0; i < conns; i++) this.addConnectionSlots(i);
    const wait = Math.max(0, this.tStart - performance.now());
    this.timers.push(
      setTimeout(() => {
        if (c.rate > 0) {
          this.nextIntended = this.tStart + c.phaseOffsetMs;
          this.free = [...this.slots];
          this.pump();
        } else {
          for (const s of this.slots) this.startNext(s);
        }
      }, wait),
    );
    // Time-outs, periodic flushes, step load and the end: all timers, all cleared at finish.
    this.timers.push(setInterval(() => this.tick(), 100));
    this.timers.push(setTimeout(() => this.stop(), Math.max(0, this.tEnd - performance.now())));
    this.timers.push(setTimeout(() => (this.cpuAtMeasure = threadCpuSeconds()), Math.max(0, this.tMeasure - performance.now())));
    if (c.step && c.step.intervalMs > 0 && c.step.percent > 0) {
      this.timers.push(setInterval(() => this.stepUp(), c.step.intervalMs));
    }
  }

  private addConnectionSlots(i: number): void {
    const c = this.cfg;
    const sink: Sink = (slot, t0, status) => this.complete(slot, t0, status);
    const err = (slot: Slot, kind: ErrorKind, backoff: boolean) => this.fail(slot, kind, backoff);
    const tlsCount = (resumed: boolean) => this.countTls(resumed);
    const f = scenarioFacts(c.scenario);
    const h1 = (target: LoadTarget, keepAlive: boolean, tlsMode: TlsMode, next: () => Buffer) =>
      this.slots.push(new H1Slot(target, keepAlive, tlsMode, next, sink, err, tlsCount, this.readBuf, this.headRequest));
    if (f.transport === 'http2') {
      const sess = new H2Session(c.target, c.hostHeader, c.path, sink, err, c.method || 'GET', this.h2Body, c.contentType);
      for (let k = 0; k < Math.max(1, c.streams); k++) this.slots.push(new H2Slot(sess));
      return;
    }
    if (f.transport === 'tcp') {
      this.slots.push(new TcpSlot(c.target, sink, err, this.readBuf));
      return;
    }
    if (f.connections === 'mix' && f.mix) {
      // connection i's kind, by the mix's shares of every (keepAlive + close + tlsClose) connections
      const m = f.mix;
      const k = i % (m.keepAlive + m.close + m.tlsClose);
      if (k < m.keepAlive) h1(c.target, true, 'none', () => this.reqGet);
      else if (k < m.keepAlive + m.close || !c.tlsTarget) h1(c.target, false, 'none', () => this.reqGetClose);
      else h1(c.tlsTarget, false, 'none', () => this.reqGetClose);
      return;
    }
    const keepAlive = f.connections === 'keep-alive';
    const next = f.requests === 'get-post-mix' ? () => this.nextMixRequest() : keepAlive ? () => this.reqGet : () => this.reqGetClose;
    h1(c.target, keepAlive, f.tls === 'resume' ? 'resume' : 'none', next);
  }

  /** get-post-mix: GETs and POSTs in the fixed interleaving of GET_POST_MIX. */
  private nextMixRequest(): Buffer {
    const k = this.reqCounter++ % GET_POST_MIX.of;
    return GET_POST_MIX.postAt.includes(k) ? this.reqPost : this.reqMixGet;
  }

  private stepUp(): void {
    if (!this.running) return;
    const c = this.cfg;
    const step = c.step!;
    this.stepIndex++;
    if (c.rate === 0) {
      // closed model: add connections
      const base = Math.max(1, Math.floor(c.connections));
      const add = Math.max(1, Math.round((base * step.percent) / 100));
      for (let j = 0; j < add && this.slots.length < 10000; j++) {
        const before = this.slots.length;
        this.addConnectionSlots(before);
        for (let k = before; k < this.slots.length; k++) this.startNext(this.slots[k]);
      }
    }
  }

  private currentRate(): number {
    const c = this.cfg;
    if (!c.step) return c.rate;
    return c.rate * (1 + (this.stepIndex * c.step.percent) / 100);
  }

  /** Current load level for progress: offered rate (open) or slots (closed). */
  private pump(): void {
    this.pumpTimer = null;
    if (!this.running) return;
    const now = performance.now();
    // Bounded: at most one iteration per free slot.
    while (this.nextIntended <= now && this.free.length > 0) {
      const s = this.free.pop()!;
      const intended = this.nextIntended;
      this.nextIntended += 1000 / this.currentRate();
      s.start(intended, now);
    }
    if (this.nextIntended > now) {
      this.pumpTimer = setTimeout(() => this.pump(), this.nextIntended - now);
    }
    // Otherwise requests are overdue and wait for a slot; complete() pumps again.
  }

  /** `now`: a fresh performance.now() when the caller has one. */
  private startNext(s: Slot, now?: number): void {
    if (!this.running) return;
    if (this.cfg.rate > 0) {
      this.free.push(s);
      if (this.pumpTimer === null) this.pump();
    } else {
      const t = now ?? performance.now();
      s.start(t, t);
    }
  }

  /** Second index (relative to measureAt) of a performance.now() value. */
  private secOf(t: number): number {
    return Math.floor((t - this.tMeasure) / 1000);
  }

  private lastSec = Number.NaN;
  private lastBatch: Batch | null = null;

  /** The batch of a second, created on first use. */
  private batch(sec: number): Batch {
    if (sec === this.lastSec && this.lastBatch !== null) return this.lastBatch;
    let b = this.batches.get(sec);
    if (!b) {
      b = { lat: new Float64Array(4096), n: 0, errors: {}, tlsFull: 0, tlsResumed: 0 };
      this.batches.set(sec, b);
    }
    this.lastSec = sec;
    this.lastBatch = b;
    return b;
  }

  /** Sends the batches when the wall-clock second changes (for live progress). */
  private bucket(now: number): void {
    const sec = this.secOf(now);
    if (sec !== this.sec) {
      this.flush();
      this.sec = sec;
    }
  }

  /**
   * A request is counted in the second it was due (open model) or started (closed model), not
   * the one it completed in: a stall then shows where it happened, and the measured window holds
   * exactly the requests offered in it.
   */
  private complete(slot: Slot, t0: number, status: number): void {
    const now = performance.now();
    this.bucket(now);
    const b = this.batch(this.secOf(t0));
    if (b.n === b.lat.length) {
      const grown = new Float64Array(b.lat.length * 2);
      grown.set(b.lat);
      b.lat = grown;
    }
    b.lat[b.n++] = (now - t0) * 1000;
    if (status < 200 || status > 299) {
      b.errors.non2xx = (b.errors.non2xx ?? 0) + 1;
      const st = (b.statuses ??= {});
      st[status] = (st[status] ?? 0) + 1;
    }
    if (now >= this.tEnd) {
      this.maybeFinish();
      return;
    }
    this.startNext(slot, now);
  }

  private fail(slot: Slot, kind: ErrorKind, backoff: boolean): void {
    const now = performance.now();
    this.bucket(now);
    const b = this.batch(this.secOf(now));
    b.errors[kind] = (b.errors[kind] ?? 0) + 1;
    if (!this.running) {
      this.maybeFinish();
      return;
    }
    if (backoff) {
      const t = setTimeout(() => {
        const i = this.timers.indexOf(t);
        if (i >= 0) this.timers.splice(i, 1);
        this.startNext(slot);
      }, 10);
      this.timers.push(t);
    } else {
      this.startNext(slot);
    }
  }

  private ticks = 0;
  private cpuAtMeasure: number | null = null;

  private tick(): void {
    const now = performance.now();
    for (const s of this.slots) if (s.busy) s.checkTimeout(now, this.cfg.timeoutMs);
    // Batches go to the main thread at each second boundary (bucket) and at least every second:
    // every message costs the main thread a wake-up, which on a shared core delays this loop.
    this.bucket(now);
    if (++this.ticks % 10 === 0) this.flush();
  }

  private countTls(resumed: boolean): void {
    const b = this.batch(this.secOf(performance.now()));
    if (resumed) b.tlsResumed++;
    else b.tlsFull++;
  }

  private flush(): void {
    for (const [sec, b] of this.batches) {
      if (b.n === 0 && Object.keys(b.errors).length === 0 && b.tlsFull === 0 && b.tlsResumed === 0) continue;
      const msg: BatchMessage = {
        type: 'batch',
        worker: this.cfg.id,
        sec,
        lat: b.lat,
        n: b.n,
        errors: b.errors,
        tlsFull: b.tlsFull,
        tlsResumed: b.tlsResumed,
        statuses: b.statuses,
      };
      this.post(msg, [b.lat.buffer as ArrayBuffer]);
    }
    this.batches.clear();
    this.lastBatch = null;
  }

  stop(): void {
    if (!this.running) return;
    this.running = false;
    if (this.pumpTimer) clearTimeout(this.pumpTimer);
    this.pumpTimer = null;
    this.timers.push(setTimeout(() => this.finish(), this.cfg.graceMs));
    this.maybeFinish();
  }

  private maybeFinish(): void {
    if (this.running) return;
    if (this.slots.every((s) => !s.busy)) this.finish();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.running = false;
    let dropped = 0;
    for (const s of this.slots) {
      if (s.busy) dropped++;
      s.destroy();
    }
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    if (this.pumpTimer) clearTimeout(this.pumpTimer);
    this.bucket(performance.now());
    this.flush();
    const cpuNow = threadCpuSeconds();
    const cpuSeconds = cpuNow !== null && this.cpuAtMeasure !== null ? cpuNow - this.cpuAtMeasure : null;
    this.post({ type: 'done', worker: this.cfg.id, inFlightDropped: dropped, cpuSeconds });
  }
}

type TlsMode = 'none' | 'resume';

/** One HTTP/1.1 connection slot: keep-alive (reused) or a new connection per request. */
class H1Slot implements Slot {
  busy = false;
  startedAt = 0;
  private sock: net.Socket | null = null;
  private connected = false;
  private t0 = 0;
  private readonly parser = new H1ResponseParser();
  private session: Buffer | undefined;
  private failed = false;
  private req: Buffer | null = null;

  constructor(
    private readonly target: LoadTarget,
    private readonly keepAlive: boolean,
    private readonly tlsMode: TlsMode,
    private readonly nextRequest: () => Buffer,
    private readonly sink: Sink,
    private readonly onError: (s: Slot, kind: ErrorKind, backoff: boolean) => void,
    private readonly tlsCount: (resumed: boolean) => void,
    private readonly readBuf: Buffer,
    headRequest = false,
  ) {
    this.parser.headRequest = headRequest;
  }

  start(intended: number, now: number): void {
    this.busy = true;
    this.failed = false;
    this.t0 = intended;
    this.startedAt = now;
    this.parser.reset();
    this.req = this.nextRequest();
    if (this.sock !== null && this.connected) {
      this.sock.write(this.req);
    } else {
      if (this.sock !== null) this.drop();
      this.connect();
    }
  }

  private connect(): void {
    const t = this.target;
    let sock: net.Socket;
    if (t.tls) {
      const opts: tls.ConnectionOptions = { host: t.host, port: t.port, rejectUnauthorized: false };
      if (!net.isIP(t.host)) opts.servername = t.host;
      if (this.tlsMode === 'resume' && this.session) opts.session = this.session;
      const ts = tls.connect(opts);
      ts.on('secureConnect', () => {
        this.connected = true;
        this.tlsCount(ts.isSessionReused());
        ts.setNoDelay(true);
        if (this.busy && this.req) ts.write(this.req);
      });
      if (this.tlsMode === 'resume') ts.on('session', (s: Buffer) => (this.session = s));
      ts.on('data', (b: Buffer) => this.onBytes(ts, b, 0, b.length));
      sock = ts;
    } else {
      sock = net.connect({
        host: t.host,
        port: t.port,
        onread: {
          buffer: this.readBuf,
          callback: (n: number, b: Uint8Array) => {
            this.onBytes(sock, b as Buffer, 0, n);
            return true;
          },
        },
      } as net.NetConnectOpts);
      sock.on('connect', () => {
        this.connected = true;
        sock.setNoDelay(true);
        if (this.busy && this.req) sock.write(this.req);
      });
    }
    this.sock = sock;
    this.connected = false;
    sock.on('error', (e: NodeJS.ErrnoException) => this.onSockError(sock, e));
    sock.on('close', () => this.onSockClose(sock));
    sock.on('end', () => this.onSockEnd(sock));
  }

  private onBytes(sock: net.Socket, b: Buffer, s: number, e: number): void {
    if (sock !== this.sock || !this.busy) return;
    const r = this.parser.feed(b, s, e);
    if (r === Feed.More) return;
    if (r === Feed.Error) {
      this.busy = false;
      this.drop();
      this.onError(this, 'protocol', false);
      return;
    }
    this.busy = false;
    if (this.parser.close || !this.keepAlive) this.drop();
    this.sink(this, this.t0, this.parser.status);
  }

  private onSockEnd(sock: net.Socket): void {
    if (sock !== this.sock) return;
    if (this.busy && this.parser.untilClose) {
      this.busy = false;
      this.drop();
      this.sink(this, this.t0, this.parser.status);
    }
  }

  private onSockError(sock: net.Socket, e: NodeJS.ErrnoException): void {
    if (sock !== this.sock) return;
    const wasConnected = this.connected;
    this.drop();
    if (this.busy && !this.failed) {
      this.busy = false;
      this.failed = true;
      const kind = classify(e, wasConnected, this.target.tls);
      this.onError(this, kind, kind === 'connect' || kind === 'tls');
    }
  }

  private onSockClose(sock: net.Socket): void {
    if (sock !== this.sock) return;
    const wasConnected = this.connected;
    this.sock = null;
    this.connected = false;
    if (this.busy && !this.failed) {
      if (this.parser.untilClose) {
        this.busy = false;
        this.sink(this, this.t0, this.parser.status);
        return;
      }
      this.busy = false;
      this.failed = true;
      this.onError(this, wasConnected ? 'reset' : 'connect', !wasConnected);
    }
  }

  checkTimeout(now: number, timeoutMs: number): void {
    if (this.busy && now - this.startedAt > timeoutMs) {
      this.busy = false;
      this.failed = true;
      this.drop();
      this.onError(this, 'timeout', false);
    }
  }

  private drop(): void {
    const s = this.sock;
    this.sock = null;
    this.connected = false;
    if (s) s.destroy();
  }

  destroy(): void {
    this.busy = false;
    this.drop();
  }
}

/** L4: a 64-byte message echoed back, connection kept. */
class TcpSlot implements Slot {
  busy = false;
  startedAt = 0;
  private sock: net.Socket | null = null;
  private connected = false;
  private t0 = 0;
  private got = 0;

  constructor(
    private readonly target: LoadTarget,
    private readonly sink: Sink,
    private readonly onError: (s: Slot, kind: ErrorKind, backoff: boolean) => void,
    private readonly readBuf: Buffer,
  ) {}

  start(intended: number, now: number): void {
    this.busy = true;
    this.t0 = intended;
    this.startedAt = now;
    this.got = 0;
    if (this.sock && this.connected) {
      this.sock.write(TCP_MESSAGE);
      return;
    }
    const sock = net.connect({
      host: this.target.host,
      port: this.target.port,
      onread: {
        buffer: this.readBuf,
        callback: (n: number) => {
          if (sock !== this.sock || !this.busy) return true;
          this.got += n;
          if (this.got >= TCP_MESSAGE.length) {
            this.busy = false;
            this.sink(this, this.t0, 200);
          }
          return true;
        },
      },
    } as net.NetConnectOpts);
    this.sock = sock;
    this.connected = false;
    sock.on('connect', () => {
      this.connected = true;
      sock.setNoDelay(true);
      if (this.busy) sock.write(TCP_MESSAGE);
    });
    const lost = (e?: NodeJS.ErrnoException) => {
      if (sock !== this.sock) return;
      const was = this.connected;
      this.sock = null;
      this.connected = false;
      sock.destroy();
      if (this.busy) {
        this.busy = false;
        const kind = e ? classify(e, was, false) : was ? 'reset' : 'connect';
        this.onError(this, kind, kind === 'connect');
      }
    };
    sock.on('error', lost);
    sock.on('close', () => lost());
  }

  checkTimeout(now: number, timeoutMs: number): void {
    if (this.busy && now - this.startedAt > timeoutMs) {
      this.busy = false;
      const s = this.sock;
      this.sock = null;
      s?.destroy();
      this.onError(this, 'timeout', false);
    }
  }

  destroy(): void {
    this.busy = false;
    const s = this.sock;
    this.sock = null;
    s?.destroy();
  }
}

/** One HTTP/2 connection shared by several stream slots; reconnects after GOAWAY or errors. */
class H2Session {
  private session: http2.ClientHttp2Session | null = null;
  constructor(
    readonly target: LoadTarget,
    readonly authority: string,
    readonly path: string,
    readonly sink: Sink,
    readonly onError: (s: Slot, kind: ErrorKind, backoff: boolean) => void,
    readonly method: string = 'GET',
    readonly body: Buffer | null = null,
    readonly contentType: string = 'application/octet-stream',
  ) {}

  /** Request headers of every stream (built once). */
  headers(): http2.OutgoingHttpHeaders {
    if (this.hdrs) return this.hdrs;
    const h: http2.OutgoingHttpHeaders = { ':path': this.path, ':method': this.method, ':authority': this.authority };
    if (this.body) {
      h['content-type'] = this.contentType;
      h['content-length'] = this.body.length;
    } else if (LENGTH_REQUIRED.has(this.method)) h['content-length'] = 0;
    this.hdrs = h;
    return h;
  }

  private hdrs: http2.OutgoingHttpHeaders | null = null;

  get(): http2.ClientHttp2Session {
    const cur = this.session;
    if (cur && !cur.closed && !cur.destroyed) return cur;
    const t = this.target;
    const url = `${t.tls ? 'https' : 'http'}://${t.host}:${t.port}`;
    const s = http2.connect(url, t.tls ? { rejectUnauthorized: false } : {});
    s.on('error', () => undefined); // surfaced per stream
    s.on('goaway', () => {
      if (this.session === s) this.session = null;
    });
    s.on('close', () => {
      if (this.session === s) this.session = null;
    });
    this.session = s;
    return s;
  }

  destroy(): void {
    this.session?.destroy();
    this.session = null;
  }
}

/** How often one request refused by an HTTP/2 server (REFUSED_STREAM) is sent again. */
const MAX_H2_RETRIES = 3;

class H2Slot implements Slot {
  busy = false;
  startedAt = 0;
  private stream: http2.ClientHttp2Stream | null = null;
  constructor(private readonly sess: H2Session) {}

  start(intended: number, now: number, retries = 0): void {
    this.busy = true;
    if (retries === 0) this.startedAt = now;
    let stream: http2.ClientHttp2Stream;
    try {
      const body = this.sess.body;
      // Without a body the stream ends with its headers; with one, the body ends it.
      stream = this.sess.get().request(this.sess.headers(), { endStream: body === null });
      if (body !== null) stream.end(body);
    } catch {
      this.busy = false;
      this.sess.destroy();
      this.sess.onError(this, 'connect', true);
      return;
    }
    this.stream = stream;
    let status = 0;
    stream.on('response', (h) => (status = Number(h[':status'] ?? 0)));
    stream.on('data', () => undefined);
    stream.on('end', () => {
      if (this.stream !== stream || !this.busy) return;
      this.busy = false;
      this.stream = null;
      this.sess.sink(this, intended, status);
    });
    // A stream the server refused (REFUSED_STREAM: after its GOAWAY, e.g. nginx's
    // keepalive_requests reached, or over its concurrent-stream limit) was never processed
    // (RFC 9113, 8.7): it is sent again on a fresh connection, its latency still counted from
    // when it was due, instead of counting as an error. Bounded, so a server that refuses
    // everything still shows errors.
    const refused = () => stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM && retries < MAX_H2_RETRIES;
    const retry = () => {
      this.stream = null;
      this.start(intended, performance.now(), retries + 1);
    };
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (this.stream !== stream || !this.busy) return;
      if (refused()) return retry();
      this.busy = false;
      this.stream = null;
      const code = e.code ?? '';
      const kind: ErrorKind = code === 'ECONNREFUSED' ? 'connect' : code === 'ERR_HTTP2_STREAM_ERROR' ? 'protocol' : 'reset';
      this.sess.onError(this, kind, kind === 'connect');
    });
    stream.on('close', () => {
      if (this.stream !== stream || !this.busy) return;
      if (refused()) return retry();
      // closed without 'end' and not refused: count as reset
      this.busy = false;
      this.stream = null;
      this.sess.onError(this, 'reset', false);
    });
  }

  checkTimeout(now: number, timeoutMs: number): void {
    if (this.busy && now - this.startedAt > timeoutMs) {
      this.busy = false;
      const s = this.stream;
      this.stream = null;
      s?.close(http2.constants.NGHTTP2_CANCEL);
      this.sess.onError(this, 'timeout', false);
    }
  }

  destroy(): void {
    this.busy = false;
    this.stream = null;
    this.sess.destroy();
  }
}
