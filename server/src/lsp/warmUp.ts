// The background validations of a copy of a freshly opened document (schedule.ts WARM_UP_RUNS).
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Position } from 'vscode-languageserver-types';
import * as service from '../service/languageService';
import type { LanguageId, ServiceSettings } from '../core/types';
import type { FileSystem } from '../service/host';
import type { NginxBuildFacts } from '../host/binaryFacts';
import { lineDocuments } from '../core/lineDocument';

/**
 * One warm-up validation per call. The first validates the copy whole, with an index and a parse
 * cache of its own (the server's own would answer from this version's results). Each later one
 * types one character of a statement on a new line in the middle of the copy, or erases one, and
 * validates through that index and cache, as a keystroke's validation runs: the re-parse from
 * the previous tree, the per-block memos, the findings moved with their blocks, the typo
 * suggestions of a half-typed name. Those are the paths typing takes; a whole-file validation
 * alone left them cold, and the first 15 bursts of an editing session took twice the later
 * ones (docs/benchmarks.md). The module diagnostics run too, as they do per edit.
 */
export function warmUpRuns(
  doc: TextDocument,
  lang: LanguageId,
  settings: ServiceSettings,
  fs: FileSystem,
  nginxBuild: () => NginxBuildFacts | undefined,
): () => void {
  const word = lang === 'nginx' ? 'proxy_read_timeout 30s;' : 'timeout server 30s';
  const cache = new service.ParseCache();
  let copy: ReturnType<typeof lineDocuments.create> | undefined;
  let index: ReturnType<typeof service.createWorkspaceIndex> | undefined;
  /** Where the statement is typed: the start of the new line, and how much of the word it holds. */
  let at: Position | undefined;
  let typed = 0;
  let typing = true;
  return () => {
    if (!copy || !index) {
      const c = (copy = lineDocuments.create(doc.uri, doc.languageId, doc.version, doc.getText()));
      index = service.createWorkspaceIndex({ open: { get: (u) => (u === c.uri ? c : undefined), all: () => [c] }, fs });
    } else if (!at) {
      // a new line after the middle one
      const end = copy.positionAt(copy.offsetAt({ line: Math.floor(copy.lineCount / 2), character: Number.MAX_SAFE_INTEGER }));
      lineDocuments.update(copy, [{ range: { start: end, end }, text: '\n' }], copy.version + 1);
      at = { line: end.line + 1, character: 0 };
    } else {
      const col = { line: at.line, character: typed };
      if (typing) lineDocuments.update(copy, [{ range: { start: col, end: col }, text: word[typed++] }], copy.version + 1);
      else lineDocuments.update(copy, [{ range: { start: { line: at.line, character: --typed }, end: col }, text: '' }], copy.version + 1);
      if (typed === word.length) typing = false;
      else if (typed === 0) typing = true;
    }
    service.diagnose(copy, lang, settings, index, { cache, nginxBuild: nginxBuild() });
  };
}
