// Quick fixes for a keyword in a section that does not take it (`haproxy/not-allowed-here`,
// `haproxy/ignored-here`): remove the line, or move it into the one section of the file that
// takes it (`nbthread` from `defaults` into `global`). A move is offered only when exactly one
// section qualifies: moving a proxy keyword into one of several proxies would change which
// traffic it governs. Computed when the editor asks for code actions, from the current tree.
import type { CodeAction, Diagnostic, Range, TextEdit } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { HaproxyFile, Section, Statement } from './ast';
import { GLOBAL, matchProxyKeyword } from './data';

const RULES = new Set(['haproxy/not-allowed-here', 'haproxy/ignored-here']);

/** The section kinds a statement's keyword belongs to (`listen` takes what frontends and backends take). */
function kindsOf(st: Statement): string[] {
  const k = st.keyword?.value;
  if (!k) return [];
  if (GLOBAL.has(k)) return ['global'];
  const m = matchProxyKeyword(st.words.map((w) => w.value));
  return m?.info.sections ?? [];
}

/** The statement's whole lines (with their line break). */
function lineSpan(text: string, st: Statement): { start: number; end: number } {
  let s = st.start;
  while (s > 0 && text[s - 1] !== '\n') s--;
  let e = st.end;
  while (e < text.length && text[e] !== '\n') e++;
  if (e < text.length) e++;
  return { start: s, end: e };
}

/** Where a line appended to `sec` goes (after its last statement), and the indentation it takes. */
function appendPoint(text: string, sec: Section): { offset: number; indent: string } {
  const last = sec.statements[sec.statements.length - 1];
  const anchor = last ?? sec.header;
  const span = lineSpan(text, anchor);
  const indent = last ? /^[ \t]*/.exec(text.slice(span.start, last.start))![0] : '    ';
  return { offset: span.end, indent };
}

export function sectionFixes(doc: TextDocument, file: HaproxyFile, range: Range, diagnostics: Diagnostic[]): CodeAction[] {
  const out: CodeAction[] = [];
  const text = file.text;
  for (const d of diagnostics) {
    if (!RULES.has(String(d.code)) || d.range.end.line < range.start.line || d.range.start.line > range.end.line) continue;
    const at = doc.offsetAt(d.range.start);
    let found: { sec: Section; st: Statement } | undefined;
    for (const sec of file.sections) {
      if (at < sec.bodyStart || at > sec.bodyEnd) continue;
      const st = sec.statements.find((s) => s.start <= at && at <= s.end);
      if (st) found = { sec, st };
    }
    if (!found?.st.keyword) continue;
    const { sec, st } = found;
    const name = st.keyword!.value;
    const span = lineSpan(text, st);
    const remove: TextEdit = { range: { start: doc.positionAt(span.start), end: doc.positionAt(span.end) }, newText: '' };
    out.push({ title: `Remove '${name}'`, kind: 'quickfix', diagnostics: [d], edit: { changes: { [doc.uri]: [remove] } } });
    const kinds = kindsOf(st);
    const targets = file.sections.filter(
      (s) => s !== sec && (kinds.includes(s.keyword) || (s.keyword === 'listen' && kinds.some((k) => k === 'frontend' || k === 'backend'))),
    );
    if (targets.length !== 1) continue;
    const target = targets[0];
    const { offset, indent } = appendPoint(text, target);
    const line = text.slice(st.start, st.end).trimEnd();
    const nl = text.includes('\r\n') ? '\r\n' : '\n';
    const insert: TextEdit = {
      range: { start: doc.positionAt(offset), end: doc.positionAt(offset) },
      newText: `${offset > 0 && text[offset - 1] !== '\n' ? nl : ''}${indent}${line}${nl}`,
    };
    const where = target.name ? `${target.keyword} ${target.name.value}` : target.keyword;
    out.push({
      title: `Move '${name}' into '${where}'`,
      kind: 'quickfix',
      diagnostics: [d],
      isPreferred: true,
      edit: { changes: { [doc.uri]: [remove, insert].sort((a, b) => doc.offsetAt(a.range.start) - doc.offsetAt(b.range.start)) } },
    });
  }
  return out;
}
