// What the two formatters share: their options and the one edit that turns a text into its
// formatted form (the editor keeps the cursor and undo history in the part that did not change).
import type { TextEdit } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';

export interface FormatOptions {
  tabSize: number;
  insertSpaces: boolean;
}

/** One edit turning `from` (the document's text from offset `base`) into `to`, trimmed to the part that differs. */
export function minimalEdit(doc: TextDocument, from: string, to: string, base = 0): TextEdit[] {
  if (from === to) return [];
  let p = 0;
  const max = Math.min(from.length, to.length);
  while (p < max && from.charCodeAt(p) === to.charCodeAt(p)) p++;
  let s = 0;
  while (s < max - p && from.charCodeAt(from.length - 1 - s) === to.charCodeAt(to.length - 1 - s)) s++;
  return [
    {
      range: { start: doc.positionAt(base + p), end: doc.positionAt(base + from.length - s) },
      newText: to.slice(p, to.length - s),
    },
  ];
}
