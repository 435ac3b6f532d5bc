// The seccomp filter of every contained process (issue 33): ptrace, keyctl, mount and bpf fail
// with EPERM inside the containment, an ordinary call works; the same probe without the filter
// (PROXY_TUNER_SECCOMP=off, tests only) shows that the filter is what refuses ptrace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { Containment, seccompProgram, unavailableReason } from '../../server/src/runner/contain';
import { makeSandboxDir, removeSandboxDir } from '../../server/src/runner/sandbox/common';

const PROBE_C = String.raw`
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
static void say(const char *n, long r) { printf("%s %s\n", n, r < 0 ? strerror(errno) : "ok"); }
int main(void) {
  say("ptrace", syscall(SYS_ptrace, 0, 0, 0, 0));
  say("keyctl", syscall(SYS_keyctl, 0, 0, 0, 0));
  say("mount", syscall(SYS_mount, "none", "/tmp", "tmpfs", 0, 0));
  say("bpf", syscall(SYS_bpf, 0, 0, 0));
  say("perf_event_open", syscall(SYS_perf_event_open, 0, 0, -1, -1, 0));
  say("getpid", syscall(SYS_getpid));
  return 0;
}
`;

const skip = (() => {
  if (process.platform !== 'linux' || !seccompProgram()) return 'x86_64 Linux only';
  const why = unavailableReason();
  if (why) return why;
  if (spawnSync('gcc', ['--version'], { stdio: 'ignore' }).status !== 0) return 'gcc not installed';
  return false;
})();

async function probe(filter: boolean): Promise<Record<string, string>> {
  const saved = process.env.PROXY_TUNER_SECCOMP;
  if (!filter) process.env.PROXY_TUNER_SECCOMP = 'off';
  const dir = makeSandboxDir();
  // the probe lives outside the run's folder (whose files are the engine's, not executable)
  const bin = mkdtempSync(join(os.tmpdir(), 'pt-seccomp-'));
  chmodSync(bin, 0o755);
  try {
    writeFileSync(join(bin, 'probe.c'), PROBE_C);
    const cc = spawnSync('gcc', ['-o', join(bin, 'probe'), join(bin, 'probe.c')], { encoding: 'utf8' });
    assert.equal(cc.status, 0, cc.stderr);
    const c = await Containment.open(dir);
    try {
      assert.equal(c.mode, 'namespace', c.reason);
      const w = c.wrap(join(bin, 'probe'), []);
      const r = spawnSync(w.cmd, w.args, { encoding: 'utf8', cwd: dir, timeout: 20_000 });
      assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
      return Object.fromEntries(
        r.stdout
          .trim()
          .split('\n')
          .map((l) => [l.split(' ')[0], l.slice(l.indexOf(' ') + 1)]),
      );
    } finally {
      await c.dispose();
    }
  } finally {
    if (saved === undefined) delete process.env.PROXY_TUNER_SECCOMP;
    else process.env.PROXY_TUNER_SECCOMP = saved;
    removeSandboxDir(dir);
    rmSync(bin, { recursive: true, force: true });
  }
}

test(
  'contained processes: ptrace, keyctl, mount, bpf, perf_event_open fail with EPERM; getpid works',
  { skip, timeout: 60_000 },
  async () => {
    const on = await probe(true);
    console.log(`# filtered: ${JSON.stringify(on)}`);
    for (const call of ['ptrace', 'keyctl', 'mount', 'bpf', 'perf_event_open']) assert.equal(on[call], 'Operation not permitted', call);
    assert.equal(on.getpid, 'ok');
    const off = await probe(false);
    console.log(`# without the filter: ${JSON.stringify(off)}`);
    assert.equal(off.ptrace, 'ok', 'PTRACE_TRACEME succeeds without the filter');
    for (const call of ['keyctl', 'bpf', 'perf_event_open'])
      assert.notEqual(off[call], 'Operation not permitted', `${call} without the filter`);
  },
);
