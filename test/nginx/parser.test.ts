// The nginx parser: nginx's tokenization rules, offsets, every construct, error recovery.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseNginx } from '../../server/src/languages/nginx/parser';
import { blockContext, findNodeAt, variablesIn, walk, type Directive } from '../../server/src/languages/nginx/ast';
import { fixture } from './helpers';

function flat(text: string): { path: string; name: string; args: string[] }[] {
  const out: { path: string; name: string; args: string[] }[] = [];
  walk(parseNginx(text), (d, anc) => {
    out.push({ path: anc.map((a) => a.name).join('/'), name: d.name, args: d.args.map((a) => a.value) });
  });
  return out;
}

test('directives, blocks and precise offsets', () => {
  const f = fixture('<|http|> {\n  server {\n    <|listen|> <|127.0.0.1:8080|>;\n  }\n}\n');
  const ast = parseNginx(f.text);
  assert.deepEqual(ast.errors, []);
  const http = ast.directives[0];
  assert.equal(http.name, 'http');
  assert.deepEqual([http.nameStart, http.nameEnd], [f.ranges[0].start, f.ranges[0].end]);
  assert.equal(http.block?.start, f.text.indexOf('{'));
  assert.equal(http.block?.closeStart, f.text.lastIndexOf('}'));
  assert.equal(http.end, f.text.lastIndexOf('}') + 1);
  const listen = http.block!.children[0].block!.children[0];
  assert.deepEqual([listen.nameStart, listen.nameEnd], [f.ranges[1].start, f.ranges[1].end]);
  assert.deepEqual([listen.args[0].start, listen.args[0].end], [f.ranges[2].start, f.ranges[2].end]);
  assert.equal(listen.semicolon, f.ranges[2].end);
  assert.equal(listen.terminated, true);
});

test('quoted words: both quotes, escapes, raw text and value', () => {
  const ast = parseNginx(`add_header X-A "a \\"b\\" c" 'it\\'s';`);
  const [name, v1, v2] = ast.directives[0].args;
  assert.equal(name.quote, 'none');
  assert.equal(v1.quote, 'double');
  assert.equal(v1.raw, '"a \\"b\\" c"');
  assert.equal(v1.value, 'a "b" c');
  assert.equal(v2.quote, 'single');
  assert.equal(v2.value, "it's");
  assert.deepEqual(ast.errors, []);
});

test('nginx word rules: # inside a word, quotes inside a word, ${var}, } inside a word', () => {
  assert.deepEqual(flat('return 200 a#b;'), [{ path: '', name: 'return', args: ['200', 'a#b'] }]);
  assert.deepEqual(flat('set $x a"b;'), [{ path: '', name: 'set', args: ['$x', 'a"b'] }]);
  assert.deepEqual(flat('set $x ${host}z;'), [{ path: '', name: 'set', args: ['$x', '${host}z'] }]);
  const ast = parseNginx('return 200 # comment here\n  ok;');
  assert.deepEqual(
    ast.directives[0].args.map((a) => a.value),
    ['200', 'ok'],
  );
  assert.equal(ast.comments[0].text, ' comment here');
  assert.equal(ast.comments[0].start, 11);
});

test('comments at every depth, with offsets', () => {
  const text = '# top\nhttp { # in http\n  gzip on; # after\n}\n';
  const ast = parseNginx(text);
  assert.deepEqual(
    ast.comments.map((c) => [c.text, text.slice(c.start, c.end)]),
    [
      [' top', '# top'],
      [' in http', '# in http'],
      [' after', '# after'],
    ],
  );
});

test('if conditions and regex locations are plain words', () => {
  const text = 'location ~ ^/(a|b)\\.php$ { if ($request_method = POST) { return 405; } }';
  assert.deepEqual(flat(text), [
    { path: '', name: 'location', args: ['~', '^/(a|b)\\.php$'] },
    { path: 'location', name: 'if', args: ['($request_method', '=', 'POST)'] },
    { path: 'location/if', name: 'return', args: ['405'] },
  ]);
  assert.deepEqual(flat('location ~* "\\.(gif|jpg)$" {}')[0].args, ['~*', '\\.(gif|jpg)$']);
});

test('*_by_lua_block bodies are raw: Lua braces, strings and comments do not confuse the parser', () => {
  const text = 'location / {\n  content_by_lua_block {\n    local t = { a = "}" } -- }\n    ngx.say([[ { ]])\n  }\n  gzip on;\n}\n';
  const ast = parseNginx(text);
  assert.deepEqual(ast.errors, []);
  const loc = ast.directives[0];
  const lua = loc.block!.children[0];
  assert.equal(lua.name, 'content_by_lua_block');
  assert.ok(lua.rawBody);
  assert.equal(text.slice(lua.rawBody!.start, lua.rawBody!.end), '\n    local t = { a = "}" } -- }\n    ngx.say([[ { ]])\n  ');
  assert.deepEqual(lua.block!.children, []);
  assert.equal(loc.block!.children[1].name, 'gzip');
});

test('include, map/geo/types entries are marked as entries', () => {
  const ast = parseNginx(
    'http { include mime.types; map $uri $x { default 0; ~^/a 1; } types { text/html html; } geo $g { 10.0.0.0/8 1; } }',
  );
  const http = ast.directives[0].block!.children;
  assert.equal(http[0].name, 'include');
  assert.equal(http[0].entry, false);
  assert.deepEqual(
    http[1].block!.children.map((d) => [d.name, d.entry]),
    [
      ['default', true],
      ['~^/a', true],
    ],
  );
  assert.equal(http[2].block!.children[0].entry, true);
  assert.equal(http[3].block!.children[0].entry, true);
});

test('missing ";" before "}" is reported at the "}" (like nginx), parsing goes on', () => {
  const f = fixture('http {\n  server {\n    listen 80\n  <|}|>\n  gzip on;\n}\n');
  const ast = parseNginx(f.text);
  assert.equal(ast.errors.length, 1);
  assert.equal(ast.errors[0].message, 'unexpected "}"');
  assert.deepEqual([ast.errors[0].start, ast.errors[0].end], [f.ranges[0].start, f.ranges[0].end]);
  const listen = ast.directives[0].block!.children[0].block!.children[0];
  assert.equal(listen.terminated, false);
  assert.deepEqual(
    flat(f.text).map((d) => d.name),
    ['http', 'server', 'listen', 'gzip'],
  );
});

test('missing "}" at the end of the file', () => {
  const text = 'http {\n  server {\n    listen 80;\n';
  const ast = parseNginx(text);
  assert.deepEqual(
    ast.errors.map((e) => [e.message, e.start]),
    [
      ['unexpected end of file, expecting "}"', text.length],
      ['unexpected end of file, expecting "}"', text.length],
    ],
  );
  assert.equal(ast.directives[0].block!.closed, false);
  assert.equal(ast.directives[0].block!.children[0].block!.children[0].name, 'listen');
});

test('extra "}" is reported and skipped; later directives still parse', () => {
  const f = fixture('events {}\n<|}|>\nhttp { gzip on; }\n');
  const ast = parseNginx(f.text);
  assert.deepEqual(
    ast.errors.map((e) => [e.message, e.start]),
    [['unexpected "}"', f.ranges[0].start]],
  );
  assert.deepEqual(
    ast.directives.map((d) => d.name),
    ['events', 'http'],
  );
});

test('stray ";" and "{", last statement without ";"', () => {
  const ast = parseNginx('; gzip on;\n{ sendfile on; }\nworker_processes 1');
  assert.deepEqual(
    ast.errors.map((e) => e.message),
    ['unexpected ";"', 'unexpected "{"', 'unexpected end of file, expecting ";" or "}"'],
  );
  assert.deepEqual(
    ast.directives.map((d) => d.name),
    ['gzip', 'sendfile', 'worker_processes'],
  );
});

test('unterminated quote: reported at the quote and, like nginx, at the end of the file; the word is cut at the line end', () => {
  const f = fixture('http {\n  add_header X <|"|>abc;\n  gzip on;\n}\n');
  const ast = parseNginx(f.text);
  assert.deepEqual(
    ast.errors.map((e) => [e.kind, e.start]),
    [
      ['unterminated-quote', f.ranges[0].start],
      ['eof', f.text.length],
    ],
  );
  assert.equal(ast.errors[1].message, 'unexpected end of file, expecting ";" or "}"');
  const add = ast.directives[0].block!.children[0];
  assert.equal(add.args[1].closed, false);
  assert.equal(add.args[1].value, 'abc;');
});

test('a quoted word must be followed by a separator (nginx: unexpected character)', () => {
  const f = fixture('return 200 "a"<|b|>;');
  const ast = parseNginx(f.text);
  assert.deepEqual(
    ast.errors.map((e) => [e.message, e.start]),
    [['unexpected "b"', f.ranges[0].start]],
  );
  assert.deepEqual(parseNginx('if ($a = "b") { return 404; }').errors, []);
});

test('never throws on hostile input', () => {
  for (const s of [
    '',
    '{',
    '}',
    '"',
    "'",
    '\\',
    '${',
    'a {{{{',
    '}}}}',
    'content_by_lua_block {',
    'x "\\',
    '#',
    '\u0000\uffff',
    'a;'.repeat(1000),
  ]) {
    const ast = parseNginx(s);
    assert.equal(typeof ast.errors.length, 'number');
  }
});

test('findNodeAt: directive, word, argument index, block chain, comments, raw bodies', () => {
  const f = fixture('http {\n  server {\n    proxy_set_header Ho<|>st $host;\n  }\n}\n');
  const ast = parseNginx(f.text);
  const at = findNodeAt(ast, f.cursorOffset!);
  assert.deepEqual(
    at.ancestors.map((a) => a.name),
    ['http', 'server'],
  );
  assert.equal(at.directive?.name, 'proxy_set_header');
  assert.equal(at.word?.value, 'Host');
  assert.equal(at.argIndex, 0);
  const name = findNodeAt(ast, f.text.indexOf('proxy_set_header') + 3);
  assert.equal(name.argIndex, -1);
  const blank = findNodeAt(ast, f.text.indexOf('server {') + 9);
  assert.deepEqual(
    blank.ancestors.map((a) => a.name),
    ['http', 'server'],
  );
  assert.equal(blank.directive, undefined);
  const c = parseNginx('# hello\ngzip on;');
  assert.equal(findNodeAt(c, 3).comment?.text, ' hello');
  const lua = parseNginx('content_by_lua_block { ngx.say(1) }');
  assert.equal(findNodeAt(lua, 25).inRawBody, true);
});

test('blockContext names nginx contexts, telling stream from http', () => {
  const ctx = (names: string[], start?: string) =>
    blockContext(
      names.map((name) => ({ name }) as Directive),
      start,
    );
  assert.equal(ctx([]), 'main');
  assert.equal(ctx(['http', 'server', 'location']), 'location');
  assert.equal(ctx(['http', 'server', 'if']), 'if in server');
  assert.equal(ctx(['http', 'server', 'location', 'if']), 'if in location');
  assert.equal(ctx(['http', 'upstream']), 'upstream');
  assert.equal(ctx(['stream', 'server']), 'stream/server');
  assert.equal(ctx(['stream', 'upstream']), 'stream/upstream');
  assert.equal(ctx(['mail', 'server']), 'mail/server');
  assert.equal(ctx(['http', 'map']), 'map');
  assert.equal(ctx(['location'], 'server'), 'location');
  assert.equal(ctx(['http', 'rtmp']), 'block:rtmp');
});

test('variablesIn: $name, ${name}, captures, escapes, regex dollars', () => {
  const ast = parseNginx('return 200 "${host}x $uri$1 \\$no a$";');
  const w = ast.directives[0].args[1];
  assert.deepEqual(
    variablesIn(w).map((v) => [v.name, ast.text.slice(v.start, v.end), v.braced]),
    [
      ['host', '${host}', true],
      ['uri', '$uri', false],
      ['1', '$1', false],
    ],
  );
});
