// Keeps test/corpus/verdicts-by-version.tsv honest: a sample of its files is judged again by
// the six matrix binaries (scripts/corpus-verdicts.mjs on those files only) and must get the
// same verdict, class and line. The sample is fixed: the files whose verdict differs between
// versions first (what the table is for), then some that every version accepts or rejects.
// Bounded: 12 files per product, each check with a 20 s timeout (a few seconds in all).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMatrix } from '../../server/src/runner/matrix';
import { corpusDir, corpusSkip } from './verdicts';
import { readTable, TABLE, type VersionVerdict } from './byVersion';

const root = join(__dirname, '..', '..');
const haveMatrix = loadMatrix().length === 6;
const available = corpusDir('nginx').available;

function sample(rows: VersionVerdict[], product: string, n: number): string[] {
  const byFile = new Map<string, VersionVerdict[]>();
  for (const r of rows) if (r.product === product) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
  const files = [...byFile.keys()].sort();
  const varying = files.filter((f) => new Set(byFile.get(f)!.map((r) => `${r.verdict}:${r.line}`)).size > 1);
  const steady = files.filter((f) => !varying.includes(f));
  const pick = (list: string[], k: number) =>
    Array.from({ length: Math.min(k, list.length) }, (_, i) => list[Math.floor((i * list.length) / Math.min(k, list.length))]);
  return [...pick(varying, n - 4), ...pick(steady, 4)];
}

test(
  'the verdict table holds: a sample of the corpus re-judged by every matrix binary',
  { skip: haveMatrix ? corpusSkip(available) : 'needs the six matrix binaries (npm run setup)', timeout: 300_000 },
  () => {
    const rows = readTable();
    const files = [...sample(rows, 'nginx', 12), ...sample(rows, 'haproxy', 12)];
    const dir = mkdtempSync(join(tmpdir(), 'pt-verdicts-'));
    try {
      const out = join(dir, 'v.tsv');
      const r = spawnSync('node', [join(root, 'scripts/corpus-verdicts.mjs'), '--files', files.join(','), '--out', out], {
        encoding: 'utf8',
        timeout: 280_000,
      });
      assert.equal(r.status, 0, r.stderr);
      const again = readTable(readFileSync(out, 'utf8'));
      assert.equal(again.length, files.length * 3);
      // by release branch: a matrix provisioned later may have a newer patch release (sid moves);
      // then this test tells whether the table still holds for it
      const key = (x: VersionVerdict) => `${x.product} ${x.version.split('.').slice(0, 2).join('.')} ${x.file}`;
      const committed = new Map(rows.map((x) => [key(x), x]));
      const differ: string[] = [];
      for (const x of again) {
        const c = committed.get(key(x));
        if (!c || c.verdict !== x.verdict || c.class !== x.class || c.line !== x.line)
          differ.push(
            `${key(x)}: table (${c?.version}) ${c?.verdict}/${c?.class}/${c?.line}, binary ${x.version} now ${x.verdict}/${x.class}/${x.line} ${x.message}`,
          );
      }
      assert.deepEqual(differ, []);
      // the sample covers what the table is for: files some versions accept and others refuse
      assert.ok(again.some((x) => x.verdict === 'ok') && again.some((x) => x.class === 'genuine'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
