// The HAProxy language module: parse (never throws), validate, complete, hover, symbols, folding.
import type { DocumentSymbol, FoldingRange } from 'vscode-languageserver-types';
import type { LanguageModule } from '../service/types';
import type { HaproxyFile } from './ast';
import { parseHaproxy } from './parser';
import { validateHaproxy } from './validation';
import { completeHaproxy } from './completion';
import { hoverHaproxy } from './hover';

export type { HaproxyFile } from './ast';

export const haproxyModule: LanguageModule<HaproxyFile> = {
  id: 'haproxy',
  parse: (text) => parseHaproxy(text),
  validate: (doc, ast, settings) => validateHaproxy(doc, ast, settings),
  complete: (doc, ast, pos, settings) => completeHaproxy(doc, ast, pos, settings),
  hover: (doc, ast, pos, settings) => hoverHaproxy(doc, ast, pos, settings),
  symbols(doc, ast): DocumentSymbol[] {
    return ast.sections.map((s) => {
      const end = doc.positionAt(Math.max(s.headerEnd, trimEnd(ast.text, s.bodyEnd)));
      const range = { start: doc.positionAt(s.headerStart), end };
      const sel = s.name ?? s.header.keyword!;
      return {
        name: s.name ? `${s.keyword} ${s.name.value}` : s.keyword,
        kind: s.keyword === 'backend' || s.keyword === 'frontend' || s.keyword === 'listen' ? 5 : 2,
        range,
        selectionRange: { start: doc.positionAt(sel.start), end: doc.positionAt(sel.end) },
      };
    });
  },
  folding(doc, ast): FoldingRange[] {
    const out: FoldingRange[] = [];
    for (const s of ast.sections) {
      const startLine = s.header.line;
      const endLine = doc.positionAt(trimEnd(ast.text, s.bodyEnd)).line;
      if (endLine > startLine) out.push({ startLine, endLine });
    }
    return out;
  },
};

/** The offset after the last non-blank character before `end`. */
function trimEnd(text: string, end: number): number {
  let i = end;
  while (i > 0 && /\s/.test(text[i - 1])) i--;
  return i;
}
