// Which sections of an edited HAProxy text are the previous version's sections unchanged: the
// incremental validation (validation.ts) and the tuning pass (tuning/haproxy/checks.ts) take
// over what they computed for those. HAProxy reads a section from its header line to the next
// header, so a section of the same characters parses to the same tree, only moved.
//
// The re-parse (parser.ts reparseHaproxy) takes the sections after an edit over from the previous
// tree and moves their nodes in place (their offsets and lines), so a section object may belong to
// several versions of a document and hold the offsets of the newest. Each tree's record says where
// its sections were when it was made (line of the header, end of the body): a section whose
// offsets are no longer those is compared by identity only, never by its text in the older tree.
import type { HaproxyFile, Section } from './ast';

interface TreeRecord {
  /** Per section, in order: its header's line and its body's end when the tree was made. */
  at: Int32Array;
  /**
   * The tree the re-parse made from this one (weakly: the record keeps no tree alive). A tree is
   * re-parsed once: the next tree shares its sections, which a second re-parse could move.
   */
  next?: WeakRef<HaproxyFile>;
}

/** Per tree (weakly), where its sections were when it was made; written by the parser. */
const records = new WeakMap<HaproxyFile, TreeRecord>();

/** Records where `file`'s sections are (the parser calls this on every tree it returns). */
export function recordSections(file: HaproxyFile): void {
  const list = file.sections;
  const at = new Int32Array(list.length * 2);
  for (let i = 0; i < list.length; i++) {
    at[2 * i] = list[i].header.line;
    at[2 * i + 1] = list[i].bodyEnd;
  }
  records.set(file, { at });
}

/** Notes that the re-parse made `next` from `prev` (sharing some of `prev`'s sections). */
export function recordSuccessor(prev: HaproxyFile, next: HaproxyFile): void {
  const r = records.get(prev);
  if (r) r.next = new WeakRef(next);
}

/** Whether the re-parse already made a tree from `file` (which may since have moved its sections). */
export function reparsedBefore(file: HaproxyFile): boolean {
  return records.get(file)?.next !== undefined;
}

/** The tree the re-parse made from `file`, if it is still alive. */
export function successorOf(file: HaproxyFile): HaproxyFile | undefined {
  return records.get(file)?.next?.deref();
}

/** Whether sections `lo` to `hi` (excluded) of `file` are where they were when `file` was made. */
export function sectionsInPlace(file: HaproxyFile, lo: number, hi: number): boolean {
  const r = records.get(file);
  if (!r) return true;
  const list = file.sections;
  const at = r.at;
  for (let i = lo; i < hi; i++) if (at[2 * i] !== list[i].header.line || at[2 * i + 1] !== list[i].bodyEnd) return false;
  return true;
}

/** Offset of the start of the line a section's header is on. */
export function sectionBase(file: HaproxyFile, sec: Section): number {
  return file.lineStarts[sec.header.line] ?? sec.headerStart;
}

/** Whether two sections (of two versions of a text) are made of the same characters. */
export function sameSectionText(a: HaproxyFile, sa: Section, b: HaproxyFile, sb: Section): boolean {
  if (sa === sb) return true;
  const as = sectionBase(a, sa);
  const bs = sectionBase(b, sb);
  if (sa.bodyEnd - as !== sb.bodyEnd - bs || sa.keyword !== sb.keyword) return false;
  return a.text.slice(as, sa.bodyEnd) === b.text.slice(bs, sb.bodyEnd);
}

/**
 * For each section of `file`, the index of the section of `prev` with the same text, or -1:
 * the sections before the edit (matched from the front) and after it (from the back). An edit
 * is one changed region, so this finds every unchanged section; the comparison stops at the
 * first difference from each end (the sections the re-parse kept or moved are the same objects;
 * one of `prev` that a later re-parse moved is matched by identity only).
 */
export function matchSections(prev: HaproxyFile, file: HaproxyFile): Int32Array {
  const ns = file.sections;
  const os = prev.sections;
  const out = new Int32Array(ns.length).fill(-1);
  const r = records.get(prev);
  const inPlace = (o: number): boolean => !r || (r.at[2 * o] === os[o].header.line && r.at[2 * o + 1] === os[o].bodyEnd);
  const same = (n: Section, o: number): boolean => n === os[o] || (inPlace(o) && sameSectionText(file, n, prev, os[o]));
  let i = 0;
  while (i < ns.length && i < os.length && same(ns[i], i)) {
    out[i] = i;
    i++;
  }
  for (let j = 1; j <= ns.length - i && j <= os.length - i; j++) {
    if (!same(ns[ns.length - j], os.length - j)) break;
    out[ns.length - j] = os.length - j;
  }
  return out;
}
