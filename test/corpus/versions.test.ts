// The corpus at every matrix version: the linter judging at nginx 1.22.1 / 1.26.3 / 1.30.6 and
// HAProxy 2.6.12 / 3.0.11 / 3.2.26 against what that version's binary said of each file
// (test/corpus/verdicts-by-version.tsv; scripts/corpus-verdicts.mjs recomputes it, and
// matrixSample.test.ts re-runs a sample of it on the binaries). No error-severity diagnostic on
// a file the binary accepts, and the binary's genuine errors caught at its line, per version.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusDir, corpusSkip } from './verdicts';
import { readTable, score, TABLE } from './byVersion';

const available = corpusDir('nginx').available && corpusDir('haproxy').available;

/** Genuine errors caught at the binary's line, per version, reached by this version of the checks. */
const MIN_CAUGHT: Record<string, number> = {
  'nginx 1.22.1': 70,
  'nginx 1.26.3': 41,
  'nginx 1.30.6': 16,
  'haproxy 2.6.12': 61,
  'haproxy 3.0.11': 45,
  'haproxy 3.2.26': 36,
};

for (const key of Object.keys(MIN_CAUGHT)) {
  const [product, version] = key.split(' ') as ['nginx' | 'haproxy', string];
  test(
    `corpus at ${key}: no error where the binary accepts the file; its genuine errors caught at its line`,
    { skip: corpusSkip(available) },
    () => {
      const rows = readTable();
      assert.ok(
        rows.some((r) => r.product === product && r.version === version),
        `${key} in the table`,
      );
      const s = score(rows, product, version);
      console.log(
        `${key}: ${s.accepted} accepted files, ${s.filesWithFalseErrors} with false errors; genuine caught ${s.caught}/${s.genuine}; verdict agreement ${s.agree}/${s.judged}` +
          (s.missed.length ? `\n  missed: ${s.missed.join('\n  missed: ')}` : ''),
      );
      assert.ok(s.accepted > 150, `only ${s.accepted} accepted files`);
      assert.deepEqual(s.falseErrors, []);
      assert.ok(s.caught >= MIN_CAUGHT[key], `${key}: caught ${s.caught}/${s.genuine}, expected at least ${MIN_CAUGHT[key]}`);
    },
  );
}
