// A keyword in a section that does not take it (haproxy/not-allowed-here, ignored-here) offers
// two quick fixes: remove the line, or move it into the one section that takes it; either leaves
// a file that the linter and the real `haproxy -c` accept without that complaint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction, TextEdit } from 'vscode-languageserver-types';
import { codeActions, validate } from '../../server/src/service/languageService';

const settings = { haproxyVersion: '2.6.12' };
const RULES = ['haproxy/not-allowed-here', 'haproxy/ignored-here'];

function fixesOf(text: string): { doc: TextDocument; actions: CodeAction[] } {
  const doc = TextDocument.create('file:///t/haproxy.cfg', 'haproxy', 1, text);
  const diags = validate(doc, 'haproxy', settings).filter((d) => RULES.includes(String(d.code)));
  assert.equal(diags.length, 1, JSON.stringify(diags));
  const actions = codeActions(doc, 'haproxy', diags[0].range, diags, settings).filter((a) => /^(Remove|Move) /.test(a.title));
  return { doc, actions };
}

const apply = (doc: TextDocument, a: CodeAction) => TextDocument.applyEdits(doc, a.edit!.changes![doc.uri] as TextEdit[]);
const misplaced = (text: string) =>
  validate(TextDocument.create('file:///t/haproxy.cfg', 'haproxy', 2, text), 'haproxy', settings).filter((d) =>
    RULES.includes(String(d.code)),
  );

/** `haproxy -c` of the host's binary on `text`: its exit status and output. */
function haproxyCheck(text: string): { status: number | null; out: string } | undefined {
  if (!existsSync('/usr/sbin/haproxy')) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'pt-sectionfix-'));
  try {
    writeFileSync(join(dir, 'haproxy.cfg'), text);
    const r = spawnSync('/usr/sbin/haproxy', ['-c', '-f', join(dir, 'haproxy.cfg')], { encoding: 'utf8', timeout: 10_000 });
    return { status: r.status, out: `${r.stdout}${r.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const BASE = [
  'global',
  '    maxconn 1000',
  'defaults',
  '    mode http',
  '    timeout connect 5s',
  '    timeout client 30s',
  '    timeout server 30s',
  '    nbthread 2',
  'frontend web',
  '    bind 127.0.0.1:8080',
  '    default_backend app',
  'backend app',
  '    server a 127.0.0.1:8081',
  '',
].join('\n');

test(
  'a global keyword in defaults: remove it, or move it into global',
  { skip: !haproxyCheck('global\n') && !process.env.CI && 'no haproxy' },
  () => {
    assert.notEqual(haproxyCheck(BASE)!.status, 0, 'haproxy -c refuses nbthread in defaults');
    const { doc, actions } = fixesOf(BASE);
    assert.deepEqual(
      actions.map((a) => a.title),
      ["Remove 'nbthread'", "Move 'nbthread' into 'global'"],
    );
    const removed = apply(doc, actions[0]);
    assert.ok(!removed.includes('nbthread'));
    const moved = apply(doc, actions[1]);
    assert.match(moved, /^global\n {4}maxconn 1000\n {4}nbthread 2\ndefaults\n/);
    for (const fixed of [removed, moved]) {
      assert.deepEqual(misplaced(fixed), []);
      assert.equal(haproxyCheck(fixed)!.status, 0, haproxyCheck(fixed)!.out);
    }
  },
);

test('a backend keyword in a frontend with two backends: only remove is offered (which backend is not ours to guess)', () => {
  const text = BASE.replace('    nbthread 2\n', '')
    .replace('    default_backend app\n', '    default_backend app\n    balance roundrobin\n')
    .concat('backend other\n    server b 127.0.0.1:8082\n');
  const { doc, actions } = fixesOf(text);
  assert.deepEqual(
    actions.map((a) => a.title),
    ["Remove 'balance'"],
  );
  assert.deepEqual(misplaced(apply(doc, actions[0])), []);
});
