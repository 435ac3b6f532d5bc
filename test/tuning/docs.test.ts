// docs/rules.md is generated from the rule rows and must be committed up to date; and every
// rule row has tests in this folder (a fixture that fires it).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { renderRulesDoc } from '../../server/src/service/rulesDoc';
import { tuningRuleRows } from '../../server/src/service/tuning';

const ROOT = join(__dirname, '..', '..');

describe('docs/rules.md', () => {
  it('is what scripts/gen-rules-doc.mjs generates from the rows (run npm run docs:rules)', () => {
    assert.equal(readFileSync(join(ROOT, 'docs', 'rules.md'), 'utf8'), renderRulesDoc());
  });
  it('documents every rule with its why, versions and fix', () => {
    const doc = renderRulesDoc();
    for (const r of tuningRuleRows()) {
      assert.ok(doc.includes(`### ${r.id}\n`), r.id);
      assert.ok(doc.includes(r.why), r.id);
    }
    assert.match(doc, /before 1\.29\.7/);
    assert.match(doc, /1\.25\.1 and later/);
  });
});

describe('test coverage of the rows', () => {
  it('every rule id is exercised by expectRule in a test of this folder', () => {
    const tests = readdirSync(__dirname)
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => readFileSync(join(__dirname, f), 'utf8'))
      .join('\n');
    // the rule id of each expectRule call is the first quoted `language/rule` after it
    const fired = new Set(
      tests
        .split('expectRule(')
        .slice(1)
        .map((chunk) => /'((?:nginx|haproxy)\/[a-z0-9-]+)'/.exec(chunk)?.[1]),
    );
    for (const r of tuningRuleRows()) {
      if (r.id.endsWith('/suppression-without-reason')) continue; // engine.test.ts checks it through the facade
      assert.ok(fired.has(r.id), `${r.id} has no firing fixture`);
    }
  });
});
