// Shared helpers for the HAProxy tests: fixtures with `<|>` (cursor) and `<|...|>` (range) markers.
import { fixture as markedFixture, type Fixture } from '../markers';
import type { Diagnostic } from 'vscode-languageserver-types';
import { haproxyModule } from '../../server/src/languages/haproxy/index';
import type { ServiceSettings } from '../../server/src/core/types';

export type { Fixture };

export function fixture(marked: string): Fixture {
  return markedFixture(marked, 'file:///test/haproxy.cfg', 'haproxy');
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
