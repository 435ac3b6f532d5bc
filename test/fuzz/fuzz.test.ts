// Fuzzing in `npm test`: a bounded, seeded run of corpus mutations and token soups through the
// parser and every entry point of the service facade (engine.ts), plus the replay of every crash
// found so far (test/fuzz/regressions/*.json). The seed is printed; replay a run with
// `FUZZ_SEED=S npm test` or longer with `npm run fuzz -- --seconds N --seed S`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as os from 'node:os';
import { exercise, loadCorpus, loadRegressions, makeInput, runFuzz } from './engine';

/** The day's seed unless FUZZ_SEED is set: reproducible for a day, a new sample every day. */
const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) >>> 0 : Math.floor(Date.now() / 86_400_000) >>> 0;
const seconds = Number(process.env.FUZZ_SECONDS ?? 20);
const corpus = loadCorpus();
console.log(`[fuzz] inputs mutated from ${corpus.source.nginx} and ${corpus.source.haproxy}`);

test('regressions: every crash found by the fuzzer stays fixed', () => {
  const regs = loadRegressions();
  for (const { file, reg } of regs) {
    const out = exercise(reg.lang, reg.text, 1, 8, reg.entry);
    assert.ok(out.calls > 0, `${file}: entry point ${reg.entry} was not exercised`);
    assert.deepEqual(
      out.failures.map((f) => f.error.split('\n')[0]),
      [],
      `${file} (${reg.lang}, ${reg.entry}) throws again`,
    );
    // and the whole surface on the same text
    assert.deepEqual(
      exercise(reg.lang, reg.text, 2, 8).failures.map((f) => `${f.entry}: ${f.error.split('\n')[0]}`),
      [],
      `${file}: another entry point throws`,
    );
  }
});

test('inputs are reproducible from (seed, index)', () => {
  for (const i of [0, 1, 17, 4242]) {
    const a = makeInput(corpus, seed, i);
    const b = makeInput(corpus, seed, i);
    assert.equal(a.text, b.text);
    assert.equal(a.mutator, b.mutator);
  }
  assert.notEqual(makeInput(corpus, seed, 3).text, makeInput(corpus, seed + 1, 3).text);
});

test(`fuzz: corpus mutations and token soups through every entry point (${seconds} s, seed ${seed})`, () => {
  // warm the data tables first so the first input is not charged with loading them
  exercise('nginx', 'http { server { listen 80; } }\n', 0, 2);
  exercise('haproxy', 'frontend f\n  bind :80\n', 0, 2);
  // a hang guard, not a benchmark: 2 s per call on an idle machine, stretched by the load of a shared one
  const boundMs = 2000 * Math.max(1, os.loadavg()[0] / os.cpus().length);
  const stats = runFuzz({ seconds, seed, corpus, boundMs, minimizeFailures: true, log: (l) => console.log(`[fuzz] ${l}`) });
  console.log(
    `[fuzz] seed ${seed}: ${stats.inputs} inputs (${Math.round(stats.bytes / 1024)} KB), ${stats.calls} calls in ${stats.seconds.toFixed(1)} s; ` +
      `slowest call ${stats.slowest.ms} ms (${stats.slowest.entry}, input ${stats.slowest.input}, ${stats.slowest.bytes} chars); failures ${stats.failures.length}`,
  );
  assert.ok(stats.inputs >= 10, `only ${stats.inputs} inputs in ${seconds} s`);
  assert.ok(Object.keys(stats.byMutator).length >= 4, `mutators used: ${Object.keys(stats.byMutator).join(', ')}`);
  assert.deepEqual(
    stats.failures.map(
      (f) =>
        `seed ${seed} input ${f.input} ${f.lang} ${f.entry}: ${f.error.split('\n')[0]}\n  minimized: ${JSON.stringify(f.minimized ?? f.text.slice(0, 300))}`,
    ),
    [],
  );
  assert.deepEqual(
    stats.slow.map((s) => `seed ${seed} input ${s.input} ${s.lang} (${s.bytes} chars): ${s.entry} ${s.ms} ms > ${Math.round(boundMs)} ms`),
    [],
  );
});
