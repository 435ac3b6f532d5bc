// Offset -> position, the way LSP documents count (vscode-languageserver-textdocument's rules):
// the offset is clamped to the text, lines break at `\n`, `\r\n` and `\r`, and an offset inside
// or just after a line break stays at the end of that line's content. Shared by the rule engine
// (documents of the library: a line table built with indexOf, faster than its per-character
// scan on a fresh big file) and the server's line documents (server/src/core/lineDocument.ts).
import type { Position } from 'vscode-languageserver-types';

/** Start offset of every line of `text`: 0, then the offset after each line break. */
export function lineOffsetsOf(text: string): number[] {
  if (text.indexOf('\r') < 0) {
    // counted first, then filled: an array grown by push is reallocated ~20 times on a big file
    let count = 1;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) count++;
    const lines = new Array<number>(count);
    lines[0] = 0;
    let k = 1;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines[k++] = i + 1;
    return lines;
  }
  const out = [0];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10 || ch === 13) {
      if (ch === 13 && i + 1 < text.length && text.charCodeAt(i + 1) === 10) i++;
      out.push(i + 1);
    }
  }
  return out;
}

/** The position of `offset` in `text`, whose line starts are `lineOffsets` (never empty). */
export function positionIn(text: string, lineOffsets: readonly number[], offset: number): Position {
  offset = Math.max(Math.min(offset, text.length), 0);
  let low = 0;
  let high = lineOffsets.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (lineOffsets[mid] > offset) high = mid;
    else low = mid + 1;
  }
  const line = low - 1;
  const lineStart = lineOffsets[line];
  while (offset > lineStart) {
    const c = text.charCodeAt(offset - 1);
    if (c !== 10 && c !== 13) break;
    offset--;
  }
  return { line, character: offset - lineStart };
}
