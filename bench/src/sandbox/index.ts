// The sandboxed proxy: temp folder + throw-away TLS pair + rewritten config copy, checked with
// the binary's own test (`nginx -t` / `haproxy -c`, messages mapped back to the user's lines),
// then run under the supervisor (proxy.ts) on free loopback ports, re-picked on a lost bind race.
import { readFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { ProxyKind } from '../../../protocol/bench';
import { binaryVersion, findBinary, freePorts, INSTALL_HINT, SupervisedProcess, waitForPort } from '../proxy';
import {
  BACKEND_SLOTS,
  ConfigCheckError,
  fillPorts,
  makeSandboxDir,
  makeTlsPair,
  mapMessages,
  removeSandboxDir,
  SandboxRefusal,
  writeText,
  type BackendAddr,
  type SandboxListener,
  type TlsPair,
} from './common';
import { planNginxSandbox } from './nginx';
import { planHaproxySandbox } from './haproxy';
import { detectLanguage } from '../../../server/src/service/detectLanguage';

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
      t = existsSync(configPath) ? readFileSync(configPath, 'utf8') : '';
    } catch {
      t = '';
    }
  }
  return detectLanguage(configPath, t);
}

const STREAM_MODULE_PATHS = ['/usr/lib/nginx/modules/ngx_stream_module.so', '/usr/lib64/nginx/modules/ngx_stream_module.so'];

/** The rewritten copy of a config, the same shape for nginx and HAProxy. */
export interface SandboxPlan {
  mainCopy: string;
  files: RenderFile[];
  listeners: SandboxListener[];
  portCount: number;
  warnings: string[];
}

/** Plans the sandboxed copy of `configPath` in `dir` (throws SandboxRefusal naming the line). */
export function planSandbox(kind: ProxyKind, input: { configPath: string; dir: string; backend: BackendAddr; tls: TlsPair }): SandboxPlan {
  const { configPath, dir, backend, tls } = input;
  if (kind === 'nginx') {
    const p = planNginxSandbox({
      configPath,
      dir,
      backend,
      cert: tls,
      streamModule: STREAM_MODULE_PATHS.find((m) => existsSync(m)),
      runningAsRoot: process.getuid?.() === 0,
    });
    return { mainCopy: p.mainCopy, files: p.files, listeners: p.listeners, portCount: p.portCount, warnings: p.warnings };
  }
  const p = planHaproxySandbox({ configPath, dir, backend, cert: tls });
  return { mainCopy: p.copy, files: [{ copy: p.copy, original: p.original, text: p.text }], listeners: p.listeners, portCount: p.portCount, warnings: p.warnings };
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
  listeners: SandboxListener[] = [];
  private files: RenderFile[] = [];
  private portCount = 0;
  private mainCopy = '';
  private backend: BackendAddr | undefined;
  private proc: SupervisedProcess | null = null;
  private disposed = false;

  private constructor(
    readonly kind: ProxyKind,
    readonly configPath: string,
    readonly binary: string,
    readonly version: string,
    readonly dir: string,
    readonly tls: TlsPair,
  ) {}

  /** Finds the binary and makes the temp folder with a throw-away TLS pair. */
  static create(opts: { configPath: string; kind?: ProxyKind; binary?: string; keyType?: 'rsa' | 'ecdsa' }): ProxySandbox {
    const configPath = path.resolve(opts.configPath);
    if (!existsSync(configPath)) throw new SandboxRefusal(`config file not found: ${configPath}`);
    const kind = opts.kind ?? detectKind(configPath);
    const binary = findBinary(kind, opts.binary);
    if (!binary) throw new Error(opts.binary ? `${opts.binary} is not an executable file` : INSTALL_HINT[kind]);
    const version = binaryVersion(kind, binary);
    const dir = makeSandboxDir();
    try {
      const tls = makeTlsPair(dir, opts.keyType ?? 'rsa');
      return new ProxySandbox(kind, configPath, binary, version, dir, tls);
    } catch (e) {
      removeSandboxDir(dir);
      throw e;
    }
  }

  /**
   * Rewrites the config (throws SandboxRefusal naming the line). Without `backend` the backend's
   * ports stay placeholders until setBackend(); so a refusal comes before any process starts.
   */
  plan(backend: BackendAddr = BACKEND_SLOTS): void {
    if (backend !== BACKEND_SLOTS) this.backend = backend;
    const p = planSandbox(this.kind, { configPath: this.configPath, dir: this.dir, backend, tls: this.tls });
    this.files = p.files;
    this.listeners = p.listeners;
    this.portCount = p.portCount;
    this.mainCopy = p.mainCopy;
    this.warnings.push(...p.warnings);
    if (this.listeners.length === 0) throw new SandboxRefusal('the config has no listener (no `listen` / `bind`) to send load to', this.configPath, 1);
  }

  /** The running backend's ports, for a plan made without them. */
  setBackend(backend: BackendAddr): void {
    this.backend = backend;
  }

  private fileMap(): Map<string, string> {
    return copyToOriginal(this.files);
  }

  private render(ports: number[]): void {
    for (const f of this.files) writeText(f.copy, fillPorts(f.text, ports, this.backend));
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

  /** Runs the binary's own config test on the rendered copy. */
  private check(): void {
    const r = spawnSync(this.binary, this.checkArgs(), { encoding: 'utf8', timeout: 20_000, cwd: this.dir });
    const out = mapMessages(`${r.stdout ?? ''}${r.stderr ?? ''}`.trim(), this.fileMap());
    if (r.status !== 0) {
      const lines = out.split('\n').filter((l) => /emerg|alert|error|crit/i.test(l));
      const first = lines[0] ?? out.split('\n')[0] ?? 'unknown error';
      throw new ConfigCheckError(`${this.kind} rejected the config: ${first.replace(/^nginx: /, '').trim()}`, out);
    }
    for (const l of out.split('\n')) if (/\[warn\]|WARNING/.test(l)) this.warnings.push(l.trim());
  }

  /** Picks ports, writes the copy, checks it, starts the proxy and waits until every TCP listener accepts. */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.files.length === 0) throw new Error('plan() must run before start()');
    let lastError: Error | null = null;
    for (let attempt = 0; attempt < 4; attempt++) {
      if (signal?.aborted) throw Object.assign(new Error('The benchmark was cancelled'), { name: 'AbortError' });
      const ports = await freePorts(this.portCount);
      this.render(ports);
      try {
        this.check();
      } catch (e) {
        if (/Address already in use|cannot bind/i.test((e as Error).message)) {
          lastError = e as Error;
          continue;
        }
        throw e;
      }
      const proc = SupervisedProcess.start(this.binary, this.runArgs(), this.dir, this.dir);
      this.proc = proc;
      const tcp = this.listeners.filter((l) => !l.udp);
      let ok = true;
      for (const l of tcp) {
        if (!(await waitForPort(l.port, 10_000, () => !proc.exited))) {
          ok = false;
          break;
        }
      }
      if (ok) return;
      const info = await proc.stop();
      this.proc = null;
      const log = this.errorLog();
      const text = mapMessages(`${info.output}\n${log}`.trim(), this.fileMap());
      lastError = new Error(`${this.kind} did not start: ${text.split('\n').find((l) => /emerg|alert|error/i.test(l)) ?? text.slice(0, 500)}`);
      if (!/Address already in use|cannot bind/i.test(text)) throw lastError;
    }
    throw lastError ?? new Error(`${this.kind} did not start`);
  }

  private errorLog(): string {
    try {
      return readFileSync(path.join(this.dir, 'logs', 'error.log'), 'utf8').slice(-4000);
    } catch {
      return '';
    }
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

  /** Stops the proxy and removes the temp folder. Safe to call twice. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.stop();
    removeSandboxDir(this.dir);
  }

  /** The rewritten copies (for display and tests): [copy path, original path, text with ports]. */
  copies(): { copy: string; original: string; text: string }[] {
    return this.files.map((f) => ({ copy: f.copy, original: f.original, text: readFileSafe(f.copy) ?? f.text }));
  }
}

function readFileSafe(p: string): string | null {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}
