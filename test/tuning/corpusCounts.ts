// Counts of each tuning rule's findings on the corpus files the real binaries accept
// (`final_class` ok in /work/shared/corpus/{nginx,haproxy}/verdicts.tsv). Used by
// corpus.test.ts, and runnable alone to print the table and the findings of one rule:
//   node --import tsx test/tuning/corpusCounts.ts [rule-id]
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from 'vscode-languageserver-types';
import { parseNginx } from '../../server/src/languages/nginx/parser';
import { parseHaproxy } from '../../server/src/languages/haproxy/parser';
import { haproxyTuning, nginxTuning, tuningRuleRows } from '../../server/src/service/tuning';
import type { LanguageId } from '../../server/src/core/types';

export { corpusRoot } from '../corpusRoot';
import { corpusRoot } from '../corpusRoot';

export interface CorpusFinding {
  lang: LanguageId;
  file: string;
  line: number;
  code: string;
  severity: number;
  message: string;
  text: string;
}

export interface CorpusResult {
  files: Record<LanguageId, number>;
  counts: Map<string, number>;
  filesPerRule: Map<string, number>;
  findings: CorpusFinding[];
}

function okFiles(lang: LanguageId): { file: string; newer: boolean }[] {
  const tsv = join(corpusRoot, lang, 'verdicts.tsv');
  if (!existsSync(tsv)) return [];
  const [head, ...rows] = readFileSync(tsv, 'utf8').split('\n').filter(Boolean);
  const cols = head.split('\t');
  const at = (r: string[], name: string) => r[cols.indexOf(name)] ?? '';
  return rows
    .map((line) => line.split('\t'))
    .filter((r) => at(r, 'final_class') === 'ok')
    .map((r) => ({ file: at(r, 'file'), newer: at(r, 'kind') === 'newer-version' || at(r, 'final_kind') === 'newer-version' }));
}

/** Runs the tuning rules on every ok corpus file, at the binaries' versions (newest for newer-version files). */
export function runCorpus(): CorpusResult {
  const result: CorpusResult = { files: { nginx: 0, haproxy: 0 }, counts: new Map(), filesPerRule: new Map(), findings: [] };
  for (const r of tuningRuleRows()) result.counts.set(r.id, 0);
  for (const lang of ['nginx', 'haproxy'] as const) {
    for (const { file, newer } of okFiles(lang)) {
      const text = readFileSync(join(corpusRoot, lang, file), 'utf8');
      const doc = TextDocument.create(`file:///${file}`, lang, 1, text);
      const settings = lang === 'nginx' ? { nginxVersion: newer ? undefined : '1.22.1' } : { haproxyVersion: newer ? undefined : '2.6' };
      const ds: Diagnostic[] =
        lang === 'nginx' ? nginxTuning(doc, parseNginx(text), settings) : haproxyTuning(doc, parseHaproxy(text), settings);
      result.files[lang]++;
      const seen = new Set<string>();
      for (const d of ds) {
        const code = String(d.code);
        result.counts.set(code, (result.counts.get(code) ?? 0) + 1);
        if (!seen.has(code)) result.filesPerRule.set(code, (result.filesPerRule.get(code) ?? 0) + 1);
        seen.add(code);
        const line = d.range.start.line;
        result.findings.push({
          lang,
          file,
          line: line + 1,
          code,
          severity: d.severity ?? 0,
          message: d.message,
          text: text.split('\n')[line]?.trim() ?? '',
        });
      }
    }
  }
  return result;
}

export function formatCounts(r: CorpusResult): string {
  const lines = [`tuning findings on corpus ok files (nginx ${r.files.nginx} files at 1.22.1, HAProxy ${r.files.haproxy} files at 2.6):`];
  for (const [id, n] of [...r.counts].sort((a, b) => a[0].localeCompare(b[0])))
    lines.push(`  ${id.padEnd(42)} ${String(n).padStart(5)} findings in ${String(r.filesPerRule.get(id) ?? 0).padStart(3)} files`);
  return lines.join('\n');
}

if (require.main === module) {
  const r = runCorpus();
  console.log(formatCounts(r));
  const only = process.argv[2];
  if (only) for (const f of r.findings.filter((x) => x.code === only)) console.log(`${f.file}:${f.line}: ${f.text}  -- ${f.message}`);
}
