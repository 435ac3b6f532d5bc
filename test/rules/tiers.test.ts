// Rule tiers and selection (core/tiers.ts, issue 32): the default set, the opt-in groups, and
// `select` / `extendSelect` / `ignore` as the settings, `.proxy-tuner.json` and the service read them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { isSelected, OPT_IN_TIERS, RULE_TIERS, tierOf } from '../../server/src/core/tiers';
import { mergeConfig, readConfig, resolveSettings } from '../../server/src/service/settings';
import { validate } from '../../server/src/service/languageService';
import { nginxRegistry } from '../../server/src/languages/nginx/rules';
import type { ServiceSettings } from '../../server/src/core/types';

const codes = (text: string, settings: ServiceSettings) =>
  new Set(validate(TextDocument.create('file:///t/nginx.conf', 'nginx', 1, text), 'nginx', settings).map((d) => String(d.code)));

// one worker and an upstream without keep-alive (performance-deep), error_log off (default set)
const CONF = `worker_processes 1;
error_log off;
events {}
http {
    upstream app { server 127.0.0.1:8080; }
    server {
        listen 80;
        location / { proxy_pass http://app; }
    }
}
`;

describe('rule tiers', () => {
  it('puts every opt-in rule in a known group, and only rules that exist', () => {
    for (const [key, tier] of Object.entries(RULE_TIERS)) {
      assert.ok(OPT_IN_TIERS.includes(tier), `${key}: ${tier}`);
      const id = key.split('@')[0];
      if (id.startsWith('nginx/')) assert.ok(nginxRegistry.get(id) || id.includes('@'), id);
    }
    assert.equal(tierOf('nginx/error-log-off'), 'default');
    assert.equal(tierOf('nginx/worker-processes-not-auto'), 'performance-deep');
    assert.equal(tierOf('nginx/unknown-variable'), 'default', 'the error stays in the default set');
    assert.equal(tierOf('nginx/unknown-variable', 'warning'), 'pedantic', 'its fragment warning is opt-in');
  });

  it('selects as ruff does: select replaces, extendSelect adds, ignore removes; a severity setting selects', () => {
    const s = (lint: ServiceSettings['lint'], rules?: ServiceSettings['rules']): ServiceSettings => ({ lint, rules });
    const id = 'nginx/worker-processes-not-auto';
    assert.equal(isSelected(id, {}), true, 'no selection (the library): every rule');
    assert.equal(isSelected(id, s({ select: ['default'] })), false);
    assert.equal(isSelected(id, s({ select: ['default'], extendSelect: ['performance-deep'] })), true);
    assert.equal(isSelected(id, s({ select: ['default'], extendSelect: [id] })), true);
    assert.equal(isSelected(id, s({ select: ['nginx'] })), true, 'a language');
    assert.equal(isSelected(id, s({ select: ['haproxy'] })), false);
    assert.equal(isSelected(id, s({ select: ['all'], ignore: ['performance-deep'] })), false, 'ignore wins');
    assert.equal(isSelected('nginx/error-log-off', s({ select: ['default'], ignore: ['nginx/error-log-off'] })), false);
    assert.equal(isSelected(id, s({ select: ['default'] }, { [id]: 'information' })), true);
    assert.equal(nginxRegistry.isActive(id, s({ select: ['all'] }, { [id]: 'off' })), false, 'off stays off');
  });

  it('reads the selection from the settings (either spelling), merges it, and defaults to the default set', () => {
    const cfg = readConfig({ proxyTuner: { lint: { select: ['default', 7], 'extend-select': ['hardening'], ignore: 'x' } } });
    assert.deepEqual(cfg.lint, { select: ['default'], extendSelect: ['hardening'] });
    const merged = mergeConfig({ lint: { extendSelect: ['pedantic'], ignore: ['a'] } }, { lint: { select: ['nginx'], ignore: ['b'] } });
    assert.deepEqual(merged.lint, { select: ['nginx'], extendSelect: ['pedantic'], ignore: ['a', 'b'] });
    assert.deepEqual(resolveSettings({}).lint?.select, ['default']);
  });

  it('the service reports the default set by default and an opt-in group when selected', () => {
    const user = resolveSettings({ nginx: { version: '1.22.1' } });
    const def = codes(CONF, user);
    assert.ok(def.has('nginx/error-log-off'), [...def].join(' '));
    assert.ok(!def.has('nginx/worker-processes-not-auto'));
    assert.ok(!def.has('nginx/upstream-keepalive'));
    const deep = codes(CONF, resolveSettings({ nginx: { version: '1.22.1' }, lint: { extendSelect: ['performance-deep'] } }));
    assert.ok(deep.has('nginx/worker-processes-not-auto') && deep.has('nginx/upstream-keepalive'), [...deep].join(' '));
    assert.ok(deep.has('nginx/error-log-off'));
    const none = codes(CONF, resolveSettings({ nginx: { version: '1.22.1' }, lint: { select: ['all'], ignore: ['nginx/error-log-off'] } }));
    assert.ok(!none.has('nginx/error-log-off') && none.has('nginx/worker-processes-not-auto'));
  });
});
