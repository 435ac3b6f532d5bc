// Shared helpers for the nginx tests: fixtures with `<|>` (cursor) and `<|...|>` (range) markers.
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic, Position } from 'vscode-languageserver-types';
import { nginxModule, validateInContext } from '../../server/src/nginx/index';
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
  const doc = TextDocument.create('file:///test/nginx.conf', 'nginx', 1, text);
  return { text, doc, cursorOffset, cursor: cursorOffset === undefined ? undefined : doc.positionAt(cursorOffset), ranges };
}

/** Diagnostics of a fixture; `context` as for validateInContext (default: inferred). */
export function diagnose(marked: string, settings: ServiceSettings = {}, context?: string): { f: Fixture; diags: Diagnostic[] } {
  const f = fixture(marked);
  const diags = validateInContext(f.doc, nginxModule.parse(f.text), settings, context);
  return { f, diags };
}

/** The diagnostics of one rule, as [code, text under the range, message]. */
export function found(f: Fixture, diags: Diagnostic[], code?: string): { code: string; text: string; message: string; severity?: number }[] {
  return diags
    .filter((d) => !code || d.code === code)
    .map((d) => ({ code: String(d.code), text: f.doc.getText(d.range), message: d.message, severity: d.severity }));
}
