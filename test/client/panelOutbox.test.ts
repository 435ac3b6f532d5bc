// The host's side of the benchmark panel handshake (client/src/benchmark/outbox.ts): nothing is
// sent before the webview's script says `ready`; the answer to `ready` (a fresh `init`) goes
// first, then what was held back, without the stale `init`s; a re-render holds messages again.
// Also where the e2e harness writes settings: code-server is a remote window, so VS Code reads
// our machine-scoped settings only from the Remote settings.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PanelOutbox } from '../../client/src/benchmark/outbox';

type Msg = { type: 'init'; binaries: number } | { type: 'progress'; t: number } | { type: 'runDone'; id: string };

function outbox() {
  const sent: Msg[] = [];
  const box = new PanelOutbox<Msg>((m) => sent.push(m));
  return { box, sent };
}

describe('panel handshake (outbox)', () => {
  it('holds everything posted before the webview listens, and answers ready with a fresh init first', () => {
    const { box, sent } = outbox();
    // a restored panel: the host posts while the webview's script is still loading
    box.post({ type: 'init', binaries: 0 });
    box.post({ type: 'progress', t: 1 });
    box.post({ type: 'init', binaries: 1 });
    box.post({ type: 'progress', t: 2 });
    assert.deepEqual(sent, [], 'nothing reaches a webview that does not listen yet');
    assert.deepEqual(
      box.pending.map((m) => m.type),
      ['init', 'progress'],
      'a held init supersedes what was held before it',
    );
    box.onReady(() => box.post({ type: 'init', binaries: 2 }));
    assert.deepEqual(sent, [
      { type: 'init', binaries: 2 },
      { type: 'progress', t: 2 },
    ]);
    assert.equal(box.ready, true);
    assert.deepEqual(box.pending, []);
  });

  it('sends at once while the webview listens (a second init with a new binary list reaches it)', () => {
    const { box, sent } = outbox();
    box.onReady(() => box.post({ type: 'init', binaries: 1 }));
    box.post({ type: 'init', binaries: 3 });
    box.post({ type: 'runDone', id: 'r1' });
    assert.deepEqual(
      sent.map((m) => (m.type === 'init' ? `init:${m.binaries}` : m.type)),
      ['init:1', 'init:3', 'runDone'],
    );
  });

  it('holds again after a re-render until the new page says ready', () => {
    const { box, sent } = outbox();
    box.onReady(() => box.post({ type: 'init', binaries: 1 }));
    box.reset();
    box.post({ type: 'progress', t: 5 });
    box.post({ type: 'init', binaries: 2 });
    assert.equal(sent.length, 1);
    // the host answers this ready with the state as it is now (binaries: 2)
    box.onReady(() => box.post({ type: 'init', binaries: 2 }));
    assert.deepEqual(sent.slice(1), [{ type: 'init', binaries: 2 }]);
  });

  it('a ready with nothing held sends just the answer', () => {
    const { box, sent } = outbox();
    box.onReady(() => undefined);
    assert.deepEqual(sent, []);
    assert.equal(box.ready, true);
  });
});

describe('e2e harness settings (scripts/e2e-codeserver.mjs)', () => {
  it('puts our machine-scoped settings in the Remote settings, the rest in the User settings', async () => {
    const { splitSettings } = await import('../../scripts/e2e-codeserver.mjs');
    const { user, machine } = splitSettings({
      'proxyTuner.binaries': ['/opt/nginx-next'],
      'proxyTuner.nginx.path': '/usr/sbin/nginx',
      'proxyTuner.nginx.version': '1.22.1',
      'editor.codeLens': true,
    });
    assert.deepEqual(machine, { 'proxyTuner.binaries': ['/opt/nginx-next'], 'proxyTuner.nginx.path': '/usr/sbin/nginx' });
    assert.deepEqual(user, { 'proxyTuner.nginx.version': '1.22.1', 'editor.codeLens': true });
  });
});
