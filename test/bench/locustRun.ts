// Runs an exported locustfile for real, distributed: a master and N workers of Debian's
// python3-locust from the version matrix's sid root, under `chroot` (with /proc mounted in the
// root: psutil needs it; unmounted afterwards when we mounted it), on the host's loopback (a
// chroot shares the host's network namespace). Every process runs in its own process group and
// is ended by it; bounded in time.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadMatrix, matrixDir } from '../../server/src/runner/matrix';
import { freePorts } from '../../server/src/runner/proxy';

/** The sid root with Locust, or why there is none (a test skips with that reason). */
export function locustRoot(): { root: string } | { skip: string } {
  if (process.getuid?.() !== 0) return { skip: 'chroot needs root' };
  const roots = [
    ...new Set(
      loadMatrix(matrixDir(process.env, path.join(__dirname, '..', '..')))
        .map((b) => b.root)
        .filter((r) => r),
    ),
  ];
  const root = roots.find((r) => existsSync(path.join(r, 'usr', 'bin', 'locust')));
  return root
    ? { root }
    : {
        skip: `no version-matrix root with python3-locust (scripts/provision-matrix.sh installs it into sid); roots: ${roots.join(', ') || 'none'}`,
      };
}

export interface LocustRun {
  code: number | null;
  masterOutput: string;
  /** Contents of OUT_stats.csv, OUT_stats_history.csv, OUT_failures.csv (host paths are gone after the run). */
  stats: string;
  history: string;
  failures: string;
  /** Where the files were, as the importer is given them (copied out of the root). */
  files: { stats: string; history: string; failures: string };
}

function groupKill(c: ChildProcess, sig: NodeJS.Signals): void {
  if (c.pid && c.exitCode === null && c.signalCode === null) {
    try {
      process.kill(-c.pid, sig);
    } catch {
      // gone
    }
  }
}

/**
 * Runs `locustfileText` with a master (headless, `--csv`) and `workers` workers; `outDir` on the
 * host receives copies of the CSV files. Resolves when the master has exited (at most `timeoutS`).
 */
export async function runLocustDistributed(a: {
  root: string;
  locustfileText: string;
  env: Record<string, string>;
  workers: number;
  timeoutS: number;
  outDir: string;
}): Promise<LocustRun> {
  const tmp = mkdtempSync(path.join(a.root, 'tmp', 'proxy-tuner-locust-'));
  const inRoot = '/' + path.relative(a.root, tmp);
  const procDir = path.join(a.root, 'proc');
  let mounted = false;
  const kids: ChildProcess[] = [];
  try {
    writeFileSync(path.join(tmp, 'locustfile.py'), a.locustfileText);
    if (!existsSync(path.join(procDir, 'self'))) {
      const m = spawnSync('mount', ['-t', 'proc', 'proc', procDir], { encoding: 'utf8' });
      if (m.status !== 0) throw new Error(`mount -t proc ${procDir}: ${m.stderr}`);
      mounted = true;
    }
    const [port] = await freePorts(1);
    const env = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/tmp', LANG: 'C.UTF-8', PYTHONDONTWRITEBYTECODE: '1', ...a.env };
    const locust = (args: string[]) =>
      spawn('chroot', [a.root, '/usr/bin/locust', '-f', `${inRoot}/locustfile.py`, '--loglevel', 'WARNING', ...args], {
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    let masterOut = '';
    const master = locust([
      '--master',
      '--headless',
      '--expect-workers',
      String(a.workers),
      '--master-bind-host',
      '127.0.0.1',
      '--master-bind-port',
      String(port),
      '--csv',
      `${inRoot}/out`,
      '--only-summary',
    ]);
    kids.push(master);
    const keep = (b: Buffer) => {
      if (masterOut.length < 200_000) masterOut += b.toString();
    };
    master.stdout?.on('data', keep);
    master.stderr?.on('data', keep);
    for (let i = 0; i < a.workers; i++) {
      const w = locust(['--worker', '--master-host', '127.0.0.1', '--master-port', String(port)]);
      w.stdout?.resume();
      w.stderr?.resume();
      kids.push(w);
    }
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        groupKill(master, 'SIGKILL');
        resolve(null);
      }, a.timeoutS * 1000);
      master.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    const read = (n: string) => {
      const f = path.join(tmp, n);
      return existsSync(f) ? readFileSync(f, 'utf8') : '';
    };
    const files = {
      stats: path.join(a.outDir, 'out_stats.csv'),
      history: path.join(a.outDir, 'out_stats_history.csv'),
      failures: path.join(a.outDir, 'out_failures.csv'),
    };
    const run: LocustRun = {
      code,
      masterOutput: masterOut,
      stats: read('out_stats.csv'),
      history: read('out_stats_history.csv'),
      failures: read('out_failures.csv'),
      files,
    };
    writeFileSync(files.stats, run.stats);
    writeFileSync(files.history, run.history);
    writeFileSync(files.failures, run.failures);
    return run;
  } finally {
    for (const k of kids) groupKill(k, 'SIGTERM');
    const end = Date.now() + 5000;
    while (kids.some((k) => k.exitCode === null && k.signalCode === null) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    for (const k of kids) groupKill(k, 'SIGKILL');
    if (mounted) spawnSync('umount', [procDir]);
    rmSync(tmp, { recursive: true, force: true });
  }
}
