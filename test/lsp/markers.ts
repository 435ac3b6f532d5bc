// Marker fixtures as LSP positions and ranges (the markers themselves: test/markers.ts).
import { TextDocument } from 'vscode-languageserver-textdocument';
import { fixture } from '../markers';
import type { Position, Range } from 'vscode-languageserver-types';

export interface Marked {
  text: string;
  cursor?: Position;
  ranges: Range[];
}

export function parseMarkers(marked: string): Marked {
  const f = fixture(marked);
  return {
    text: f.text,
    cursor: f.cursor,
    ranges: f.ranges.map(({ start, end }) => ({ start: f.doc.positionAt(start), end: f.doc.positionAt(end) })),
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
