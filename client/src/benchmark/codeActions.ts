// "Apply fix and re-run benchmark": for Proxy Tuner diagnostics that carry quick fixes in
// Diagnostic.data (server/src/core/rules.ts DiagnosticData, passed through by
// vscode-languageclient), a quick fix that applies the edit and benchmarks before and after.
import * as vscode from 'vscode';
import { tuningRuleRows } from '../../../server/src/service/published';
import type { FixData } from '../../../protocol/fix';

/** Rules whose fix can change a benchmark's numbers: the tuning rows of category performance. */
export const BENCHMARKABLE_RULES: ReadonlySet<string> = new Set(
  tuningRuleRows()
    .filter((r) => r.category === 'performance')
    .map((r) => r.id),
);

interface DiagnosticWithData extends vscode.Diagnostic {
  data?: unknown;
}

function isPosition(v: unknown): v is { line: number; character: number } {
  const p = v as { line?: unknown; character?: unknown } | null;
  return !!p && Number.isInteger(p.line) && Number.isInteger(p.character) && (p.line as number) >= 0 && (p.character as number) >= 0;
}

/** The fixes of a diagnostic's data, checked (the data crosses a process boundary). */
export function fixesOf(d: vscode.Diagnostic): FixData[] {
  const data = (d as DiagnosticWithData).data as { fixes?: unknown } | undefined;
  if (!data || !Array.isArray(data.fixes)) return [];
  const out: FixData[] = [];
  for (const f of data.fixes as { title?: unknown; edits?: unknown; safe?: unknown }[]) {
    if (typeof f?.title !== 'string' || !Array.isArray(f.edits) || f.edits.length === 0) continue;
    const edits = (f.edits as { range?: { start?: unknown; end?: unknown }; newText?: unknown }[]).filter(
      (e) => e && typeof e.newText === 'string' && isPosition(e.range?.start) && isPosition(e.range?.end),
    ) as FixData['edits'];
    if (edits.length === f.edits.length) out.push({ title: f.title, edits, safe: f.safe === true });
  }
  return out;
}

export class BenchmarkFixProvider implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  provideCodeActions(doc: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    if (!vscode.workspace.isTrusted) return [];
    const actions: vscode.CodeAction[] = [];
    for (const d of context.diagnostics) {
      const code = typeof d.code === 'object' ? d.code.value : d.code;
      if (d.source !== 'proxy-tuner' || typeof code !== 'string' || !BENCHMARKABLE_RULES.has(code)) continue;
      for (const fix of fixesOf(d)) {
        const a = new vscode.CodeAction(`Apply fix and re-run benchmark: ${fix.title}`, vscode.CodeActionKind.QuickFix);
        a.diagnostics = [d];
        a.command = {
          title: a.title,
          command: 'proxyTuner.benchmark.applyFixAndRerun',
          arguments: [doc.uri.toString(), fix],
        };
        actions.push(a);
      }
    }
    return actions;
  }
}
