// Signature help: the syntax strings of the directive/keyword on the cursor's statement, one
// signature per syntax, the argument being typed highlighted as its parameter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import * as service from '../../server/src/service/languageService';
import type { LanguageId, ServiceSettings } from '../../server/src/core/types';

/** The active signature's label and its active parameter's text; `|` marks the cursor. */
function sig(lang: LanguageId, marked: string, settings: ServiceSettings = {}): { label: string; param: string; count: number } | null {
  const i = marked.indexOf('|');
  const text = marked.slice(0, i) + marked.slice(i + 1);
  const doc = TextDocument.create(`file:///t.${lang}`, lang, 1, text);
  const r = service.signatureHelp(doc, lang, doc.positionAt(i), settings);
  if (!r) return null;
  const s = r.signatures[r.activeSignature ?? 0];
  const p = s.parameters![r.activeParameter ?? 0];
  const label = p.label as [number, number];
  return { label: s.label, param: s.label.slice(label[0], label[1]), count: r.signatures.length };
}

test('nginx: positional arguments', () => {
  assert.deepEqual(sig('nginx', 'http { server { location / { proxy_set_header |; } } }'), {
    label: 'proxy_set_header field value;',
    param: 'field',
    count: 1,
  });
  assert.equal(sig('nginx', 'http { server { location / { proxy_set_header Host |; } } }')?.param, 'value');
  assert.equal(sig('nginx', 'http { server { location / { proxy_set_header X-A 1|; } } }')?.param, 'value');
  assert.equal(sig('nginx', 'http { server { location / { proxy_pass |; } } }')?.param, 'URL');
  assert.equal(sig('nginx', 'http { gzip |; }')?.label, 'gzip on | off;');
});

test('nginx: keyword parameters are found by their name, `...` repeats, the block is not a parameter', () => {
  assert.equal(sig('nginx', 'http { server { listen 80 backlog=|; } }')?.param, '[backlog=number]');
  assert.equal(sig('nginx', 'http { server { listen 80 |; } }')?.param, '[default_server]');
  assert.equal(sig('nginx', 'http { server { listen 127.0.0.1:80 ssl reuseport |; } }')?.param, '[multipath]');
  assert.equal(sig('nginx', 'http { limit_req_zone $a zone=|; }')?.param, 'zone=name:size');
  const loc = sig('nginx', 'http { server { location ~ |/x { } } }');
  assert.equal(loc?.param, 'uri');
  assert.equal(loc?.count, 2);
  assert.equal(sig('nginx', 'http { server { try_files $uri $uri/ |; } }')?.param, 'uri');
});

test('nginx: the syntax the arguments fit (listen unix:)', () => {
  const s = sig('nginx', 'http { server { listen unix:/run/x.sock ssl |; } }');
  assert.match(s!.label, /^listen unix:path /);
  assert.equal(s!.count, 3);
});

test('nginx: nothing on the name, after the `;`, in comments, for unknown directives', () => {
  assert.equal(sig('nginx', 'http { gz|ip on; }'), null);
  assert.equal(sig('nginx', 'http { gzip on; | }'), null);
  assert.equal(sig('nginx', 'http { # gzip |\n}'), null);
  assert.equal(sig('nginx', 'http { frobnicate |; }'), null);
});

test('haproxy: keyword families, literal forms, options after the address', () => {
  assert.deepEqual(sig('haproxy', 'backend b\n  balance |'), {
    label: 'balance <algorithm> [ <arguments> ]',
    param: '<algorithm>',
    count: 2,
  });
  assert.deepEqual(sig('haproxy', 'backend b\n  balance url_param |'), {
    label: 'balance url_param <param> [check_post]',
    param: '<param>',
    count: 2,
  });
  assert.equal(sig('haproxy', 'backend b\n  timeout server |')?.param, '<timeout>');
  assert.equal(sig('haproxy', 'backend b\n  server s1 |')?.param, '<address>[:[port]]');
  assert.equal(sig('haproxy', 'backend b\n  server s1 127.0.0.1:80 check |')?.param, '[param*]');
  assert.equal(sig('haproxy', 'frontend f\n  bind :80 |')?.param, '[param*]');
  assert.equal(sig('haproxy', 'backend b\n  option httpchk GET |')?.label, 'option httpchk <method> <uri>');
  assert.equal(sig('haproxy', 'backend b\n  option httpchk GET |')?.param, '<uri>');
  assert.equal(sig('haproxy', 'frontend f\n  log 127.0.0.1:514 len 1024 format |')?.param, '[format <format>]');
  assert.equal(sig('haproxy', 'global\n  maxconn |')?.label, 'maxconn <number>');
  assert.equal(sig('haproxy', 'backend b\n  stats auth |')?.param, '<user>:<passwd>');
});

test('haproxy: nothing on the keyword, in a condition, on section headers', () => {
  assert.equal(sig('haproxy', 'backend b\n  bal|ance roundrobin'), null);
  assert.equal(sig('haproxy', 'frontend f\n  use_backend b if |'), null);
  assert.equal(sig('haproxy', 'frontend |f\n'), null);
});

test("haproxy: past a rule action, the action's own syntax (from the actions reference)", () => {
  assert.deepEqual(sig('haproxy', 'frontend f\n  http-request set-header |'), {
    label: 'http-request set-header <name> <fmt> [ { if | unless } <condition> ]',
    param: '<name>',
    count: 1,
  });
  assert.equal(sig('haproxy', 'frontend f\n  http-request set-header X-A |')?.param, '<fmt>');
  assert.equal(sig('haproxy', 'frontend f\n  http-request return status 200 content-type |')?.param, '[ content-type <type> ]');
  assert.equal(sig('haproxy', 'frontend f\n  http-request deny |')?.param, '[ { status | deny_status } <code> ]');
  assert.equal(sig('haproxy', 'frontend f\n  http-request set-var(txn.a) |')?.param, '<expr>');
  assert.equal(sig('haproxy', 'frontend f\n  tcp-request content track-sc0 |')?.param, '<key>');
  assert.equal(sig('haproxy', 'frontend f\n  http-request track-sc1 src table |')?.param, '[table <table>]');
  // on the action word itself: the rule keyword's signature
  assert.equal(sig('haproxy', 'frontend f\n  http-request |')?.param, '<action>');
  assert.equal(sig('haproxy', 'frontend f\n  http-request set-header X-A 1 if |'), null);
});
