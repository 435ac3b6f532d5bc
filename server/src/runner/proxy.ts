// Process control for the proxy binary. The binary runs under a tiny /bin/sh supervisor that is
// the leader of a new process group (spawned detached) and reads its stdin, a pipe from us: when
// we close it, or when our process dies for any reason (the kernel closes the pipe), the
// supervisor sends SIGTERM to the proxy, and SIGKILL to the whole group 3 s later; once the proxy
// has exited it kills the group (nginx and HAProxy workers stay in their master's group in the
// foreground modes we use). We then check /proc that the group is empty.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import { accessSync, constants } from 'node:fs';
import * as path from 'node:path';
import { groupCpuSeconds, groupMembers } from './proc';
import { stdioWithFds, type Containment } from './contain';
import { findOnPath } from './lookup';

/** How a supervised child is started (all optional). */
export interface SuperviseOptions {
  /**
   * The run's containment: the child (the supervisor itself, and so everything it starts) runs
   * inside the run's loopback-only network namespace with a read-only file system except the
   * run's folder. Every process of a run goes through here with it.
   */
  containment?: Containment;
  /** Open file descriptors of this process handed to the child as fds 10, 11, ... (listening sockets). */
  fds?: number[];
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** An IPC channel on fd 3 (a Node child: process.send / 'message'). */
  ipc?: boolean;
}

// A background list's stdin is /dev/null in a non-interactive shell: keep the pipe on fd 9 (fd 3
// may be the child's IPC channel, fds from 10 up its inherited listening sockets).
// A line on the pipe is a normal stop; EOF without a line means our process died: then the
// supervisor also removes the sandbox folder (PT_SANDBOX_DIR, only a proxy-tuner-bench-* path).
const SUPERVISOR = [
  'exec 9<&0',
  '"$@" </dev/null 9<&- &',
  'c=$!',
  "trap '' PIPE",
  'd="$PT_SANDBOX_DIR"',
  'case "$d" in */proxy-tuner-bench-*) ;; *) d= ;; esac',
  '{ if ! read -r _ <&9 && [ -n "$d" ]; then : > "$d/.parent-gone"; fi; kill -TERM "$c" 2>/dev/null; sleep 3; kill -KILL 0 2>/dev/null; } &',
  'wait "$c"; rc=$?',
  'if [ -n "$d" ] && [ -e "$d/.parent-gone" ]; then rm -rf "$d"; fi',
  'echo "__proxy_tuner_exit $rc" >&2',
  'kill -KILL 0',
].join('\n');

const EXIT_MARK = /__proxy_tuner_exit (\d+)/;

export interface ExitInfo {
  code: number | null;
  output: string;
}

export class SupervisedProcess {
  private out = '';
  private readonly exitPromise: Promise<ExitInfo>;
  private exitedFlag = false;

  private constructor(
    private readonly child: ChildProcess,
    /** Started inside the run's namespaces. */
    readonly contained = false,
  ) {
    const collect = (b: Buffer) => {
      if (this.out.length < 65536) this.out += b.toString();
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.stdin?.on('error', () => undefined);
    this.exitPromise = new Promise((resolve) => {
      let settled = false;
      const done = () => {
        if (settled) return;
        settled = true;
        this.exitedFlag = true;
        const m = EXIT_MARK.exec(this.out);
        resolve({ code: m ? Number(m[1]) : null, output: this.out.replace(EXIT_MARK, '').trim() });
      };
      child.once('close', done);
      // With an IPC channel 'close' may not come once the child is gone: its output pipes'
      // ends (bounded) are enough then.
      child.once('exit', () => {
        let open = [child.stdout, child.stderr].filter((s) => s && !s.readableEnded).length;
        if (open === 0) return void setImmediate(done);
        for (const s of [child.stdout, child.stderr]) s?.once('end', () => --open === 0 && setImmediate(done));
        setTimeout(done, 500).unref();
      });
    });
  }

  /**
   * Starts `cmd args...` under the supervisor in a new process group; with `opts.containment`
   * the supervisor and the child run contained (the common spawn path of every run's processes).
   */
  static start(cmd: string, args: string[], cwd: string, sandboxDir?: string, opts: SuperviseOptions = {}): SupervisedProcess {
    // A clean environment: the child (and whatever the config loads) sees none of ours (tokens,
    // paths, the user's settings), only what it needs.
    const env = { ...cleanEnv(), ...opts.containment?.env(), ...opts.env, PT_SANDBOX_DIR: sandboxDir ?? '' };
    const inner = ['-c', SUPERVISOR, 'proxy-tuner-supervisor', cmd, ...args];
    const w = opts.containment ? opts.containment.wrap('/bin/sh', inner) : { cmd: '/bin/sh', args: inner };
    const child = spawn(w.cmd, w.args, {
      cwd,
      env,
      detached: true,
      stdio: stdioWithFds(opts.ipc ? ['pipe', 'pipe', 'pipe', 'ipc'] : ['pipe', 'pipe', 'pipe'], opts.fds ?? []) as never,
      serialization: 'json',
    });
    return new SupervisedProcess(child, !!opts.containment?.contained);
  }

  /** The spawned process (the supervisor, or the wrapper around it): for its IPC channel. */
  get process(): ChildProcess {
    return this.child;
  }

  /** Process group id (the supervisor's pid). */
  get pgid(): number {
    return this.child.pid ?? -1;
  }

  get exited(): boolean {
    return this.exitedFlag;
  }

  get output(): string {
    return this.out.replace(EXIT_MARK, '').trim();
  }

  whenExited(): Promise<ExitInfo> {
    return this.exitPromise;
  }

  /** CPU seconds of every live process in the group (master and workers). */
  cpuSeconds(): number {
    return this.pgid > 0 ? groupCpuSeconds(this.pgid) : 0;
  }

  /** Stops the proxy and waits until no process of the group is left (bounded: about 5 s). */
  async stop(): Promise<ExitInfo> {
    try {
      this.child.stdin?.end('stop\n');
    } catch {
      // pipe already closed
    }
    const timer = setTimeout(() => this.killGroup(), 4000);
    const info = await this.exitPromise;
    clearTimeout(timer);
    for (let i = 0; i < 40 && this.pgid > 0 && groupMembers(this.pgid).length > 0; i++) {
      if (i === 20) this.killGroup();
      await new Promise((r) => setTimeout(r, 50));
    }
    return info;
  }

  private killGroup(): void {
    if (this.pgid <= 0) return;
    try {
      process.kill(-this.pgid, 'SIGKILL');
    } catch {
      // group already gone
    }
  }
}

/** The environment a proxy, its config test or the backend starts with: a fixed PATH and locale, nothing of ours. */
export function cleanEnv(): Record<string, string> {
  return { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C', LC_ALL: 'C' };
}

/** Picks `n` distinct free ports on 127.0.0.1 (they may be taken again before use: callers retry). */
export async function freePorts(n: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < n; i++) {
      const s = net.createServer();
      servers.push(s);
      ports.push(
        await new Promise<number>((resolve, reject) => {
          s.once('error', reject);
          s.listen(0, '127.0.0.1', () => resolve((s.address() as net.AddressInfo).port));
        }),
      );
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(() => r(undefined)))));
  }
}

/** Resolves once a TCP connection to 127.0.0.1:port succeeds; false after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs: number, stillRunning: () => boolean): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 1000 && Date.now() < deadline; i++) {
    if (!stillRunning()) return false;
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port });
      const done = (v: boolean) => {
        s.destroy();
        resolve(v);
      };
      s.once('connect', () => done(true));
      s.once('error', () => done(false));
      s.setTimeout(500, () => done(false));
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 30));
  }
  return false;
}

export const INSTALL_HINT: Record<'nginx' | 'haproxy', string> = {
  nginx:
    'nginx was not found on PATH; install it (Debian/Ubuntu: `apt-get install nginx`) or pass its path (--binary / proxyTuner.nginx.path).',
  haproxy:
    'haproxy was not found on PATH; install it (Debian/Ubuntu: `apt-get install haproxy`) or pass its path (--binary / proxyTuner.haproxy.path).',
};

/** An explicit binary (when executable), else the one findOnPath finds (lookup.ts). */
export function findBinary(name: string, explicit?: string): string | null {
  // absolute: the proxy runs with its sandbox folder as the working directory
  if (explicit) return isExecutable(explicit) ? path.resolve(explicit) : null;
  return findOnPath(name) ?? null;
}

function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `nginx -v` / `haproxy -v` → "1.22.1" / "2.6.12" (empty when unknown). */
export function binaryVersion(kind: 'nginx' | 'haproxy', binary: string): string {
  const r = spawnSync(binary, kind === 'nginx' ? ['-v'] : ['-v'], { encoding: 'utf8', timeout: 5000 });
  const text = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  const m = kind === 'nginx' ? /nginx\/(\d+\.\d+\.\d+)/.exec(text) : /version (\d+\.\d+(?:\.\d+)?)/.exec(text);
  return m ? m[1] : '';
}
