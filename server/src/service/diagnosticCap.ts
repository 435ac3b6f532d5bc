// The most diagnostics one document gets: a million findings (a file of a million bad lines)
// would take the server seconds and hundreds of MB to build, send and keep, and the editor as
// much to show. Over the cap the most severe are kept, in their order, and one information
// diagnostic at the top of the file counts the rest. Pure: diagnostics in, diagnostics out.
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver-types';
import type { LanguageId } from '../core/types';
import { diagnosticsCappedId } from '../core/rules';

/** Diagnostics published per document when the settings do not say (`proxyTuner.diagnostics.maxPerDocument`). */
export const DEFAULT_MAX_DIAGNOSTICS = 1000;

/** At most `max` of the diagnostics (errors first, then warnings...), in their order, plus one summary of the others. */
export function capDiagnostics(diagnostics: Diagnostic[], lang: LanguageId, max = DEFAULT_MAX_DIAGNOSTICS): Diagnostic[] {
  if (diagnostics.length <= max) return diagnostics;
  // how many of each severity (1 error ... 4 hint; none counts as a warning) fit
  const bySeverity = [0, 0, 0, 0, 0];
  for (const d of diagnostics) bySeverity[d.severity ?? DiagnosticSeverity.Warning]++;
  const room = [0, 0, 0, 0, 0];
  let left = max;
  for (let s = 1; s <= 4; s++) {
    room[s] = Math.min(bySeverity[s], left);
    left -= room[s];
  }
  const kept: Diagnostic[] = [];
  for (const d of diagnostics) {
    const s = d.severity ?? DiagnosticSeverity.Warning;
    if (room[s] > 0) {
      room[s]--;
      kept.push(d);
    }
  }
  const omitted = diagnostics.length - kept.length;
  const counts = ['', 'errors', 'warnings', 'notes', 'hints']
    .map((name, s) => (s > 0 && bySeverity[s] ? `${bySeverity[s].toLocaleString('en-US')} ${name}` : ''))
    .filter(Boolean)
    .join(', ');
  kept.unshift({
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    severity: DiagnosticSeverity.Information,
    source: 'proxy-tuner',
    code: diagnosticsCappedId(lang),
    message: `${omitted.toLocaleString('en-US')} more diagnostics are not shown: this document has ${diagnostics.length.toLocaleString('en-US')} (${counts}) and the editor gets at most ${max.toLocaleString('en-US')} per document, the most severe first (setting proxyTuner.diagnostics.maxPerDocument). \`proxy-tuner check\` lists them all.`,
  });
  return kept;
}
