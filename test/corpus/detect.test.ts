// Language detection on the whole corpus under names that tell nothing: every nginx and HAProxy
// file copied to `<n>/x.conf` and `<n>/x.cfg` in a temp folder must come out in its own language,
// through each caller of the one detector (the facade's detectLanguage and languageOf, the
// benchmark engine's detectKind, which reads the file itself) and through the built CLI. Then
// the editor: every file under the folders package.json's language patterns give to the other
// language, where VS Code's pattern and the detector disagree and the client switches the
// document to the detector's language (languageCorrection).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { detectLanguage, languageOf } from '../../server/src/service/languageService';
import { detectKind } from '../../server/src/runner/sandbox/index';
import { languageCorrection } from '../../server/src/languages/detect';
import { corpusDir, corpusSkip } from './verdicts';
import { REPO, ensureBuilt } from '../cli/build';

type Lang = 'nginx' | 'haproxy';
const LANGS: Lang[] = ['nginx', 'haproxy'];
const available = LANGS.every((l) => corpusDir(l).available);

interface Copy {
  lang: Lang;
  source: string;
  path: string;
}

let tmp: string;
const copies: Copy[] = [];

describe('language detection on the corpus under neutral names', { skip: corpusSkip(available) }, () => {
  before(() => {
    tmp = mkdtempSync(join(tmpdir(), 'proxy-tuner-detect-'));
    let n = 0;
    for (const lang of LANGS) {
      const { dir } = corpusDir(lang);
      for (const f of readdirSync(dir)
        .filter((x) => /\.(conf|cfg)$/.test(x))
        .sort()) {
        const text = readFileSync(join(dir, f), 'utf8');
        for (const name of ['x.conf', 'x.cfg']) {
          // one folder per copy: HAProxy reads a folder's .cfg files together
          const folder = join(tmp, `${lang}-${++n}`);
          mkdirSync(folder);
          writeFileSync(join(folder, name), text);
          copies.push({ lang, source: f, path: join(folder, name) });
        }
      }
    }
  });

  after(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('detects every copy right through the facade and the benchmark engine', () => {
    const wrong: string[] = [];
    const counts: Record<Lang, number> = { nginx: 0, haproxy: 0 };
    for (const c of copies) {
      const text = readFileSync(c.path, 'utf8');
      const got = [detectLanguage(c.path, text), languageOf('plaintext', pathToFileURL(c.path).href, text), detectKind(c.path)];
      if (got.every((g) => g === c.lang)) counts[c.lang]++;
      else wrong.push(`${c.source} as ${c.path.slice(c.path.lastIndexOf('/') + 1)}: ${got.join('/')}`);
    }
    assert.deepEqual(wrong, []);
    // 312 nginx and 299 HAProxy files in the corpus, each under two names
    assert.ok(counts.nginx >= 600 && counts.haproxy >= 580, JSON.stringify(counts));
    console.log(`# detection: ${counts.nginx} nginx and ${counts.haproxy} HAProxy copies right, ${wrong.length} wrong`);
  });

  it("the editor: a file the extension's folder patterns put in the other language is switched to its own", () => {
    const langs = (
      JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
        contributes: { languages: { id: string; filenames?: string[]; extensions?: string[]; filenamePatterns?: string[] }[] };
      }
    ).contributes.languages;
    const glob = (g: string) =>
      new RegExp(
        '^' +
          g
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*\*\//g, '\0')
            .replace(/\*/g, '[^/]*')
            .replace(/\0/g, '(?:.*/)?') +
          '$',
      );
    // VS Code's choice: a file name first, then a pattern (on the path when it has a slash), then an extension
    const editorLanguage = (p: string): string | undefined => {
      const base = p.slice(p.lastIndexOf('/') + 1);
      return (
        langs.find((l) => l.filenames?.includes(base))?.id ??
        langs.find((l) => l.filenamePatterns?.some((g) => glob(g).test(g.includes('/') ? p : base)))?.id ??
        langs.find((l) => l.extensions?.some((e) => base.endsWith(e)))?.id
      );
    };
    const places: Record<Lang, string[]> = {
      nginx: ['haproxy/x.cfg', 'etc/haproxy/conf.d/x.cfg'],
      haproxy: ['nginx/x.conf', 'conf.d/x.conf', 'sites-enabled/x'],
    };
    const wrong: string[] = [];
    let switched = 0;
    let total = 0;
    for (const lang of LANGS) {
      const { dir } = corpusDir(lang);
      for (const f of readdirSync(dir)
        .filter((x) => /\.(conf|cfg)$/.test(x))
        .sort()) {
        const text = readFileSync(join(dir, f), 'utf8');
        for (const rel of [...places[lang], ...places[lang === 'nginx' ? 'haproxy' : 'nginx']]) {
          const p = `/srv/cfg/${rel}`;
          const given = editorLanguage(p);
          assert.ok(given === 'nginx' || given === 'haproxy', `${p}: no language from package.json`);
          const fix = languageCorrection(given, p, text);
          const final = fix ?? given;
          total++;
          if (fix) switched++;
          if (final !== lang) wrong.push(`${f} at ${rel}: ${given} -> ${final}`);
        }
      }
    }
    assert.deepEqual(wrong, []);
    // every file placed in the other language's folders is switched; none in its own
    const expected = LANGS.reduce(
      (n, l) => n + readdirSync(corpusDir(l).dir).filter((x) => /\.(conf|cfg)$/.test(x)).length * places[l].length,
      0,
    );
    assert.equal(switched, expected);
    console.log(`# editor: ${switched} of ${total} placements switched to the detector's language, ${wrong.length} wrong`);
  });

  it('the CLI judges every copy in its language (the rule ids of its findings)', () => {
    ensureBuilt();
    // every rule (--select all): the opt-in groups' findings tell the language of more copies
    const r = spawnSync(process.execPath, [join(REPO, 'bin', 'proxy-tuner.js'), 'check', '--select', 'all', '--format', 'json', tmp], {
      encoding: 'utf8',
      maxBuffer: 512 * 1024 * 1024,
      timeout: 300_000,
      env: { ...process.env, PROXY_TUNER_NO_LOCAL_VERSION: '1' },
    });
    assert.ok(r.status === 0 || r.status === 1, r.stderr);
    const problems = JSON.parse(r.stdout) as { file: string; code: string }[];
    const langOf = new Map(copies.map((c) => [c.path, c.lang]));
    const judged = new Map<string, Set<string>>();
    for (const p of problems) {
      const lang = p.code.split('/')[0];
      let s = judged.get(p.file);
      if (!s) judged.set(p.file, (s = new Set()));
      s.add(lang);
    }
    const wrong = [...judged]
      .filter(([file, langs]) => langs.size !== 1 || !langs.has(langOf.get(file) ?? '?'))
      .map(([f, l]) => `${f}: ${[...l]}`);
    assert.deepEqual(wrong, []);
    assert.ok(judged.size > copies.length / 2, `only ${judged.size} of ${copies.length} copies had a finding to tell their language by`);
  });
});
