// Shared by the two nginx incremental tests (incremental.test.ts: validation; incrementalAnalysis.test.ts:
// tuning, security and navigation): the random edit they chain, and the from-scratch run they compare with.
import { TextDocument } from 'vscode-languageserver-textdocument';
import { createWorkspaceIndex, validateInWorkspace } from '../../server/src/service/languageService';
import { nodeFileSystem } from '../../server/src/host/nodeHost';
import type { ServiceSettings } from '../../server/src/core/types';
import { randomEdit } from '../reparseChain';

/** One random edit: inserts and deletes (randomEdit), or a random span of up to 40 characters replaced by a snippet or one character. */
export function spanOrRandomEdit(text: string, r: () => number, alphabet: string, snippets: readonly string[]): string {
  if (r() < 0.25 && text.length) {
    const at = Math.floor(r() * text.length);
    const len = 1 + Math.floor(r() * 40);
    const by = r() < 0.5 ? snippets[Math.floor(r() * snippets.length)] : alphabet[Math.floor(r() * alphabet.length)];
    return text.slice(0, at) + by + text.slice(at + len);
  }
  return randomEdit(text, r, alphabet, snippets, 30);
}

/** The diagnostics of `text` validated from scratch: a new document and a new workspace index of its own. */
export function freshValidation(uri: string, text: string, version: number, settings: ServiceSettings) {
  const doc = TextDocument.create(uri, 'nginx', version, text);
  const ws = createWorkspaceIndex({ fs: nodeFileSystem, open: { get: (u) => (u === doc.uri ? doc : undefined), all: () => [doc] } });
  return validateInWorkspace(doc, 'nginx', settings, ws);
}
