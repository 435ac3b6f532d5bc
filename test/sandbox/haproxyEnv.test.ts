// HAProxy's environment variables as the sandbox expands them before planning (issue 16).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHaproxy } from '../../server/src/languages/haproxy/parser';
import { expandHaproxyEnv, expandWord } from '../../server/src/runner/sandbox/haproxyEnv';
import { SandboxRefusal } from '../../server/src/runner/sandbox/common';

test('words: inside double quotes only, braces, defaults, [*] splits, escapes kept literal', () => {
  const env = { A: '203.0.113.5:80', B: 'x y', Q: 'a"b$c' };
  assert.deepEqual(expandWord('"${A}"', env), { raw: '"203.0.113.5:80"', value: '203.0.113.5:80' });
  assert.deepEqual(expandWord('"$A"', env).value, '203.0.113.5:80');
  assert.equal(expandWord("'${A}'", env).value, '${A}', 'single quotes: literal');
  assert.equal(expandWord('${A}', env).value, '${A}', 'unquoted: literal');
  assert.equal(expandWord('"${NOPE-198.51.100.1:80}"', env).value, '198.51.100.1:80');
  assert.equal(expandWord('"${NOPE}"', env).value, '');
  assert.equal(expandWord('"${B[*]}"', env).raw, '"x" "y"');
  assert.equal(expandWord('"${Q}"', env).raw, '"a\\"b\\$c"', 'a value cannot open a quote or a variable');
  assert.throws(() => expandWord('"${NL}"', { NL: 'a\nb' }), SandboxRefusal);
});

test('setenv/presetenv/unsetenv/resetenv take effect from their line; keywords and headers refused', () => {
  const text =
    'global\n    setenv S1 203.0.113.5:80\n    presetenv S1 198.51.100.1:80\n    presetenv S2 198.51.100.2:80\nbackend b\n    server a "${S1}"\n    server c "${S2}"\n';
  const out = expandHaproxyEnv(text, parseHaproxy(text), {}, '/x.cfg');
  assert.equal(out.text.split('\n').length, text.split('\n').length, 'lines keep their numbers');
  assert.match(out.text, /server a "203\.0\.113\.5:80"/);
  assert.match(out.text, /server c "198\.51\.100\.2:80"/);
  const later = 'backend b\n    server a "${LATE}"\nglobal\n    setenv LATE 203.0.113.9:80\n';
  assert.match(
    expandHaproxyEnv(later, parseHaproxy(later), {}, '/x.cfg').text,
    /server a ""/,
    'a variable set on a later line is empty before it',
  );
  const unset = 'global\n    setenv U 1.2.3.4\n    unsetenv U\nbackend b\n    server a "${U}"\n';
  assert.match(expandHaproxyEnv(unset, parseHaproxy(unset), {}, '/x.cfg').text, /server a ""/);
  const reset = 'global\n    resetenv KEEP\nbackend b\n    server a "${HOME}" \n    server k "${KEEP}"\n';
  const r = expandHaproxyEnv(reset, parseHaproxy(reset), { HOME: '/root', KEEP: '203.0.113.1:1' }, '/x.cfg').text;
  assert.match(r, /server a ""/);
  assert.match(r, /server k "203\.0\.113\.1:1"/);
  for (const bad of [
    'global\n    setenv K server\nbackend b\n    "${K}" s 203.0.113.5:80\n',
    'global\n    setenv S backend\n"${S}" evil\n    server e 203.0.113.5:80\n',
  ]) {
    assert.throws(
      () => expandHaproxyEnv(bad, parseHaproxy(bad), {}, '/x.cfg'),
      (e: Error) => e instanceof SandboxRefusal && /:4: |:3: /.test(e.message),
    );
  }
});
