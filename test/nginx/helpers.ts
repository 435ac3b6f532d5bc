// Shared helpers for the nginx tests: fixtures with `<|>` (cursor) and `<|...|>` (range) markers.
import { fixture as markedFixture, type Fixture } from '../markers';
import type { Diagnostic } from 'vscode-languageserver-types';
import { nginxModule, validateInContext } from '../../server/src/languages/nginx/index';
import type { ServiceSettings } from '../../server/src/core/types';

export type { Fixture };

export function fixture(marked: string): Fixture {
  return markedFixture(marked, 'file:///test/nginx.conf', 'nginx');
}

/** Diagnostics of a fixture; `context` as for validateInContext (default: inferred). */
export function diagnose(marked: string, settings: ServiceSettings = {}, context?: string): { f: Fixture; diags: Diagnostic[] } {
  const f = fixture(marked);
  const diags = validateInContext(f.doc, nginxModule.parse(f.text), settings, context);
  return { f, diags };
}

/** The diagnostics of one rule, as [code, text under the range, message]. */
export function found(
  f: Fixture,
  diags: Diagnostic[],
  code?: string,
): { code: string; text: string; message: string; severity?: number }[] {
  return diags
    .filter((d) => !code || d.code === code)
    .map((d) => ({ code: String(d.code), text: f.doc.getText(d.range), message: d.message, severity: d.severity }));
}
