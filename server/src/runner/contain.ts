// Containment by construction (Linux). Every process the engine starts for a run (the proxy, the
// built-in backend, the binary's config test, and any other child that goes through
// SupervisedProcess.start with the run's Containment) runs under bubblewrap:
// - in one network namespace per run that has nothing but loopback: a connect or datagram to any
//   other address fails in the kernel (ENETUNREACH), whatever the config says; name lookups find
//   no server;
// - with the whole file system mounted read-only except the run's private folder (and a fresh
//   /dev), so a write anywhere else fails with EROFS;
// - as root, without capabilities beyond setuid/setgid (no way to remount or to enter another
//   namespace).
// The namespace is held by a small `bwrap --unshare-net` process for the run's lifetime; each
// contained child enters it with `nsenter` and gets its own read-only mount namespace from bwrap.
// The load generator stays in the engine's process: the proxy's listening sockets are made on the
// host's loopback by the engine and handed to the proxy as inherited file descriptors (nginx's
// `NGINX` variable, HAProxy's `fd@N`), so load reaches the proxy with no forwarder in the data
// path, while everything the proxy itself opens lives in the namespace.
// Where this is unavailable (not Linux, no bwrap/nsenter, user namespaces off), `mode` is
// 'rewrite-only' with the reason, and runs rely on the config rewrite alone.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import * as net from 'node:net';

export type ContainmentMode = 'namespace' | 'rewrite-only';

const HOLDER = [
  'if read -r _; then exit 0; fi',
  'case "$1" in */proxy-tuner-bench-*) ;; *) exit 0 ;; esac',
  'sleep 1; rm -rf -- "$1"; sleep 2; rm -rf -- "$1"',
].join('\n');

/** The first file descriptor number used for handed-over listening sockets in a child. */
export const INHERITED_FD_BASE = 10;

export interface WrappedCommand {
  cmd: string;
  args: string[];
}

export class Containment {
  private disposed = false;

  private constructor(
    readonly mode: ContainmentMode,
    /** Why namespaces were not used (rewrite-only mode). */
    readonly reason: string | undefined,
    /** The writable folder. */
    readonly dir: string,
    private readonly holder: ChildProcess | null,
    private readonly netnsPid: number,
  ) {}

  /** A containment that only relies on the rewrite (no namespaces). */
  static rewriteOnly(dir: string, reason: string): Containment {
    return new Containment('rewrite-only', reason, dir, null, -1);
  }

  /**
   * Makes the run's network namespace (loopback only) with `dir` as the only writable folder.
   * Never throws: without namespaces it returns a rewrite-only containment saying why.
   * PROXY_TUNER_CONTAINMENT=off forces rewrite-only (for comparisons and tests of the fallback).
   */
  static async open(dir: string): Promise<Containment> {
    const why = unavailableReason();
    if (why) return Containment.rewriteOnly(dir, why);
    const root = process.getuid?.() === 0;
    let holder: ChildProcess;
    try {
      // The holder also cleans up after a dead engine: its stdin closes without a line, and it
      // removes the run's folder (which the contained processes, where it is a mount point,
      // cannot remove themselves) once their supervisors have ended them.
      holder = root
        ? spawn(
            'bwrap',
            [
              '--unshare-net',
              '--bind',
              '/',
              '/',
              '--dev',
              '/dev',
              '--info-fd',
              '3',
              '--',
              '/bin/sh',
              '-c',
              HOLDER,
              'proxy-tuner-netns',
              dir,
            ],
            { stdio: ['pipe', 'ignore', 'pipe', 'pipe'], detached: true },
          )
        : // unprivileged: a user namespace of our own (we are its root) holding the network
          // namespace; its loopback is brought up by `ip`, and `nsenter --user --net` can join it
          spawn(
            'unshare',
            [
              '--user',
              '--map-root-user',
              '--net',
              '--',
              '/bin/sh',
              '-c',
              `ip link set lo up || exit 3\necho ready\n${HOLDER}`,
              'proxy-tuner-netns',
              dir,
            ],
            {
              stdio: ['pipe', 'pipe', 'pipe'],
              detached: true,
            },
          );
    } catch (e) {
      return Containment.rewriteOnly(dir, `${root ? 'bwrap' : 'unshare'} could not start: ${(e as Error).message}`);
    }
    holder.stdin?.on('error', () => undefined);
    const pid = await new Promise<number | string>((resolve) => {
      let info = '';
      let err = '';
      const timer = setTimeout(() => resolve('the namespace holder did not report within 5 s'), 5000);
      holder.stderr?.on('data', (b: Buffer) => {
        if (err.length < 2000) err += b.toString();
      });
      const infoPipe = (root ? holder.stdio[3] : holder.stdout) as NodeJS.ReadableStream | null;
      infoPipe?.on('data', (b: Buffer) => {
        info += b.toString();
        const m = root ? /"child-pid"\s*:\s*(\d+)/.exec(info) : /ready/.test(info) ? [info, String(holder.pid)] : null;
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
      holder.once('error', (e) => {
        clearTimeout(timer);
        resolve(`${root ? 'bwrap' : 'unshare'} could not start: ${e.message}`);
      });
      holder.once('exit', (code) => {
        clearTimeout(timer);
        resolve(`${root ? 'bwrap' : 'unshare'} exited (code ${code}): ${err.trim().split('\n').pop() ?? ''}`);
      });
    });
    if (typeof pid === 'string') {
      killHolder(holder);
      return Containment.rewriteOnly(dir, `network namespaces unavailable: ${pid}`);
    }
    const c = new Containment('namespace', undefined, dir, holder, pid);
    // Probe: a contained child must start and see only loopback.
    const w = c.wrap('/bin/sh', ['-c', 'exit 0']);
    const probe = spawnSync(w.cmd, w.args, { encoding: 'utf8', timeout: 10_000 });
    if (probe.status !== 0) {
      await c.dispose();
      const msg = `${probe.error?.message ?? ''}${probe.stderr ?? ''}`.trim().split('\n').pop() ?? `status ${probe.status}`;
      return Containment.rewriteOnly(dir, `cannot enter the run's namespace (${msg})`);
    }
    return c;
  }

  get contained(): boolean {
    return this.mode === 'namespace';
  }

  /** Environment for a contained child: its temporary files go into the run's folder (the rest is read-only). */
  env(): Record<string, string> {
    if (!this.contained) return {};
    const tmp = path.join(this.dir, 'tmp');
    mkdirSync(tmp, { recursive: true });
    return { TMPDIR: tmp };
  }

  /** The command that runs `cmd args` contained (unchanged in rewrite-only mode). */
  wrap(cmd: string, args: string[]): WrappedCommand {
    if (!this.contained) return { cmd, args };
    if (this.disposed) throw new Error("the run's containment was already closed");
    const root = process.getuid?.() === 0;
    const enter = root
      ? [`--net=/proc/${this.netnsPid}/ns/net`]
      : ['--target', String(this.netnsPid), '--user', '--net', '--preserve-credentials'];
    let dir = this.dir;
    try {
      dir = realpathSync(this.dir);
    } catch {
      // made just before: keep the name
    }
    // as root, or as the root of our own user namespace (unprivileged): keep only setuid/setgid
    const caps = ['--cap-drop', 'ALL', '--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_NET_BIND_SERVICE'];
    return {
      cmd: 'nsenter',
      args: [...enter, '--', 'bwrap', '--ro-bind', '/', '/', '--dev', '/dev', '--bind', dir, dir, ...caps, '--', cmd, ...args],
    };
  }

  /** Ends the namespace holder (the namespace goes with its last process). Safe to call twice. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const h = this.holder;
    if (!h || h.exitCode !== null || h.signalCode !== null) return;
    const gone = new Promise<void>((r) => h.once('exit', () => r()));
    try {
      h.stdin?.end('stop\n');
    } catch {
      // closed already
    }
    const t = setTimeout(() => killHolder(h), 1000);
    await gone;
    clearTimeout(t);
  }
}

function killHolder(h: ChildProcess): void {
  try {
    if (h.pid) process.kill(-h.pid, 'SIGKILL');
  } catch {
    // gone
  }
}

let cachedReason: string | null | undefined;

/** Why namespaces cannot be used here, or null when they can be tried. */
export function unavailableReason(): string | null {
  if (process.env.PROXY_TUNER_CONTAINMENT === 'off') return 'turned off (PROXY_TUNER_CONTAINMENT=off)';
  if (cachedReason !== undefined) return cachedReason;
  if (process.platform !== 'linux') cachedReason = `network and mount namespaces are Linux-only (this is ${process.platform})`;
  else {
    const tools = process.getuid?.() === 0 ? ['bwrap', 'nsenter'] : ['bwrap', 'nsenter', 'unshare', 'ip'];
    const missing = tools.filter((t) => spawnSync(t, t === 'ip' ? ['-V'] : ['--version'], { stdio: 'ignore', timeout: 5000 }).status !== 0);
    cachedReason = missing.length
      ? `${missing.join(', ')} not installed (Debian/Ubuntu: apt-get install bubblewrap util-linux iproute2)`
      : null;
  }
  return cachedReason;
}

/** A listening TCP socket on the host's 127.0.0.1, to hand over to a contained proxy. */
export interface HostListener {
  port: number;
  fd: number;
  server: net.Server;
}

/** Opens `n` listening sockets on 127.0.0.1 (free ports); close them once the child has its copies. */
export async function hostListeners(n: number, backlog = 4096): Promise<HostListener[]> {
  const out: HostListener[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const server = net.createServer();
      // the engine never accepts on these: the child does
      server.on('connection', (s) => s.destroy());
      const port = await new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ port: 0, host: '127.0.0.1', backlog }, () => resolve((server.address() as net.AddressInfo).port));
      });
      const fd = (server as unknown as { _handle?: { fd?: number } })._handle?.fd ?? -1;
      if (!(fd >= 0)) throw new Error('cannot get the file descriptor of a listening socket on this platform');
      out.push({ port, fd, server });
    }
    return out;
  } catch (e) {
    closeHostListeners(out);
    throw e;
  }
}

export function closeHostListeners(list: HostListener[]): void {
  for (const l of list) {
    try {
      l.server.close();
    } catch {
      // closed
    }
  }
}

/** stdio for spawn with `fds` at INHERITED_FD_BASE, INHERITED_FD_BASE+1, ... */
export function stdioWithFds(base: ('pipe' | 'ignore' | 'ipc' | 'inherit')[], fds: number[]): (string | number)[] {
  const s: (string | number)[] = [...base];
  if (fds.length === 0) return s;
  while (s.length < INHERITED_FD_BASE) s.push('ignore');
  s.push(...fds);
  return s;
}
