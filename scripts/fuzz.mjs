// The long fuzz run: `npm run fuzz -- --seconds N --seed S [--save]`. Same engine as the test
// (test/fuzz/engine.ts); prints the seed, the counts and every failure with its minimized text.
// With --save each failure is written as a regression fixture to test/fuzz/regressions/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runFuzz } from '../test/fuzz/engine.ts';

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : def;
};
const seconds = Number(opt('seconds', 60));
const seed = Number(opt('seed', String(Math.floor(Math.random() * 2 ** 32)))) >>> 0;
const boundMs = Number(opt('bound-ms', 2000));
const save = args.includes('--save');
if (!(seconds > 0)) {
  console.error('usage: npm run fuzz -- [--seconds N] [--seed S] [--bound-ms MS] [--save]');
  process.exit(2);
}
console.log(`fuzz: seed ${seed}, ${seconds} s, bound ${boundMs} ms per call`);
const stats = runFuzz({ seconds, seed, boundMs, minimizeFailures: true, log: (l) => console.log(l) });
console.log(
  `fuzz: seed ${seed}: ${stats.inputs} inputs (${Math.round(stats.bytes / 1024)} KB), ${stats.calls} calls in ${stats.seconds.toFixed(1)} s; ` +
    `mutators ${JSON.stringify(stats.byMutator)}; slowest call ${stats.slowest.ms} ms (${stats.slowest.entry}, input ${stats.slowest.input}, ${stats.slowest.lang}, ${stats.slowest.bytes} chars); ` +
    `${stats.slow.length} over the bound; ${stats.failures.length} failures`,
);
const here = dirname(fileURLToPath(import.meta.url));
for (const f of stats.failures) {
  console.log(
    `\n--- input ${f.input} (${f.lang}, ${f.mutator} of ${f.source}) in ${f.entry}\n${f.error.split('\n').slice(0, 8).join('\n')}\nminimized: ${JSON.stringify(f.minimized)}`,
  );
  if (save) {
    const dir = join(here, '..', 'test', 'fuzz', 'regressions');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${f.lang}-${f.entry}-s${seed}-i${f.input}.json`);
    writeFileSync(
      file,
      `${JSON.stringify({ lang: f.lang, entry: f.entry, text: f.minimized ?? f.text, found: `seed ${seed} input ${f.input} (${f.mutator} of ${f.source})` }, null, 2)}\n`,
    );
    console.log(`saved ${file}`);
  }
}
process.exit(stats.failures.length || stats.slow.length ? 1 : 0);
