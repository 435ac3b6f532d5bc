// Documents too large to analyse while typing: over LARGE_DOCUMENT_CHARS, or LARGE_DOCUMENT_LINES
// lines (a million two-byte statements fit in 2 MB and took 8 s to analyse), the server gives them a
// syntax check by a single pass over the characters (braces, quotes, statements left open),
// plus a notice that the rest is off, instead of a parse that would hold the server for seconds
// (a 20 MB file takes ~10 s and ~600 MB to parse). Pure: text in, diagnostics out.
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver-types';
import type { LanguageId } from '../core/types';
import { largeDocumentId } from '../core/rules';

/** Characters above which a document gets the syntax check only (~2 MB). */
export const LARGE_DOCUMENT_CHARS = 2 * 1024 * 1024;

/**
 * Lines above which a document gets the syntax check only. A realistic 2 MB config has about
 * 66,000 lines; 100,000 statements of any kind take 2-3 s to analyse on a loaded 2-core machine.
 */
export const LARGE_DOCUMENT_LINES = 100_000;

/** Whether a text is over either bound (its lines counted only up to the bound). */
export function isLargeText(text: string): boolean {
  if (text.length > LARGE_DOCUMENT_CHARS) return true;
  if (text.length <= LARGE_DOCUMENT_LINES) return false;
  let lines = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) if (++lines > LARGE_DOCUMENT_LINES) return true;
  return false;
}

/** Most syntax problems reported for a large document. */
const MAX_REPORTED = 100;

function positionAt(lineStarts: number[], offset: number): { line: number; character: number } {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, character: offset - lineStarts[lo] };
}

/** The notice and the syntax problems of a large document. */
export function largeDocumentDiagnostics(text: string, lang: LanguageId): Diagnostic[] {
  const problems: { start: number; end: number; message: string }[] = [];
  const lineStarts: number[] = [0];
  const add = (start: number, end: number, message: string) => {
    if (problems.length < MAX_REPORTED) problems.push({ start, end, message });
  };
  const n = text.length;
  if (lang === 'nginx') {
    // nginx's reader: words, quotes, `#` comments, `;` ends a statement, `{` `}` nest
    const open: number[] = [];
    let quote = 0;
    let quoteAt = 0;
    let comment = false;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) {
        lineStarts.push(i + 1);
        comment = false;
        continue;
      }
      if (comment) continue;
      if (quote) {
        if (c === 92) i++;
        else if (c === quote) quote = 0;
        continue;
      }
      if (c === 92) {
        i++;
        continue;
      }
      if (c === 34 || c === 39) {
        quote = c;
        quoteAt = i;
      } else if (c === 35) comment = true;
      else if (c === 123) open.push(i);
      else if (c === 125) {
        if (open.length === 0) add(i, i + 1, 'unexpected "}"');
        else open.pop();
      }
    }
    if (quote) add(quoteAt, quoteAt + 1, 'unterminated quoted string');
    for (const at of open.slice(-5)) add(at, at + 1, 'block opened here is never closed ("}" missing at the end of the file)');
  } else {
    // HAProxy reads a line at a time: a quote must close on its own line
    let lineStart = 0;
    let quote = 0;
    let quoteAt = 0;
    for (let i = 0; i <= n; i++) {
      const c = i < n ? text.charCodeAt(i) : 10;
      if (c === 10) {
        if (quote) add(quoteAt, quoteAt + 1, 'unterminated quoted string');
        quote = 0;
        if (i < n) lineStarts.push(i + 1);
        lineStart = i + 1;
        continue;
      }
      if (quote) {
        if (c === 92 && quote === 34) i++;
        else if (c === quote) quote = 0;
        continue;
      }
      if (c === 92) i++;
      else if (c === 34 || c === 39) {
        quote = c;
        quoteAt = i;
      } else if (c === 35) {
        // a comment runs to the end of the line
        const nl = text.indexOf('\n', i);
        i = (nl < 0 ? n : nl) - 1;
      }
      void lineStart;
    }
  }
  const mb = (n / (1024 * 1024)).toFixed(1);
  const over =
    n > LARGE_DOCUMENT_CHARS
      ? `This document is ${mb} MB, over the ${LARGE_DOCUMENT_CHARS / (1024 * 1024)} MB bound`
      : `This document has ${lineStarts.length.toLocaleString('en-US')} lines, over the ${LARGE_DOCUMENT_LINES.toLocaleString('en-US')}-line bound`;
  const notice: Diagnostic = {
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    severity: DiagnosticSeverity.Information,
    source: 'proxy-tuner',
    code: largeDocumentId(lang),
    message: `${over}: only its syntax (braces, quotes) is checked; rules, completion, hover and navigation are off for it so that the editor stays responsive.`,
  };
  return [
    notice,
    ...problems.map((p) => ({
      range: { start: positionAt(lineStarts, p.start), end: positionAt(lineStarts, p.end) },
      severity: DiagnosticSeverity.Error,
      source: 'proxy-tuner',
      code: `${lang}/syntax`,
      message: p.message,
    })),
  ];
}
