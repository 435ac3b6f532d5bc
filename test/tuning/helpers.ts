// Shared helpers of the tuning tests: fixtures with `<|...|>` range markers, running the rules
// of one language on a text, and applying a diagnostic's quick fix to get the whole new text.
import assert from 'node:assert/strict';
import type { Diagnostic } from 'vscode-languageserver-types';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { parseNginx } from '../../server/src/languages/nginx/parser';
import { parseHaproxy } from '../../server/src/languages/haproxy/parser';
import { haproxyTuning, nginxTuning } from '../../server/src/service/tuning';
import { fixture as markedFixture } from '../markers';
import { applyEdits, type DiagnosticData } from '../../server/src/core/rules';
import type { LanguageId, ServiceSettings } from '../../server/src/core/types';

export interface Fixture {
  text: string;
  /** Offsets of each `<|...|>` range, in order. */
  ranges: { start: number; end: number }[];
}

/** Strips `<|...|>` markers (a bare `<|>` cursor counts as an empty range) and returns their offsets. */
export function fixture(marked: string): Fixture {
  const f = markedFixture(marked);
  const ranges = [...f.ranges];
  if (f.cursorOffset !== undefined) ranges.push({ start: f.cursorOffset, end: f.cursorOffset });
  return { text: f.text, ranges: ranges.sort((x, y) => x.start - y.start) };
}

export function run(lang: LanguageId, text: string, settings: ServiceSettings = {}): { doc: TextDocument; diagnostics: Diagnostic[] } {
  const doc = TextDocument.create(`file:///test.${lang === 'nginx' ? 'conf' : 'cfg'}`, lang, 1, text);
  const diagnostics = lang === 'nginx' ? nginxTuning(doc, parseNginx(text), settings) : haproxyTuning(doc, parseHaproxy(text), settings);
  return { doc, diagnostics };
}

export function only(diagnostics: Diagnostic[], ruleId: string): Diagnostic[] {
  return diagnostics.filter((d) => d.code === ruleId);
}

/**
 * Runs the rules, expects exactly the marked ranges for `ruleId` (one diagnostic per marker,
 * in order) and returns them.
 */
export function expectRule(
  lang: LanguageId,
  marked: string,
  ruleId: string,
  settings: ServiceSettings = {},
): { doc: TextDocument; found: Diagnostic[] } {
  const fx = fixture(marked);
  const { doc, diagnostics } = run(lang, fx.text, settings);
  const found = only(diagnostics, ruleId);
  const got = found.map((d) => [doc.offsetAt(d.range.start), doc.offsetAt(d.range.end)]);
  assert.deepEqual(
    got,
    fx.ranges.map((r) => [r.start, r.end]),
    `${ruleId}: ranges (messages: ${found.map((d) => d.message).join(' | ')})`,
  );
  return { doc, found };
}

export function expectNone(lang: LanguageId, text: string, ruleId: string, settings: ServiceSettings = {}): void {
  const { diagnostics } = run(lang, text, settings);
  const found = only(diagnostics, ruleId);
  assert.equal(found.length, 0, `${ruleId} should not fire, got: ${found.map((d) => d.message).join(' | ')}`);
}

/** The text after applying fix number `index` of a diagnostic. */
export function applyFix(doc: TextDocument, d: Diagnostic, index = 0): string {
  const fx = (d.data as DiagnosticData | undefined)?.fixes?.[index];
  assert.ok(fx, `${String(d.code)} has a fix #${index}`);
  return applyEdits(doc, fx.edits);
}

export function fixOf(d: Diagnostic, index = 0): { title: string; safe: boolean } {
  const fx = (d.data as DiagnosticData | undefined)?.fixes?.[index];
  assert.ok(fx, `${String(d.code)} has a fix #${index}`);
  return { title: fx.title, safe: fx.safe };
}
