// The `proxy-tuner` command line (bundled to dist/cli.js, started by bin/proxy-tuner.js):
// dispatches to the subcommands and turns their result into the exit status.
// `bench` is loaded when asked for: the benchmark engine (worker threads, sockets, the load
// generator) is not part of `check`'s start-up.
import { setFlagsFromString } from 'node:v8';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import pkg from '../../package.json';
import { checkCommand } from './check';
import { formatCommand } from './format';
import { runCheckWorker } from './pool';
import { explainCommand, rulesCommand } from './rulesCommand';
import { traceBegin } from './trace';

const USAGE = `Usage: proxy-tuner <command> [options]

Commands:
  check FILE...   report problems in nginx / HAProxy configs (see: proxy-tuner check --help)
  format FILE...  format configs; --check, --write (see: proxy-tuner format --help)
  rules           list every rule (--format json)
  explain RULE    a rule's why, versions, fix and link
  bench ...       benchmark a config on loopback (see: proxy-tuner bench --help)
  import RESULTS  show a k6 or Locust run as a benchmark run (see: proxy-tuner import --help)

Options:
  -h, --help      show this help
  -v, --version   show the version
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'check':
      // `check` is a batch job that builds one big tree and exits. V8 doubles the young
      // generation (up to 16 MB a half) while the tree survives, then copies the same objects
      // through ever larger spaces and touches fresh pages for each: keeping it at its first
      // size (1 MB) took ~0.05 s (7%) off `check` on the 4,000-server file, with ~20 MB less
      // peak memory (docs/benchmarks.md). V8 reads the factor at each resize, so setting it now
      // is enough; a V8 that does not know it ignores it. Not for `bench`, whose load
      // generator is a long-lived program with its own latency to keep.
      setFlagsFromString('--semi-space-growth-factor=1');
      return checkCommand(rest);
    case 'format':
      return formatCommand(rest);
    case 'rules':
      return rulesCommand(rest);
    case 'explain':
      return explainCommand(rest);
    case 'bench':
      return (await import('./bench.js')).benchCommand(rest);
    case 'import':
      return (await import('./import.js')).importCommand(rest);
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(USAGE);
      return 0;
    case '-v':
    case '--version':
      process.stdout.write(`${pkg.version}\n`);
      return 0;
    case undefined:
      process.stderr.write(USAGE);
      return 2;
    default:
      process.stderr.write(`proxy-tuner: unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}

// A `check` worker thread (cli/src/pool.ts) runs this same bundle.
const isCheckWorker = !isMainThread && (workerData as { proxyTunerCheckWorker?: boolean } | null)?.proxyTunerCheckWorker === true;
if (isCheckWorker) {
  setFlagsFromString('--semi-space-growth-factor=1');
  runCheckWorker(parentPort!, (workerData as { opts: Parameters<typeof runCheckWorker>[1] }).opts);
}

const argv = process.argv.slice(2);
if (isMainThread) traceBegin('main');
if (!isCheckWorker)
  main(argv).then(
    (code) => {
      process.exitCode = code;
      // `check` exits as soon as its report is written: a natural exit first tears down a heap that
      // held the whole tree (~0.03 s on the 4,000-server file), and `check` has nothing left to
      // finish. `bench` ends naturally: its children and temp folder are cleaned up on the way.
      if (argv[0] === 'check' || argv[0] === 'format') process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
    },
    (err: unknown) => {
      process.stderr.write(`proxy-tuner: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 3;
    },
  );
