// Formatting over the whole corpus: every file formatted, re-parsed to the same tree (names,
// argument values, nesting, raw bodies, comments), formatting twice gives the same text; and for
// a sample of the files formatting changed, the real binary's verdict (`nginx -t` / `haproxy -c`
// on a sandboxed copy, see server/src/host/binaryCheck.ts) is the same before and after. The binaries are
// installed where these tests run; a missing one fails the test.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkWithBinary, type BinaryCheckResult } from '../../server/src/host/binaryCheck';
import { corpusRoot, format, shape, type Lang } from './helpers';
import { skipWithoutCorpus } from '../corpusRoot';

/** Every SAMPLE_STEP-th changed file is run through the binary, twice (original, formatted). */
const SAMPLE_STEP = Number(process.env.PROXY_TUNER_FORMAT_SAMPLE_STEP ?? 8);
const PARALLEL = 2;

function corpusFiles(lang: Lang): string[] {
  return readdirSync(join(corpusRoot, lang))
    .filter((f) => f !== 'verdicts.tsv' && !f.endsWith('.md'))
    .sort();
}

/**
 * The verdict: ok, or error/refused with the first error's message. Line numbers inside messages
 * (blank-line runs collapse, so lines move) and the loopback ports picked per run are masked.
 */
const verdict = (r: BinaryCheckResult) => {
  if (r.status === 'ok') return 'ok';
  const m = r.messages.find((x) => x.severity === 'error') ?? r.messages[0];
  return `${r.status}: ${(m?.message ?? '').replace(/(127\.0\.0\.1):\d+/g, '$1:<port>').replace(/(\.(?:cfg|conf)):\d+/g, '$1:<line>')}`;
};

async function pool<T>(items: T[], n: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

const work = mkdtempSync(join(tmpdir(), 'proxy-tuner-format-'));
after(() => rmSync(work, { recursive: true, force: true }));

for (const lang of ['nginx', 'haproxy'] as Lang[]) {
  describe(`${lang} corpus formatting`, { skip: skipWithoutCorpus(lang) }, () => {
    const files = corpusFiles(lang);
    const changed: { file: string; text: string; formatted: string }[] = [];

    it('keeps the tree and is idempotent on every file', () => {
      assert.ok(files.length > 250, `corpus found at ${corpusRoot}`);
      const treeDiff: string[] = [];
      const notIdempotent: string[] = [];
      for (const f of files) {
        const text = readFileSync(join(corpusRoot, lang, f), 'utf8');
        const once = format(lang, text);
        if (shape(lang, once) !== shape(lang, text)) treeDiff.push(f);
        if (format(lang, once) !== once) notIdempotent.push(f);
        if (once !== text) changed.push({ file: f, text, formatted: once });
      }
      process.stdout.write(
        `# ${lang}: ${files.length} files formatted, ${changed.length} changed, ${files.length - treeDiff.length} tree-equal, ${files.length - notIdempotent.length} idempotent\n`,
      );
      assert.deepEqual(treeDiff, [], 'formatting changed what the binary reads');
      assert.deepEqual(notIdempotent, [], 'formatting twice changed the text again');
      assert.ok(changed.length > files.length / 2, 'most corpus files are not in our layout: the formatter did something');
    });

    it("the binary's verdict is the same before and after formatting (sample)", { timeout: 10 * 60_000 }, async () => {
      const sample = changed.filter((_, i) => i % SAMPLE_STEP === 0);
      assert.ok(sample.length >= 10, 'a sample to check');
      const differ: string[] = [];
      let checked = 0;
      let errors = 0;
      let refused = 0;
      await pool(sample, PARALLEL, async ({ file, text, formatted }) => {
        // both copies in folders of their own, under the same name: same includes, same detection
        const a = join(work, lang, 'orig', file);
        const b = join(work, lang, 'fmt', file);
        mkdirSync(a, { recursive: true });
        mkdirSync(b, { recursive: true });
        const name = lang === 'nginx' ? 'nginx.conf' : 'haproxy.cfg';
        writeFileSync(join(a, name), text);
        writeFileSync(join(b, name), formatted);
        const before = await checkWithBinary({ configPath: join(a, name), kind: lang });
        const afterFmt = await checkWithBinary({ configPath: join(b, name), kind: lang });
        assert.notEqual(before.status, 'missing', `${lang} binary not found`);
        const norm = (v: string, dir: string) =>
          v
            .split(dir)
            .join('<dir>')
            .replace(/\/[^\s"']*proxy-tuner-bench-\w+/g, '<sandbox>');
        const v1 = norm(verdict(before), a);
        const v2 = norm(verdict(afterFmt), b);
        if (before.status === 'refused') refused++;
        else {
          checked++;
          if (before.status === 'error') errors++;
        }
        if (v1 !== v2) differ.push(`${file}\n  before: ${v1}\n  after:  ${v2}`);
      });
      process.stdout.write(
        `# ${lang}: binary verdict compared on ${sample.length} formatted files (${checked} checked: ${checked - errors} ok, ${errors} error; ${refused} refused by the sandbox), ${sample.length - differ.length} unchanged\n`,
      );
      assert.ok(checked >= sample.length / 2, 'most of the sample ran through the binary');
      assert.deepEqual(differ, []);
    });
  });
}
