// The panel protocol's validators: what the host accepts from the webview and the webview from
// the host. Everything not exactly of a declared shape is rejected.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_RUN_OPTIONS, isRequestPath, runOptionsProblem, validateHostMessage, validatePanelMessage } from '../../protocol/panel';
import { run, sample } from './fixtures';

const good = { ...DEFAULT_RUN_OPTIONS, path: '/api/v1?x=1' };

describe('validatePanelMessage (webview -> host)', () => {
  it('accepts every declared message and returns a copy of it', () => {
    const msgs = [
      { type: 'ready' },
      { type: 'stop' },
      { type: 'run', options: good },
      { type: 'compare', a: 'run-1', b: null },
      { type: 'export', runId: 'run-1', format: 'csv' },
      { type: 'export', runId: 'run-1', format: 'json' },
      { type: 'copyMarkdown', runIds: ['a', 'b'] },
      { type: 'deleteRun', runId: 'abc_1' },
      { type: 'revealLine', line: 12 },
      { type: 'applyFix', runId: 'run-1', finding: 0 },
    ];
    for (const m of msgs) {
      const v = validatePanelMessage(m);
      assert.ok(v.ok, `${JSON.stringify(m)}: ${v.ok ? '' : v.error}`);
      assert.deepEqual(v.message, m);
    }
  });

  it('rejects unknown types, non-objects and extra fields', () => {
    for (const m of [null, 42, 'run', [], {}, { type: 'launch' }, { type: 'stop', force: true }, { type: 'ready', x: 1 }]) {
      assert.equal(validatePanelMessage(m).ok, false, JSON.stringify(m));
    }
    const v = validatePanelMessage({ type: 'nope' });
    assert.ok(!v.ok && /unknown message type "nope"/.test(v.error));
  });

  it('rejects run options out of range or of the wrong type, naming the field', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ connections: 0 }, /connections/],
      [{ connections: 1.5 }, /connections/],
      [{ connections: '10' }, /connections/],
      [{ durationS: 601 }, /durationS/],
      [{ warmupS: -1 }, /warmupS/],
      [{ scenario: 'http9' }, /scenario/],
      [{ model: 'open', rate: 0 }, /rate/],
      [{ path: 'api' }, /path/],
      [{ path: '/a b' }, /path/],
      [{ path: '/a\nHost: evil' }, /path/],
      [{ host: 'a b' }, /host/],
      [{ method: 'BREW' }, /method/],
      [{ method: 'post' }, /method/],
      [{ method: 'GET', body: 'x' }, /body: GET requests carry no body/],
      [{ method: 'HEAD', body: 'x' }, /body: HEAD/],
      [{ method: 'POST', body: 42 }, /body/],
      [{ method: 'POST', body: 'x'.repeat(1024 * 1024 + 1) }, /body: a string of at most 1048576 bytes/],
      [{ method: 'POST', body: 'é'.repeat(512 * 1024 + 1) }, /body: a string of at most 1048576 bytes/],
      [{ direct: 'yes' }, /direct/],
      [{ extra: 1 }, /keys/],
    ];
    for (const [over, re] of cases) {
      const v = validatePanelMessage({ type: 'run', options: { ...good, ...over } });
      assert.ok(!v.ok, JSON.stringify(over));
      assert.match(v.error, re, JSON.stringify(over));
    }
    const { path: _p, ...missing } = good;
    assert.match(runOptionsProblem(missing) ?? '', /keys/);
    assert.equal(runOptionsProblem({ ...good, model: 'open', rate: 5000 }), undefined);
  });

  it('accepts every method, a body up to 1 MiB (UTF-8) with methods that carry one, and options kept without a body', () => {
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const v = validatePanelMessage({ type: 'run', options: { ...good, method, body: '' } });
      assert.ok(v.ok, method);
      assert.equal(v.message.type === 'run' && v.message.options.method, method);
    }
    for (const body of ['{"a":1}', 'x'.repeat(1024 * 1024), 'é'.repeat(512 * 1024)]) {
      const v = validatePanelMessage({ type: 'run', options: { ...good, method: 'PUT', body } });
      assert.ok(v.ok, v.ok ? '' : v.error);
      assert.equal(v.message.type === 'run' && v.message.options.body, body);
    }
    // runs kept before the body field existed still validate
    const { body: _b, ...old } = { ...good, method: 'POST' as const };
    assert.equal(runOptionsProblem(old), undefined);
    assert.ok(validateHostMessage({ type: 'runStarted', runId: 'r1', label: '#1', options: old }).ok);
    assert.equal(
      validateHostMessage({ type: 'runStarted', runId: 'r1', label: '#1', options: { ...old, method: 'GET', body: 'x' } }).ok,
      false,
    );
  });

  it('rejects run ids that are not plain tokens and wrong counts of markdown runs', () => {
    assert.equal(validatePanelMessage({ type: 'export', runId: '../../etc/passwd', format: 'json' }).ok, false);
    assert.equal(validatePanelMessage({ type: 'export', runId: 'r1', format: 'xml' }).ok, false);
    assert.equal(validatePanelMessage({ type: 'copyMarkdown', runIds: [] }).ok, false);
    assert.equal(validatePanelMessage({ type: 'copyMarkdown', runIds: ['a', 'b', 'c'] }).ok, false);
    assert.equal(validatePanelMessage({ type: 'compare', a: 'x y', b: null }).ok, false);
    assert.equal(validatePanelMessage({ type: 'revealLine', line: -1 }).ok, false);
    // a fix is named by run and index: the text to write never comes from the webview
    assert.equal(validatePanelMessage({ type: 'applyFix', runId: 'run-1', finding: 0, edits: [] }).ok, false);
    assert.equal(validatePanelMessage({ type: 'applyFix', runId: 'run-1', finding: -1 }).ok, false);
  });

  it('isRequestPath allows query strings and percent escapes only in printable ASCII', () => {
    assert.ok(isRequestPath('/'));
    assert.ok(isRequestPath('/static/app.js?v=%20'));
    assert.ok(!isRequestPath(''));
    assert.ok(!isRequestPath('/é'));
    assert.ok(!isRequestPath('/' + 'a'.repeat(3000)));
  });
});

describe('validateHostMessage (host -> webview)', () => {
  it('accepts well-formed messages', () => {
    const r = run('r1');
    const msgs = [
      {
        type: 'init',
        config: { uri: 'file:///x/nginx.conf', name: 'nginx.conf', kind: 'nginx' },
        enabled: false,
        disabledReason: 'untrusted',
        options: good,
        runs: [r],
        compare: { a: null, b: 'r1' },
        running: false,
      },
      { type: 'runStarted', runId: 'r2', label: '#2', options: good },
      { type: 'progress', runId: 'r2', sample: sample(1, 3) },
      { type: 'runDone', run: r },
      { type: 'runError', runId: null, message: 'nginx -t failed', location: { uri: 'file:///x', line: 3 }, stopped: false },
      { type: 'runs', runs: [] },
      { type: 'compare', a: 'r1', b: 'r2' },
    ];
    for (const m of msgs) assert.ok(validateHostMessage(m).ok, JSON.stringify(m).slice(0, 80));
  });

  it('rejects malformed samples and results', () => {
    assert.equal(validateHostMessage({ type: 'progress', runId: 'r', sample: { ...sample(1, 3), p99: 'slow' } }).ok, false);
    assert.equal(validateHostMessage({ type: 'progress', runId: 'r', sample: { ...sample(1, 3), phase: 'cooldown' } }).ok, false);
    assert.equal(validateHostMessage({ type: 'progress', runId: 'r', sample: { ...sample(1, 3), p99: Number.NaN } }).ok, false);
    const r = run('r1');
    assert.equal(validateHostMessage({ type: 'runDone', run: { ...r, result: { ...r.result, distribution: [[50]] } } }).ok, false);
    assert.equal(validateHostMessage({ type: 'runDone', run: { ...r, id: '' } }).ok, false);
    assert.equal(validateHostMessage({ type: 'runError', runId: null, message: 'x', location: { line: 2 }, stopped: false }).ok, false);
    assert.equal(validateHostMessage({ type: 'runError', runId: null, message: 'x', location: null }).ok, false);
    assert.equal(validateHostMessage({ type: 'script', code: 'alert(1)' }).ok, false);
  });
});

describe('the binary picker fields (A/B on two installed binaries)', () => {
  it('accepts a binary, and a second one to compare with', () => {
    for (const extra of [{ binary: '/usr/sbin/nginx' }, { binary: '/usr/sbin/nginx', binaryB: '/opt/nginx-1.30.6' }]) {
      const v = validatePanelMessage({ type: 'run', options: { ...good, ...extra } });
      assert.ok(v.ok, v.ok ? '' : v.error);
    }
  });
  it('rejects a second binary alone, the same one twice, and non-paths', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ binaryB: '/b' }, /binaryB: pick the first binary too/],
      [{ binary: '/a', binaryB: '/a' }, /two different binaries/],
      [{ binary: 42 }, /options\.binary: a binary path/],
      [{ binary: '/a\n-c' }, /options\.binary/],
      [{ binary: 'x'.repeat(5000) }, /options\.binary/],
    ];
    for (const [patch, re] of cases)
      assert.match(runOptionsProblem({ ...good, ...patch }) ?? 'accepted', re, JSON.stringify(patch).slice(0, 80));
  });
  it('the host may list the binaries in init; a malformed list is rejected', () => {
    const init = {
      type: 'init',
      config: null,
      enabled: true,
      disabledReason: '',
      options: good,
      runs: [],
      compare: { a: null, b: null },
      running: false,
    };
    assert.ok(validateHostMessage(init).ok);
    assert.ok(validateHostMessage({ ...init, binaries: [{ path: '/usr/sbin/nginx', version: '1.22.1', source: 'PATH' }] }).ok);
    assert.equal(validateHostMessage({ ...init, binaries: [{ path: '/usr/sbin/nginx' }] }).ok, false);
    assert.equal(validateHostMessage({ ...init, binaries: 'x' }).ok, false);
  });
});
