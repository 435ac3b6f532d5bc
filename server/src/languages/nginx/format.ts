// nginx formatting (document and range). The output is rebuilt from the tokens the parser saw
// (words as written, `;`, braces, comments, raw Lua bodies), so it can only differ from the
// input in the whitespace between tokens:
// - one directive per line, indented by block depth; `{` ends the head's line, `}` gets its own
//   line (an empty block stays `{}`);
// - blanks between words become one space; a line break between two words of a directive is
//   kept (a long `log_format` stays multi-line), continuation lines get one more level, or stay
//   aligned under an earlier argument of the directive when they were aligned under it;
// - a comment keeps its place: at the end of its line, or on its own line at the depth where
//   it stands; trailing blanks go;
// - blank lines: a run of them becomes exactly one; none right after `{` or before `}`, none at
//   the start of the file; the file ends with one line break;
// - a raw body (`content_by_lua_block { ... }`) is copied byte for byte;
// - quoted words and table entries (`map`, `geo`...) keep their text; nothing is aligned.
// A file with syntax errors is left alone (the tokens do not say what the author meant).
import type { Range, TextEdit } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Directive, NginxFile } from './ast';
import { minimalEdit, type FormatOptions } from '../../core/format';

type TokKind = 'name' | 'arg' | 'semi' | 'open' | 'close' | 'raw' | 'comment';

interface Tok {
  kind: TokKind;
  start: number;
  end: number;
  text: string;
  /** Nesting depth of the directive the token belongs to (for `close`: the block's owner depth). */
  depth: number;
}

function collectTokens(file: NginxFile): Tok[] {
  const toks: Tok[] = [];
  const text = file.text;
  const visit = (list: Directive[], depth: number) => {
    for (const d of list) {
      toks.push({ kind: 'name', start: d.nameWord.start, end: d.nameWord.end, text: d.nameWord.raw, depth });
      for (const a of d.args) toks.push({ kind: 'arg', start: a.start, end: a.end, text: a.raw, depth });
      if (d.block) {
        const b = d.block;
        toks.push({ kind: 'open', start: b.start, end: b.start + 1, text: '{', depth });
        if (d.rawBody) {
          toks.push({ kind: 'raw', start: d.rawBody.start, end: d.rawBody.end, text: text.slice(d.rawBody.start, d.rawBody.end), depth });
        } else visit(b.children, depth + 1);
        if (b.closeStart !== undefined) toks.push({ kind: 'close', start: b.closeStart, end: b.closeStart + 1, text: '}', depth });
      } else if (d.semicolon !== undefined) {
        toks.push({ kind: 'semi', start: d.semicolon, end: d.semicolon + 1, text: ';', depth });
      }
    }
  };
  visit(file.directives, 0);
  for (const c of file.comments) {
    // comments inside a raw body are part of the body
    toks.push({ kind: 'comment', start: c.start, end: c.end, text: ('#' + c.text).replace(/[ \t\r]+$/, ''), depth: -1 });
  }
  toks.sort((a, b) => a.start - b.start);
  // drop comments that lie inside a raw body
  const raws = toks.filter((t) => t.kind === 'raw');
  return raws.length ? toks.filter((t) => t.kind !== 'comment' || !raws.some((r) => t.start >= r.start && t.start < r.end)) : toks;
}

function newlinesIn(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

interface Layout {
  text: string;
  /** Output offset of each token's start, index-aligned with `toks`. */
  outStart: Int32Array;
  outEnd: Int32Array;
  toks: Tok[];
  /** Whether token i begins a new output line (only indentation before it on that line). */
  startsLine: Uint8Array;
}

/** Lays the tokens out; `nl` is the line break written. */
function layout(file: NginxFile, options: FormatOptions, nl: string): Layout {
  const toks = collectTokens(file);
  const text = file.text;
  const unit = options.insertSpaces ? ' '.repeat(Math.max(1, options.tabSize || 4)) : '\t';
  // typed arrays: a line of a million words makes a million entries, which plain arrays grow and the collector walks
  const outStart = new Int32Array(toks.length);
  const outEnd = new Int32Array(toks.length);
  const startsLine = new Uint8Array(toks.length);
  // the output as parts and their length: a string grown by += and read at its end would be
  // flattened at every line (quadratic on a large file)
  const parts: string[] = [];
  let len = 0;
  let lineStart = 0; // where the output's last line starts (trimEnd never removes a line break)
  const put = (x: string) => {
    parts.push(x);
    const nlAt = x.lastIndexOf('\n');
    if (nlAt >= 0) lineStart = len + nlAt + 1;
    len += x.length;
  };
  /** Drops the blanks at the end of the output. */
  const trimEnd = () => {
    while (parts.length) {
      const last = parts[parts.length - 1];
      let i = last.length;
      while (i > 0 && (last.charCodeAt(i - 1) === 32 || last.charCodeAt(i - 1) === 9)) i--;
      if (i === last.length) return;
      len -= last.length - i;
      if (i > 0) {
        parts[parts.length - 1] = last.slice(0, i);
        return;
      }
      parts.pop();
    }
  };
  let depth = 0; // current block depth (inside how many blocks)
  let inDirective = false; // between a directive's name and its `;` / `{`
  let prev: Tok | undefined;
  // the current directive's arguments: input column -> output column (for aligned continuations)
  const argCols = new Map<number, number>();
  const indent = (n: number) => unit.repeat(Math.max(0, n));
  // the input column of a token: tokens come in order, so the line start is found by scanning
  // forward from the previous token (linear on a line of a million words, where a scan back is not)
  let scanFrom = 0;
  let inLineStart = 0;
  const inputCol = (offset: number) => {
    if (offset < scanFrom) {
      scanFrom = 0;
      inLineStart = 0;
    }
    for (; scanFrom < offset; scanFrom++) if (text.charCodeAt(scanFrom) === 10) inLineStart = scanFrom + 1;
    return offset - inLineStart;
  };
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    const gap = prev ? newlinesIn(text, prev.end, t.start) : 0;
    let sep: 'none' | 'space' | 'line' = 'line';
    let lineDepth = depth;
    let blank = gap >= 2;
    switch (t.kind) {
      case 'name':
        sep = 'line';
        break;
      case 'arg':
        sep = prev?.kind === 'comment' || gap > 0 ? 'line' : 'space';
        lineDepth = depth + 1;
        blank = false;
        break;
      case 'semi':
        sep = prev?.kind === 'comment' ? 'line' : 'none';
        lineDepth = depth + 1;
        blank = false;
        break;
      case 'open':
        sep = prev?.kind === 'comment' ? 'line' : 'space';
        blank = false;
        break;
      case 'raw':
        sep = 'none';
        break;
      case 'close':
        depth = Math.max(0, depth - 1);
        lineDepth = depth;
        sep = prev?.kind === 'open' || prev?.kind === 'raw' ? 'none' : 'line';
        blank = false;
        break;
      case 'comment':
        if (gap === 0 && prev) sep = prev.kind === 'raw' ? 'none' : 'space';
        else sep = 'line';
        lineDepth = inDirective ? depth + 1 : depth;
        break;
    }
    if (!prev) {
      sep = 'none';
      blank = false;
    }
    if (prev?.kind === 'comment' && sep !== 'line') sep = 'line'; // a comment runs to the line end
    if (prev?.kind === 'open' && sep === 'line') blank = false;
    const alignTo = t.kind === 'arg' && sep === 'line' && prev?.kind === 'arg' ? argCols.get(inputCol(t.start)) : undefined;
    if (sep === 'line') {
      trimEnd();
      put((blank ? nl : '') + nl);
      if (alignTo !== undefined) put(indent(depth) + ' '.repeat(Math.max(0, alignTo - indent(depth).length)));
      else put(indent(lineDepth));
    } else if (sep === 'space') put(' ');
    if (t.kind === 'name') argCols.clear();
    else if (t.kind === 'arg' && argCols.size < 256 && !argCols.has(inputCol(t.start))) argCols.set(inputCol(t.start), len - lineStart);
    startsLine[i] = sep === 'line' || !prev ? 1 : 0;
    outStart[i] = len;
    put(t.text);
    outEnd[i] = len;
    if (t.kind === 'name') inDirective = true;
    if (t.kind === 'semi') inDirective = false;
    if (t.kind === 'open') {
      inDirective = false;
      depth++;
    }
    prev = t;
  }
  trimEnd();
  if (toks.length) put(nl);
  return { text: parts.join(''), outStart, outEnd, toks, startsLine };
}

function lineStartAt(text: string, offset: number): number {
  let i = offset;
  while (i > 0 && text.charCodeAt(i - 1) !== 10) i--;
  return i;
}

function lineEndAt(text: string, offset: number): number {
  let i = offset;
  while (i < text.length && text.charCodeAt(i) !== 10 && text.charCodeAt(i) !== 13) i++;
  return i;
}

/** Document or range formatting edits. */
export function formatNginx(doc: TextDocument, file: NginxFile, range: Range | undefined, options: FormatOptions): TextEdit[] {
  try {
    if (file.errors.length) return [];
    const text = file.text;
    const nl = text.includes('\r\n') ? '\r\n' : '\n';
    const lay = layout(file, options, nl);
    if (!range) return minimalEdit(doc, text, lay.text);
    return rangeEdits(doc, text, lay, range);
  } catch {
    return [];
  }
}

/**
 * Range formatting: the whole lines of the range, grown to the whole heads of the directives
 * they touch and to tokens that the layout joins to a neighbour line, are replaced by the same
 * tokens' lines in the formatted text.
 */
function rangeEdits(doc: TextDocument, text: string, lay: Layout, range: Range): TextEdit[] {
  const { toks } = lay;
  if (!toks.length) return [];
  let s = lineStartAt(text, doc.offsetAt(range.start));
  let e = lineEndAt(text, Math.max(doc.offsetAt(range.end) - (range.end.character === 0 && range.end.line > range.start.line ? 1 : 0), s));
  // directive spans (head only: name .. `;` / `{`), and the close brace's owner head
  const heads: { start: number; end: number }[] = [];
  let headStart = -1;
  for (const t of toks) {
    if (t.kind === 'name') headStart = t.start;
    if ((t.kind === 'semi' || t.kind === 'open') && headStart >= 0) {
      heads.push({ start: headStart, end: t.end });
      headStart = -1;
    }
  }
  for (let guard = 0; guard < 1000; guard++) {
    let ns = s;
    let ne = e;
    for (const h of heads) {
      if (h.end > ns && h.start <= ne) {
        ns = Math.min(ns, lineStartAt(text, h.start));
        ne = Math.max(ne, lineEndAt(text, h.end - 1));
      }
    }
    // tokens inside [ns, ne]; one that runs past ne (a multi-line word or raw body) grows it
    const first = toks.findIndex((t) => t.start >= ns);
    let last = -1;
    for (let i = toks.length - 1; i >= 0; i--) {
      if (toks[i].start <= ne) {
        last = i;
        break;
      }
    }
    if (first < 0 || last < first) return [];
    if (toks[last].end > ne) ne = lineEndAt(text, toks[last].end - 1);
    // the first token must begin an output line, and the one after the last too
    if (!lay.startsLine[first] && first > 0) ns = Math.min(ns, lineStartAt(text, toks[first - 1].start));
    if (last + 1 < toks.length && !lay.startsLine[last + 1]) ne = Math.max(ne, lineEndAt(text, toks[last + 1].end - 1));
    if (ns === s && ne === e) break;
    s = ns;
    e = ne;
  }
  const first = toks.findIndex((t) => t.start >= s);
  let last = -1;
  for (let i = toks.length - 1; i >= 0; i--)
    if (toks[i].start <= e) {
      last = i;
      break;
    }
  if (first < 0 || last < first) return [];
  const os = lineStartAt(lay.text, lay.outStart[first]);
  const oe = lineEndAt(lay.text, lay.outEnd[last] - 1 < lay.outStart[last] ? lay.outStart[last] : lay.outEnd[last] - 1);
  const from = text.slice(s, e);
  const to = lay.text.slice(os, oe);
  return minimalEdit(doc, from, to, s);
}
