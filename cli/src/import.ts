// `proxy-tuner import RESULTS [--scenario FILE] [--against RUN.json] [--json]`: a distributed run's
// results (k6 `--summary-export` JSON, Locust `--csv` stats) shown as a run in the bench's table,
// optionally side by side with a local run (`proxy-tuner bench ... --json` output) for A/B.
// Exit codes: 0 done, 1 unreadable results, 2 bad usage.
import { readFileSync } from 'node:fs';
import type { BenchResult } from '../../protocol/bench';
import { compareLines, ImportError, importResults } from '../../bench/src/importResults';
import { parseArgs, UsageError, type FlagSpec } from './args';
import { formatTable, resultJson } from './bench';

const HELP = `usage: proxy-tuner import RESULTS [options]

Reads the results of a run by another engine and prints them as a Proxy Tuner run:
  - k6: the JSON of \`k6 run --summary-export RESULTS script.js\`
  - Locust: RESULTS_stats.csv of \`locust --csv RESULTS\` (or the prefix RESULTS); the
    _stats_history.csv and _failures.csv beside it give the per-second series and the errors
Scripts written by \`proxy-tuner bench FILE --export k6|locust OUT\` measure only after the warm-up.

options:
  --scenario FILE   the exported script / locustfile: labels the run with its scenario, model,
                    connections and rate
  --against RUN     a local run's JSON (\`proxy-tuner bench ... --json > RUN\`): print both, A/B
  --json            print one JSON document (the same shape as \`bench --json\`)
  -h, --help        this help

In the editor: "Proxy Tuner: Import Benchmark Results" adds the same run to the panel's runs.
`;

const SPEC: Record<string, FlagSpec> = {
  scenario: { value: true },
  against: { value: true },
  json: { value: false },
  help: { value: false, aliases: ['-h'] },
};

export async function importCommand(argv: string[]): Promise<number> {
  let flags: Map<string, string | true>;
  let positionals: string[];
  try {
    ({ flags, positionals } = parseArgs(argv, SPEC));
    if (flags.has('help')) {
      process.stdout.write(HELP);
      return 0;
    }
    if (positionals.length !== 1)
      throw new UsageError(
        positionals.length === 0 ? 'missing RESULTS (a k6 summary JSON or a Locust _stats.csv)' : 'exactly one RESULTS file expected',
      );
  } catch (e) {
    process.stderr.write(`import: ${(e as Error).message}\n(see: proxy-tuner import --help)\n`);
    return 2;
  }
  const str = (k: string) => (typeof flags.get(k) === 'string' ? (flags.get(k) as string) : undefined);
  try {
    const r = importResults(positionals[0], str('scenario'));
    let against: BenchResult | undefined;
    const a = str('against');
    if (a) {
      try {
        against = JSON.parse(readFileSync(a, 'utf8')) as BenchResult;
      } catch (e) {
        throw new ImportError(`--against ${a}: ${(e as Error).message}`);
      }
      if (typeof against?.rps !== 'number' || typeof against?.latencyMs?.p99 !== 'number')
        throw new ImportError(`--against ${a}: not the JSON of \`proxy-tuner bench --json\``);
    }
    if (flags.has('json')) {
      process.stdout.write(JSON.stringify(against ? { run: resultJson(r), against } : resultJson(r), null, 2) + '\n');
      return 0;
    }
    process.stdout.write(formatTable(r));
    if (against) {
      const label = (x: BenchResult) =>
        x.imported ? `${x.imported.engine} (imported)` : `${x.proxy?.kind ?? 'local'} ${x.proxy?.version ?? ''} (local)`.trim();
      process.stdout.write(
        '\n' + compareLines({ label: `A: ${label(against)}`, r: against }, { label: `B: ${label(r)}`, r }).join('\n') + '\n',
      );
    }
    return 0;
  } catch (e) {
    if (e instanceof ImportError) {
      process.stderr.write(`import: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}
