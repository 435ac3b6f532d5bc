// Which sections of an edited HAProxy text are the previous version's sections unchanged: the
// incremental validation (validation.ts) and the tuning pass (tuning/haproxy/checks.ts) take
// over what they computed for those. HAProxy reads a section from its header line to the next
// header, so a section of the same characters parses to the same tree, only moved.
import type { HaproxyFile, Section } from './ast';

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
 * first difference from each end (the sections the re-parse kept are the same objects).
 */
export function matchSections(prev: HaproxyFile, file: HaproxyFile): Int32Array {
  const ns = file.sections;
  const os = prev.sections;
  const out = new Int32Array(ns.length).fill(-1);
  let i = 0;
  while (i < ns.length && i < os.length && sameSectionText(file, ns[i], prev, os[i])) {
    out[i] = i;
    i++;
  }
  for (let j = 1; j <= ns.length - i && j <= os.length - i; j++) {
    if (!sameSectionText(file, ns[ns.length - j], prev, os[os.length - j])) break;
    out[ns.length - j] = os.length - j;
  }
  return out;
}
