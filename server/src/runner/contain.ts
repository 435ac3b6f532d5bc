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
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  statSync,
  writeSync,
  constants as fsc,
} from 'node:fs';
import { randomInt } from 'node:crypto';
import * as path from 'node:path';
import * as net from 'node:net';

export type ContainmentMode = 'namespace' | 'rewrite-only';

const HOLDER = [
  'if read -r _; then exit 0; fi',
  'case "$1" in */proxy-tuner-bench-*) ;; *) exit 0 ;; esac',
  'sleep 1; rm -rf -- "$1"; sleep 2; rm -rf -- "$1"',
].join('\n');

/** Where the contained uids start (see Containment.uid). */
export const CONTAINED_UID_BASE = 0x5a000000;

/** Caps of every contained process (prlimit) and of the run's folder (tmpfs). */
export const LIMITS = {
  /** RLIMIT_FSIZE: the largest file a contained process can write. */
  fileSize: 256 * 1024 * 1024,
  /** RLIMIT_NPROC: processes and threads of the run's uid (together). */
  processes: 512,
  /** RLIMIT_AS of a proxy (its config test included). */
  addressSpace: 2 * 1024 * 1024 * 1024,
  /**
   * RLIMIT_AS of a Node child (the engine's own built-in backend, not the proxy): none, since V8
   * reserves tens of GB of address space for WebAssembly (tsx's lexer) that it never touches.
   */
  nodeAddressSpace: 'unlimited',
  /** Size of each empty tmpfs over /tmp, /run, /home, /root, /var/*. */
  otherTmpfs: 64 * 1024 * 1024,
  /** Size of the tmpfs that holds the run's folder inside the containment. */
  runFolder: 512 * 1024 * 1024,
};

/** Files of /etc a proxy reads (users, name service, loader, time zone, CA store); nothing else of /etc is visible. */
const ETC_FILES = [
  'passwd',
  'group',
  'nsswitch.conf',
  'hosts',
  'host.conf',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'ssl/openssl.cnf',
  'ssl/certs',
  'ca-certificates.conf',
  'mime.types',
  'nginx',
  'haproxy',
  'alternatives',
];

/** The first file descriptor number used for handed-over listening sockets in a child. */
export const INHERITED_FD_BASE = 10;

export interface WrappedCommand {
  cmd: string;
  args: string[];
}

export class Containment {
  private disposed = false;
  /** Files and folders the config reads in place, [real path, path as named], shown read-only (showReadOnly). */
  private reads: [string, string][] = [];

  private constructor(
    readonly mode: ContainmentMode,
    /** Why namespaces were not used (rewrite-only mode). */
    readonly reason: string | undefined,
    /** The writable folder. */
    readonly dir: string,
    private readonly holder: ChildProcess | null,
    private readonly netnsPid: number,
  ) {}

  /**
   * The uid (and gid) the run's processes have on the host when the engine runs as root: picked
   * at random from a range no distribution gives out, so no file, socket or process of the host
   * belongs to it.
   */
  readonly uid = CONTAINED_UID_BASE + randomInt(0, 0x00ffffff);

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

  /**
   * Makes files and folders the config reads where they are (an HAProxy map, an nginx `root`)
   * visible read-only to every later contained process, one bind each: [real path, path as the
   * config names it]. The caller has checked them (sandbox/common.ts `visibleReads`).
   */
  showReadOnly(binds: readonly [string, string][]): void {
    for (const [src, dest] of binds) if (!this.reads.some(([, d]) => d === dest)) this.reads.push([src, dest]);
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

  /**
   * The command that runs `cmd args` contained (unchanged in rewrite-only mode):
   * `nsenter` into the run's network namespace; as root, `setpriv` to the run's own unused uid
   * (no supplementary groups, no new privileges); `prlimit` caps; then `bwrap` with user, PID, IPC,
   * UTS and cgroup namespaces, `--die-with-parent`, `--new-session`, and a root that holds only
   * the system's programs and libraries, a minimal /etc, the binary's own files and the run's
   * folder as a fresh size-capped tmpfs in which the engine's files are read-only binds. Nothing
   * the contained process writes reaches the host's copy of the folder.
   */
  wrap(cmd: string, args: string[], opts: WrapOptions = {}): WrappedCommand {
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
    // a Node program (the built-in backend), maybe under the supervisor's shell
    const isNode = [cmd, ...args].some((a) => a === process.execPath || /(^|\/)node$/.test(a));
    const filter = writeSeccomp(dir);
    if (root) shareWithUid(dir, this.uid);
    const drop = root
      ? ['setpriv', '--reuid', String(this.uid), '--regid', String(this.uid), '--clear-groups', '--no-new-privs', '--']
      : [];
    const limits = [
      'prlimit',
      `--fsize=${LIMITS.fileSize}`,
      `--nproc=${LIMITS.processes}`,
      `--as=${isNode ? LIMITS.nodeAddressSpace : LIMITS.addressSpace}`,
      `--nofile=${nofile()}`,
      `--core=0`,
      '--',
      // bwrap reads the seccomp program from fd 9, opened here on the engine's read-only file
      ...(filter ? ['/bin/sh', '-c', 'exec 9<"$0" && exec "$@"', filter] : []),
    ];
    // the binary may be an argument of the supervisor's shell: every program named is looked at
    const programs = [cmd, ...args].filter((a) => path.isAbsolute(a) && !a.startsWith(dir + '/') && isProgram(a));
    const visible = new Set<string>([
      ...programs.flatMap(launcherRoots),
      ...(isNode ? nodeRoots([cmd, ...args]) : []),
      ...(opts.visible ?? []),
    ]);
    const bw = [
      'bwrap',
      '--unshare-user',
      ...(root ? ['--uid', String(this.uid), '--gid', String(this.uid)] : []),
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      '--hostname',
      'proxy-tuner',
      '--die-with-parent',
      '--new-session',
      ...systemRoot(),
      ...[...visible].flatMap((v) => ['--ro-bind-try', v, v]),
      // as root, bwrap opens these as the run's uid: a file only its owner may read stays unreadable
      ...this.reads.flatMap(([src, dest]) => ['--ro-bind-try', src, dest]),
      '--size',
      String(LIMITS.runFolder),
      '--tmpfs',
      dir,
      ...runFolderBinds(dir),
      ...testWritable(),
      // the sandbox's own root (its /etc, /var) read-only: only the tmpfs mounts above take writes
      '--remount-ro',
      '/',
      '--chdir',
      dir,
      '--cap-drop',
      'ALL',
      ...(filter ? ['--seccomp', '9'] : []),
    ];
    return { cmd: 'nsenter', args: [...enter, '--', ...drop, ...limits, ...bw, '--', cmd, ...args] };
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

export interface WrapOptions {
  /** More paths made visible read-only (the binary's own files when they live elsewhere). */
  visible?: string[];
}

/**
 * System calls no proxy, module or backend needs and that reach into the kernel or other
 * processes: ptrace and process_vm_*, mount and the new mount API, pivot_root, keyrings, bpf,
 * perf_event_open, userfaultfd, kexec. x86_64 numbers; every other architecture's calls (i386
 * through int 0x80, x32) are denied whole. On other machines no filter is applied.
 */
const SECCOMP_DENY_X86_64 = [101, 310, 311, 165, 166, 155, 428, 429, 430, 431, 432, 433, 442, 248, 249, 250, 321, 298, 323, 246, 320];

/** The classic BPF program for bwrap's --seccomp: EPERM for the calls above, everything else allowed. */
export function seccompProgram(opts: { allowPtrace?: boolean } = {}): Buffer | null {
  if (process.arch !== 'x64') return null;
  // tests only: the adversarial suite traces the proxy with strace inside the containment
  const denied = opts.allowPtrace ? SECCOMP_DENY_X86_64.filter((nr) => nr !== 101) : SECCOMP_DENY_X86_64;
  const ins: [number, number, number, number][] = [];
  const LD_W_ABS = 0x20;
  const JEQ = 0x15;
  const JGE = 0x35;
  const JA = 0x05;
  const RET = 0x06;
  const ALLOW = 0x7fff0000;
  const ERRNO_EPERM = 0x00050000 | 1;
  const n = denied.length;
  // 0 load arch; 1 x86_64? skip 2; 2 jump to deny; 3 load nr; 4 x32 (bit 30) -> deny;
  // 5..5+n-1 each denied nr -> deny; 5+n allow; 6+n deny (EPERM)
  const deny = 6 + n;
  ins.push([LD_W_ABS, 0, 0, 4]);
  ins.push([JEQ, 1, 0, 0xc000003e]);
  ins.push([JA, 0, 0, deny - 3]);
  ins.push([LD_W_ABS, 0, 0, 0]);
  ins.push([JGE, deny - 5, 0, 0x40000000]);
  denied.forEach((nr, i) => ins.push([JEQ, deny - 6 - i, 0, nr]));
  ins.push([RET, 0, 0, ALLOW]);
  ins.push([RET, 0, 0, ERRNO_EPERM]);
  const b = Buffer.alloc(ins.length * 8);
  ins.forEach(([code, jt, jf, k], i) => {
    b.writeUInt16LE(code, i * 8);
    b.writeUInt8(jt, i * 8 + 2);
    b.writeUInt8(jf, i * 8 + 3);
    b.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return b;
}

/** Writes the run's seccomp program into its folder once (no link followed); its path, or null without a filter. */
function writeSeccomp(dir: string): string | null {
  const prog = seccompProgram({ allowPtrace: testWritable().length > 0 });
  if (!prog || process.env.PROXY_TUNER_SECCOMP === 'off') return null;
  const file = path.join(dir, '.seccomp.bpf');
  try {
    const st = lstatSync(file);
    return st.isFile() ? file : null;
  } catch {
    // not written yet
  }
  const fd = openSync(file, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL | (fsc.O_NOFOLLOW ?? 0), 0o640);
  try {
    writeSync(fd, prog);
  } finally {
    closeSync(fd);
  }
  return file;
}

/** The system's programs and libraries, a minimal /etc, fresh /proc and /dev, empty tmpfs elsewhere. */
function systemRoot(): string[] {
  const out: string[] = ['--ro-bind', '/usr', '/usr'];
  for (const top of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    try {
      const st = lstatSync(top);
      if (st.isSymbolicLink()) out.push('--symlink', readlinkSync(top), top);
      else if (st.isDirectory()) out.push('--ro-bind', top, top);
    } catch {
      // absent here
    }
  }
  out.push('--proc', '/proc', '--dev', '/dev');
  for (const t of ['/tmp', '/run', '/home', '/root', '/var/lib', '/var/log', '/var/tmp', '/var/cache'])
    out.push('--size', String(LIMITS.otherTmpfs), '--tmpfs', t);
  // nginx's compiled-in temp and log folders exist (empty, writable, gone with the run)
  out.push('--symlink', '../run', '/var/run', '--dir', '/var/lib/nginx', '--dir', '/var/log/nginx');
  // web content a config serves (`root /var/www/html`), read-only
  for (const d of ['/var/www', '/srv']) out.push('--ro-bind-try', d, d);
  out.push('--dir', '/etc');
  for (const f of ETC_FILES) out.push('--ro-bind-try', `/etc/${f}`, `/etc/${f}`);
  return out;
}

/**
 * Inside the tmpfs that holds the run's folder: every folder of the host's copy again (writable,
 * empty) and every regular file the engine wrote there as a read-only bind. Links and anything
 * else are left out.
 */
function runFolderBinds(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number) => {
    if (depth > 16 || out.length > 20_000) return;
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names.sort()) {
      const p = path.join(d, n);
      let st;
      try {
        st = lstatSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        out.push('--dir', p);
        walk(p, depth + 1);
      } else if (st.isFile()) out.push('--ro-bind', p, p);
    }
  };
  walk(dir, 0);
  return out;
}

/**
 * The host's copy of the run's folder is readable by the run's uid through its group (owner root,
 * group the run's gid, no write for the group): the contained process reads the engine's files
 * and can change none of them, and the engine's writes there never follow anything it made.
 */
function shareWithUid(dir: string, uid: number): void {
  const walk = (p: string, depth: number) => {
    let st;
    try {
      st = lstatSync(p);
    } catch {
      return;
    }
    if (st.isSymbolicLink() || depth > 16) return;
    try {
      chownSync(p, 0, uid);
      chmodSync(p, st.isDirectory() ? 0o750 : 0o640);
    } catch {
      return;
    }
    if (st.isDirectory()) for (const n of readdirSync(p)) walk(path.join(p, n), depth + 1);
  };
  walk(dir, 0);
}

/**
 * Tests only: PROXY_TUNER_TEST_TRACE_DIR (set in the engine's own environment, never by a config)
 * names a host folder bound writable into every containment, where the adversarial suite's strace
 * wrappers leave their traces (the seccomp filter then lets ptrace through, for strace). The
 * engine never reads or writes it.
 */
function testWritable(): string[] {
  const d = process.env.PROXY_TUNER_TEST_TRACE_DIR;
  if (!d || !path.isAbsolute(d) || !existsSync(d)) return [];
  return ['--bind', d, d];
}

/** RLIMIT_NOFILE soft:hard as this process has it (the plan sized connections from it), at most 65536. */
function nofile(): string {
  try {
    const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(readFileSafe('/proc/self/limits'));
    if (m) {
      const n = (v: string) => Math.min(65536, v === 'unlimited' ? 65536 : Number(v));
      return `${n(m[1])}:${n(m[2])}`;
    }
  } catch {
    // below
  }
  return '4096:4096';
}

function readFileSafe(p: string): string {
  const fd = openSync(p, 'r');
  try {
    const b = Buffer.alloc(65536);
    const n = readSync(fd, b, 0, b.length, 0);
    return b.subarray(0, n).toString('latin1');
  } finally {
    closeSync(fd);
  }
}

/**
 * A launcher script (the version matrix's `.matrix/bin/nginx-1.30.6`) runs a binary of another
 * Debian root through that root's loader: the roots it names are made visible, with the
 * launcher's own folder. For an ordinary binary outside /usr, its folder.
 */
export function launcherRoots(cmd: string): string[] {
  const out = new Set<string>();
  let real = cmd;
  try {
    real = realpathSync(cmd);
  } catch {
    return [];
  }
  if (!real.startsWith('/usr/')) out.add(path.dirname(real));
  let head = '';
  try {
    head = readFileSafe(real).slice(0, 4096);
  } catch {
    return [...out];
  }
  if (!head.startsWith('#!')) return [...out];
  for (const m of head.matchAll(/\/[\w./+-]+/g)) {
    const cut = /\/(?:usr|lib|lib64|lib32|sbin|bin)(?:\/|$)/.exec(m[0]);
    const rootDir = cut ? m[0].slice(0, cut.index) : '';
    if (rootDir && rootDir !== '/' && existsSync(rootDir) && !rootDir.startsWith('/usr')) out.add(rootDir);
  }
  return [...out];
}

function isProgram(p: string): boolean {
  try {
    const st = statSync(p);
    return st.isFile() && (st.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** A Node child: the packages its absolute arguments live in (and their node_modules, real paths). */
function nodeRoots(args: string[]): string[] {
  const out = new Set<string>();
  for (const a of args) {
    if (!path.isAbsolute(a) || !existsSync(a)) continue;
    for (let d = path.dirname(a); d !== path.dirname(d); d = path.dirname(d)) {
      if (existsSync(path.join(d, 'package.json')) && !d.includes(`${path.sep}node_modules${path.sep}`)) {
        out.add(d);
        try {
          out.add(realpathSync(d));
          out.add(realpathSync(path.join(d, 'node_modules')));
        } catch {
          // no node_modules
        }
        break;
      }
    }
  }
  return [...out];
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
