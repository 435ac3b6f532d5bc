// The quick fixes a diagnostic carries in its `data` (LSP 3.16+): written once by the rule
// registry (server/src/core/rules.ts), read by the server's code actions and `source.fixAll`,
// by `check --fix`, and by the client's "apply and benchmark again" (client/src/benchmark).
// LSP-shaped: edits are ranges of lines and UTF-16 characters, as the editor applies them.
import type { TextEdit } from 'vscode-languageserver-types';

export interface FixData {
  title: string;
  edits: TextEdit[];
  /** Safe fixes are applied by `source.fixAll` and `check --fix`. */
  safe: boolean;
}

/** What `Diagnostic.data` holds. */
export interface DiagnosticData {
  fixes?: FixData[];
}
