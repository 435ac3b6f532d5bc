// The native backend: a second instance of a real server binary answering every request with a
// fixed response (nginx `return` / a static file, or HAProxy `http-request return` where only
// HAProxy is installed). The built-in Node backend costs about twice the proxy's CPU per
// request, so on a small machine it competes with the proxy and halves what the proxy shows;
// a C server answering a fixed response costs a fraction of the proxy. It is started the way
// the proxy is: its own temp folder, its config checked by the binary itself, run under the
// supervisor (SupervisedProcess.start: new process group, ended with us) on free loopback
// ports, and stopped by process group with its folder removed.
// Connections and requests are read from the binary's own counters (nginx stub_status, HAProxy's
// CSV stats), polled every 100 ms on a keep-alive connection of our own, whose requests and
// connections are subtracted, so connections per request is measured as with the Node backend.
import * as http from 'node:http';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { BackendOptions } from '../../protocol/bench';
import type { BackendPorts, BackendStats } from './backend';
import { binaryVersion, findBinary, freePorts, SupervisedProcess, waitForPort } from '../../server/src/runner/proxy';
import { makeSandboxDir, removeSandboxDir } from '../../server/src/runner/sandbox/common';
import { closeHostListeners, hostListeners, INHERITED_FD_BASE, type Containment, type HostListener } from '../../server/src/runner/contain';

/** The body the Node backend sends by default (the same bytes, so both backends compare). */
export const DEFAULT_NATIVE_BODY = JSON.stringify({ ok: true, service: 'proxy-tuner-backend', items: [1, 2, 3] }) + '\n';

/** Largest body written inline into the config (`return STATUS 'text'`); larger ones are a file. */
const INLINE_MAX = 2048;
const POLL_MS = 100;

export type NativeKind = 'nginx' | 'haproxy';

/** The native backend cannot do what was asked (the caller falls back to the Node backend). */
export class NativeBackendUnsupported extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NativeBackendUnsupported';
  }
}

export interface NativeBackendChoice {
  kind: NativeKind;
  binary: string;
}

/**
 * Which binary serves as the native backend: the nginx on PATH, else the HAProxy on PATH, else the
 * proxy's own binary. Not the proxy's `--binary` first: the backend must stay the same when two
 * builds or versions of the proxy are compared. Null when there is none.
 */
export function chooseNativeBinary(proxy?: { kind: NativeKind; binary: string }): NativeBackendChoice | null {
  const nginx = findBinary('nginx');
  if (nginx) return { kind: 'nginx', binary: nginx };
  const haproxy = findBinary('haproxy');
  if (haproxy) return { kind: 'haproxy', binary: haproxy };
  return proxy ? { kind: proxy.kind, binary: proxy.binary } : null;
}

interface Counters {
  at: number;
  connections: number;
  requests: number;
}

/** What the native backend can answer; throws NativeBackendUnsupported otherwise. */
export function checkNativeOptions(o: BackendOptions): void {
  if (o.latency) throw new NativeBackendUnsupported('an added latency needs the built-in backend');
  const status = o.status ?? 200;
  if (!Number.isInteger(status) || status < 200 || status > 599)
    throw new NativeBackendUnsupported('backend status must be an integer from 200 to 599');
  const size = o.responseBytes ?? Buffer.byteLength(DEFAULT_NATIVE_BODY);
  if (status !== 200 && status < 300 && size > INLINE_MAX && status !== 204)
    throw new NativeBackendUnsupported(`a ${status} response larger than ${INLINE_MAX} bytes needs the built-in backend`);
}

const quote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** nginx's config for the backend (exported for tests). */
export function nginxBackendConfig(a: {
  dir: string;
  ports: BackendPorts & { status: number };
  status: number;
  body: string | null;
  tls?: { certFile: string; keyFile: string };
  asRoot: boolean;
  /** nginx >= 1.25.1 has `http2 on;` (the `listen ... http2` parameter is deprecated there). */
  http2Directive: boolean;
  /**
   * A contained run: host-side listening sockets (inherited through `NGINX`) beside the
   * namespace's own, so the engine reaches the status page and the direct baseline from the host
   * while the proxy reaches the backend on the namespace's loopback.
   */
  host?: { http: number; https: number; h2c: number; status: number };
}): string {
  const d = a.dir;
  const noBody = a.status === 204 || a.status === 304;
  let answer: string;
  if (noBody) answer = `return ${a.status};`;
  else if (a.body !== null) answer = `return ${a.status} ${quote(a.body)};`;
  else if (a.status === 200) answer = 'try_files /body =500;';
  else answer = `return ${a.status};`;
  const errorPage =
    a.body === null && !noBody && a.status !== 200 ? `        error_page ${a.status} /body;\n        location = /body { internal; }\n` : '';
  const hh = a.host;
  const h2 = a.http2Directive
    ? `    server {\n        listen 127.0.0.1:${a.ports.h2c};\n${hh ? `        listen 127.0.0.1:${hh.h2c};\n` : ''}        http2 on;\n`
    : `    server {\n        listen 127.0.0.1:${a.ports.h2c} http2;\n${hh ? `        listen 127.0.0.1:${hh.h2c} http2;\n` : ''}`;
  const locations = `        location / { ${answer} }\n${errorPage}`;
  return [
    '# proxy-tuner native backend: fixed responses on loopback (generated; removed after the run)',
    ...(a.asRoot ? ['user root;'] : []),
    'daemon off;',
    'master_process on;',
    'worker_processes 1;',
    'worker_rlimit_nofile 8192;',
    `pid ${d}/logs/nginx.pid;`,
    `error_log ${d}/logs/error.log warn;`,
    'events { worker_connections 4096; }',
    'http {',
    '    access_log off;',
    '    server_tokens off;',
    '    etag off;',
    '    default_type application/json;',
    '    sendfile on;',
    '    keepalive_timeout 120s;',
    '    keepalive_requests 1000000;',
    `    client_body_temp_path ${d}/tmp/body;`,
    `    proxy_temp_path ${d}/tmp/proxy;`,
    `    fastcgi_temp_path ${d}/tmp/fastcgi;`,
    `    uwsgi_temp_path ${d}/tmp/uwsgi;`,
    `    scgi_temp_path ${d}/tmp/scgi;`,
    `    root ${d}/www;`,
    '    server {',
    `        listen 127.0.0.1:${a.ports.http};`,
    ...(hh ? [`        listen 127.0.0.1:${hh.http};`] : []),
    ...(a.tls
      ? [
          `        listen 127.0.0.1:${a.ports.https} ssl;`,
          ...(hh ? [`        listen 127.0.0.1:${hh.https} ssl;`] : []),
          `        ssl_certificate ${a.tls.certFile};`,
          `        ssl_certificate_key ${a.tls.keyFile};`,
        ]
      : []),
    locations + '    }',
    h2 + locations + '    }',
    '    server {',
    `        listen 127.0.0.1:${hh ? hh.status : a.ports.status};`,
    '        location / { stub_status; }',
    '    }',
    '}',
    '',
  ].join('\n');
}

/** HAProxy's config for the backend (exported for tests). */
export function haproxyBackendConfig(a: {
  dir: string;
  ports: BackendPorts & { status: number };
  status: number;
  bodyBytes: number;
  tls?: { pemFile: string };
  /** A contained run: host-side sockets handed over as fd@N (see nginxBackendConfig). */
  hostFds?: { http: number; https: number; h2c: number; status: number };
}): string {
  const hf = a.hostFds;
  const noBody = a.status === 204 || a.status === 304;
  // `http-request return` builds the whole response in one buffer
  const bufsize = Math.max(16384, Math.ceil((a.bodyBytes + 8192) / 4096) * 4096);
  return [
    '# proxy-tuner native backend: fixed responses on loopback (generated; removed after the run)',
    'global',
    '    maxconn 4096',
    '    nbthread 1',
    ...(bufsize > 16384 ? [`    tune.bufsize ${bufsize}`] : []),
    'defaults',
    '    mode http',
    '    timeout connect 5s',
    '    timeout client 120s',
    '    timeout server 120s',
    '    timeout http-request 120s',
    '    timeout http-keep-alive 120s',
    'frontend pt_backend',
    `    bind 127.0.0.1:${a.ports.http}`,
    ...(hf ? [`    bind fd@${hf.http}`] : []),
    ...(a.tls
      ? [
          `    bind 127.0.0.1:${a.ports.https} ssl crt ${a.tls.pemFile}`,
          ...(hf ? [`    bind fd@${hf.https} ssl crt ${a.tls.pemFile}`] : []),
        ]
      : []),
    `    bind 127.0.0.1:${a.ports.h2c} proto h2`,
    ...(hf ? [`    bind fd@${hf.h2c} proto h2`] : []),
    noBody
      ? `    http-request return status ${a.status}`
      : `    http-request return status ${a.status} content-type application/json file ${a.dir}/www/body`,
    'frontend pt_stats',
    hf ? `    bind fd@${hf.status}` : `    bind 127.0.0.1:${a.ports.status}`,
    '    stats enable',
    '    stats uri /',
    '',
  ].join('\n');
}

/** Parses nginx stub_status' page: accepted connections and requests. */
export function parseStubStatus(text: string): { connections: number; requests: number } | null {
  const m = /server accepts handled requests\s+(\d+)\s+(\d+)\s+(\d+)/.exec(text);
  return m ? { connections: Number(m[1]), requests: Number(m[3]) } : null;
}

/** Parses HAProxy's CSV stats: the pt_backend frontend's cumulative connections and requests. */
export function parseHaproxyCsv(text: string): { connections: number; requests: number } | null {
  const lines = text.split('\n');
  const head = lines[0]?.replace(/^#\s*/, '').split(',') ?? [];
  const col = (n: string) => head.indexOf(n);
  const row = lines.map((l) => l.split(',')).find((f) => f[0] === 'pt_backend' && f[1] === 'FRONTEND');
  if (!row) return null;
  const conn = col('conn_tot') >= 0 && row[col('conn_tot')] !== '' ? Number(row[col('conn_tot')]) : Number(row[col('stot')]);
  const req = Number(row[col('req_tot')]);
  return Number.isFinite(conn) && Number.isFinite(req) ? { connections: conn, requests: req } : null;
}

export class NativeBackend {
  private samples: Counters[] = [];
  private pollTimer: NodeJS.Timeout | null = null;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  private ownConnections = 0;
  private ownRequests = 0;
  private polling: Promise<void> | null = null;
  private stopped = false;

  private constructor(
    readonly kind: NativeKind,
    readonly binary: string,
    readonly version: string,
    readonly dir: string,
    readonly ports: BackendPorts,
    private readonly statusPort: number,
    private readonly proc: SupervisedProcess,
    /** Where the engine reaches it from the host (a contained run's handed-over sockets); else `ports`. */
    private readonly hostSide?: Omit<BackendPorts, 'host'>,
    private readonly ownDir = true,
  ) {}

  /** Where the engine's own load (the direct baseline) reaches the backend. */
  get hostPorts(): Omit<BackendPorts, 'host'> {
    return this.hostSide ?? this.ports;
  }

  /** Process group of the running backend (its supervisor's pid). */
  get pgid(): number {
    return this.proc.pgid;
  }

  /** The supervisor's pid (the group leader). */
  get pid(): number {
    return this.proc.pgid;
  }

  get exited(): boolean {
    return this.proc.exited;
  }

  /**
   * Starts the backend. `tls` gives it the sandbox's certificate for its HTTPS port. Throws
   * NativeBackendUnsupported when the options need the Node backend, an Error when the binary
   * fails to start (its own message).
   */
  static async start(
    options: BackendOptions,
    choice: NativeBackendChoice,
    tls?: { certFile: string; keyFile: string; pemFile: string },
    run?: { containment: Containment; dir: string },
  ): Promise<NativeBackend> {
    checkNativeOptions(options);
    // A contained run: the backend lives in the run's network namespace and may write only in
    // the run's folder, so its files go into a folder of that one.
    const contained = run?.containment.contained === true;
    const status = options.status ?? 200;
    const body = options.responseBytes === undefined ? Buffer.from(DEFAULT_NATIVE_BODY) : Buffer.alloc(options.responseBytes, 0x78);
    const version = binaryVersion(choice.kind, choice.binary);
    const dir = contained ? path.join(run!.dir, 'native-backend') : makeSandboxDir();
    const dropDir = () => (contained ? undefined : removeSandboxDir(dir));
    let lastError: Error | null = null;
    try {
      for (const sub of ['logs', 'tmp', 'www']) mkdirSync(path.join(dir, sub), { recursive: true, mode: 0o700 });
      writeFileSync(path.join(dir, 'www', 'body'), body, { mode: 0o600 });
      const conf = path.join(dir, choice.kind === 'nginx' ? 'nginx.conf' : 'haproxy.cfg');
      for (let attempt = 0; attempt < 4; attempt++) {
        // `tcp`: a free port nothing listens on, for L4 upstreams of a config whose HTTP side is
        // benchmarked (the native backend has no echo; the tcp scenario takes the Node backend)
        const [h, s, h2c, st, tcp] = await freePorts(5);
        const ports = { http: h, https: tls ? s : 0, tcp, h2c, status: st };
        let hl: HostListener[] = [];
        if (contained) hl = await hostListeners(4);
        const fdOf = (i: number) => INHERITED_FD_BASE + i;
        const hostPortsOf = hl.length ? { http: hl[0].port, https: tls ? hl[1].port : 0, h2c: hl[2].port, status: hl[3].port } : undefined;
        const text =
          choice.kind === 'nginx'
            ? nginxBackendConfig({
                dir,
                ports,
                status,
                body: body.length <= INLINE_MAX && /^[\x20-\x7e\n]*$/.test(body.toString('latin1')) ? body.toString('latin1') : null,
                tls,
                asRoot: process.getuid?.() === 0,
                http2Directive: versionAtLeast(version, [1, 25, 1]),
                host: hostPortsOf,
              })
            : haproxyBackendConfig({
                dir,
                ports,
                status,
                bodyBytes: body.length,
                tls,
                hostFds: hl.length ? { http: fdOf(0), https: fdOf(1), h2c: fdOf(2), status: fdOf(3) } : undefined,
              });
        writeFileSync(conf, text, { mode: 0o600 });
        const args =
          choice.kind === 'nginx' ? ['-p', dir + '/', '-c', conf, '-e', path.join(dir, 'logs', 'error.log')] : ['-db', '-f', conf];
        let proc: SupervisedProcess;
        try {
          proc = contained
            ? SupervisedProcess.start(choice.binary, args, dir, dir, {
                containment: run!.containment,
                fds: hl.map((l) => l.fd),
                env: choice.kind === 'nginx' ? { NGINX: hl.map((_l, i) => `${fdOf(i)};`).join('') } : {},
              })
            : SupervisedProcess.start(choice.binary, args, dir, dir);
        } finally {
          closeHostListeners(hl);
        }
        let ok = true;
        // contained: only the host-side sockets can be probed from here (the others are in the namespace)
        const probe = hostPortsOf
          ? [hostPortsOf.http, hostPortsOf.https, hostPortsOf.h2c, hostPortsOf.status]
          : [ports.http, ports.https, ports.h2c, ports.status];
        for (const p of probe) {
          if (p && !(await waitForPort(p, 10_000, () => !proc.exited))) {
            ok = false;
            break;
          }
        }
        if (ok) {
          const b = new NativeBackend(
            choice.kind,
            choice.binary,
            version,
            dir,
            { http: ports.http, https: ports.https, tcp: ports.tcp, h2c: ports.h2c },
            hostPortsOf ? hostPortsOf.status : ports.status,
            proc,
            hostPortsOf ? { http: hostPortsOf.http, https: hostPortsOf.https, tcp: ports.tcp, h2c: hostPortsOf.h2c } : undefined,
            !contained,
          );
          // the first read may find the workers still starting (a refused or reset connection on
          // a busy machine): a few tries, 100 ms apart and within 3 s, before the backend is given up
          const giveUp = Date.now() + 3000;
          for (let tries = 0; tries < 10 && b.samples.length === 0 && !proc.exited && Date.now() < giveUp; tries++) {
            if (tries) await new Promise((r) => setTimeout(r, POLL_MS));
            await b.poll();
          }
          if (b.samples.length === 0) {
            await b.stop();
            throw new Error(`the native ${choice.kind} backend started but its status page gave no counters`);
          }
          b.pollTimer = setInterval(() => void b.poll(), POLL_MS);
          b.pollTimer.unref?.();
          return b;
        }
        const info = await proc.stop();
        let log = '';
        try {
          log = readFileSync(path.join(dir, 'logs', 'error.log'), 'utf8').slice(-2000);
        } catch {
          // none
        }
        const text2 = `${info.output}\n${log}`.trim();
        lastError = new Error(
          `the native ${choice.kind} backend did not start: ${text2.split('\n').find((l) => /emerg|alert|error|ALERT/i.test(l)) ?? text2.slice(0, 400)}`,
        );
        if (!/Address already in use|cannot bind/i.test(text2)) break;
      }
    } catch (e) {
      dropDir();
      throw e;
    }
    dropDir();
    throw lastError ?? new Error(`the native ${choice.kind} backend did not start`);
  }

  /** Reads the counters once (our own poll connections and requests taken out). */
  private poll(): Promise<void> {
    if (this.polling || this.stopped) return this.polling ?? Promise.resolve();
    this.polling = new Promise<void>((resolve) => {
      const req = http.get(
        { host: '127.0.0.1', port: this.statusPort, path: this.kind === 'nginx' ? '/' : '/;csv', agent: this.agent, timeout: 2000 },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            if (text.length < 65536) text += c;
          });
          res.on('end', () => {
            this.ownRequests++;
            const c = this.kind === 'nginx' ? parseStubStatus(text) : parseHaproxyCsv(text);
            // nginx's counters are global: they include this request and our own connection(s).
            if (c) {
              const own =
                this.kind === 'nginx' ? { connections: this.ownConnections, requests: this.ownRequests } : { connections: 0, requests: 0 };
              this.samples.push({ at: Date.now(), connections: c.connections - own.connections, requests: c.requests - own.requests });
              if (this.samples.length > 12_000) this.samples.splice(0, 6000);
            }
            resolve();
          });
          res.on('error', () => resolve());
        },
      );
      req.on('socket', (s) => {
        if (!(req as http.ClientRequest & { reusedSocket?: boolean }).reusedSocket) this.ownConnections++;
        void s;
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve());
    }).finally(() => {
      this.polling = null;
    });
    return this.polling;
  }

  private at(t: number): Counters | null {
    const s = this.samples;
    if (s.length === 0) return null;
    if (t <= s[0].at) return s[0];
    for (let i = 1; i < s.length; i++) {
      if (s[i].at >= t) {
        const a = s[i - 1];
        const b = s[i];
        const f = b.at === a.at ? 1 : (t - a.at) / (b.at - a.at);
        return {
          at: t,
          connections: a.connections + f * (b.connections - a.connections),
          requests: a.requests + f * (b.requests - a.requests),
        };
      }
    }
    return s[s.length - 1];
  }

  /** Connections and requests between two wall-clock times, interpolated between 100 ms samples. */
  async statsBetween(from: number, to: number): Promise<BackendStats> {
    // one sample after the interval, so its end is interpolated, not extrapolated
    if (!this.stopped && (this.samples.at(-1)?.at ?? 0) < to) {
      await this.polling;
      await this.poll();
    }
    const a = this.at(from);
    const b = this.at(to);
    if (!a || !b) return { connections: 0, requests: 0, tcpConnections: 0, tcpBytes: 0 };
    return {
      connections: Math.max(0, Math.round(b.connections - a.connections)),
      requests: Math.max(0, Math.round(b.requests - a.requests)),
      tcpConnections: 0,
      tcpBytes: 0,
    };
  }

  /** Whole-life counters (no per-method accounting: that is the Node backend's). */
  async stats(): Promise<BackendStats> {
    await this.poll();
    const last = this.samples.at(-1);
    return { connections: last?.connections ?? 0, requests: last?.requests ?? 0, tcpConnections: 0, tcpBytes: 0 };
  }

  /** CPU seconds of every process of the backend's group (master and worker). */
  cpuSeconds(): number {
    return this.proc.cpuSeconds();
  }

  /** Stops the backend by process group and removes its folder. Safe to call twice. */
  async stop(): Promise<void> {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = null;
    await this.polling;
    this.stopped = true;
    this.agent.destroy();
    await this.proc.stop();
    // a contained run's backend folder lies in the run's folder, which the sandbox removes
    if (this.ownDir) removeSandboxDir(this.dir);
  }
}

function versionAtLeast(v: string, min: number[]): boolean {
  const p = v.split('.').map(Number);
  for (let i = 0; i < min.length; i++) {
    const x = p[i] ?? 0;
    if (x !== min[i]) return x > min[i];
  }
  return true;
}
