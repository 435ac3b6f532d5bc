// How the server turns what a client sends (`workspace/configuration` answers,
// `initializationOptions`, `didChangeConfiguration` pushes) into ServiceSettings.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mergeConfig, readConfig, resolveSettings } from '../../server/src/service/settings';

describe('readConfig', () => {
  it('reads the proxyTuner section in its three shapes', () => {
    const expected = { nginx: { version: '1.22.1', path: undefined }, rules: { 'nginx/unknown-directive': 'off' } };
    assert.deepEqual(readConfig({ nginx: { version: '1.22.1' }, rules: { 'nginx/unknown-directive': 'off' } }), expected);
    assert.deepEqual(readConfig({ proxyTuner: { nginx: { version: '1.22.1' }, rules: { 'nginx/unknown-directive': 'off' } } }), expected);
    assert.deepEqual(
      readConfig({ 'proxyTuner.nginx.version': '1.22.1', 'proxyTuner.rules': { 'nginx/unknown-directive': 'off' } }),
      expected,
    );
  });

  it('drops what is malformed instead of trusting it', () => {
    assert.deepEqual(readConfig(null), {});
    assert.deepEqual(readConfig('junk'), {});
    assert.deepEqual(readConfig([1, 2]), {});
    assert.deepEqual(readConfig({ nginx: 'x', haproxy: { version: 26, path: '' } }), { haproxy: { version: undefined, path: undefined } });
    assert.deepEqual(readConfig({ rules: { a: 'loud', b: 'hint', c: 3 } }), { rules: { b: 'hint' } });
    assert.deepEqual(readConfig({ nginx: { version: '   ' } }), { nginx: { version: undefined, path: undefined } });
  });

  it('reads the diagnostics delay in milliseconds, capped, and ignores anything but a number from 0', () => {
    assert.deepEqual(readConfig({ diagnostics: { delay: 40 } }), { diagnostics: { delay: 40 } });
    assert.deepEqual(readConfig({ 'proxyTuner.diagnostics.delay': 0 }), { diagnostics: { delay: 0 } });
    assert.deepEqual(readConfig({ diagnostics: { delay: 1e9 } }), { diagnostics: { delay: 10_000 } });
    for (const delay of [-1, '40', NaN, Infinity, null]) assert.deepEqual(readConfig({ diagnostics: { delay } }), {}, String(delay));
    assert.deepEqual(readConfig({ diagnostics: 5 }), {});
  });

  it('reads the most diagnostics per document: a whole number from 1, capped; merged field by field', () => {
    assert.deepEqual(readConfig({ diagnostics: { maxPerDocument: 50 } }), { diagnostics: { maxPerDocument: 50 } });
    assert.deepEqual(readConfig({ 'proxyTuner.diagnostics.maxPerDocument': 2.7 }), { diagnostics: { maxPerDocument: 2 } });
    assert.deepEqual(readConfig({ diagnostics: { maxPerDocument: 1e9, delay: 5 } }), {
      diagnostics: { delay: 5, maxPerDocument: 100_000 },
    });
    for (const max of [0, -1, '40', NaN, Infinity, null])
      assert.deepEqual(readConfig({ diagnostics: { maxPerDocument: max } }), {}, String(max));
    assert.deepEqual(mergeConfig({ diagnostics: { delay: 7 } }, { diagnostics: { maxPerDocument: 9 } }), {
      diagnostics: { delay: 7, maxPerDocument: 9 },
    });
    assert.equal(resolveSettings({ diagnostics: { maxPerDocument: 9 } }).maxDiagnostics, 9);
    assert.equal(resolveSettings({}).maxDiagnostics, undefined, 'no cap unless set: proxy-tuner check lists every finding');
  });
});

describe('resolveSettings', () => {
  it('uses the configured versions and asks the probe only for the missing ones', () => {
    const asked: string[] = [];
    const probe = (lang: string, path?: string) => {
      asked.push(`${lang}:${path ?? ''}`);
      return lang === 'nginx' ? '1.22.1' : undefined;
    };
    const lint = { select: ['default'] };
    assert.deepEqual(resolveSettings({ haproxy: { version: '2.8' } }, probe), { nginxVersion: '1.22.1', haproxyVersion: '2.8', lint });
    assert.deepEqual(asked, ['nginx:']);
    asked.length = 0;
    assert.deepEqual(resolveSettings({ nginx: { path: '/opt/nginx/sbin/nginx' } }, probe), {
      nginxVersion: '1.22.1',
      haproxyVersion: undefined,
      lint,
    });
    assert.deepEqual(asked, ['nginx:/opt/nginx/sbin/nginx', 'haproxy:']);
  });

  it('passes rule severities through', () => {
    const s = resolveSettings({ rules: { 'haproxy/x': 'error' } }, () => undefined);
    assert.deepEqual(s, {
      nginxVersion: undefined,
      haproxyVersion: undefined,
      rules: { 'haproxy/x': 'error' },
      lint: { select: ['default'] },
    });
  });
});

describe('mergeConfig', () => {
  it('lets the pulled answer win field by field over initializationOptions', () => {
    const base = readConfig({ nginx: { version: '1.22.1', path: '/usr/sbin/nginx' }, rules: { a: 'off', b: 'hint' } });
    const over = readConfig({ nginx: { version: '1.25.0' }, haproxy: { version: '' }, rules: { b: 'error' } });
    assert.deepEqual(mergeConfig(base, over), {
      nginx: { version: '1.25.0', path: '/usr/sbin/nginx' },
      rules: { a: 'off', b: 'error' },
    });
    assert.deepEqual(mergeConfig(base, readConfig(null)), base);
  });

  it('takes the diagnostics delay from the pulled answer, else from initializationOptions', () => {
    assert.deepEqual(mergeConfig({ diagnostics: { delay: 100 } }, { diagnostics: { delay: 0 } }), { diagnostics: { delay: 0 } });
    assert.deepEqual(mergeConfig({ diagnostics: { delay: 100 } }, {}), { diagnostics: { delay: 100 } });
    assert.deepEqual(mergeConfig({}, {}), {});
  });
});
