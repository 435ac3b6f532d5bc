// Helpers of the benchmark scripts (bench-loadgen.mjs, bench-seed002.mjs): a private nginx on
// loopback in its own process group (stopped by process group, never by name), taskset pinning,
// machine facts, and writing one marked section of docs/benchmarks.md (other sections untouched).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

export function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 120_000, ...opts });
  return { code: r.status, out: `${r.stdout ?? ''}`, err: `${r.stderr ?? ''}` };
}

export async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const port = s.address().port;
  await new Promise((r) => s.close(r));
  return port;
}

async function waitPort(port, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const ok = await new Promise((resolve) => {
      const c = net.connect({ host: '127.0.0.1', port });
      c.once('connect', () => (c.destroy(), resolve(true)));
      c.once('error', () => resolve(false));
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

const running = new Set();
const dirs = new Set();
function stopAll() {
  for (const pgid of running) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  running.clear();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs.clear();
}
process.on('exit', stopAll);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => (stopAll(), process.exit(130)));

/**
 * Starts nginx with `httpBody` (the inside of `http {}`; `PORT` and `BACKEND` placeholders are
 * filled) pinned to `cpu`, in its own process group. Returns { port, stop() }.
 */
export async function startNginx({ httpBody, cpu, workers = 1, backendPort = 0 }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'proxy-tuner-bench-script-'));
  dirs.add(dir);
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  writeFileSync(
    conf,
    `${user}daemon off;\nmaster_process on;\nworker_processes ${workers};\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\n` +
      `events { worker_connections 4096; }\n` +
      `http {\n  access_log off;\n  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;\n` +
      httpBody.replaceAll('PORT', String(port)).replaceAll('BACKEND', String(backendPort)) +
      '\n}\n',
  );
  const pre = cpu === undefined ? [] : ['taskset', '-c', String(cpu)];
  const cmd = [...pre, 'nginx', '-p', dir + '/', '-c', conf, '-e', `${dir}/error.log`];
  const child = spawn(cmd[0], cmd.slice(1), { detached: true, stdio: 'ignore' });
  running.add(child.pid);
  const exited = new Promise((r) => child.once('exit', r));
  if (!(await waitPort(port, 10_000))) {
    const log = existsSync(`${dir}/error.log`) ? readFileSync(`${dir}/error.log`, 'utf8') : '';
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone
    }
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`nginx did not start: ${log.slice(-500)}`);
  }
  return {
    port,
    pgid: child.pid,
    conf,
    async stop() {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // gone
      }
      const t = setTimeout(() => {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }, 3000);
      await exited;
      clearTimeout(t);
      running.delete(child.pid);
      rmSync(dir, { recursive: true, force: true });
      dirs.delete(dir);
    },
  };
}

export function machine() {
  const cpus = os.cpus();
  const model = cpus[0]?.model ?? 'unknown CPU';
  const nginxV = sh('nginx', ['-v']).err.trim();
  const wrkV = sh('wrk', ['-v']).out.split('\n')[0].trim() || sh('wrk', ['-v']).err.split('\n')[0].trim();
  const h2V = sh('h2load', ['--version']).out.trim();
  return `${cpus.length} × ${model}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Linux ${os.release()}, Node ${process.version}; ${nginxV}; ${wrkV}; ${h2V}`;
}

export const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** Replaces (or appends) the section between `<!-- NAME:start -->` and `<!-- NAME:end -->`. */
export function writeDocSection(name, body) {
  const file = path.join(REPO, 'docs', 'benchmarks.md');
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  let text = existsSync(file)
    ? readFileSync(file, 'utf8')
    : '# Benchmarks\n\nMeasured numbers of Proxy Tuner; each section is written by the script it names.\n';
  const block = `${start}\n${body.trim()}\n${end}`;
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i >= 0 && j > i) text = text.slice(0, i) + block + text.slice(j + end.length);
  else text = text.replace(/\s*$/, '\n\n') + block + '\n';
  writeFileSync(file, text);
  return file;
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};

/** Runs the built-in generator through the bundled command line (pinned when `cpu` is given). */
export function builtin({ port, connections, durationS, warmupS, cpu, threads = 1, scenario = 'http1-keepalive', rate, path: p = '/' }) {
  const cli = path.join(REPO, 'dist', 'cli.js');
  const args = [
    cli,
    'bench',
    '--target',
    `127.0.0.1:${port}`,
    '--scenario',
    scenario,
    '-c',
    String(connections),
    '--duration',
    `${durationS}s`,
    '--warmup',
    `${warmupS}s`,
    '--threads',
    String(threads),
    '--path',
    p,
    '--json',
  ];
  if (rate) args.push('--rate', String(rate));
  const cmd = cpu === undefined ? ['node', ...args] : ['taskset', '-c', String(cpu), 'node', ...args];
  const r = sh(cmd[0], cmd.slice(1), { timeout: (durationS + warmupS + 30) * 1000 });
  if (r.code !== 0) throw new Error(`built-in generator failed: ${r.err}`);
  const j = JSON.parse(r.out);
  return {
    rps: j.rps,
    p50: j.latencyMs.p50,
    p99: j.latencyMs.p99,
    perCpu: j.requests / j.cpuSeconds.generatorProcess,
    errors: Object.values(j.errors).reduce((a, b) => a + b, 0),
    cmd: cmd.join(' ').replace(REPO + '/', ''),
  };
}

/** A wrk latency figure (`812.00us`, `1.20ms`, `2.1s`) in ms; NaN when it is none. */
export function parseWrkLatency(s) {
  const m = /^(\d+(?:\.\d+)?)(us|ms|s)$/.exec(s);
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 's' ? n * 1000 : n;
}

/** Runs cmd under /usr/bin/time; the command's output and its user+system CPU seconds. */
export function timed(cmd, timeoutS) {
  const r = sh('/usr/bin/time', ['-f', '__cpu %U %S', ...cmd], { timeout: timeoutS * 1000 });
  const m = /__cpu ([\d.]+) ([\d.]+)/.exec(r.err);
  return { ...r, cpu: m ? Number(m[1]) + Number(m[2]) : NaN };
}
