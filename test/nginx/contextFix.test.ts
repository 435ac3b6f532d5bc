// A directive in the wrong block (nginx/not-allowed-here) offers two quick fixes: remove it, or
// move it into a block of the file where nginx allows it; either leaves a file without the error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction, TextEdit } from 'vscode-languageserver-types';
import { codeActions, validate } from '../../server/src/service/languageService';

const settings = { nginxVersion: '1.22.1' };

function fixesOf(text: string): { doc: TextDocument; actions: CodeAction[] } {
  const doc = TextDocument.create('file:///t/nginx.conf', 'nginx', 1, text);
  const diags = validate(doc, 'nginx', settings).filter((d) => d.code === 'nginx/not-allowed-here');
  assert.equal(diags.length, 1, JSON.stringify(diags));
  const actions = codeActions(doc, 'nginx', diags[0].range, diags, settings).filter((a) => /^(Remove|Move) /.test(a.title));
  return { doc, actions };
}

const apply = (doc: TextDocument, a: CodeAction) => TextDocument.applyEdits(doc, a.edit!.changes![doc.uri] as TextEdit[]);
const wrongContext = (text: string) =>
  validate(TextDocument.create('file:///t/nginx.conf', 'nginx', 2, text), 'nginx', settings).filter(
    (d) => d.code === 'nginx/not-allowed-here',
  );

test('worker_connections inside http: remove it, or move it into events', () => {
  const text = 'events {}\nhttp {\n    worker_connections 1024;\n    server {\n        listen 80;\n    }\n}\n';
  const { doc, actions } = fixesOf(text);
  assert.deepEqual(
    actions.map((a) => a.title),
    ['Remove "worker_connections" (not allowed in http)', 'Move "worker_connections" into the events block'],
  );
  assert.equal(apply(doc, actions[0]), 'events {}\nhttp {\n    server {\n        listen 80;\n    }\n}\n');
  const moved = apply(doc, actions[1]);
  assert.equal(moved, 'events {\n    worker_connections 1024;\n}\nhttp {\n    server {\n        listen 80;\n    }\n}\n');
  assert.deepEqual(wrongContext(moved), []);
});

test('a server directive in a location moves to the enclosing kind of block, and only remove is offered without one', () => {
  const text = 'events {}\nhttp {\n    server {\n        listen 80;\n        location / {\n            listen 81;\n        }\n    }\n}\n';
  const { doc, actions } = fixesOf(text);
  assert.equal(actions.length, 2, actions.map((a) => a.title).join(' | '));
  const moved = apply(doc, actions[1]);
  assert.deepEqual(wrongContext(moved), []);
  assert.match(moved, /server \{\n {8}listen 81;\n {8}listen 80;/);
  // no block of the file allows it: only the removal
  const alone = fixesOf('events {}\nhttp {\n    proxy_pass http://127.0.0.1:1980;\n}\n');
  assert.deepEqual(
    alone.actions.map((a) => a.title),
    ['Remove "proxy_pass" (not allowed in http)'],
  );
});
