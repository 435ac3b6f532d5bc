// The precision corpus's judgements hold (issue 32): at the default settings no finding judged
// wrong comes back, and every warning or information finding has a judgement, so a new rule or a
// change of one is judged (test/precision/judgements.tsv) before it lands. Run `npm run
// precision` for the split per rule and the density.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { corpusFiles, corpusFindings, corpusPresent, judged, keyOf, readJudgements, ruleKey } from './corpus';
import { ruleGroups } from '../../server/src/service/rulesDoc';
import { NOTICE_RULES, RULE_TIERS, tierOf } from '../../server/src/core/tiers';
import precision from '../../server/src/core/data/rule-precision.json';

describe('precision corpus', { skip: !corpusPresent() && 'the precision corpus is absent' }, () => {
  const { findings } = corpusFindings();
  const judgements = new Map(readJudgements().map((j) => [keyOf(j), j]));
  const shown = findings.filter(judged);

  it('holds at least 120 files, each with its source', () => {
    const files = corpusFiles();
    assert.ok(files.length >= 120, `${files.length} files`);
    for (const f of files) assert.match(f.commit, /^[0-9a-f]{40}$/, f.file);
  });

  it('brings back no finding judged wrong', () => {
    const wrong = shown.filter((f) => judgements.get(keyOf(f))?.verdict === 'wrong');
    assert.deepEqual(
      wrong.map((f) => `${f.file}:${f.line} ${f.rule}: ${judgements.get(keyOf(f))?.reason}`),
      [],
      'findings judged wrong are back',
    );
  });

  it('has a judgement for every warning and information finding', () => {
    const unjudged = shown.filter((f) => !judgements.has(keyOf(f)));
    assert.deepEqual(
      unjudged.map((f) => `${f.file}\t${f.rule}\t${f.line}\t?\t${f.text}\t(${f.message})`),
      [],
      'new findings without a judgement: add a row to test/precision/judgements.tsv',
    );
  });

  it('records the split of every rule as measured now (npm run precision -- --write)', () => {
    const all = corpusFindings(undefined, { select: ['all'] }).findings.filter(judged);
    const now: Record<string, { useful: number; noise: number; wrong: number }> = {};
    for (const f of all) {
      const v = judgements.get(keyOf(f))?.verdict;
      if (!v) continue;
      (now[ruleKey(f)] ??= { useful: 0, noise: 0, wrong: 0 })[v]++;
    }
    assert.deepEqual(precision.rules, Object.fromEntries(Object.entries(now).sort((a, b) => (a[0] < b[0] ? -1 : 1))));
  });

  it('keeps in the default set exactly the warning and information rules measured at least 90% useful (and the notices)', () => {
    const measured: Record<string, { useful: number; noise: number; wrong: number }> = precision.rules;
    const misplaced: string[] = [];
    const keys = new Set(Object.keys(RULE_TIERS));
    for (const l of ruleGroups())
      for (const g of l.groups) for (const r of g.rows) if (r.severity === 'warning' || r.severity === 'information') keys.add(r.id);
    for (const key of keys) {
      const [id, severity] = key.split('@');
      const m = measured[key];
      const good = m !== undefined ? m.useful / (m.useful + m.noise + m.wrong) >= 0.9 : NOTICE_RULES.has(key);
      const tier = tierOf(id, severity);
      if (good !== (tier === 'default')) misplaced.push(`${key}: ${tier}, measured ${m ? JSON.stringify(m) : 'no finding'}`);
    }
    assert.deepEqual(misplaced, []);
  });
});
