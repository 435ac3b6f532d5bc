import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { collectRegexes, grammarFiles, loadGrammar, onigAccepts, repoRoot, tokenize, withBackReferencesFilled } from './harness';
import { corpusRoot, corpusSkip } from '../corpusRoot';

interface Contributes {
  languages: { id: string; configuration: string }[];
  grammars: { language: string; scopeName: string; path: string; embeddedLanguages?: Record<string, string> }[];
}
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { contributes: Contributes };

function rawGrammar(scope: string): Record<string, unknown> {
  return JSON.parse(readFileSync(grammarFiles[scope], 'utf8')) as Record<string, unknown>;
}

describe('grammar files', () => {
  it('match what package.json contributes', () => {
    for (const g of pkg.contributes.grammars) {
      const file = resolve(repoRoot, g.path);
      assert.equal(file, grammarFiles[g.scopeName], `${g.scopeName} is tested from the file package.json names`);
      assert.equal(rawGrammar(g.scopeName).scopeName, g.scopeName);
    }
    for (const l of pkg.contributes.languages) {
      assert.ok(existsSync(resolve(repoRoot, l.configuration)), `${l.configuration} exists`);
    }
    const nginx = pkg.contributes.grammars.find((g) => g.scopeName === 'source.nginx');
    assert.equal(nginx?.embeddedLanguages?.['meta.embedded.block.lua'], 'lua');
    assert.match(readFileSync(grammarFiles['source.nginx'], 'utf8'), /"contentName": "meta\.embedded\.block\.lua"/);
  });

  it('are up to date with their sources in syntaxes/src', () => {
    const r = spawnSync(process.execPath, [join(repoRoot, 'syntaxes', 'src', 'build.mjs'), '--check'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  it('only include repository rules that exist, and only source.lua from outside', () => {
    for (const scope of Object.keys(grammarFiles)) {
      const g = rawGrammar(scope);
      const repo = g.repository as Record<string, unknown>;
      const includes: string[] = [];
      const walk = (n: unknown): void => {
        if (Array.isArray(n)) n.forEach(walk);
        else if (n && typeof n === 'object') {
          for (const [k, v] of Object.entries(n)) {
            if (k === 'include' && typeof v === 'string') includes.push(v);
            else walk(v);
          }
        }
      };
      walk(g);
      assert.ok(includes.length > 10, `${scope} is built from repository rules`);
      for (const inc of includes) {
        if (inc.startsWith('#')) assert.ok(inc.slice(1) in repo, `${scope}: ${inc} is in the repository`);
        else if (inc !== '$self' && inc !== '$base') assert.equal(inc, 'source.lua', `${scope}: unexpected include ${inc}`);
      }
    }
  });
});

describe('grammar regexes', () => {
  it('the compile check tells rejected patterns from accepted ones', async () => {
    for (const bad of ['(', '[b-a]', '\\k<nope>', '*a', '\\]\\1\\]']) assert.equal(await onigAccepts(bad), false, bad);
    for (const good of ['x', '$', '(?=[;}])', '(?<![^\\s;{}])#.*$', '\\G\\s+(a)', '\\]x\\]']) {
      assert.equal(await onigAccepts(good), true, good);
    }
  });

  for (const scope of Object.keys(grammarFiles)) {
    it(`every regex of ${scope} compiles in oniguruma`, async () => {
      const regexes = collectRegexes(rawGrammar(scope));
      assert.ok(regexes.length > 30, `${scope} has ${regexes.length} regexes`);
      const rejected: string[] = [];
      for (const r of regexes) {
        const source = r.key === 'end' || r.key === 'while' ? withBackReferencesFilled(r.source) : r.source;
        if (!(await onigAccepts(source))) rejected.push(`${r.path}: ${r.source}`);
      }
      assert.deepEqual(rejected, []);
    });

    it(`${scope} loads in vscode-textmate`, async () => {
      const grammar = await loadGrammar(scope as 'source.nginx');
      assert.ok(grammar);
    });
  }
});

/**
 * Over every config of the shared corpus that the real binary accepts, no region may stay open at
 * the end of the file (a probe statement appended after it must land at the top level) and no
 * region may close early (no brace left unmatched).
 */
describe('grammars over the real-world corpus', () => {
  const corpus = corpusRoot;
  const probes = {
    nginx: { text: 'zz_probe_directive;', scopes: ['source.nginx', 'meta.directive.nginx', 'keyword.other.directive.nginx'] },
    haproxy: { text: 'zz_probe_keyword', scopes: ['source.haproxy', 'meta.statement.haproxy', 'keyword.other.haproxy'] },
  } as const;

  for (const lang of ['nginx', 'haproxy'] as const) {
    const dir = join(corpus, lang);
    const verdicts = join(dir, 'verdicts.tsv');
    it(
      `${lang}: every accepted file leaves no region open and no brace unmatched`,
      { skip: corpusSkip(existsSync(verdicts)) },
      async () => {
        const [header, ...rows] = readFileSync(verdicts, 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.split('\t'));
        const file = header.indexOf('file');
        const finalClass = header.indexOf('final_class');
        const finalKind = header.indexOf('final_kind');
        // Accepted, or stopped only at a directive of a module the binary lacks (the Lua block configs).
        const accepted = rows
          .filter((r) => r[finalClass] === 'ok' || (r[finalClass] === 'env-unfixed' && r[finalKind] === 'third-party-module'))
          .map((r) => r[file]);
        assert.ok(accepted.length > 100, `${accepted.length} accepted ${lang} files`);
        const present = new Set(readdirSync(dir));
        assert.deepEqual(
          accepted.filter((f) => !present.has(f)),
          [],
          'every accepted file is in the corpus folder',
        );
        const open: string[] = [];
        for (const f of accepted) {
          const text = readFileSync(join(dir, f), 'utf8');
          const probe = probes[lang];
          const doc = await tokenize(`source.${lang}`, `${text}\n${probe.text}`);
          const scopes = doc.tokensOf(probe.text.replace(';', ''), 0, text)[0]?.scopes;
          if (JSON.stringify(scopes) !== JSON.stringify(probe.scopes)) open.push(`${f}: ${scopes?.join(' ')}`);
          // A block closed too early shows up as an unmatched '}' further on.
          const invalid = doc.tokens.find((t) => t.scopes.some((sc) => sc.startsWith('invalid.')));
          if (invalid) open.push(`${f}:${invalid.line + 1}: ${invalid.text} [${invalid.scopes.join(' ')}]`);
        }
        assert.deepEqual(open, []);
      },
    );
  }
});
