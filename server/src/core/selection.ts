// Selection ranges from text spans, the same for every language module.
import type { Position, SelectionRange } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';

/**
 * The SelectionRange chain at `pos` from `spans` ([start, end) offsets, innermost first). Built
 * from the outermost in: a span equal to, or not inside, the one before it is skipped, so each
 * range lies strictly inside its parent. With no span: the empty range at `pos`.
 */
export function selectionChain(doc: TextDocument, spans: readonly [number, number][], pos: Position): SelectionRange {
  let parent: SelectionRange | undefined;
  let last: [number, number] | undefined;
  for (let i = spans.length - 1; i >= 0; i--) {
    const [s, e] = spans[i];
    if (last && ((s === last[0] && e === last[1]) || s < last[0] || e > last[1])) continue;
    parent = { range: { start: doc.positionAt(s), end: doc.positionAt(e) }, parent };
    last = [s, e];
  }
  return parent ?? { range: { start: pos, end: pos } };
}
