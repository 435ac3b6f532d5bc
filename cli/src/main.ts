// The `proxy-tuner` command line (bundled to dist/cli.js, started by bin/proxy-tuner.js):
// dispatches to the subcommands and turns their result into the exit status.
// `bench` is loaded when asked for: the benchmark engine (worker threads, sockets, the load
// generator) is not part of `check`'s start-up.
import pkg from '../../package.json';
import { checkCommand } from './check';

const USAGE = `Usage: proxy-tuner <command> [options]

Commands:
  check FILE...   report problems in nginx / HAProxy configs (see: proxy-tuner check --help)
  bench ...       benchmark a config on loopback (see: proxy-tuner bench --help)

Options:
  -h, --help      show this help
  -v, --version   show the version
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'check':
      return checkCommand(rest);
    case 'bench':
      return (await import('./bench.js')).benchCommand(rest);
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

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`proxy-tuner: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 3;
  },
);
