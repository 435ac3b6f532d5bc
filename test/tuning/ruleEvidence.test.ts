// docs/rule-evidence.md (written by `npm run bench:rules`) against the rule table: every bound
// the doc names must be the row's current bound, and the linter at each measured binary's
// version must fire on each `before` config exactly where the measurement showed the problem
// (and not on the `after` config). A rule row whose bound changes without a new measurement,
// or a case whose verdict the rules no longer match, fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { afterFor, boundOf, boundRules, CASES, NOT_MEASURED, ruleFires } from '../../scripts/rule-evidence/cases';
import { compareVersions } from '../../server/src/core/version';

const DOC = readFileSync(join(__dirname, '..', '..', 'docs', 'rule-evidence.md'), 'utf8');

interface Row {
  rule: string;
  bound: string;
  key: string;
  product: string;
  version: string;
  problem: boolean;
  firesBefore: boolean;
  firesAfter: boolean | null;
  verdict: string;
}

function summaryRows(): Row[] {
  const start = DOC.indexOf('| rule | bound | case | binary |');
  assert.ok(start >= 0, 'docs/rule-evidence.md has its summary table');
  const lines = DOC.slice(start).split('\n').slice(2);
  const rows: Row[] = [];
  const yn = (s: string) => (s === 'n/a' ? null : s === 'yes');
  for (const line of lines) {
    if (!line.startsWith('|')) break;
    const c = line
      .split('|')
      .slice(1, -1)
      .map((x) => x.trim().replace(/^`|`$/g, ''));
    const [product, version] = c[3].split(' ');
    rows.push({
      rule: c[0],
      bound: c[1],
      key: c[2],
      product,
      version,
      problem: yn(c[4])!,
      firesBefore: yn(c[5])!,
      firesAfter: yn(c[6]),
      verdict: c[7],
    });
  }
  return rows;
}

const rows = summaryRows();

describe('docs/rule-evidence.md', () => {
  it('measures every case on at least one binary of each of its product, nginx and HAProxy alike', () => {
    assert.ok(rows.length >= CASES.length, `${rows.length} rows`);
    for (const c of CASES)
      assert.ok(
        rows.some((r) => r.key === c.key),
        `${c.key} is measured in the doc (run npm run bench:rules)`,
      );
    for (const r of rows)
      assert.ok(
        CASES.some((c) => c.key === r.key),
        `${r.key}: a case of scripts/rule-evidence/cases.ts`,
      );
  });

  it("names each rule's bound as the rule table has it", () => {
    for (const r of rows)
      assert.equal(r.bound, boundOf(r.rule), `${r.key}: the doc's bound is the row's (re-run npm run bench:rules after changing a bound)`);
  });

  it('every verdict agrees: the rule fires on `before` iff the measurement showed the problem, never on `after`', () => {
    for (const r of rows) {
      assert.equal(r.verdict, 'agrees', `${r.key} at ${r.version}`);
      assert.equal(r.firesBefore, r.problem, `${r.key} at ${r.version}: fires iff the problem was shown`);
      assert.notEqual(r.firesAfter, true, `${r.key} at ${r.version}: quiet on the fixed config`);
    }
  });

  it('the linter today says what the doc recorded, at each measured version', () => {
    for (const r of rows) {
      const c = CASES.find((x) => x.key === r.key)!;
      assert.equal(
        ruleFires(c, c.before, r.version),
        r.problem,
        `${r.key} at ${r.product} ${r.version}: the measurement ${r.problem ? 'showed' : 'did not show'} the problem`,
      );
      const after = afterFor(c, r.version);
      if (after !== null) assert.equal(ruleFires(c, after, r.version), false, `${r.key} at ${r.version}: fires on the fixed config`);
    }
  });

  it('every version-bound tuning rule is measured, on binaries on both sides of its bound where the matrix has them', () => {
    for (const id of boundRules()) {
      const measured = rows.filter((r) => r.rule === id);
      assert.ok(measured.length > 0, `${id} has a version bound: it needs a case in scripts/rule-evidence/cases.ts`);
      const bound = boundOf(id);
      const m = /(?:since|until) ([\d.]+)/.exec(bound)!;
      const below = measured.filter((r) => compareVersions(r.version, m[1]) < 0);
      const above = measured.filter((r) => compareVersions(r.version, m[1]) >= 0);
      assert.ok(above.length > 0, `${id}: measured on a binary at or after ${m[1]}`);
      // haproxy/nbproc's bound (2.5) lies before every binary of the matrix (2.6.12 is the oldest)
      if (id !== 'haproxy/nbproc') assert.ok(below.length > 0, `${id}: measured on a binary before ${m[1]}`);
    }
  });

  it('the rules listed as not measured are real rows, none of them version-bound, and not measured elsewhere', () => {
    const bound = new Set(boundRules());
    for (const x of NOT_MEASURED) {
      assert.notEqual(boundOf(x.rule), 'unknown rule', x.rule);
      assert.ok(!bound.has(x.rule), `${x.rule} has a bound: it must be measured`);
      assert.ok(!CASES.some((c) => c.rule === x.rule), `${x.rule} is both measured and listed as not`);
      assert.ok(DOC.includes(`\`${x.rule}\``), `${x.rule} is listed in the doc`);
    }
  });

  it('records nginx/proxy-pass-no-upstream on 1.30.6: one backend connection per request, and the rule fires there', () => {
    const r = rows.find((x) => x.key === 'nginx/proxy-pass-no-upstream' && x.version === '1.30.6');
    assert.ok(r, 'measured on 1.30.6');
    assert.equal(r.problem, true);
    assert.equal(boundOf('nginx/proxy-pass-no-upstream'), 'all versions');
  });
});
