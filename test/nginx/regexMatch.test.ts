// The linear-time matcher of nginx patterns (regex.ts matches): it agrees with a backtracking
// engine on patterns both read alike, and it stays linear on the patterns that make a
// backtracking engine take exponential time.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { matches, parseRegex } from '../../server/src/languages/nginx/regex';

const R = String.raw;

describe('regex matches(): a Thompson NFA over the parsed pattern', () => {
  it('agrees with JavaScript on patterns both engines read the same way', () => {
    const patterns = [
      R`^https?://(www\.)?example\.com$`,
      R`example\.com`,
      R`^https://[a-z0-9-]+\.example\.com(:\d+)?$`,
      R`(foo|bar)+baz`,
      R`^a{2,4}b?$`,
      R`\bword\b`,
      R`^$`,
      R`x*`,
      R`^(?:ab|a)*c$`,
      R`[^/]+\.php$`,
      R`^/(?<name>[^/]+)/(\d{1,3})$`,
      R`(?i)^HTTPS://EXAMPLE\.com`,
      R`a.c`,
      R`^(a|b|c){3}$`,
      R`^(a*)*$`,
      R`()`,
    ];
    const subjects = [
      '',
      'a',
      'aa',
      'aab',
      'aaaab',
      'aaaaab',
      'abc',
      'axc',
      'a\nc',
      'https://example.com',
      'http://www.example.com',
      'https://example.com.evil',
      'https://a-b.example.com:443',
      'https://evil/example.com',
      'foobarbaz',
      'bazfoo',
      'abac',
      'ababc',
      'c',
      '/x.php',
      '/x.phpx',
      '/user/12',
      '/user/1234',
      'a word here',
      'awordb',
      'abc',
      'bca',
      'ab',
      'aaaa',
      'example.com\n',
    ];
    for (const p of patterns) {
      const parsed = parseRegex(p);
      assert.ok(parsed, p);
      assert.equal(parsed.exact, true, p);
      const js = new RegExp(p.replace('(?i)', ''), p.startsWith('(?i)') ? 'i' : '');
      for (const s of subjects) {
        const expected = js.test(s) || (/\$$/.test(p) && s.endsWith('\n') && js.test(s.slice(0, -1)));
        assert.equal(matches(parsed, s), expected, `${p} on ${JSON.stringify(s)}`);
      }
    }
  });

  it('caseless patterns (~*) fold letters', () => {
    const p = parseRegex(R`^https://example\.com$`, true)!;
    assert.equal(matches(p, 'HTTPS://Example.COM'), true);
    assert.equal(matches(p, 'https://example.org'), false);
  });

  it('takes linear time on catastrophic patterns', () => {
    const subject = `${'a'.repeat(5000)}!`;
    for (const p of ['^(a+)+$', '^(a|a)*$', '^(a|aa)+$', R`^(\w+\s?)*$`, '(.*a){20}$', '^(a?){30}a{30}$']) {
      const parsed = parseRegex(p)!;
      const t = performance.now();
      const answer = matches(parsed, subject);
      const ms = performance.now() - t;
      assert.notEqual(answer, true, p);
      assert.ok(ms < 5000, `${p}: ${ms.toFixed(0)} ms`);
    }
  });

  it('gives up (undefined) on what it does not model exactly, and on huge counted repetitions', () => {
    for (const p of ['(?=a)a', R`(a)\1`, R`\p{L}`, '(?>a+)b', 'a++b', R`a\Bb`, '(?x) a b', R`\Ka`]) {
      const parsed = parseRegex(p);
      assert.ok(parsed, p);
      assert.equal(parsed.exact, false, p);
      assert.equal(matches(parsed, 'ab'), undefined, p);
    }
    assert.equal(matches(parseRegex('((a{1000}){1000}){1000}')!, 'a'), undefined);
  });
});
