// Fixture markers: `<|>` is the cursor, `<|...|>` a range. `|` and `$0` occur in real configs
// (regex alternation, `||`, variables), hence the angle brackets.
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Position, Range } from 'vscode-languageserver-types';

export interface Marked {
  text: string;
  cursor?: Position;
  ranges: Range[];
}

export function parseMarkers(marked: string): Marked {
  let text = '';
  let cursorOffset: number | undefined;
  const rangeOffsets: [number, number][] = [];
  let open: number | undefined;
  for (let i = 0; i < marked.length; ) {
    if (marked.startsWith('<|>', i)) {
      cursorOffset = text.length;
      i += 3;
    } else if (marked.startsWith('<|', i)) {
      open = text.length;
      i += 2;
    } else if (open !== undefined && marked.startsWith('|>', i)) {
      rangeOffsets.push([open, text.length]);
      open = undefined;
      i += 2;
    } else {
      text += marked[i++];
    }
  }
  const doc = TextDocument.create('file:///fixture', 'plaintext', 1, text);
  return {
    text,
    cursor: cursorOffset === undefined ? undefined : doc.positionAt(cursorOffset),
    ranges: rangeOffsets.map(([s, e]) => ({ start: doc.positionAt(s), end: doc.positionAt(e) })),
  };
}

/** Position of the `nth` occurrence of `needle` (plus `delta` characters) in `text`. */
export function positionOf(text: string, needle: string, delta = 0, nth = 0): Position {
  let at = -1;
  for (let k = 0; k <= nth; k++) {
    at = text.indexOf(needle, at + 1);
    if (at < 0) throw new Error(`fixture has no ${JSON.stringify(needle)} #${nth}`);
  }
  return TextDocument.create('file:///fixture', 'plaintext', 1, text).positionAt(at + delta);
}
