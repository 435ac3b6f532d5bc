// Where the corpus of real-world configs is (../shared/corpus beside the repository, or
// PROXY_TUNER_CORPUS), and the one way a test that reads it skips when it is absent. A user's
// clone has no corpus: those tests skip with one line that says how to get it. CI sets
// PROXY_TUNER_REQUIRE_CORPUS=1, and then a missing corpus fails the test file instead.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export type CorpusLang = 'nginx' | 'haproxy';

/** The corpus root: $PROXY_TUNER_CORPUS, else ../shared/corpus beside the repository. */
export const corpusRoot: string = process.env.PROXY_TUNER_CORPUS ?? resolve(__dirname, '..', '..', 'shared', 'corpus');

/** `<corpus>/<lang>`, and whether it holds the corpus (its verdicts.tsv). */
export function corpusDir(lang: CorpusLang): { dir: string; available: boolean } {
  const dir = join(corpusRoot, lang);
  return { dir, available: existsSync(join(dir, 'verdicts.tsv')) };
}

/** True when every named language's corpus is there. */
export function corpusAvailable(...langs: CorpusLang[]): boolean {
  return (langs.length ? langs : (['nginx', 'haproxy'] as CorpusLang[])).every((l) => corpusDir(l).available);
}

/** The line a skipped test prints. */
export function corpusSkipReason(what = 'the corpus'): string {
  return `needs ${what}, not found at ${corpusRoot}: set PROXY_TUNER_CORPUS to a copy of the real-world config corpus (docs/testing.md)`;
}

/**
 * The `skip` option of a test that reads the corpus: false when it is there; the one-line reason
 * when it is not; with PROXY_TUNER_REQUIRE_CORPUS=1 a missing corpus throws, which fails the file.
 */
export function corpusSkip(available: boolean, what?: string): string | false {
  if (available) return false;
  const reason = corpusSkipReason(what);
  if (process.env.PROXY_TUNER_REQUIRE_CORPUS === '1') throw new Error(`PROXY_TUNER_REQUIRE_CORPUS=1: ${reason}`);
  return reason;
}

/** corpusSkip for the corpus of the given languages (both when none is named). */
export function skipWithoutCorpus(...langs: CorpusLang[]): string | false {
  return corpusSkip(corpusAvailable(...langs));
}
