// The binary's messages (the host's runner, a BinaryCheckRunner: service/host.ts) as LSP
// diagnostics, per file. Pure: the caller gives a way to read a line's text (open documents
// first, else the disk) for the range.
import type { Diagnostic } from 'vscode-languageserver-types';
import type { BinaryCheckReport as BinaryCheckResult } from './host';
import type { ValidateWithBinaryResult } from '../../../protocol/binaryCheck';
import type { NginxRuleId } from '../languages/nginx/rules';
import type { HaproxyRuleId } from '../languages/haproxy/rules';

export const BINARY_RULE = { nginx: 'nginx/binary-check', haproxy: 'haproxy/binary-check' } as const satisfies {
  nginx: NginxRuleId;
  haproxy: HaproxyRuleId;
};

export function toolName(kind: 'nginx' | 'haproxy'): string {
  return kind === 'nginx' ? 'nginx -t' : 'haproxy -c';
}

/** `file:///a/b.conf` for `/a/b.conf`. */
export function pathToUri(p: string): string {
  return 'file://' + p.split('/').map(encodeURIComponent).join('/');
}

/**
 * Diagnostics keyed by file path: each message on its file's line (the whole line's text), a
 * message without a file on the first line of the checked file.
 */
export function binaryDiagnostics(
  result: BinaryCheckResult,
  mainPath: string,
  lineText: (file: string, line: number) => string | undefined,
): Map<string, Diagnostic[]> {
  const out = new Map<string, Diagnostic[]>();
  const source = toolName(result.kind);
  for (const m of result.messages) {
    const file = m.file ?? mainPath;
    const line = Math.max(0, (m.line ?? 1) - 1);
    const text = lineText(file, line) ?? '';
    const startChar = text.length - text.trimStart().length;
    const endChar = Math.max(startChar, text.trimEnd().length);
    const d: Diagnostic = {
      range: { start: { line, character: startChar }, end: { line, character: endChar } },
      severity: m.severity === 'error' ? 1 : m.severity === 'warning' ? 2 : 3,
      source,
      code: BINARY_RULE[result.kind],
      message: m.message,
    };
    const list = out.get(file) ?? [];
    list.push(d);
    out.set(file, list);
  }
  return out;
}

export function summarize(result: BinaryCheckResult, files: string[]): ValidateWithBinaryResult {
  const tool = toolName(result.kind);
  const errors = result.messages.filter((m) => m.severity === 'error').length;
  const warnings = result.messages.filter((m) => m.severity === 'warning').length;
  const who = `${result.kind}${result.version ? ` ${result.version}` : ''}`;
  let summary: string;
  switch (result.status) {
    case 'ok':
      summary = `${tool}: ${who} accepts the config${warnings ? ` (${warnings} warning${warnings > 1 ? 's' : ''})` : ''}`;
      break;
    case 'error':
      summary = `${tool}: ${who} rejects the config: ${result.messages.find((m) => m.severity === 'error')?.message ?? 'see the problems'}`;
      break;
    case 'refused':
      summary = result.messages[0]?.message ?? `${tool}: the config could not be checked safely`;
      break;
    default:
      summary = `${tool}: no ${result.kind} binary found (set proxyTuner.${result.kind}.path)`;
  }
  return { status: result.status, tool, binary: result.binary, version: result.version, summary, errors, warnings, files };
}
