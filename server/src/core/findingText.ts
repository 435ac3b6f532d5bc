// Text helpers for quick fixes that keep the user's layout: new lines take the indentation of
// their neighbours, replacements touch only the words that change, removals take the whole
// line only when nothing else (a comment, another statement) shares it.
import type { FixEdit } from './rules';

export function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** Offset of the line's end (before `\r\n` or `\n`), or the text's end. */
export function lineEnd(text: string, offset: number): number {
  const nl = text.indexOf('\n', offset);
  if (nl < 0) return text.length;
  return nl > 0 && text[nl - 1] === '\r' ? nl - 1 : nl;
}

let eolCache: { text: string; eol: string } | undefined;

/** The file's line ending (remembered for the last text: fixes ask for it many times). */
export function eolOf(text: string): string {
  if (eolCache?.text !== text) eolCache = { text, eol: text.includes('\r\n') ? '\r\n' : '\n' };
  return eolCache.eol;
}

/** Runs of spaces by length: most indentation is one of these, so fixes need not copy it. */
const SPACES: string[] = [];

/** The leading whitespace of the line holding `offset`. */
export function indentAt(text: string, offset: number): string {
  const s = lineStart(text, offset);
  let e = s;
  let tabs = false;
  for (;;) {
    const c = text.charCodeAt(e);
    if (c === 32) e++;
    else if (c === 9) {
      tabs = true;
      e++;
    } else break;
  }
  if (tabs || e - s > 64) return text.slice(s, e);
  return (SPACES[e - s] ??= ' '.repeat(e - s));
}

/** The file's indentation step: a tab, or the smallest run of leading spaces; 4 spaces by default. */
export function indentUnit(text: string): string {
  let best = 0;
  for (const m of text.matchAll(/^([ \t]+)\S/gm)) {
    if (m[1].startsWith('\t')) return '\t';
    if (best === 0 || m[1].length < best) best = m[1].length;
  }
  return ' '.repeat(best || 4);
}

/** Whether only whitespace lies between `from` and `to`. */
export function blankBetween(text: string, from: number, to: number): boolean {
  return /^[ \t]*$/.test(text.slice(from, to));
}

/** Inserts whole lines after the line holding `offset`, with the given indentation. */
export function insertLinesAfter(text: string, offset: number, lines: string[], indent: string): FixEdit {
  const at = lineEnd(text, offset);
  const eol = eolOf(text);
  return { start: at, end: at, newText: lines.map((l) => eol + indent + l).join('') };
}

/** Inserts whole lines before the line holding `offset`, with the given indentation. */
export function insertLinesBefore(text: string, offset: number, lines: string[], indent: string): FixEdit {
  const at = lineStart(text, offset);
  const eol = eolOf(text);
  return { start: at, end: at, newText: lines.map((l) => indent + l + eol).join('') };
}

/**
 * Removes the span [start, end): the whole line when the span is alone on it (only blanks
 * around), else the span and the blanks after it, so that comments on the line stay.
 */
export function removeSpan(text: string, start: number, end: number): FixEdit {
  const ls = lineStart(text, start);
  const le = lineEnd(text, end);
  if (blankBetween(text, ls, start) && blankBetween(text, end, le)) {
    let stop = le;
    if (text.startsWith('\r\n', stop)) stop += 2;
    else if (text[stop] === '\n') stop += 1;
    else if (ls > 0) {
      // last line without a newline: take the newline before it instead
      const prev = text[ls - 2] === '\r' ? ls - 2 : ls - 1;
      return { start: prev, end: le, newText: '' };
    }
    return { start: ls, end: stop, newText: '' };
  }
  let stop = end;
  while (stop < le && (text[stop] === ' ' || text[stop] === '\t')) stop++;
  return { start, end: stop, newText: '' };
}

/** Removes one word of a statement together with the blanks before it. */
export function removeWord(text: string, start: number, end: number): FixEdit {
  let from = start;
  while (from > 0 && (text[from - 1] === ' ' || text[from - 1] === '\t')) from--;
  return { start: from, end, newText: '' };
}

export function replace(start: number, end: number, newText: string): FixEdit {
  return { start, end, newText };
}
