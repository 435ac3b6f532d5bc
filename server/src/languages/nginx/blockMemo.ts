// The table both per-block memos of an nginx document keep from one version to the next (the
// validation's, validation.ts, and the navigation entities', navigation.ts): the entries of the last
// run's block bodies, found again in the next version's tree by node, or by their distance from the
// end of the text when their text is the same. An entry holds offsets, never a node or a slice of the
// text; the table holds the whole text of its version once.
import type { Directive } from './ast';

/** What every entry records: where its block was in the table's `text`. */
export interface BlockSpan {
  start: number;
  end: number;
}

/** Per document: the blocks of the last run, replaced at every run (the caller keeps it). */
export interface BlockMemoTable<T extends BlockSpan> {
  /** The text the blocks were read from. */
  text: string;
  byNode: Map<Directive, T>;
  byEnd: Map<number, T>;
  /** Counts of the last run (tests and benchmarks read them): block bodies reused, block bodies walked. */
  reused: number;
  walked: number;
}

export function createBlockMemoTable<T extends BlockSpan>(): BlockMemoTable<T> {
  return { text: '', byNode: new Map(), byEnd: new Map(), reused: 0, walked: 0 };
}

/** The previous run's entry for block `d` of `text`: the same node at the same place, or a block as far from the end of the text with the same text. */
export function findMemoBlock<T extends BlockSpan>(prev: BlockMemoTable<T>, d: Directive, text: string): T | undefined {
  const start = d.start;
  const byNode = prev.byNode.get(d);
  if (byNode !== undefined && byNode.start === start) return byNode;
  const e = prev.byEnd.get(text.length - start);
  if (e !== undefined && e.end - e.start === d.end - start && text.substring(start, d.end) === prev.text.substring(e.start, e.end))
    return e;
  return undefined;
}
