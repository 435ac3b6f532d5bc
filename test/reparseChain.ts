// Shared by the two re-parse tests (test/nginx/reparse.test.ts, test/haproxy/reparse.test.ts):
// random edits of a text, each re-parsed from the previous result and compared with a fresh parse.
import { rng } from './fuzz/engine';

export { rng };

/** One random edit: a few characters inserted, a run deleted, a snippet inserted, or one keystroke. */
export function randomEdit(text: string, r: () => number, alphabet: string, snippets: readonly string[], maxDelete: number): string {
  const at = Math.floor(r() * (text.length + 1));
  const kind = r();
  if (kind < 0.4) {
    let s = '';
    const n = 1 + Math.floor(r() * 4);
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(r() * alphabet.length)];
    return text.slice(0, at) + s + text.slice(at);
  }
  if (kind < 0.7) return text.slice(0, at) + text.slice(Math.min(text.length, at + 1 + Math.floor(r() * maxDelete)));
  if (kind < 0.85) return text.slice(0, at) + snippets[Math.floor(r() * snippets.length)] + text.slice(at);
  // a keystroke
  return text.slice(0, at) + 'q' + text.slice(at);
}

/**
 * `steps` chained edits from `text` (as typing chains them): each version re-parsed from the
 * previous result, which `check` compares with a fresh parse of the same text.
 */
export function chainEdits<T>(
  text: string,
  seed: number,
  steps: number,
  edit: (text: string, r: () => number) => string,
  parse: (text: string) => T,
  reparse: (prev: T, text: string) => T,
  check: (got: T, text: string, where: string) => void,
  name: string,
): void {
  const r = rng(seed);
  let prev = parse(text);
  for (let k = 0; k < steps; k++) {
    text = edit(text, r);
    const next = reparse(prev, text);
    check(next, text, `${name} seed ${seed} step ${k}`);
    prev = next;
  }
}
