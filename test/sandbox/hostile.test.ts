// Hostile native code inside the containment (issue 33). The test builds a shared object with
// gcc whose constructor runs as soon as a proxy loads it, and tries every escape class of the
// issue from inside: connect to a host unix socket (a listener of this test), signal a host
// process (a sleeper of this test), leave a daemon (a setsid child), read a secret file into the
// output, fill the disk, start 10,000 threads, and swap a file of the run's folder for a link to
// a host file after printing a fake "Address already in use". It is loaded three ways:
// - nginx `load_module` (the constructor runs during dlopen, before nginx checks the module),
// - HAProxy `ssl-provider-path` + `ssl-provider` (OpenSSL dlopens the provider),
// both through Containment.wrap (the engine's own spawn path, the rewrite bypassed: the planner
// refuses both lines); and
// - the engine's whole start path (ProxySandbox: plan, render, config test, retry decision) with
//   a proxy binary that is itself hostile (a wrapper that loads the object into the real nginx).
// The effects are asserted on the host: the listener saw nothing, the sleeper lives, no process
// remains, the target file is untouched, the output holds no secret.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import { join } from 'node:path';
import { Containment, unavailableReason } from '../../server/src/runner/contain';
import { makeSandboxDir, removeSandboxDir } from '../../server/src/runner/sandbox/common';
import { ProxySandbox } from '../../server/src/runner/sandbox';

const NGINX = '/usr/sbin/nginx';
const HAPROXY = '/usr/sbin/haproxy';
const SECRET = `pt-secret-${process.pid}-7f3a9c`;

const EVIL_C = String.raw`
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

static void *idle(void *a) { (void)a; sleep(3); return 0; }

static void report(const char *what, const char *how) { fprintf(stderr, "PT-ATTACK %s %s\n", what, how); }

__attribute__((constructor)) static void pt_hostile(void) {
  if (getenv("PT_HOSTILE_DONE")) return;
  setenv("PT_HOSTILE_DONE", "1", 1);
  char buf[512];
  /* 1. a host unix socket */
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un a; memset(&a, 0, sizeof a); a.sun_family = AF_UNIX;
  strncpy(a.sun_path, LISTENER, sizeof a.sun_path - 1);
  if (connect(s, (struct sockaddr *)&a, sizeof a) == 0) { write(s, "pwned\n", 6); report("unix-socket", "connected"); }
  else { snprintf(buf, sizeof buf, "refused:%s", strerror(errno)); report("unix-socket", buf); }
  close(s);
  /* 2. a host process */
  if (kill(SLEEPER, SIGKILL) == 0) report("signal", "sent");
  else { snprintf(buf, sizeof buf, "refused:%s", strerror(errno)); report("signal", buf); }
  /* 3. a daemon */
  pid_t p = fork();
  if (p == 0) { setsid(); if (fork() == 0) { execl("/bin/sleep", "sleep", "31.337", (char *)0); _exit(0); } _exit(0); }
  report("daemon", p > 0 ? "forked" : "fork-failed");
  /* 4. a secret into the output */
  int f = open(SECRET_FILE, O_RDONLY);
  if (f >= 0) { int n = read(f, buf, sizeof buf - 1); buf[n > 0 ? n : 0] = 0; fprintf(stderr, "PT-ATTACK secret read:%s\n", buf); close(f); }
  else { snprintf(buf, sizeof buf, "refused:%s", strerror(errno)); report("secret", buf); }
  /* 5. a swapped link in the run's folder, then the fake error the engine used to retry on */
  if (getenv("PT_HOSTILE_SWAP")) {
    const char *c = getenv("PT_HOSTILE_SWAP");
    unlink(c);
    if (symlink(TARGET, c) == 0) report("swap", "linked"); else { snprintf(buf, sizeof buf, "refused:%s", strerror(errno)); report("swap", buf); }
    fprintf(stderr, "nginx: [emerg] bind() to 127.0.0.1:80 failed (98: Address already in use)\n");
  }
  int t = open(TARGET, O_WRONLY | O_APPEND);
  if (t >= 0) { write(t, "pwned\n", 6); report("target", "written"); close(t); }
  else { snprintf(buf, sizeof buf, "refused:%s", strerror(errno)); report("target", buf); }
  /* 6. fill the disk: the run's folder, then /tmp */
  static char chunk[1 << 20];
  memset(chunk, 'x', sizeof chunk);
  const char *fills[2] = { "pt-fill", "/tmp/pt-fill" };
  for (int i = 0; i < 2; i++) {
    int w = open(fills[i], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    long mb = 0;
    signal(SIGXFSZ, SIG_IGN);
    if (w >= 0) { while (mb < 2048 && write(w, chunk, sizeof chunk) == (ssize_t)sizeof chunk) mb++; close(w); unlink(fills[i]); }
    fprintf(stderr, "PT-ATTACK fill %s %ldMB\n", fills[i], mb);
  }
  /* 7. 10,000 threads */
  int made = 0;
  pthread_attr_t at; pthread_attr_init(&at); pthread_attr_setstacksize(&at, 65536);
  for (int i = 0; i < 10000; i++) { pthread_t th; if (pthread_create(&th, &at, idle, 0) != 0) break; pthread_detach(th); made++; }
  fprintf(stderr, "PT-ATTACK threads %d\n", made);
  if (getenv("PT_HOSTILE_EXIT")) _exit(1);
}
`;

interface Host {
  root: string;
  secretDir: string;
  so: string;
  listenerPath: string;
  listenerHits: () => number;
  sleeper: ReturnType<typeof spawn>;
  target: string;
  targetBefore: { text: string; mtimeMs: number };
  close: () => Promise<void>;
}

const skip = (() => {
  if (process.platform !== 'linux') return 'Linux only';
  const why = unavailableReason();
  if (why) return why;
  if (spawnSync('gcc', ['--version'], { stdio: 'ignore' }).status !== 0) return 'gcc not installed';
  if (!existsSync(NGINX) || !existsSync(HAPROXY)) return 'host nginx/haproxy missing';
  return false;
})();

async function hostSide(): Promise<Host> {
  const root = mkdtempSync(join(os.tmpdir(), 'pt-hostile-'));
  const secretDir = mkdtempSync(join(os.tmpdir(), 'pt-hostile-secret-'));
  const listenerPath = join(secretDir, 'host.sock');
  let hits = 0;
  const server = net.createServer((sock) => {
    hits++;
    sock.destroy();
  });
  await new Promise<void>((r) => server.listen(listenerPath, () => r()));
  chmodSync(listenerPath, 0o777); // even a world-writable socket must be out of reach
  const sleeper = spawn('sleep', ['120'], { stdio: 'ignore' });
  const target = join(secretDir, 'target.txt');
  writeFileSync(target, 'original\n', { mode: 0o666 });
  const secretFile = join(secretDir, 'secret.txt');
  writeFileSync(secretFile, `${SECRET}\n`, { mode: 0o644 });
  chmodSync(secretDir, 0o755);
  const so = join(root, 'pt-hostile.so');
  writeFileSync(join(root, 'hostile.c'), EVIL_C);
  const cc = spawnSync(
    'gcc',
    [
      '-shared',
      '-fPIC',
      '-O1',
      '-o',
      so,
      join(root, 'hostile.c'),
      '-lpthread',
      `-DLISTENER="${listenerPath}"`,
      `-DSLEEPER=${sleeper.pid}`,
      `-DSECRET_FILE="${secretFile}"`,
      `-DTARGET="${target}"`,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(cc.status, 0, cc.stderr);
  return {
    root,
    secretDir,
    so,
    listenerPath,
    listenerHits: () => hits,
    sleeper,
    target,
    targetBefore: { text: readFileSync(target, 'utf8'), mtimeMs: statSync(target).mtimeMs },
    close: async () => {
      sleeper.kill('SIGKILL');
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(root, { recursive: true, force: true });
      rmSync(secretDir, { recursive: true, force: true });
    },
  };
}

/** Processes left by a contained uid, or the daemon's `sleep 31.337`. */
function leftovers(uid: number): string[] {
  const out: string[] = [];
  for (const n of readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      const status = readFileSync(`/proc/${n}/status`, 'latin1');
      const cmd = readFileSync(`/proc/${n}/cmdline`, 'latin1').replace(/\0/g, ' ');
      const u = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1] ?? -1);
      if (/State:\s+Z/.test(status)) continue;
      if (u === uid || /sleep 31\.337/.test(cmd)) out.push(`${n} ${cmd.trim()}`);
    } catch {
      // gone
    }
  }
  return out;
}

async function waitGone(uid: number): Promise<string[]> {
  let left = leftovers(uid);
  for (let i = 0; i < 40 && left.length; i++) {
    await new Promise((r) => setTimeout(r, 100));
    left = leftovers(uid);
  }
  return left;
}

function assertHostIntact(h: Host, output: string, label: string): void {
  assert.equal(h.listenerHits(), 0, `${label}: the host's unix socket listener saw a connection`);
  assert.equal(h.sleeper.exitCode, null, `${label}: the host sleeper was killed`);
  assert.equal(h.sleeper.signalCode, null, `${label}: the host sleeper was signalled`);
  assert.equal(readFileSync(h.target, 'utf8'), h.targetBefore.text, `${label}: the target file changed`);
  assert.equal(statSync(h.target).mtimeMs, h.targetBefore.mtimeMs, `${label}: the target file was touched`);
  assert.ok(!output.includes(SECRET), `${label}: the secret reached the output`);
  assert.ok(!existsSync('/tmp/pt-fill'), `${label}: a file was left in the host's /tmp`);
}

/** The attacks' own reports (stderr of the contained process), as evidence. */
function reports(output: string): Record<string, string> {
  const r: Record<string, string> = {};
  for (const m of output.matchAll(/PT-ATTACK (\S+) (.*)/g)) r[m[1] === 'fill' ? `fill ${m[2].split(' ')[0]}` : m[1]] = m[2];
  return r;
}

test(
  'hostile native code loaded by nginx (load_module) and HAProxy (ssl-provider) reaches nothing of the host',
  { skip, timeout: 120_000 },
  async () => {
    const h = await hostSide();
    try {
      for (const kind of ['nginx', 'haproxy'] as const) {
        const dir = makeSandboxDir();
        const c = await Containment.open(dir);
        try {
          assert.equal(c.mode, 'namespace', c.reason);
          // the object is one of the engine's files of the run (read-only inside)
          const so = join(dir, kind === 'nginx' ? 'pt-hostile.so' : 'providers/pt-hostile.so');
          mkdirSync(join(dir, 'providers'), { recursive: true });
          writeFileSync(so, readFileSync(h.so));
          mkdirSync(join(dir, 'logs'));
          const conf = join(dir, kind === 'nginx' ? 'nginx.conf' : 'haproxy.cfg');
          writeFileSync(
            conf,
            kind === 'nginx'
              ? `load_module ${so};\nevents {}\nhttp { server { listen 127.0.0.1:18080; } }\n`
              : `global\n  ssl-provider-path ${join(dir, 'providers')}\n  ssl-provider pt-hostile\ndefaults\n  mode http\n  timeout client 1s\n  timeout server 1s\n  timeout connect 1s\nfrontend f\n  bind 127.0.0.1:18080\n`,
          );
          const args = kind === 'nginx' ? ['-t', '-p', `${dir}/`, '-c', conf, '-e', join(dir, 'logs', 'error.log')] : ['-c', '-f', conf];
          const w = c.wrap(kind === 'nginx' ? NGINX : HAPROXY, args);
          const env = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', PT_HOSTILE_SWAP: conf };
          const t0 = Date.now();
          const r = spawnSync(w.cmd, w.args, { encoding: 'utf8', cwd: dir, env, timeout: 60_000 });
          const output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
          const rep = reports(output);
          console.log(`# ${kind}: ${Date.now() - t0} ms, reports ${JSON.stringify(rep)}`);
          assert.ok(rep['unix-socket'], `${kind}: the hostile object did not run:\n${output.slice(0, 2000)}`);
          assert.match(rep['unix-socket'], /^refused/);
          assert.match(rep.signal, /^refused/);
          assert.match(rep.secret ?? '', /^refused/);
          assert.match(rep.target, /^refused/);
          assert.ok(Number(/(\d+)MB/.exec(rep['fill pt-fill'] ?? '')?.[1] ?? 0) <= 512, `${kind}: run folder fill ${rep['fill pt-fill']}`);
          assert.ok(
            Number(/(\d+)MB/.exec(rep['fill /tmp/pt-fill'] ?? '')?.[1] ?? 0) <= 256,
            `${kind}: /tmp fill ${rep['fill /tmp/pt-fill']}`,
          );
          assert.ok(Number(rep.threads) < 10000, `${kind}: ${rep.threads} threads`);
          assertHostIntact(h, output, kind);
          assert.deepEqual(await waitGone(c.uid), [], `${kind}: processes left`);
          // the host's copy of the run's folder still holds the engine's file, not a link
          assert.ok(statSync(conf).isFile());
          assert.ok(!existsSync(join(dir, 'pt-fill')));
        } finally {
          await c.dispose();
          removeSandboxDir(dir);
        }
      }
    } finally {
      await h.close();
    }
  },
);

test(
  'a hostile proxy binary cannot steer the engine: a fake "Address already in use" after a swapped link writes nothing',
  { skip, timeout: 120_000 },
  async () => {
    const h = await hostSide();
    try {
      // The "binary": the real nginx with the hostile object preloaded for config runs (-v/-V as usual).
      const bin = join(h.root, 'nginx');
      writeFileSync(
        bin,
        `#!/bin/sh\ncase " $* " in *" -c "*) PT_HOSTILE_EXIT=1 PT_HOSTILE_SWAP="$(dirname "$(echo "$*" | sed 's/.* -c \\([^ ]*\\).*/\\1/')")/nginx.conf" LD_PRELOAD=${h.so} exec ${NGINX} "$@" ;; esac\nexec ${NGINX} "$@"\n`,
        { mode: 0o755 },
      );
      chmodSync(h.root, 0o755);
      const cfgDir = mkdtempSync(join(os.tmpdir(), 'pt-hostile-cfg-'));
      const cfg = join(cfgDir, 'nginx.conf');
      writeFileSync(cfg, 'events {}\nhttp { server { listen 8080; location / { return 200; } } }\n');
      const sb = ProxySandbox.create({ configPath: cfg, kind: 'nginx', binary: bin });
      let uid = -1;
      let message = '';
      try {
        const c = await sb.contain();
        assert.equal(c.mode, 'namespace', c.reason);
        uid = c.uid;
        sb.plan({ http: 1, https: 2, tcp: 3 });
        const t0 = Date.now();
        await assert.rejects(
          () => sb.start(),
          (e: Error) => {
            message = `${e.message}\n${(e as { output?: string }).output ?? ''}`;
            return true;
          },
        );
        console.log(`# engine: start refused after ${Date.now() - t0} ms: ${message.split('\n')[0]}`);
        assert.match(message, /rejected the config/);
        assert.ok(statSync(join(sb.dir, 'conf', 'nginx.conf')).isFile(), 'the host copy is still the engine file');
        assert.equal(readFileSync(cfg, 'utf8').includes('pwned'), false, "the user's file is untouched");
      } finally {
        await sb.dispose();
        rmSync(cfgDir, { recursive: true, force: true });
      }
      assertHostIntact(h, message, 'engine');
      assert.deepEqual(await waitGone(uid), [], 'processes left');
    } finally {
      await h.close();
    }
  },
);
