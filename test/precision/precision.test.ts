// The precision corpus's judgements hold (issue 32): at the default settings no finding judged
// wrong comes back, and every warning or information finding has a judgement, so a new rule or a
// change of one is judged (test/precision/judgements.tsv) before it lands. Run `npm run
// precision` for the split per rule and the density.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { corpusFiles, corpusFindings, corpusPresent, judged, keyOf, readJudgements } from './corpus';

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
});
