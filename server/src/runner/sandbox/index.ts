// The sandboxed proxy: temp folder + throw-away TLS pair + rewritten config copy, checked with
// the binary's own test (`nginx -t` / `haproxy -c`, messages mapped back to the user's lines),
// then run under the supervisor (proxy.ts) on free loopback ports, re-picked on a lost bind race.
import { readFileSync, existsSync, realpathSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import * as dgram from 'node:dgram';
import * as net from 'node:net';
import * as path from 'node:path';
import type { ProxyKind, SandboxAdjustment } from '../../../../protocol/bench';
import { loadMatrix } from '../matrix';
import { binaryVersion, cleanEnv, findBinary, freePorts, INSTALL_HINT, SupervisedProcess, waitForPort } from '../proxy';
import { closeHostListeners, Containment, hostListeners, INHERITED_FD_BASE, type HostListener } from '../contain';
import { fileLimits } from './limits';
import {
  BACKEND_SLOTS,
  ConfigCheckError,
  fillPorts,
  warningFromRewrite,
  makeSandboxDir,
  makeTlsPair,
  mapMessages,
  readTextSafe,
  redactForeignWords,
  removeSandboxDir,
  SandboxRefusal,
  writeText,
  type BackendAddr,
  type SandboxListener,
  type TlsPair,
  type InPlaceRead,
  visibleReads,
} from './common';
import { planNginxSandbox } from './nginx';
import { planHaproxySandbox } from './haproxy';
import { detectLanguage } from '../../languages/detect';

export { ConfigCheckError, SandboxRefusal } from './common';
export type { SandboxListener } from './common';

interface RenderFile {
  copy: string;
  original: string;
  text: string;
}

/** nginx or HAProxy: the product's one detector (name, then content), reading the file when no text is given. */
export function detectKind(configPath: string, text?: string): ProxyKind {
  let t = text;
  if (t === undefined) {
    try {
      t = existsSync(configPath) ? readTextSafe(configPath) : '';
    } catch {
      t = '';
    }
  }
  return detectLanguage(configPath, t);
}

/** Where a binary keeps its own files: its modules folder and configuration folder. */
export interface BinaryLayout {
  /** The nginx modules folder that belongs to this binary (load_module is allowed only from here). */
  modulesDir: string;
  /** Its configuration folder (mime.types, modules-enabled/). */
  confDir: string;
  /** The Debian root a matrix binary lives in ('' for the host's own). */
  root: string;
}

const layoutCache = new Map<string, BinaryLayout>();

/**
 * The binary's own folders: a version-matrix binary's from the registry (its compiled-in paths
 * point at the host's /usr/...), else from `nginx -V` (--modules-path, --conf-path), else Debian's.
 */
export function binaryLayout(kind: ProxyKind, binary: string): BinaryLayout {
  const real = safeRealpath(binary);
  const hit = layoutCache.get(real);
  if (hit) return hit;
  let out: BinaryLayout | undefined;
  for (const b of loadMatrix()) {
    if (b.root && safeRealpath(b.path) === real) out = { modulesDir: b.modulesDir, confDir: b.confDir, root: b.root };
  }
  if (!out) {
    let modulesDir = '/usr/lib/nginx/modules';
    let confDir = kind === 'nginx' ? '/etc/nginx' : '/etc/haproxy';
    if (kind === 'nginx') {
      const r = spawnSync(binary, ['-V'], { encoding: 'utf8', timeout: 5000 });
      const text = `${r.stdout ?? ''}${r.stderr ?? ''}`;
      const m = /--modules-path=(\S+)/.exec(text);
      if (m) modulesDir = m[1];
      const c = /--conf-path=(\S+)/.exec(text);
      if (c) confDir = path.dirname(c[1]);
    }
    out = { modulesDir, confDir, root: '' };
  }
  layoutCache.set(real, out);
  return out;
}

function safeRealpath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** The rewritten copy of a config, the same shape for nginx and HAProxy. */
export interface SandboxPlan {
  mainCopy: string;
  files: RenderFile[];
  listeners: SandboxListener[];
  portCount: number;
  warnings: string[];
  /** Settings lowered to fit the machine (workers, connections, file limit). */
  adjustments: SandboxAdjustment[];
  /** Files and folders the binary reads where they are (shown read-only when contained: showReadOnly). */
  reads: InPlaceRead[];
}

/** Plans the sandboxed copy of `configPath` in `dir` (throws SandboxRefusal naming the line). */
export function planSandbox(
  kind: ProxyKind,
  input: {
    configPath: string;
    dir: string;
    backend: BackendAddr;
    tls: TlsPair;
    layout?: BinaryLayout;
    contained?: boolean;
    /** Each upstream's second server on FAILOVER_HOST (a failover run). */
    failover?: boolean;
    /** Set when the run is rewrite-only and the user did not opt in: why native code is refused (uncontainedNativeRefusal). */
    refuseUncontainedNative?: string;
  },
): SandboxPlan {
  const { configPath, dir, backend, tls } = input;
  const layout = input.layout ?? {
    modulesDir: '/usr/lib/nginx/modules',
    confDir: kind === 'nginx' ? '/etc/nginx' : '/etc/haproxy',
    root: '',
  };
  const limits = fileLimits();
  if (kind === 'nginx') {
    const streamModule = path.join(layout.modulesDir, 'ngx_stream_module.so');
    const p = planNginxSandbox({
      configPath,
      dir,
      backend,
      cert: tls,
      streamModule: existsSync(streamModule) ? streamModule : undefined,
      // contained, the proxy runs as the run's own uid when we are root (`user` would be ignored
      // with a warning), and as the root of our own user namespace when we are not (`user root` maps to us)
      runningAsRoot: input.contained ? process.getuid?.() !== 0 : process.getuid?.() === 0,
      layout,
      limits,
      contained: !!input.contained,
      failover: input.failover,
      refuseUncontainedNative: input.refuseUncontainedNative,
    });
    return {
      mainCopy: p.mainCopy,
      files: p.files,
      listeners: p.listeners,
      portCount: p.portCount,
      warnings: p.warnings,
      adjustments: p.adjustments,
      reads: p.reads,
    };
  }
  const p = planHaproxySandbox({ configPath, dir, backend, cert: tls, limits, env: proxyEnv(), failover: input.failover });
  return {
    mainCopy: p.copy,
    files: [{ copy: p.copy, original: p.original, text: p.text }],
    listeners: p.listeners,
    portCount: p.portCount,
    warnings: p.warnings,
    adjustments: p.adjustments,
    reads: p.reads,
  };
}

/**
 * Why a config that loads native code is refused when the run is not contained (rewrite-only),
 * or undefined when it may run: contained, or the user opted in (`allow`, the bench option
 * `allowUncontainedNativeCode`, the CLI's --allow-uncontained-native-code, or
 * PROXY_TUNER_ALLOW_UNCONTAINED_NATIVE=1 in the engine's environment).
 */
export function uncontainedNativeRefusal(jail: Containment | null, allow?: boolean): string | undefined {
  if (!jail || jail.contained) return undefined;
  if (allow || process.env.PROXY_TUNER_ALLOW_UNCONTAINED_NATIVE === '1') return undefined;
  return `it loads native code, and this run is not contained (${jail.reason}): the code would run as you, with your files and network. Run it anyway only if you trust it: --allow-uncontained-native-code (CLI), the benchmark option allowUncontainedNativeCode, or PROXY_TUNER_ALLOW_UNCONTAINED_NATIVE=1`;
}

/** The environment the proxy is started with (HAProxy expands `${VAR}` from it). */
export function proxyEnv(): Record<string, string | undefined> {
  return cleanEnv();
}

/** Copy path -> the user's path, longest copy path first (for mapMessages). */
export function copyToOriginal(files: readonly { copy: string; original: string }[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const f of [...files].sort((a, b) => b.copy.length - a.copy.length)) m.set(f.copy, f.original);
  return m;
}

/** Arguments of the binary's own config test (`nginx -t` / `haproxy -c`) on the rendered copy. */
export function configTestArgs(kind: ProxyKind, dir: string, mainCopy: string, opts: { quiet?: boolean } = {}): string[] {
  return kind === 'nginx'
    ? ['-t', ...(opts.quiet ? ['-q'] : []), '-p', dir + '/', '-c', mainCopy, '-e', path.join(dir, 'logs', 'error.log')]
    : ['-c', '-f', mainCopy];
}

export class ProxySandbox {
  readonly warnings: string[] = [];
  /** Settings the plan lowered to fit the machine, with why. */
  readonly adjustments: SandboxAdjustment[] = [];
  listeners: SandboxListener[] = [];
  private files: RenderFile[] = [];
  private portCount = 0;
  private mainCopy = '';
  private backend: BackendAddr | undefined;
  private proc: SupervisedProcess | null = null;
  private disposed = false;
  private jail: Containment | null = null;
  private allowNative = false;
  readonly layout: BinaryLayout;
  /** A failover run: set before plan() (bench/src/failover.ts). */
  failover = false;

  private constructor(
    readonly kind: ProxyKind,
    readonly configPath: string,
    readonly binary: string,
    readonly version: string,
    readonly dir: string,
    readonly tls: TlsPair,
  ) {
    this.layout = binaryLayout(kind, binary);
  }

  /** Finds the binary and makes the temp folder with a throw-away TLS pair. */
  static create(opts: {
    configPath: string;
    kind?: ProxyKind;
    binary?: string;
    keyType?: 'rsa' | 'ecdsa';
    /** Run native code the config loads even when the run is not contained (see uncontainedNativeRefusal). */
    allowUncontainedNativeCode?: boolean;
  }): ProxySandbox {
    const configPath = path.resolve(opts.configPath);
    if (!existsSync(configPath)) throw new SandboxRefusal(`config file not found: ${configPath}`);
    const kind = opts.kind ?? detectKind(configPath);
    const binary = findBinary(kind, opts.binary);
    if (!binary) throw new Error(opts.binary ? `${opts.binary} is not an executable file` : INSTALL_HINT[kind]);
    const version = binaryVersion(kind, binary);
    const dir = makeSandboxDir();
    try {
      const tls = makeTlsPair(dir, opts.keyType ?? 'rsa');
      const sb = new ProxySandbox(kind, configPath, binary, version, dir, tls);
      sb.allowNative = !!opts.allowUncontainedNativeCode;
      return sb;
    } catch (e) {
      removeSandboxDir(dir);
      throw e;
    }
  }

  /**
   * Opens the run's containment (network namespace with only loopback, read-only file system
   * except this sandbox's folder). Every process of the run is then started inside it: the
   * proxy, its config test, the backend (Backend.start with `sandbox.containment`). Where
   * namespaces are unavailable the mode is 'rewrite-only' and the reason is a warning.
   */
  async contain(): Promise<Containment> {
    if (!this.jail) {
      this.jail = await Containment.open(this.dir);
      if (!this.jail.contained)
        this.warnings.push(`not contained in a network namespace (${this.jail.reason}): the run relies on the config rewrite alone`);
    }
    return this.jail;
  }

  /** The run's containment once contain() ran (null before). */
  get containment(): Containment | null {
    return this.jail;
  }

  /**
   * Rewrites the config (throws SandboxRefusal naming the line). Without `backend` the backend's
   * ports stay placeholders until setBackend(); so a refusal comes before any process starts.
   */
  plan(backend: BackendAddr = BACKEND_SLOTS): void {
    if (backend !== BACKEND_SLOTS) this.backend = backend;
    const p = planSandbox(this.kind, {
      configPath: this.configPath,
      dir: this.dir,
      backend,
      tls: this.tls,
      layout: this.layout,
      contained: this.jail?.contained,
      failover: this.failover,
      refuseUncontainedNative: uncontainedNativeRefusal(this.jail, this.allowNative),
    });
    this.files = p.files;
    this.listeners = p.listeners;
    this.portCount = p.portCount;
    this.mainCopy = p.mainCopy;
    this.warnings.push(...p.warnings);
    this.adjustments.push(...p.adjustments);
    if (this.jail?.contained) {
      const shown = visibleReads(p.reads, this.configPath, this.dir);
      this.jail.showReadOnly(shown.binds);
      this.warnings.push(...shown.skipped);
    }
    if (this.listeners.length === 0)
      throw new SandboxRefusal('the config has no listener (no `listen` / `bind`) to send load to', this.configPath, 1);
  }

  /** The running backend's ports, for a plan made without them. */
  setBackend(backend: BackendAddr): void {
    this.backend = backend;
  }

  private fileMap(): Map<string, string> {
    return copyToOriginal(this.files);
  }

  /** Writes the copies; `fdOfSlot` makes HAProxy bind an inherited socket (`fd@N`) for that slot. */
  private render(ports: number[], fdOfSlot?: Map<number, number>): void {
    for (const f of this.files) {
      let text = f.text;
      if (fdOfSlot && this.kind === 'haproxy')
        text = text.replace(/127\.0\.0\.1:\u0000P(\d+)\u0000/g, (m, i: string) =>
          fdOfSlot.has(Number(i)) ? `fd@${fdOfSlot.get(Number(i))}` : m,
        );
      writeText(f.copy, fillPorts(text, ports, this.backend)); // the planner's text: line ends already the editor's
    }
    for (const l of this.listeners) l.port = ports[l.slot];
  }

  private checkArgs(): string[] {
    return configTestArgs(this.kind, this.dir, this.mainCopy, { quiet: true });
  }

  private runArgs(): string[] {
    return this.kind === 'nginx'
      ? ['-p', this.dir + '/', '-c', this.mainCopy, '-e', path.join(this.dir, 'logs', 'error.log')]
      : ['-db', '-f', this.mainCopy];
  }

  /** Runs the binary's own config test on the rendered copy (contained when the run is). */
  private check(fds: number[] = []): void {
    const w = this.jail ? this.jail.wrap(this.binary, this.checkArgs()) : { cmd: this.binary, args: this.checkArgs() };
    const r = spawnSync(w.cmd, w.args, {
      encoding: 'utf8',
      timeout: 20_000,
      cwd: this.dir,
      env: { ...cleanEnv(), ...this.jail?.env() },
      stdio: stdioFor(fds) as never,
      maxBuffer: 1024 * 1024,
    });
    const out = redactForeignWords(mapMessages(`${r.stdout ?? ''}${r.stderr ?? ''}`.trim(), this.fileMap()), this.configPath, {
      kind: this.kind,
      ownFiles: this.files.map((f) => f.original),
    });
    if (r.status !== 0) {
      const lines = out.split('\n').filter((l) => /emerg|alert|error|crit/i.test(l));
      const first = lines[0] ?? out.split('\n')[0] ?? 'unknown error';
      throw new ConfigCheckError(`${this.kind} rejected the config: ${first.replace(/^nginx: /, '').trim()}`, out);
    }
    const originals = this.files.map((f) => {
      try {
        return readFileSync(f.original, 'utf8');
      } catch {
        return '';
      }
    });
    for (const l of out.split('\n'))
      if (/\[warn\]|WARNING/.test(l) && !warningFromRewrite(this.kind, l, originals)) this.warnings.push(l.trim());
  }

  /** Picks ports, writes the copy, checks it, starts the proxy and waits until every TCP listener accepts. */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.files.length === 0) throw new Error('plan() must run before start()');
    const contained = !!this.jail?.contained;
    let lastError: Error | null = null;
    for (let attempt = 0; attempt < 4; attempt++) {
      if (signal?.aborted) throw Object.assign(new Error('The benchmark was cancelled'), { name: 'AbortError' });
      const ports = await freePorts(this.portCount);
      // Contained: the TCP listeners are sockets on the host's loopback handed to the proxy (the
      // load generator's way in); every other slot is a port in the run's own namespace.
      let host: HostListener[] = [];
      const fdOfSlot = new Map<number, number>();
      if (contained) {
        const slots = [...new Set(this.listeners.filter((l) => !l.udp).map((l) => l.slot))];
        host = await hostListeners(slots.length);
        slots.forEach((slot, i) => {
          ports[slot] = host[i].port;
          fdOfSlot.set(slot, INHERITED_FD_BASE + i);
        });
      }
      try {
        this.render(ports, contained ? fdOfSlot : undefined);
        try {
          this.check(this.kind === 'haproxy' ? host.map((h) => h.fd) : []);
        } catch (e) {
          // a lost race for a port, judged from outside (never from the binary's words)
          if (!contained && (await anyPortTaken(this.udpAware(ports)))) {
            lastError = e as Error;
            continue;
          }
          throw e;
        }
        const env: Record<string, string> = {};
        if (contained && this.kind === 'nginx' && host.length) env.NGINX = host.map((_h, i) => `${INHERITED_FD_BASE + i};`).join('');
        const proc = SupervisedProcess.start(this.binary, this.runArgs(), this.dir, this.dir, {
          containment: this.jail ?? undefined,
          fds: host.map((h) => h.fd),
          env,
        });
        this.proc = proc;
        closeHostListeners(host);
        host = [];
        let ok = true;
        if (contained) {
          // the host sockets queue connections before the proxy runs: wait until it accepts
          for (const l of this.listeners.filter((x) => !x.udp)) {
            if (!(await waitAccepting(l.port, 10_000, () => !proc.exited))) {
              ok = false;
              break;
            }
          }
        } else {
          const tcp = this.listeners.filter((l) => !l.udp);
          for (const l of tcp) {
            if (!(await waitForPort(l.port, 10_000, () => !proc.exited))) {
              ok = false;
              break;
            }
          }
        }
        if (ok) return;
        const info = await proc.stop();
        this.proc = null;
        const log = this.errorLog();
        const text = mapMessages(`${info.output}\n${log}`.trim(), this.fileMap());
        lastError = new Error(
          `${this.kind} did not start: ${text.split('\n').find((l) => /emerg|alert|error/i.test(l)) ?? text.slice(0, 500)}`,
        );
        // Contained runs never retry: their TCP listeners are the engine's own sockets and every
        // other port lives in the run's own namespace. Without the namespace a start that did
        // not come up may have lost a port to another process (picked free, taken before the
        // bind): a fixed number of attempts with new ports, whatever the proxy printed (its
        // words never decide what the engine does; the copies are rewritten without following
        // anything it may have left in the folder).
        if (contained) throw lastError;
      } finally {
        closeHostListeners(host);
      }
    }
    throw lastError ?? new Error(`${this.kind} did not start`);
  }

  /** The proxy's own error log (rewrite-only runs: contained runs keep it in their tmpfs), read safely. */
  private errorLog(): string {
    if (this.jail?.contained) return '';
    try {
      return readTextSafe(path.join(this.dir, 'logs', 'error.log'), 1024 * 1024).slice(-4000);
    } catch {
      return '';
    }
  }

  /** The ports of this attempt with their protocol, for anyPortTaken. */
  private udpAware(ports: number[]): { port: number; udp: boolean }[] {
    return this.listeners.map((l) => ({ port: ports[l.slot], udp: !!l.udp }));
  }

  /** Process group of the running proxy (its supervisor's pid), -1 when not running. */
  get pgid(): number {
    return this.proc?.pgid ?? -1;
  }

  /** True when the proxy was started and has exited since (crashed or killed mid-run). */
  get proxyExited(): boolean {
    return this.proc?.exited ?? false;
  }

  cpuSeconds(): number {
    return this.proc ? this.proc.cpuSeconds() : 0;
  }

  async stop(): Promise<void> {
    const p = this.proc;
    this.proc = null;
    if (p) await p.stop();
  }

  /** Stops the proxy, closes the containment and removes the temp folder. Safe to call twice. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.stop();
    await this.jail?.dispose();
    removeSandboxDir(this.dir);
  }

  /** The rewritten copies (for display and tests): [copy path, original path, text with ports]. */
  copies(): { copy: string; original: string; text: string }[] {
    return this.files.map((f) => ({ copy: f.copy, original: f.original, text: readFileSafe(f.copy) ?? f.text }));
  }
}

function readFileSafe(p: string): string | null {
  try {
    return readTextSafe(p);
  } catch {
    return null;
  }
}

/**
 * True when one of the ports is held by another process now: a bind of our own on 127.0.0.1
 * fails with EADDRINUSE. (The proxy has exited by then, so its own sockets are gone.)
 */
async function anyPortTaken(ports: { port: number; udp: boolean }[]): Promise<boolean> {
  for (const p of ports) {
    if (!(p.port > 0)) continue;
    const taken = await new Promise<boolean>((resolve) => {
      if (p.udp) {
        const s = dgram.createSocket('udp4');
        s.once('error', (e: NodeJS.ErrnoException) => {
          s.close();
          resolve(e.code === 'EADDRINUSE');
        });
        s.bind(p.port, '127.0.0.1', () => s.close(() => resolve(false)));
        return;
      }
      const s = net.createServer();
      s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'EADDRINUSE'));
      s.listen(p.port, '127.0.0.1', () => s.close(() => resolve(false)));
    });
    if (taken) return true;
  }
  return false;
}

function stdioFor(fds: number[]): (string | number)[] {
  const s: (string | number)[] = ['ignore', 'pipe', 'pipe'];
  if (fds.length === 0) return s;
  while (s.length < INHERITED_FD_BASE) s.push('ignore');
  return [...s, ...fds];
}

/** The accept queue length of the listening socket on 127.0.0.1:port (from /proc/net/tcp), null if not found. */
function acceptQueue(port: number): number | null {
  let text = '';
  try {
    text = readFileSync('/proc/net/tcp', 'latin1');
  } catch {
    return null;
  }
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[1] === local && f[3] === '0A') return parseInt(f[4].split(':')[1], 16);
  }
  return null;
}

/**
 * Resolves true once a process accepts on a handed-over listening socket: a probe connection is
 * made (no data is sent) and the socket's accept queue is watched until it is taken.
 */
async function waitAccepting(port: number, timeoutMs: number, stillRunning: () => boolean): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const sock = net.connect({ host: '127.0.0.1', port });
  sock.on('error', () => undefined);
  try {
    await new Promise<void>((r) => {
      sock.once('connect', () => r());
      sock.once('error', () => r());
      setTimeout(r, 1000);
    });
    while (Date.now() < deadline) {
      if (!stillRunning()) return false;
      const q = acceptQueue(port);
      if (q === 0 || q === null) return true;
      await new Promise((r) => setTimeout(r, 15));
    }
    return false;
  } finally {
    sock.destroy();
  }
}
