// A warning the binary prints about the sandbox's copy, not about the user's config, is not shown
// as theirs: the sandbox drops HAProxy's `log` targets, so a proxy logging through `log global`
// has "no log address" in the copy while `haproxy -c` on the user's file is clean.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkWithBinary } from '../../server/src/host/binaryCheck';
import { warningFromRewrite } from '../../server/src/runner/sandbox/common';

const WITH_LOG = `global
    log stdout format raw local0 info
defaults
    mode http
    log global
    option httplog
    timeout client 5s
    timeout server 5s
    timeout connect 5s
frontend web
    bind 127.0.0.1:1990
    default_backend app
backend app
    server s1 127.0.0.1:1980
`;

test('the "no log address" warning is the rewrite\'s when the user\'s file has a log target, and theirs when it has none', () => {
  const w = "[WARNING]  (1) : config : log format ignored for frontend 'web' since it has no log address.";
  assert.equal(warningFromRewrite('haproxy', w, [WITH_LOG]), true);
  assert.equal(warningFromRewrite('haproxy', w, [WITH_LOG.replace(/^ {4}log stdout.*\n/m, '')]), false);
  assert.equal(warningFromRewrite('haproxy', '[WARNING] something else', [WITH_LOG]), false);
  assert.equal(warningFromRewrite('nginx', w, [WITH_LOG]), false);
});

test("haproxy -c through the sandbox (the editor's check) shows no warning the user's file does not have", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pt-rewrite-warn-'));
  try {
    const file = join(dir, 'haproxy.cfg');
    writeFileSync(file, WITH_LOG);
    const r = await checkWithBinary({ configPath: file, kind: 'haproxy' });
    assert.equal(r.status, 'ok', JSON.stringify(r.messages));
    assert.deepEqual(
      r.messages.filter((m) => /log address/.test(m.message)),
      [],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
