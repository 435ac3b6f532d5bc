// The tuning rules on the real-world corpus files the binaries accept: they never throw, never
// report an error there, and every quick fix they offer leaves a file that still parses with
// no new syntax error. The per-rule counts are printed (see corpusCounts.ts to list them).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { parseNginx } from '../../server/src/languages/nginx/parser';
import { parseHaproxy } from '../../server/src/languages/haproxy/parser';
import { haproxyTuning, nginxTuning } from '../../server/src/service/tuning';
import { applyEdits, safeFixEdits, type DiagnosticData } from '../../server/src/core/rules';
import { corpusRoot, formatCounts, runCorpus } from './corpusCounts';
import { corpusSkip } from '../corpusRoot';

const present = existsSync(join(corpusRoot, 'nginx', 'verdicts.tsv'));

describe('tuning rules on the corpus', { skip: corpusSkip(present) }, () => {
  const result = present ? runCorpus() : undefined;

  it('run on every ok file and report no error-severity finding there', (t) => {
    const r = result!;
    for (const line of formatCounts(r).split('\n')) t.diagnostic(line);
    assert.ok(r.files.nginx > 200 && r.files.haproxy > 200, 'the corpus ok files were read');
    const errors = r.findings.filter((f) => f.severity === 1);
    assert.deepEqual(
      errors.map((f) => `${f.file}:${f.line} ${f.code}`),
      [],
    );
  });

  it('every offered fix keeps the file parseable (no new syntax error)', () => {
    const r = result!;
    const files = new Set(r.findings.map((f) => `${f.lang}\t${f.file}`));
    let applied = 0;
    for (const key of files) {
      const [lang, file] = key.split('\t') as ['nginx' | 'haproxy', string];
      const text = readFileSync(join(corpusRoot, lang, file), 'utf8');
      const doc = TextDocument.create(`file:///${file}`, lang, 1, text);
      const parse = lang === 'nginx' ? (s: string) => parseNginx(s).errors.length : (s: string) => parseHaproxy(s).errors.length;
      const before = parse(text);
      const settings = lang === 'nginx' ? { nginxVersion: '1.22.1' } : { haproxyVersion: '2.6' };
      const ds = lang === 'nginx' ? nginxTuning(doc, parseNginx(text), settings) : haproxyTuning(doc, parseHaproxy(text), settings);
      for (const d of ds) {
        for (const fx of (d.data as DiagnosticData | undefined)?.fixes ?? []) {
          const after = applyEdits(doc, fx.edits);
          assert.notEqual(after, text, `${file}: ${fx.title} changes the text`);
          assert.ok(parse(after) <= before, `${file}:${d.range.start.line + 1} ${String(d.code)}: "${fx.title}" breaks the syntax`);
          // and it resolves what it was offered for: that rule fires fewer times afterwards
          const count = (s: string) => {
            const dd = TextDocument.create(doc.uri, lang, 2, s);
            return (lang === 'nginx' ? nginxTuning(dd, parseNginx(s), settings) : haproxyTuning(dd, parseHaproxy(s), settings)).filter(
              (x) => x.code === d.code,
            ).length;
          };
          assert.ok(count(after) < count(text), `${file}:${d.range.start.line + 1} ${String(d.code)}: "${fx.title}" does not resolve it`);
          applied++;
        }
      }
    }
    assert.ok(applied > 100, `fixes were applied (${applied})`);
  });

  it('fix-all (every safe tuning fix, repeated) keeps each file parseable and leaves no safe fix behind', () => {
    const r = result!;
    const files = new Set(r.findings.map((f) => `${f.lang}\t${f.file}`));
    let changed = 0;
    for (const key of files) {
      const [lang, file] = key.split('\t') as ['nginx' | 'haproxy', string];
      const original = readFileSync(join(corpusRoot, lang, file), 'utf8');
      const parse = lang === 'nginx' ? (s: string) => parseNginx(s).errors.length : (s: string) => parseHaproxy(s).errors.length;
      const settings = lang === 'nginx' ? { nginxVersion: '1.22.1' } : { haproxyVersion: '2.6' };
      const diagnose = (s: string) => {
        const d = TextDocument.create(`file:///${file}`, lang, 1, s);
        return { d, ds: lang === 'nginx' ? nginxTuning(d, parseNginx(s), settings) : haproxyTuning(d, parseHaproxy(s), settings) };
      };
      let text = original;
      for (let round = 0; round < 6; round++) {
        const { d, ds } = diagnose(text);
        const edits = safeFixEdits(ds);
        if (!edits.length) break;
        text = applyEdits(d, edits);
      }
      if (text !== original) changed++;
      assert.ok(parse(text) <= parse(original), `${file}: fix-all breaks the syntax`);
      assert.equal(safeFixEdits(diagnose(text).ds).length, 0, `${file}: fix-all reaches a fixed point`);
    }
    assert.ok(changed > 50, `fix-all changed ${changed} files`);
  });
});
