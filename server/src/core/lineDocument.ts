// The open documents of the language server, kept as an array of lines so that an incremental
// edit costs the size of the lines it touches, not the size of the file.
//
// vscode-languageserver-textdocument keeps one string and rebuilds it on every change
// (`prefix + text + suffix`); its next offset look-up reads a character of that concatenation,
// which makes V8 copy the whole file into a fresh flat string. On a 5,000-line file that is
// ~0.8 ms and a 150 KB large-object allocation per keystroke, before any validation runs. Here
// a change splices the lines it covers; the whole text is joined once, when someone asks for it
// (a validation), and kept until the next change.
//
// Positions follow the library's rules: a line past the end means the end of the document, a
// negative line the start, a character past the end of a line the end of its content (before
// its line break), a reversed range is swapped. Line breaks are `\n`, `\r\n` and `\r`.
import type { Position, Range, TextDocument, TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import { positionIn } from './positions';

const LF = 10;
const CR = 13;

/** The lines of `text`, each with its line break; the last one has none (it may be empty). */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== LF && c !== CR) continue;
    if (c === CR && text.charCodeAt(i + 1) === LF) i++;
    lines.push(text.slice(start, i + 1));
    start = i + 1;
  }
  lines.push(text.slice(start));
  return lines;
}

/** Length of a line without its line break. */
function contentLength(line: string): number {
  const n = line.length;
  if (n === 0) return 0;
  const last = line.charCodeAt(n - 1);
  if (last === LF) return n >= 2 && line.charCodeAt(n - 2) === CR ? n - 2 : n - 1;
  return last === CR ? n - 1 : n;
}

export class LineDocument implements TextDocument {
  private lines: string[];
  private text: string | undefined;
  private offsets: number[] | undefined;

  constructor(
    readonly uri: string,
    readonly languageId: string,
    private ver: number,
    content: string,
  ) {
    this.lines = splitLines(content);
    this.text = content;
  }

  get version(): number {
    return this.ver;
  }

  get lineCount(): number {
    return this.lines.length;
  }

  getText(range?: Range): string {
    if (this.text === undefined) this.text = this.lines.join('');
    if (!range) return this.text;
    return this.text.substring(this.offsetAt(range.start), this.offsetAt(range.end));
  }

  /** Start offset of every line. */
  private lineOffsets(): number[] {
    if (!this.offsets) {
      const offsets = new Array<number>(this.lines.length);
      let at = 0;
      for (let i = 0; i < this.lines.length; i++) {
        offsets[i] = at;
        at += this.lines[i].length;
      }
      this.offsets = offsets;
    }
    return this.offsets;
  }

  /** A position as (line index, character within that line's content), clamped like `offsetAt`. */
  private locate(position: Position): [number, number] {
    if (position.line >= this.lines.length) {
      const last = this.lines.length - 1;
      return [last, this.lines[last].length];
    }
    if (position.line < 0) return [0, 0];
    const line = this.lines[position.line];
    return [position.line, position.character <= 0 ? 0 : Math.min(position.character, contentLength(line))];
  }

  offsetAt(position: Position): number {
    const [line, character] = this.locate(position);
    return this.lineOffsets()[line] + character;
  }

  positionAt(offset: number): Position {
    return positionIn(this.getText(), this.lineOffsets(), offset);
  }

  update(changes: readonly TextDocumentContentChangeEvent[], version: number): void {
    for (const change of changes) {
      if ('range' in change && change.range) this.replace(change.range, change.text);
      else this.lines = splitLines(change.text);
      this.text = undefined;
      this.offsets = undefined;
    }
    this.ver = version;
  }

  private replace(range: Range, text: string): void {
    let { start, end } = range;
    if (start.line > end.line || (start.line === end.line && start.character > end.character)) [start, end] = [end, start];
    const [startLine, startChar] = this.locate(start);
    const [endLine, endChar] = this.locate(end);
    const lines = this.lines;
    // Line breaks are found in the inserted text alone and the end line keeps its own break, as
    // the library does (a `\r` typed before a `\n` stays a break of its own until reopened).
    const replaced = splitLines(lines[startLine].slice(0, startChar) + text);
    replaced[replaced.length - 1] += lines[endLine].slice(endChar);
    const removed = endLine - startLine + 1;
    if (replaced.length === 1 && removed === 1) lines[startLine] = replaced[0];
    else if (replaced.length < 10_000) lines.splice(startLine, removed, ...replaced);
    else this.lines = lines.slice(0, startLine).concat(replaced, lines.slice(endLine + 1));
  }
}

/** The `TextDocuments` configuration for line documents. */
export const lineDocuments = {
  create: (uri: string, languageId: string, version: number, content: string): LineDocument =>
    new LineDocument(uri, languageId, version, content),
  update: (document: LineDocument, changes: TextDocumentContentChangeEvent[], version: number): LineDocument => {
    document.update(changes, version);
    return document;
  },
};
