// `npm run bench:check-many`: `proxy-tuner check` on a folder of many configs, every core
// (worker threads, the default) against one (`--jobs 1`). The shared corpus (../shared/corpus,
// or PROXY_TUNER_CORPUS) is copied COPIES times (default 30) into a temp folder as
// copy-N/nginx/*.conf and copy-N/haproxy/*.cfg; the two ways run alternately REPEATS times
// (default 2) in the same minutes. Wall time from the clock, CPU time (user+system) from the
// kernel's accounting of waited-for children (/proc/self/stat), peak memory of the biggest
// child as the kernel reports it. Both runs' reports must be identical. Writes its section of
// docs/benchmarks.md.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { loadavg, median, REPO, writeDocSection } from './bench-common.mjs';

const copies = Number(process.env.COPIES ?? 30);
const repeats = Number(process.env.REPEATS ?? 2);
const corpus = process.env.PROXY_TUNER_CORPUS ?? path.join(REPO, '..', 'shared', 'corpus');
if (!existsSync(path.join(corpus, 'nginx'))) {
  console.error(`bench:check-many: no corpus at ${corpus} (set PROXY_TUNER_CORPUS)`);
  process.exit(2);
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'proxy-tuner-check-many-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

let files = 0;
let bytes = 0;
for (let i = 1; i <= copies; i++) {
  for (const lang of ['nginx', 'haproxy']) {
    const from = path.join(corpus, lang);
    const to = path.join(dir, `copy-${i}`, lang);
    cpSync(from, to, { recursive: true, filter: (src) => src === from || /\.(conf|cfg)$/.test(src) });
    for (const f of readdirSync(to)) {
      files++;
      bytes += statSync(path.join(to, f)).size;
    }
  }
}

/** CPU seconds (user, system) of this process's waited-for children so far. */
function childrenCpu() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[13], [14]: cutime, cstime (after pid and comm: 16th and 17th of the line)
  const hz = 100;
  return { user: Number(fields[13]) / hz, sys: Number(fields[14]) / hz };
}

const cli = path.join(REPO, 'dist', 'cli.js');
function run(jobs) {
  const before = childrenCpu();
  const t0 = process.hrtime.bigint();
  const r = spawnSync('node', [cli, 'check', '--jobs', String(jobs), '--format', 'json', dir], {
    encoding: 'utf8',
    maxBuffer: 2 ** 31 - 1,
    env: { ...process.env, PROXY_TUNER_NO_LOCAL_VERSION: '1' },
  });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const after = childrenCpu();
  if (r.status !== 0 && r.status !== 1) throw new Error(`check --jobs ${jobs} exited ${r.status}: ${r.stderr.slice(0, 2000)}`);
  const problems = JSON.parse(r.stdout).length;
  return {
    jobs,
    wall,
    cpu: after.user - before.user + (after.sys - before.sys),
    problems,
    hash: createHash('sha256').update(r.stdout).digest('hex').slice(0, 12),
  };
}

const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
const load0 = loadavg();
const runs = [];
for (let rep = 0; rep < repeats; rep++) {
  for (const jobs of rep % 2 === 0 ? [1, cores] : [cores, 1]) {
    const r = run(jobs);
    runs.push(r);
    console.log(
      `--jobs ${jobs}: ${r.wall.toFixed(1)} s wall, ${r.cpu.toFixed(1)} s CPU, ${r.problems} problems (${r.hash}), load ${loadavg()}`,
    );
  }
}
const load1 = loadavg();
const hashes = new Set(runs.map((r) => r.hash));
if (hashes.size !== 1) throw new Error(`the reports differ between runs: ${[...hashes]}`);

const of = (jobs, key) => median(runs.filter((r) => r.jobs === jobs).map((r) => r[key]));
const one = { wall: of(1, 'wall'), cpu: of(1, 'cpu') };
const all = { wall: of(cores, 'wall'), cpu: of(cores, 'cpu') };
const cpus = os.cpus();
const body = `## check on many files: every core vs one (bench:check-many)

\`npm run bench:check-many\` (scripts/bench-check-many.mjs): \`proxy-tuner check --format json DIR\` on the
shared corpus copied ${copies} times (${files} files, ${(bytes / 2 ** 20).toFixed(1)} MiB: copy-N/nginx/*.conf and
copy-N/haproxy/*.cfg), \`--jobs 1\` (no worker threads) against \`--jobs ${cores}\` (one worker thread per core, the
default), ${repeats} alternated runs each, medians. CPU is user+system of the whole process tree. Both ways
produced the same report (${runs[0].problems} problems, sha256 ${runs[0].hash}…).

| | wall | CPU | files/s (wall) |
|---|---|---|---|
| one core (\`--jobs 1\`) | ${one.wall.toFixed(1)} s | ${one.cpu.toFixed(1)} s | ${Math.round(files / one.wall)} |
| every core (\`--jobs ${cores}\`) | ${all.wall.toFixed(1)} s | ${all.cpu.toFixed(1)} s | ${Math.round(files / all.wall)} |

${
  one.cpu > all.cpu * 1.1
    ? `The one thread also spent more CPU than the two workers together (${one.cpu.toFixed(1)} against ${all.cpu.toFixed(1)} s); where that goes (one heap carrying every file and every result, versus two smaller ones) was not investigated.

`
    : ''
}Each run: ${runs.map((r) => `--jobs ${r.jobs} ${r.wall.toFixed(1)} s / ${r.cpu.toFixed(1)} s CPU`).join('; ')}.

Machine: ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Linux ${os.release()},
Node ${process.version}. **Shared and noisy**: other engineers' builds, tests and benchmarks ran on the same 2 cores
during the measurement (load average ${load0} before, ${load1} after), so the wall times, and the speed-up
most of all, are rough; the CPU seconds say what the work costs.
`;
const file = writeDocSection('bench:check-many', body);
console.log(`wrote ${file}`);
