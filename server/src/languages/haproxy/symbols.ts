// HAProxy outline: sections by keyword and name with their ACLs, servers and other named lines
// as children; folding ranges (sections, comment runs, `.if` blocks); selection ranges
// (word → condition term → condition → line → section → document).
import type { DocumentSymbol, FoldingRange, Position, SelectionRange, SymbolKind } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { selectionChain } from '../../core/selection';
import type { HaproxyFile, Section, Statement } from './ast';
import { findNodeAt } from './ast';

// LSP SymbolKind values
const K = {
  Module: 2,
  Namespace: 3,
  Class: 5,
  Property: 7,
  Field: 8,
  Interface: 11,
  Variable: 13,
  Boolean: 17,
  Object: 19,
  Struct: 23,
  Event: 24,
} as const;

const SECTION_KIND: Record<string, number> = {
  global: K.Namespace,
  defaults: K.Namespace,
  frontend: K.Class,
  backend: K.Class,
  listen: K.Class,
  userlist: K.Struct,
  resolvers: K.Struct,
  peers: K.Struct,
  mailers: K.Struct,
};

/** Lines shown as children of their section, with the symbol kind. */
const CHILD_KIND: Record<string, number> = {
  acl: K.Boolean,
  server: K.Field,
  'server-template': K.Field,
  nameserver: K.Field,
  peer: K.Field,
  mailer: K.Field,
  user: K.Variable,
  group: K.Variable,
  table: K.Object,
};

/** The offset after the last non-blank character before `end`. */
function trimEnd(text: string, end: number): number {
  let i = end;
  while (i > 0 && /\s/.test(text[i - 1])) i--;
  return i;
}

/** Where a section's content ends: its last line that is not blank, a comment or a conditional directive. */
function sectionEnd(file: HaproxyFile, sec: Section): number {
  // `.if`/`.endif` lines sit in whichever section precedes them: they do not extend it
  let last: Statement | undefined;
  for (let i = sec.statements.length - 1; i >= 0 && !last; i--)
    if (!sec.statements[i].keyword?.value.startsWith('.')) last = sec.statements[i];
  return Math.max(sec.headerEnd, last ? last.end : trimEnd(file.text, sec.headerEnd));
}

function childSymbol(doc: TextDocument, st: Statement): DocumentSymbol | undefined {
  const k = st.keyword?.value;
  if (!k || st.prefix) return undefined;
  const kind = CHILD_KIND[k];
  if (kind === undefined) return undefined;
  const nameWord = k === 'acl' ? st.acl?.name : st.args[0];
  if (!nameWord) return undefined;
  const rest = k === 'server' || k === 'nameserver' || k === 'peer' || k === 'mailer' ? st.args[1]?.value : undefined;
  return {
    name: `${k} ${nameWord.value}`,
    detail: rest,
    kind: kind as SymbolKind,
    range: { start: doc.positionAt(st.start), end: doc.positionAt(st.end) },
    selectionRange: { start: doc.positionAt(nameWord.start), end: doc.positionAt(nameWord.end) },
  };
}

export function haproxySymbols(doc: TextDocument, file: HaproxyFile): DocumentSymbol[] {
  return file.sections.map((s) => {
    const sel = s.name ?? s.header.keyword!;
    const children = s.statements.map((st) => childSymbol(doc, st)).filter((c): c is DocumentSymbol => !!c);
    const sym: DocumentSymbol = {
      name: s.name ? `${s.keyword} ${s.name.value}` : s.keyword,
      kind: (SECTION_KIND[s.keyword] ?? K.Module) as SymbolKind,
      range: { start: doc.positionAt(s.headerStart), end: doc.positionAt(sectionEnd(file, s)) },
      selectionRange: { start: doc.positionAt(sel.start), end: doc.positionAt(sel.end) },
    };
    const from = s.header.args.findIndex((w) => w.value === 'from');
    if (from >= 0 && s.header.args[from + 1]) sym.detail = `from ${s.header.args[from + 1].value}`;
    if (children.length) sym.children = children;
    return sym;
  });
}

export function haproxyFolding(doc: TextDocument, file: HaproxyFile): FoldingRange[] {
  const out: FoldingRange[] = [];
  for (const s of file.sections) {
    const startLine = s.header.line;
    const endLine = doc.positionAt(sectionEnd(file, s)).line;
    if (endLine > startLine) out.push({ startLine, endLine });
  }
  // `.if` ... `.endif` blocks (conditional configuration)
  const all: Statement[] = [...file.orphans];
  for (const s of file.sections) all.push(s.header, ...s.statements);
  all.sort((a, b) => a.start - b.start);
  const open: number[] = [];
  for (const st of all) {
    const k = st.keyword?.value;
    if (k === '.if') open.push(st.line);
    else if (k === '.endif' && open.length) {
      const startLine = open.pop()!;
      if (st.line - 1 > startLine) out.push({ startLine, endLine: st.line - 1 });
    }
  }
  // runs of comment-only lines
  let runStart = -1;
  let runEnd = -1;
  const flush = () => {
    if (runStart >= 0 && runEnd > runStart) out.push({ startLine: runStart, endLine: runEnd, kind: 'comment' });
  };
  for (const c of file.comments) {
    const line = doc.positionAt(c.start).line;
    const lineStart = file.lineStarts[line] ?? 0;
    if (file.text.slice(lineStart, c.start).trim() !== '') continue;
    if (runStart >= 0 && line === runEnd + 1) runEnd = line;
    else {
      flush();
      runStart = runEnd = line;
    }
  }
  flush();
  return out.sort((a, b) => a.startLine - b.startLine);
}

export function haproxySelectionRanges(doc: TextDocument, file: HaproxyFile, positions: Position[]): SelectionRange[] {
  return positions.map((pos) => {
    const offset = doc.offsetAt(pos);
    const node = findNodeAt(file, offset);
    const spans: [number, number][] = [];
    if (node.word) spans.push([node.word.start, node.word.end]);
    else if (node.comment) spans.push([node.comment.start, node.comment.end]);
    if (node.sample) spans.push([node.sample.start, node.sample.end]);
    if (node.term) spans.push([node.term.start, node.term.end]);
    if (node.condition) spans.push([node.condition.start, node.condition.end]);
    if (node.statement) spans.push([node.statement.start, node.statement.end]);
    if (node.section) spans.push([node.section.headerStart, sectionEnd(file, node.section)]);
    spans.push([0, file.text.length]);
    return selectionChain(doc, spans, pos);
  });
}
