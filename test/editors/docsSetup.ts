// The editor set-ups of docs/editors.md that the tests and scripts/bench-editors.mjs load verbatim.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO = join(__dirname, '..', '..');

/** The elisp of docs/editors.md between its emacs-setup markers. */
export function emacsSetupFromDocs(): string {
  const doc = readFileSync(join(REPO, 'docs', 'editors.md'), 'utf8');
  const m = /<!-- emacs-setup: begin[^>]*-->\s*```elisp\n([\s\S]*?)```\s*<!-- emacs-setup: end -->/.exec(doc);
  if (!m) throw new Error('docs/editors.md has no emacs-setup block');
  return m[1];
}
