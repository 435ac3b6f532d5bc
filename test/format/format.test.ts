// Formatting: layout rules per language, range formatting, and meaning kept (same parse).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { format, formatEdits, shape } from './helpers';

const r = (l1: number, c1: number, l2: number, c2: number) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

describe('nginx formatting', () => {
  const messy = [
    '',
    'events   {}',
    'http {',
    'server   {',
    '  listen    80 ;   # the port',
    '',
    '',
    '',
    '        location / {    proxy_pass   http://app;  }',
    "   log_format main '$remote_addr  -  $request'",
    '                   "$status";',
    '}',
    '}',
    '',
  ].join('\n');

  it('indents by nesting, one space between words, keeps quotes, comments and one blank line', () => {
    const out = format('nginx', messy);
    assert.equal(
      out,
      [
        'events {}',
        'http {',
        '    server {',
        '        listen 80; # the port',
        '',
        '        location / {',
        '            proxy_pass http://app;',
        '        }',
        "        log_format main '$remote_addr  -  $request'",
        '                        "$status";',
        '    }',
        '}',
        '',
      ].join('\n'),
    );
    assert.equal(shape('nginx', out), shape('nginx', messy));
    assert.equal(format('nginx', out), out, 'idempotent');
  });

  it('keeps a continuation line aligned under an argument it was aligned under; any other gets one more level', () => {
    const text = [
      'http {',
      "  log_format main  '$remote_addr $status '",
      "                   'rt=$request_time';",
      "  log_format short '$remote_addr'",
      "      '$status';",
      '}',
      '',
    ].join('\n');
    const out = format('nginx', text);
    assert.equal(
      out,
      [
        'http {',
        "    log_format main '$remote_addr $status '",
        "                    'rt=$request_time';",
        "    log_format short '$remote_addr'",
        "        '$status';",
        '}',
        '',
      ].join('\n'),
    );
    assert.equal(format('nginx', out), out, 'idempotent');
    assert.equal(
      format('nginx', out, undefined, { tabSize: 4, insertSpaces: false }).split('\n')[2],
      "\t                'rt=$request_time';",
    );
  });

  it('uses tabs when asked', () => {
    assert.equal(
      format('nginx', 'http {\nserver {\nlisten 80;\n}\n}\n', undefined, { tabSize: 4, insertSpaces: false }),
      'http {\n\tserver {\n\t\tlisten 80;\n\t}\n}\n',
    );
  });

  it('keeps a Lua body byte for byte and map entries as written', () => {
    const text =
      'http {\n  content_by_lua_block {\n   local a  =  "x"   -- c\n      ngx.say(a)\n  }\nmap $host   $x {\n  default   0;\n  ~^a\\ b   "1  2";\n}\n}\n';
    const out = format('nginx', text);
    assert.ok(out.includes('content_by_lua_block {\n   local a  =  "x"   -- c\n      ngx.say(a)\n  }'), out);
    assert.ok(out.includes('    map $host $x {\n        default 0;\n        ~^a\\ b "1  2";\n    }'), out);
    assert.equal(shape('nginx', out), shape('nginx', text));
  });

  it('leaves a file with syntax errors alone', () => {
    assert.deepEqual(formatEdits('nginx', 'http {\n  server {\n listen 80;\n').edits, []);
  });

  it('keeps CRLF line ends', () => {
    assert.equal(format('nginx', 'http {\r\nserver_tokens off;\r\n}\r\n'), 'http {\r\n    server_tokens off;\r\n}\r\n');
  });

  it('range formatting touches only the statements in the range', () => {
    const text = 'http {\nserver {\n  listen   80;\n      root   /a;\n  index  i;\n}\n}\n';
    // line 3 ("      root   /a;") only
    const out = format('nginx', text, r(3, 2, 3, 5));
    assert.equal(out, 'http {\nserver {\n  listen   80;\n        root /a;\n  index  i;\n}\n}\n');
    // a range inside a block head grows to the whole head, not the body
    const out2 = format('nginx', text, r(1, 0, 1, 3));
    assert.equal(out2, 'http {\n    server {\n  listen   80;\n      root   /a;\n  index  i;\n}\n}\n');
    // the whole text: the same as document formatting
    assert.equal(format('nginx', text, r(0, 0, 7, 0)), format('nginx', text));
  });

  it('range formatting of a statement sharing a line formats the whole line', () => {
    const text = 'http {\n  a  1;  b   2;\n}\n';
    assert.equal(format('nginx', text, r(1, 9, 1, 10)), 'http {\n    a 1;\n    b 2;\n}\n');
  });
});

describe('HAProxy formatting', () => {
  const messy = [
    '',
    '# global settings',
    '  global',
    'maxconn    100   # limit',
    '',
    '',
    '   # the frontend',
    '   frontend   web',
    '        bind :80',
    "  http-request set-header X-A  'a  b'   if  { path_beg /x }",
    '\tdefault_backend    app',
    '',
    '',
    '',
  ].join('\n');

  it('puts headers at column 0, statements one level in, one space between words', () => {
    const out = format('haproxy', messy);
    assert.equal(
      out,
      [
        '# global settings',
        'global',
        '    maxconn 100 # limit',
        '',
        '# the frontend',
        'frontend web',
        '    bind :80',
        "    http-request set-header X-A 'a  b' if { path_beg /x }",
        '    default_backend app',
        '',
      ].join('\n'),
    );
    assert.equal(shape('haproxy', out), shape('haproxy', messy));
    assert.equal(format('haproxy', out), out);
  });

  it('keeps escaped blanks inside a word and a line with an open quote as is', () => {
    const text = 'defaults\n  log-format   %ci\\ %cp    "x"\n  errorfile 503 "/a b\n';
    const out = format('haproxy', text);
    assert.equal(out, 'defaults\n    log-format %ci\\ %cp "x"\n  errorfile 503 "/a b\n');
  });

  it('range formatting changes only the lines of the range', () => {
    const text = 'backend b\n  balance   roundrobin\n  server  s1 127.0.0.1:80\n';
    assert.equal(format('haproxy', text, r(2, 0, 2, 3)), 'backend b\n  balance   roundrobin\n    server s1 127.0.0.1:80\n');
  });
});
