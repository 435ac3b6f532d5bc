// nginx outline: document symbols (blocks named by what identifies them), folding ranges
// (blocks, runs of comment lines) and selection ranges (word → directive → block → parent ...).
import type { DocumentSymbol, FoldingRange, Position, SelectionRange, SymbolKind } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { selectionChain } from '../../core/selection';
import type { Directive, NginxFile } from './ast';
import { findNodeAt, variablesIn } from './ast';

// LSP SymbolKind values
const K = {
  File: 1,
  Module: 2,
  Namespace: 3,
  Class: 5,
  Method: 6,
  Field: 8,
  Interface: 11,
  Variable: 13,
  Object: 19,
  Struct: 23,
  Event: 24,
  Operator: 25,
} as const;

const KIND: Record<string, number> = {
  events: K.Event,
  http: K.Namespace,
  stream: K.Namespace,
  mail: K.Namespace,
  server: K.Class,
  location: K.Method,
  upstream: K.Struct,
  map: K.Variable,
  geo: K.Variable,
  split_clients: K.Variable,
  types: K.Object,
  if: K.Operator,
  limit_except: K.Operator,
  include: K.File,
};

/** The symbol's name: `server example.com :443`, `location ~ \.php$`, `upstream app`, `map $uri $new`. */
function symbolName(d: Directive): string {
  if (d.name === 'server' && d.block) {
    const names: string[] = [];
    const listens: string[] = [];
    for (const c of d.block.children) {
      if (c.name === 'server_name') names.push(...c.args.map((a) => a.value).filter((v) => v !== ''));
      else if (c.name === 'listen' && c.args[0]) listens.push(c.args[0].value);
    }
    const parts = [...names, ...listens.map((l) => (/^\d+$/.test(l) ? `:${l}` : l))];
    return parts.length ? `server ${parts.join(' ')}` : 'server';
  }
  const args = d.args.map((a) => a.raw).join(' ');
  return args ? `${d.name} ${args}` : d.name;
}

function isSymbol(d: Directive): boolean {
  if (d.entry) return false;
  return !!d.block || d.name === 'include';
}

export function nginxSymbols(doc: TextDocument, file: NginxFile): DocumentSymbol[] {
  const build = (list: Directive[]): DocumentSymbol[] => {
    const out: DocumentSymbol[] = [];
    for (const d of list) {
      if (!isSymbol(d)) continue;
      const sel = d.args[0] && d.name !== 'server' ? d.args[0] : d.nameWord;
      const sym: DocumentSymbol = {
        name: symbolName(d),
        kind: (KIND[d.name] ?? K.Module) as SymbolKind,
        range: { start: doc.positionAt(d.start), end: doc.positionAt(Math.max(d.end, d.start)) },
        selectionRange: { start: doc.positionAt(sel.start), end: doc.positionAt(sel.end) },
      };
      if (d.name === 'location' && d.args.length > 1) sym.detail = d.args[0].value;
      if (d.block && !d.rawBody) {
        const children = build(d.block.children);
        if (children.length) sym.children = children;
      }
      out.push(sym);
    }
    return out;
  };
  return build(file.directives);
}

/** Runs of at least two lines holding only a comment, as comment folding ranges. */
export function commentRuns(doc: TextDocument, comments: { start: number }[], text: string): FoldingRange[] {
  const out: FoldingRange[] = [];
  let runStart = -1;
  let runEnd = -1;
  const flush = () => {
    if (runStart >= 0 && runEnd > runStart) out.push({ startLine: runStart, endLine: runEnd, kind: 'comment' });
  };
  for (const c of comments) {
    const pos = doc.positionAt(c.start);
    const lineStart = doc.offsetAt({ line: pos.line, character: 0 });
    if (text.slice(lineStart, c.start).trim() !== '') continue; // a comment after a directive
    if (runStart >= 0 && pos.line === runEnd + 1) runEnd = pos.line;
    else {
      flush();
      runStart = runEnd = pos.line;
    }
  }
  flush();
  return out;
}

export function nginxFolding(doc: TextDocument, file: NginxFile): FoldingRange[] {
  const out: FoldingRange[] = [];
  const visit = (list: Directive[]) => {
    for (const d of list) {
      const b = d.block;
      if (!b) continue;
      const startLine = doc.positionAt(b.start).line;
      let endLine: number;
      if (b.closed && b.closeStart !== undefined) {
        const close = doc.positionAt(b.closeStart);
        // keep the closing brace visible when it starts its line
        const before = doc.getText({ start: { line: close.line, character: 0 }, end: close });
        endLine = before.trim() === '' ? close.line - 1 : close.line;
      } else endLine = doc.positionAt(b.end).line;
      if (endLine > startLine) out.push({ startLine, endLine });
      visit(b.children);
    }
  };
  visit(file.directives);
  out.push(...commentRuns(doc, file.comments, file.text));
  return out.sort((a, b) => a.startLine - b.startLine);
}

/** Word → variable in it → directive → enclosing block bodies and directives, outermost last → document. */
export function nginxSelectionRanges(doc: TextDocument, file: NginxFile, positions: Position[]): SelectionRange[] {
  return positions.map((pos) => {
    const offset = doc.offsetAt(pos);
    const node = findNodeAt(file, offset);
    const spans: [number, number][] = [];
    if (node.word) {
      const w = node.word;
      const v = variablesIn(w).find((r) => r.start <= offset && offset <= r.end);
      if (v) spans.push([v.start, v.end]);
      spans.push([w.start, w.end]);
    } else if (node.comment) spans.push([node.comment.start, node.comment.end]);
    if (node.directive) spans.push([node.directive.start, node.directive.end]);
    for (let i = node.ancestors.length - 1; i >= 0; i--) {
      const a = node.ancestors[i];
      const b = a.block!;
      // the body without the blanks next to its braces
      let s0 = b.start + 1;
      let e0 = b.closed && b.closeStart !== undefined ? b.closeStart : b.end;
      while (s0 < e0 && /\s/.test(file.text[s0])) s0++;
      while (e0 > s0 && /\s/.test(file.text[e0 - 1])) e0--;
      spans.push([s0, e0]);
      spans.push([a.start, a.end]);
    }
    spans.push([0, file.text.length]);
    return selectionChain(doc, spans, pos);
  });
}
