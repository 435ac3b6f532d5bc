// Fixture markers shared by every test: `<|>` is the cursor, `<|...|>` a range. `|` and `$0`
// occur in real configs (regex alternation, `||`, variables), hence the angle brackets.
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Position } from 'vscode-languageserver-types';

export interface Fixture {
  text: string;
  doc: TextDocument;
  cursor?: Position;
  cursorOffset?: number;
  /** Marked ranges as offsets into `text`. */
  ranges: { start: number; end: number }[];
}

/** Removes the markers from `marked` and says where they were. */
export function fixture(marked: string, uri = 'file:///fixture', languageId = 'plaintext'): Fixture {
  let text = '';
  let cursorOffset: number | undefined;
  const ranges: { start: number; end: number }[] = [];
  let open: number | undefined;
  for (let i = 0; i < marked.length;) {
    if (marked.startsWith('<|>', i)) {
      cursorOffset = text.length;
      i += 3;
    } else if (marked.startsWith('<|', i)) {
      open = text.length;
      i += 2;
    } else if (open !== undefined && marked.startsWith('|>', i)) {
      ranges.push({ start: open, end: text.length });
      open = undefined;
      i += 2;
    } else text += marked[i++];
  }
  const doc = TextDocument.create(uri, languageId, 1, text);
  return { text, doc, cursorOffset, cursor: cursorOffset === undefined ? undefined : doc.positionAt(cursorOffset), ranges };
}
