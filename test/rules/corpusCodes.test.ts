// Every code the product emits over the real-world corpus is a row of its language's registry
// and has its entry in docs/rules.md: both languages, at the oldest and newest version of the
// matrix and with no target, validated with the files loaded together (the workspace index: the
// navigation codes), plus the `nginx -V` module notes of the local nginx and the large-document
// check. (tsc already refuses an id without a row in the checks; this catches what is built
// from strings at run time.)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic } from 'vscode-languageserver-types';
import { corpusRoot, corpusSkip } from '../corpusRoot';
import { applyRules, createWorkspaceIndex, validateInWorkspace } from '../../server/src/service/languageService';
import { largeDocumentDiagnostics } from '../../server/src/service/largeDocument';
import { localNginxBuild, moduleDiagnostics } from '../../server/src/host/binaryFacts';
import { BINARY_RULE } from '../../server/src/service/binaryCheck';
import { findRule } from '../../server/src/service/ruleTable';
import { nodeFileSystem } from '../../server/src/host/nodeHost';
import type { NginxFile } from '../../server/src/languages/nginx/ast';
import type { ServiceSettings } from '../../server/src/core/types';

const rulesDoc = readFileSync(join(__dirname, '..', '..', 'docs', 'rules.md'), 'utf8');

const VERSIONS: Record<'nginx' | 'haproxy', ServiceSettings[]> = {
  nginx: [{ nginxVersion: '1.22.1' }, { nginxVersion: '1.30.6' }, {}],
  haproxy: [{ haproxyVersion: '2.6' }, { haproxyVersion: '3.2' }, {}],
};

function unregistered(lang: string, seen: Map<string, number>): string[] {
  const out: string[] = [];
  for (const code of seen.keys()) {
    const r = findRule(code);
    if (!r || r.language !== lang) out.push(`${code}: no row in the ${lang} registry`);
    else if (!rulesDoc.includes(`### ${code}\n`)) out.push(`${code}: not in docs/rules.md (npm run docs:rules)`);
  }
  return out;
}

function count(seen: Map<string, number>, ds: Diagnostic[]): void {
  for (const d of ds) {
    const code = typeof d.code === 'string' ? d.code : `(no string code: ${JSON.stringify(d.code)})`;
    seen.set(code, (seen.get(code) ?? 0) + 1);
  }
}

for (const lang of ['nginx', 'haproxy'] as const) {
  const dir = resolve(corpusRoot, lang);
  const available = existsSync(resolve(dir, 'verdicts.tsv'));
  describe(`${lang} corpus: every emitted code is registered`, { skip: corpusSkip(available) }, () => {
    const files = available
      ? readFileSync(resolve(dir, 'verdicts.tsv'), 'utf8')
          .trim()
          .split('\n')
          .slice(1)
          .map((l) => l.split('\t')[0])
      : [];

    it('validation, tuning and names across files, at three targets', { timeout: 600_000 }, () => {
      const ws = createWorkspaceIndex({ fs: nodeFileSystem });
      const seen = new Map<string, number>();
      for (const settings of VERSIONS[lang]) {
        for (const file of files) {
          const f = ws.get(pathToFileURL(resolve(dir, file)).href);
          assert.ok(f, file);
          count(seen, validateInWorkspace(f.doc, f.lang, settings, ws));
        }
      }
      assert.deepEqual(unregistered(lang, seen), []);
      // the corpus is varied enough to reach most of each registry's kinds
      assert.ok(seen.size >= (lang === 'nginx' ? 25 : 20), `only ${seen.size} codes: ${[...seen.keys()].join(', ')}`);
      assert.ok(seen.has(`${lang}/unused-definition`), 'a navigation code was reached');
      assert.ok(
        seen.has(`${lang}/syntax`) || seen.has(lang === 'nginx' ? 'nginx/unknown-directive' : 'haproxy/unknown-keyword'),
        'a validation code was reached',
      );
    });

    it("the local binary's codes and the large-document check", () => {
      const ws = createWorkspaceIndex({ fs: nodeFileSystem });
      const seen = new Map<string, number>();
      const facts = lang === 'nginx' ? localNginxBuild() : undefined;
      if (lang === 'nginx') assert.ok(facts, 'nginx is on PATH where the tests run');
      for (const file of files) {
        const f = ws.get(pathToFileURL(resolve(dir, file)).href);
        assert.ok(f, file);
        const text = f.doc.getText();
        if (facts) count(seen, applyRules(f.doc, 'nginx', moduleDiagnostics(f.doc, f.ast as NginxFile, facts), {}));
        count(seen, applyRules(f.doc, lang, largeDocumentDiagnostics(text, lang), {}));
      }
      count(seen, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, message: '', code: BINARY_RULE[lang] }]);
      assert.deepEqual(unregistered(lang, seen), []);
      assert.ok(seen.has(`${lang}/large-document`));
    });
  });
}
