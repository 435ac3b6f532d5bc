// The corpus's verdicts.tsv (see its README.md), read the same way for nginx and HAProxy.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export { corpusDir, corpusSkip, skipWithoutCorpus } from '../corpusRoot';

export interface VerdictRow {
  file: string;
  verdict: string;
  kind: string;
  line: number;
  warnings: string;
  finalClass: string;
  /** kind or final_kind is newer-version: judged at the newest version, not the binary's. */
  newer: boolean;
  finalLine: number;
  finalMessage: string;
  /** The context the fragment was judged in (`main` when the column is empty). */
  context: string;
}

export function readVerdicts(dir: string): VerdictRow[] {
  const lines = readFileSync(join(dir, 'verdicts.tsv'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));
  const h = lines[0];
  const col = (r: string[], n: string) => r[h.indexOf(n)] ?? '';
  return lines.slice(1).map((r) => ({
    file: col(r, 'file'),
    verdict: col(r, 'verdict'),
    kind: col(r, 'kind'),
    line: Number(col(r, 'line')) || 0,
    warnings: col(r, 'warnings'),
    finalClass: col(r, 'final_class'),
    newer: col(r, 'kind') === 'newer-version' || col(r, 'final_kind') === 'newer-version',
    finalLine: Number(col(r, 'final_line')) || 0,
    finalMessage: col(r, 'final_message'),
    context: col(r, 'context') || 'main',
  }));
}
