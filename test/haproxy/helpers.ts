// Shared helpers for the HAProxy tests: fixtures with `<|>` (cursor) and `<|...|>` (range) markers.
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic, Position } from 'vscode-languageserver-types';
import { haproxyModule } from '../../server/src/haproxy/index';
import type { ServiceSettings } from '../../server/src/service/types';

export interface Fixture {
  text: string;
  doc: TextDocument;
  cursor?: Position;
  cursorOffset?: number;
  ranges: { start: number; end: number }[];
}

export function fixture(marked: string): Fixture {
  let text = '';
  let cursorOffset: number | undefined;
  const ranges: { start: number; end: number }[] = [];
  let open: number | undefined;
  for (let i = 0; i < marked.length; ) {
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
  const doc = TextDocument.create('file:///test/haproxy.cfg', 'haproxy', 1, text);
  return { text, doc, cursorOffset, cursor: cursorOffset === undefined ? undefined : doc.positionAt(cursorOffset), ranges };
}

export function diagnose(marked: string, settings: ServiceSettings = {}): { f: Fixture; diags: Diagnostic[] } {
  const f = fixture(marked);
  const diags = haproxyModule.validate(f.doc, haproxyModule.parse(f.text), settings);
  return { f, diags };
}

/** Diagnostics of a rule, as `line:code` strings plus their messages. */
export function codes(diags: Diagnostic[]): string[] {
  return diags.map((d) => String(d.code));
}

export function textOf(f: Fixture, d: Diagnostic): string {
  return f.text.slice(f.doc.offsetAt(d.range.start), f.doc.offsetAt(d.range.end));
}

export function labels(marked: string, settings: ServiceSettings = {}): string[] {
  const f = fixture(marked);
  return haproxyModule.complete(f.doc, haproxyModule.parse(f.text), f.cursor!, settings).items.map((i) => i.label);
}

export function hoverText(marked: string, settings: ServiceSettings = {}): string | undefined {
  const f = fixture(marked);
  const h = haproxyModule.hover(f.doc, haproxyModule.parse(f.text), f.cursor!, settings);
  if (!h) return undefined;
  const c = h.contents as { value: string };
  return c.value;
}
