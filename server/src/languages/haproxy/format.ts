// HAProxy formatting (document and range). HAProxy reads one statement per line, so the
// formatter works line by line and only changes whitespace outside words:
// - section headers at column 0, statements one level in, lines before any section at column 0;
// - blanks between words become one space (a quoted or escaped blank is part of its word and
//   stays); a trailing comment is kept one space after the last word; trailing blanks go;
// - a comment on its own line takes the indentation of the next statement or header (so a
//   comment above `backend app` stays at column 0), at the end of the file the previous one's;
// - blank lines: a run becomes exactly one; none at the start or the end of the file;
// - a line whose words the parser could not split cleanly (an unterminated quote) is kept as is.
import type { Range, TextEdit } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Comment, HaproxyFile, Statement } from './ast';
import { minimalEdit, type FormatOptions } from '../../core/format';

type LineKind = 'blank' | 'header' | 'statement' | 'orphan' | 'comment' | 'other';

interface LineInfo {
  kind: LineKind;
  /** The line's content without indentation, or the whole original line for `other`. */
  content: string;
}

function lineTexts(text: string): { lines: string[]; starts: number[] } {
  const lines: string[] = [];
  const starts: number[] = [];
  let pos = 0;
  for (;;) {
    const nl = text.indexOf('\n', pos);
    starts.push(pos);
    if (nl < 0) {
      lines.push(text.slice(pos));
      break;
    }
    lines.push(text.slice(pos, nl).replace(/\r$/, ''));
    pos = nl + 1;
  }
  return { lines, starts };
}

/** The line's words re-joined with single spaces, or undefined when the line is not cleanly split. */
function statementContent(text: string, st: Statement, lineStart: number, lineEnd: number): string | undefined {
  const words = st.words;
  if (!words.length) return undefined;
  if (words.some((w) => w.unterminated)) return undefined;
  if (!/^[ \t]*$/.test(text.slice(lineStart, words[0].start))) return undefined;
  for (let i = 1; i < words.length; i++) {
    const gap = text.slice(words[i - 1].end, words[i].start);
    if (!/^[ \t]+$/.test(gap)) return undefined;
  }
  const lastEnd = words[words.length - 1].end;
  const c = st.comment;
  const tailEnd = c ? c.start : lineEnd;
  if (!/^[ \t]*$/.test(text.slice(lastEnd, tailEnd))) return undefined;
  if (c && !/^[ \t\r]*$/.test(text.slice(c.end, lineEnd))) return undefined;
  let out = words.map((w) => text.slice(w.start, w.end)).join(' ');
  if (c) out += ' ' + text.slice(c.start, c.end).replace(/[ \t\r]+$/, '');
  return out;
}

function classify(file: HaproxyFile): LineInfo[] {
  const text = file.text;
  const { lines, starts } = lineTexts(text);
  const byLine = new Map<number, { st: Statement; kind: LineKind }>();
  for (const st of file.orphans) byLine.set(st.line, { st, kind: 'orphan' });
  for (const sec of file.sections) {
    byLine.set(sec.header.line, { st: sec.header, kind: 'header' });
    for (const st of sec.statements) byLine.set(st.line, { st, kind: 'statement' });
  }
  const commentAt = new Map<number, Comment>();
  for (const c of file.comments) {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= c.start) lo = mid;
      else hi = mid - 1;
    }
    if (!commentAt.has(lo)) commentAt.set(lo, c);
  }
  return lines.map((line, i): LineInfo => {
    const lineStart = starts[i];
    const lineEnd = lineStart + line.length;
    const hit = byLine.get(i);
    if (hit && hit.st.words.length) {
      const content = statementContent(text, hit.st, lineStart, lineEnd);
      return content === undefined ? { kind: 'other', content: line } : { kind: hit.kind, content };
    }
    if (/^[ \t]*$/.test(line)) return { kind: 'blank', content: '' };
    const c = commentAt.get(i);
    if (c && /^[ \t]*$/.test(text.slice(lineStart, c.start)) && /^[ \t\r]*$/.test(text.slice(c.end, lineEnd))) {
      return { kind: 'comment', content: text.slice(c.start, c.end).replace(/[ \t\r]+$/, '') };
    }
    return { kind: 'other', content: line };
  });
}

/**
 * The formatted lines, one per original line (undefined: the line is dropped, a surplus blank).
 * Keeping the original line numbers as indices is what range formatting needs.
 */
function formatLines(file: HaproxyFile, options: FormatOptions): (string | undefined)[] {
  const unit = options.insertSpaces ? ' '.repeat(Math.max(1, options.tabSize || 4)) : '\t';
  const info = classify(file);
  const indentOf = (k: LineKind) => (k === 'statement' ? unit : '');
  const out: (string | undefined)[] = new Array(info.length);
  // own-line comments: the indentation of the next header/statement, else of the previous one
  let next: LineKind | undefined;
  const nextKind: (LineKind | undefined)[] = new Array(info.length);
  for (let i = info.length - 1; i >= 0; i--) {
    nextKind[i] = next;
    const k = info[i].kind;
    if (k === 'header' || k === 'statement' || k === 'orphan') next = k;
  }
  let prevKind: LineKind | undefined;
  let seenContent = false;
  let pendingBlank = -1;
  for (let i = 0; i < info.length; i++) {
    const { kind, content } = info[i];
    if (kind === 'blank') {
      out[i] = undefined;
      if (seenContent && pendingBlank < 0) pendingBlank = i;
      continue;
    }
    if (pendingBlank >= 0) out[pendingBlank] = '';
    pendingBlank = -1;
    seenContent = true;
    if (kind === 'other') out[i] = content;
    else if (kind === 'comment') out[i] = indentOf(nextKind[i] ?? prevKind ?? 'orphan') + content;
    else out[i] = indentOf(kind) + content;
    if (kind === 'header' || kind === 'statement' || kind === 'orphan') prevKind = kind;
  }
  return out;
}

export function formatHaproxyText(file: HaproxyFile, options: FormatOptions): string {
  const nl = file.text.includes('\r\n') ? '\r\n' : '\n';
  const lines = formatLines(file, options).filter((l): l is string => l !== undefined);
  return lines.length ? lines.join(nl) + nl : '';
}

export function formatHaproxy(doc: TextDocument, file: HaproxyFile, range: Range | undefined, options: FormatOptions): TextEdit[] {
  try {
    if (file.errors.some((e) => e.message.startsWith('internal parser error'))) return [];
    const text = file.text;
    if (!range) return minimalEdit(doc, text, formatHaproxyText(file, options));
    const nl = text.includes('\r\n') ? '\r\n' : '\n';
    const lines = formatLines(file, options);
    const { starts, lines: orig } = lineTexts(text);
    const first = Math.max(0, Math.min(range.start.line, orig.length - 1));
    let last = Math.max(first, Math.min(range.end.line, orig.length - 1));
    if (range.end.character === 0 && range.end.line > range.start.line) last = Math.max(first, last - 1);
    const kept = lines.slice(first, last + 1).filter((l): l is string => l !== undefined);
    const hasNext = last + 1 < starts.length;
    const end = hasNext ? starts[last + 1] : text.length;
    const to = hasNext ? kept.map((l) => l + nl).join('') : kept.join(nl);
    return minimalEdit(doc, text.slice(starts[first], end), to, starts[first]);
  } catch {
    return [];
  }
}
