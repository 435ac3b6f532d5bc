// Shared by the two nginx incremental tests (incremental.test.ts: validation; incrementalAnalysis.test.ts:
// tuning, security and navigation): the random edit they chain, the chain itself with the from-scratch
// run it compares each version with, and the typing session of bench:lsp.
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { createWorkspaceIndex, ParseCache, validateInWorkspace } from '../../server/src/service/languageService';
import { resolveSettings } from '../../server/src/service/settings';
import { nodeFileSystem } from '../../server/src/host/nodeHost';
import type { ServiceSettings } from '../../server/src/core/types';
import { randomEdit, rng } from '../reparseChain';

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

/** The two versions the incremental tests validate at: the oldest the data knows well, and the newest. */
export const VERSION_SETTINGS: [string, ServiceSettings][] = [
  ['1.22.1', resolveSettings({ nginx: { version: '1.22.1' }, haproxy: {} })],
  ['newest', resolveSettings({ nginx: {}, haproxy: {} })],
];

/** What a chain's step hands to the test's own checks, after the diagnostics were found equal. */
export interface ChainStep {
  k: number;
  /** The step's name in assertion messages (with the seed that replays it). */
  where: string;
  text: string;
  ws: ReturnType<typeof createWorkspaceIndex>;
  cache: ParseCache;
}

/**
 * `steps` chained edits of `text` through one index and one cache (as the server types them), each
 * version's diagnostics deep-equal to a from-scratch validation; `onStep` checks more of the same step.
 */
export function chainValidations(
  uri: string,
  text: string,
  seed: number,
  steps: number,
  settings: ServiceSettings,
  name: string,
  next: (text: string, r: () => number) => string,
  onStep?: (step: ChainStep) => void,
): void {
  const r = rng(seed);
  let doc = TextDocument.create(uri, 'nginx', 1, text);
  const ws = createWorkspaceIndex({ fs: nodeFileSystem, open: { get: (u) => (u === doc.uri ? doc : undefined), all: () => [doc] } });
  const cache = new ParseCache();
  for (let k = 0; k <= steps; k++) {
    const where = `${name}: seed ${seed} step ${k} (INCREMENTAL_SEED=${seed} replays it)`;
    const got = validateInWorkspace(doc, 'nginx', settings, ws, cache);
    assert.deepStrictEqual(got, freshValidation(uri, text, doc.version, settings), where);
    onStep?.({ k, where, text, ws, cache });
    text = next(text, r);
    doc = TextDocument.create(uri, 'nginx', doc.version + 1, text);
  }
}

/**
 * Typing and erasing a directive on a new line of the middle server, as bench:lsp does: the text
 * with the new line, and the edits (one keystroke each) that type the directive and erase it again.
 */
export function typingInMiddleServer(text: string): { start: string; steps: number; next: () => string } {
  const lines = text.split('\n');
  const at = lines.findIndex((l, i) => i > lines.length / 2 && l === '    server {') + 3;
  lines.splice(at, 0, '        ');
  const word = 'proxy_read_timeout 30s;';
  let step = 0;
  const next = (): string => {
    step++;
    const n = step <= word.length ? step : Math.max(0, 2 * word.length - step);
    const ls = [...lines];
    ls[at] = `        ${word.slice(0, n)}`;
    return ls.join('\n');
  };
  return { start: lines.join('\n'), steps: word.length * 2, next };
}
