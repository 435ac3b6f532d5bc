import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { syntaxesDir } from './harness';

interface LanguageConfiguration {
  comments: { lineComment: string };
  brackets: [string, string][];
  autoClosingPairs: { open: string; close: string; notIn?: string[] }[];
  surroundingPairs: [string, string][];
  indentationRules: { increaseIndentPattern: string; decreaseIndentPattern: string };
  wordPattern: string;
}

function load(lang: 'nginx' | 'haproxy'): LanguageConfiguration {
  return JSON.parse(readFileSync(join(syntaxesDir, `${lang}.language-configuration.json`), 'utf8')) as LanguageConfiguration;
}

/** The words VS Code would find in `line` (it runs the word pattern globally, as here). */
function words(pattern: string, line: string): string[] {
  return [...line.matchAll(new RegExp(pattern, 'g'))].map((m) => m[0]);
}

for (const lang of ['nginx', 'haproxy'] as const) {
  describe(`${lang} language configuration`, () => {
    const conf = load(lang);

    it('uses # for comments and pairs the brackets', () => {
      assert.equal(conf.comments.lineComment, '#');
      for (const pair of [
        ['{', '}'],
        ['(', ')'],
        ['[', ']'],
      ])
        assert.ok(conf.brackets.some((b) => b[0] === pair[0] && b[1] === pair[1]));
      for (const open of ['{', '(', '[', '"', "'"])
        assert.ok(
          conf.autoClosingPairs.some((p) => p.open === open),
          `auto-closes ${open}`,
        );
      const quote = conf.autoClosingPairs.find((p) => p.open === '"');
      assert.deepEqual(quote?.notIn, ['string', 'comment']);
    });

    it('takes variables and dotted, dashed, underscored names as one word', () => {
      assert.deepEqual(words(conf.wordPattern, 'proxy_set_header X-Real-IP $remote_addr;'), [
        'proxy_set_header',
        'X-Real-IP',
        '$remote_addr',
      ]);
      assert.deepEqual(words(conf.wordPattern, 'set $a "${host}.x";'), ['set', '$a', '${host}', 'x']);
      assert.deepEqual(words(conf.wordPattern, 'http-request set-header X %[req.hdr(host),lower]'), [
        'http-request',
        'set-header',
        'X',
        'req.hdr',
        'host',
        'lower',
      ]);
      assert.deepEqual(words(conf.wordPattern, 'tune.ssl.default-dh-param 2048'), ['tune.ssl.default-dh-param', '2048']);
      assert.deepEqual(words(conf.wordPattern, 'a $'), ['a', '$'], 'a lone $ is a word, so completion can start on it');
      assert.ok(!new RegExp(conf.wordPattern).test(''), 'the word pattern never matches the empty string');
    });
  });
}

describe('nginx indentation rules', () => {
  const { increaseIndentPattern, decreaseIndentPattern } = load('nginx').indentationRules;
  const increase = new RegExp(increaseIndentPattern);
  const decrease = new RegExp(decreaseIndentPattern);

  it('indents after a line that opens a block', () => {
    for (const line of ['http {', '    server {', '  location ~ "^/a{2}$" {', 'if ($a = "}") {  # note', 'map $a $b {']) {
      assert.ok(increase.test(line), line);
    }
  });

  it('does not indent after closed blocks, comments, ${var} or braces in strings', () => {
    for (const line of ['server { listen 80; }', '# http {', 'set $a ${b};', 'return 200 "{";', 'listen 80;']) {
      assert.ok(!increase.test(line), line);
    }
  });

  it('outdents a closing brace', () => {
    assert.ok(decrease.test('    }'));
    assert.ok(decrease.test('}'));
    assert.ok(!decrease.test('    return 200 "}";'));
  });
});

describe('HAProxy indentation rules', () => {
  const { increaseIndentPattern, decreaseIndentPattern } = load('haproxy').indentationRules;
  const increase = new RegExp(increaseIndentPattern);
  const decrease = new RegExp(decreaseIndentPattern);

  it('indents after a section header and outdents the next header', () => {
    for (const line of ['global', 'frontend fe_main', 'backend be', 'defaults base from common', 'http-errors errs']) {
      assert.ok(increase.test(line), line);
      assert.ok(decrease.test(`    ${line}`), line);
    }
    for (const line of ['    bind :80', '    default_backend be', '    cache-use c', '    option httplog']) {
      assert.ok(!increase.test(line), line);
      assert.ok(!decrease.test(line), line);
    }
  });
});
