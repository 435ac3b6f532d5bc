// nginx completion: directives by context (with snippets), flag/enum values, variables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TextEdit } from 'vscode-languageserver-types';
import { nginxModule } from '../../server/src/languages/nginx/index';
import type { ServiceSettings } from '../../server/src/core/types';
import { fixture } from './helpers';

function complete(marked: string, settings: ServiceSettings = {}) {
  const f = fixture(marked);
  const list = nginxModule.complete(f.doc, nginxModule.parse(f.text), f.cursor!, settings);
  const labels = list.items.map((i) => i.label);
  const edit = (label: string) => list.items.find((i) => i.label === label)?.textEdit as TextEdit | undefined;
  return { f, list, labels, edit };
}

test('directives valid in a location, none that belong elsewhere', () => {
  const { labels } = complete('events {}\nhttp {\n  server {\n    location / {\n      <|>\n    }\n  }\n}\n');
  for (const n of ['proxy_pass', 'proxy_buffers', 'root', 'try_files', 'location', 'if']) assert.ok(labels.includes(n), n);
  for (const n of ['worker_processes', 'server_name', 'upstream', 'listen', 'http']) assert.ok(!labels.includes(n), n);
});

test('stream server offers stream directives, not http ones', () => {
  const { labels } = complete('stream {\n  server {\n    pro<|>\n  }\n}\n');
  assert.ok(labels.includes('proxy_pass'));
  assert.ok(labels.includes('proxy_timeout'));
  assert.ok(!labels.includes('proxy_buffers'));
  assert.ok(!labels.includes('proxy_set_header'));
});

test('a partly typed name is replaced, with a snippet from the syntax', () => {
  const { f, edit } = complete('http {\n  proxy_buf<|>\n}\n');
  const e = edit('proxy_buffers')!;
  assert.equal(e.newText, 'proxy_buffers ${1:number} ${2:size};');
  assert.equal(f.doc.getText(e.range), 'proxy_buf');
  assert.equal(edit('proxy_buffering')!.newText, 'proxy_buffering ${1|on,off|};');
  assert.equal(edit('proxy_buffer_size')!.newText, 'proxy_buffer_size ${1:size};');
});

test('each directive item carries its one-line description beside the module name', () => {
  const { list } = complete('http {\n  server {\n    location / {\n      <|>\n    }\n  }\n}\n');
  const item = (label: string) => list.items.find((i) => i.label === label)!;
  assert.equal(item('proxy_pass').detail, 'ngx_http_proxy_module');
  assert.match(item('proxy_pass').labelDetails?.description ?? '', /^Sets the protocol and address of a proxied server/);
  for (const i of list.items.filter((x) => x.labelDetails?.description)) {
    const d = i.labelDetails!.description!;
    assert.ok(d.length <= 80 && !/[\n`*]|\]\(/.test(d), `${i.label}: ${d}`);
  }
  assert.ok(list.items.filter((x) => x.labelDetails?.description).length > list.items.length / 2, 'most directives are described');
});

test('Lua directives are offered only where a Lua module may be loaded', () => {
  const body = 'events {}\nhttp {\n  server {\n    location / {\n      <|>\n    }\n  }\n}\n';
  const has = (text: string, settings: ServiceSettings = {}) => complete(text, settings).labels.includes('content_by_lua_block');
  assert.equal(has(body), false, 'a main file that loads no module');
  assert.equal(
    has(`load_module modules/ndk_http_module.so;\nload_module modules/ngx_http_lua_module.so;\n${body}`),
    true,
    'loaded by load_module',
  );
  assert.equal(has(`include /etc/nginx/modules-enabled/*.conf;\n${body}`), true, "Debian's modules-enabled: any may be loaded");
  assert.equal(has('server {\n  location / {\n    <|>\n  }\n}\n'), true, 'a fragment: the including file may load it');
  assert.equal(has(body, { nginxModules: { installed: [], added: ['../ngx_lua-0.10.26'] } }), true, 'compiled in (OpenResty)');
  // a module's own directives are still offered in the main file (proxy_pass is no loadable module's)
  assert.ok(complete(body).labels.includes('proxy_pass'));
});

test('block directives get braces', () => {
  const { edit } = complete('http {\n  <|>\n}\n');
  assert.equal(edit('server')!.newText, 'server {\n\t$0\n}');
  assert.equal(edit('upstream')!.newText, 'upstream ${1:name} {\n\t$0\n}');
});

test('version: directives newer than the target are not offered', () => {
  assert.ok(!complete('http {\n  server {\n    <|>\n  }\n}\n', { nginxVersion: '1.22.1' }).labels.includes('http2'));
  assert.ok(complete('http {\n  server {\n    <|>\n  }\n}\n', { nginxVersion: '1.25.1' }).labels.includes('http2'));
});

test('values of flag and enum directives', () => {
  assert.deepEqual(complete('http {\n  gzip <|>\n}\n').labels.sort(), ['off', 'on']);
  const { labels } = complete('http {\n  ssl_protocols TLSv1.2 <|>;\n}\n');
  assert.ok(labels.includes('TLSv1.3'));
  assert.ok(complete('worker_processes <|>;').labels.includes('auto'));
});

test("variables after $, including the file's own", () => {
  const { f, labels, list } = complete('http {\n  map $uri $my_var { default 1; }\n  server {\n    return 200 "$ho<|>";\n  }\n}\n');
  assert.ok(labels.includes('$host'));
  assert.ok(labels.includes('$my_var'));
  assert.ok(labels.includes('$http_…'));
  const host = list.items.find((i) => i.label === '$host')!.textEdit as TextEdit;
  assert.equal(host.newText, 'host');
  assert.equal(f.doc.getText(host.range), 'ho');
});

test('nothing inside comments, Lua bodies, or map entries', () => {
  assert.deepEqual(complete('# gz<|>\n').labels, []);
  assert.deepEqual(complete('content_by_lua_block { ngx.<|> }').labels, []);
  assert.deepEqual(complete('http { map $a $b { <|> } }').labels, []);
});

test('half-typed input never throws', () => {
  for (const s of ['<|>', '{<|>', 'http { server { location<|>', '"<|>', 'set $<|>']) {
    const r = complete(s);
    assert.ok(Array.isArray(r.list.items));
  }
});

test('each answer has its own items and ranges: a caller changing one does not change the next', () => {
  const text = 'http {\n  server {\n    gz<|>\n  }\n}\n';
  const first = complete(text);
  const gzip = first.list.items.find((i) => i.label === 'gzip')!;
  const snippet = (gzip.textEdit as TextEdit).newText;
  gzip.label = 'changed';
  (gzip.textEdit as TextEdit).newText = 'changed';
  (gzip.data as { directive: string }).directive = 'changed';
  // the same context elsewhere in another file: same items, this answer's range
  const again = complete('http {\n  server {\n    listen 80;\n    g<|>\n  }\n}\n');
  const g = again.list.items.find((i) => i.label === 'gzip')!;
  assert.equal((g.textEdit as TextEdit).newText, snippet);
  assert.equal((g.data as { directive: string }).directive, 'gzip');
  assert.equal(again.f.doc.getText((g.textEdit as TextEdit).range), 'g');
  assert.ok(!again.labels.includes('changed'));
  const vars = complete('http { set $mine 1; server { return 200 $mi<|>; } }');
  const mine = vars.list.items.find((i) => i.label === '$mine')!;
  mine.detail = 'changed';
  const vars2 = complete('http { set $mine 1; server { return 200 $<|>; } }');
  assert.equal(vars2.list.items.find((i) => i.label === '$mine')!.detail, 'defined in this file');
});
