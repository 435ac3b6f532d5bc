import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expectNoScope, expectScope, findVsCodeLuaGrammar, hasScope, tokenize } from './harness';

const nginx = (text: string) => tokenize('source.nginx', text);

describe('nginx grammar: comments', () => {
  it('scopes a line comment and a comment after a statement', async () => {
    const doc = await nginx('# whole line\nuser www-data; # after\n');
    expectScope(doc, '# whole line', 'comment.line.number-sign.nginx', { exact: true });
    expectScope(doc, '#', 'punctuation.definition.comment.nginx', { occurrence: 0 });
    expectScope(doc, '# after', 'comment.line.number-sign.nginx', { exact: true });
    expectNoScope(doc, 'www-data', 'comment');
  });

  it('does not start a comment at a # inside a word or a string', async () => {
    const doc = await nginx('return 200 a#b;\nadd_header X "x # y";\nset $v a;#c\n');
    expectNoScope(doc, 'a#b', 'comment');
    expectScope(doc, ';', 'punctuation.terminator.nginx', { after: 'a#b' });
    expectNoScope(doc, '# y', 'comment');
    expectScope(doc, '# y', 'string.quoted.double.nginx');
    expectScope(doc, '#c', 'comment.line.number-sign.nginx', { exact: true });
  });
});

describe('nginx grammar: directives and blocks', () => {
  const conf = [
    'worker_processes auto;',
    'events { worker_connections 1024; }',
    'http {',
    "    log_format main '${status} $request';",
    '    upstream app {',
    '        server 127.0.0.1:8080 weight=5;',
    '    }',
    '    server',
    '    {',
    '        limit_except GET { deny all; }',
    '    }',
    '}',
    'stream { }',
  ].join('\n');

  it('scopes directive names as keywords', async () => {
    const doc = await nginx(conf);
    expectScope(doc, 'worker_processes', 'keyword.other.directive.nginx', { exact: true });
    expectScope(doc, 'worker_connections', 'keyword.other.directive.nginx', { exact: true });
    expectScope(doc, 'deny', 'keyword.other.directive.nginx', { exact: true });
  });

  it('marks block directives, including a block opened on the next line', async () => {
    const doc = await nginx(conf);
    for (const name of ['events', 'http', 'upstream', 'limit_except', 'stream']) {
      expectScope(doc, name, 'keyword.other.directive.block.nginx');
    }
    expectScope(doc, 'server', 'keyword.other.directive.block.nginx', { after: '    }\n' });
  });

  it('does not mark a simple directive as a block: upstream server, ${var} in log_format', async () => {
    const doc = await nginx(conf);
    const server = doc.tokensOf('server', 0, 'upstream app {');
    assert.ok(!server.some((t) => hasScope(t, 'keyword.other.directive.block')), doc.describe(server));
    expectScope(doc, 'server', 'keyword.other.directive.nginx', { after: 'upstream app {' });
    const logFormat = doc.tokensOf('log_format');
    assert.ok(!logFormat.some((t) => hasScope(t, 'keyword.other.directive.block')), doc.describe(logFormat));
  });

  it('scopes ; { } punctuation and nests blocks', async () => {
    const doc = await nginx(conf);
    expectScope(doc, ';', 'punctuation.terminator.nginx');
    expectScope(doc, '{', 'punctuation.section.block.begin.nginx');
    expectScope(doc, '}', 'punctuation.section.block.end.nginx');
    expectScope(doc, 'deny', 'meta.block.nginx');
    const deny = doc.tokensOf('deny')[0];
    assert.equal(deny.scopes.filter((s) => s === 'meta.block.nginx').length, 3, doc.describe([deny]));
    const stream = doc.tokensOf('stream', 0, '}\n}\n')[0];
    assert.ok(!stream.scopes.includes('meta.block.nginx'), 'the blocks before stream are closed');
  });

  it('copes with a long line of unclosed `${` (no runaway backtracking in the block look-ahead)', async () => {
    const line = `set $a ${Array.from({ length: 40 }, (_, i) => `\${v${'x'.repeat(20)}${i}`).join('')} "q" $b;`;
    const doc = await nginx(`${line}\n`.repeat(20) + 'http {\n}\n');
    expectScope(doc, 'set', 'keyword.other.directive.nginx', { exact: true });
    expectNoScope(doc, 'set', 'keyword.other.directive.block');
    const http = doc.tokensOf('http {')[0];
    assert.deepEqual(http.scopes, ['source.nginx', 'meta.directive.nginx', 'keyword.other.directive.block.nginx']);
  });

  it('keeps going after `${` that is not a variable (nginx reads it as part of a word)', async () => {
    const doc = await nginx('http {\n  server_name ${url ;\n}\nzz_after;\n');
    const after = doc.tokensOf('zz_after')[0];
    assert.deepEqual(after.scopes, ['source.nginx', 'meta.directive.nginx', 'keyword.other.directive.nginx']);
  });
});

describe('nginx grammar: location', () => {
  const conf = [
    'location = /exact { }',
    'location ^~ /static/ { }',
    'location ~ \\.php$ { }',
    'location ~* \\.(png|jpe?g)$ { }',
    'location ~ "^/a{2}$" { }',
    'location ~^/glued { }',
    'location /prefix { }',
    'location @fallback { }',
  ].join('\n');

  it('scopes the modifiers', async () => {
    const doc = await nginx(conf);
    expectScope(doc, '=', 'keyword.operator.modifier.nginx', { exact: true });
    expectScope(doc, '^~', 'keyword.operator.modifier.nginx', { exact: true });
    expectScope(doc, '~', 'keyword.operator.modifier.nginx', { after: 'static/ { }', exact: true });
    expectScope(doc, '~*', 'keyword.operator.modifier.nginx', { exact: true });
  });

  it('scopes regex locations as string.regexp, exactly', async () => {
    const doc = await nginx(conf);
    expectScope(doc, '\\.php$', 'string.regexp.nginx', { exact: true });
    expectScope(doc, '\\.(png|jpe?g)$', 'string.regexp.nginx', { exact: true });
    expectScope(doc, '"^/a{2}$"', 'string.regexp.nginx', { exact: true });
    expectScope(doc, '^/glued', 'string.regexp.nginx', { exact: true });
  });

  it('scopes prefix and exact paths as paths, not regexes, and named locations', async () => {
    const doc = await nginx(conf);
    expectScope(doc, '/exact', 'string.unquoted.path.nginx', { exact: true });
    expectScope(doc, '/static/', 'string.unquoted.path.nginx', { exact: true });
    expectScope(doc, '/prefix', 'string.unquoted.path.nginx', { exact: true });
    expectNoScope(doc, '/prefix', 'string.regexp');
    expectScope(doc, 'fallback', 'entity.name.function.named-location.nginx');
  });

  it('closes the location after its block (the `{` inside the quoted regex does not open one)', async () => {
    const doc = await nginx(conf + '\nzz_after;');
    const after = doc.tokensOf('zz_after')[0];
    assert.deepEqual(after.scopes, ['source.nginx', 'meta.directive.nginx', 'keyword.other.directive.nginx']);
  });
});

describe('nginx grammar: if conditions', () => {
  const conf = [
    'if ($request_uri ~ ^/(a|b)$) { return 404; }',
    'if ($http_user_agent !~* "bot|crawl") { set $human 1; }',
    'if (!-f $request_filename) { rewrite ^/(.*)$ /index.php?q=$1 last; }',
    'if ($request_method = POST) { return 405; }',
  ].join('\n');

  it('scopes operators', async () => {
    const doc = await nginx(conf);
    expectScope(doc, 'if', 'keyword.control.conditional.nginx', { exact: true });
    expectScope(doc, '~', 'keyword.operator.regexp.nginx', { exact: true });
    expectScope(doc, '!~*', 'keyword.operator.regexp.nginx', { exact: true });
    expectScope(doc, '!-f', 'keyword.operator.comparison.nginx', { exact: true });
    expectScope(doc, '=', 'keyword.operator.comparison.nginx', { after: '$request_method ', exact: true });
  });

  it('scopes the regex up to, but not including, the closing parenthesis', async () => {
    const doc = await nginx(conf);
    expectScope(doc, '^/(a|b)$', 'string.regexp.nginx', { exact: true });
    expectScope(doc, ')', 'punctuation.section.condition.end.nginx', { after: '^/(a|b)$' });
    expectScope(doc, '"bot|crawl"', 'string.regexp.nginx', { exact: true });
  });

  it('ends a condition still missing its ")" at the block brace, as nginx does', async () => {
    const doc = await nginx('location / {\n  if ($a ~ x {\n    return 404;\n  }\n}\nzz_after;\n');
    expectScope(doc, 'return', 'keyword.other.directive.nginx');
    expectNoScope(doc, 'return', 'meta.condition');
    const after = doc.tokensOf('zz_after')[0];
    assert.deepEqual(after.scopes, ['source.nginx', 'meta.directive.nginx', 'keyword.other.directive.nginx']);
  });

  it('scopes variables in the condition and the block after it', async () => {
    const doc = await nginx(conf);
    expectScope(doc, '$request_filename', 'variable.other.nginx', { exact: true });
    expectScope(doc, '$request_uri', 'meta.condition.nginx');
    expectScope(doc, 'return', 'keyword.other.directive.nginx');
    expectScope(doc, 'return', 'meta.block.nginx');
    expectScope(doc, '^/(.*)$', 'string.regexp.nginx', { exact: true });
  });
});

describe('nginx grammar: variables and strings', () => {
  const conf = [
    'set $a $host$request_uri;',
    'set $b ${host}_x;',
    'add_header X-A "h=$host, ${scheme}://x \\" q";',
    "add_header X-B 'it\\'s $remote_addr';",
    'rewrite ^(.*)$ /$1 break;',
  ].join('\n');

  it('scopes $var and ${var}', async () => {
    const doc = await nginx(conf);
    expectScope(doc, '$a', 'variable.other.nginx', { exact: true });
    expectScope(doc, '$host$request_uri', 'variable.other.nginx');
    expectScope(doc, 'host', 'variable.other.nginx', { exact: false, after: 'set $a $' });
    expectScope(doc, '${host}', 'variable.other.nginx', { exact: true });
    expectNoScope(doc, '_x', 'variable');
    expectScope(doc, '$1', 'variable.other.nginx', { after: 'rewrite', exact: true });
  });

  it('scopes variables inside double- and single-quoted strings', async () => {
    const doc = await nginx(conf);
    expectScope(doc, '$host', 'variable.other.nginx', { after: 'X-A' });
    expectScope(doc, '$host', 'string.quoted.double.nginx', { after: 'X-A' });
    expectScope(doc, '${scheme}', 'variable.other.nginx', { exact: true });
    expectScope(doc, '$remote_addr', 'variable.other.nginx', { exact: true });
    expectScope(doc, '$remote_addr', 'string.quoted.single.nginx');
  });

  it('scopes escapes and keeps the string open past an escaped quote', async () => {
    const doc = await nginx(conf);
    expectScope(doc, '\\"', 'constant.character.escape.nginx', { exact: true });
    expectScope(doc, ' q', 'string.quoted.double.nginx');
    expectScope(doc, "\\'", 'constant.character.escape.nginx', { exact: true });
    expectScope(doc, 's ', 'string.quoted.single.nginx', { after: "\\'" });
    expectScope(doc, '"h=$host, ${scheme}://x \\" q"', 'string.quoted.double.nginx', { exact: true });
  });

  it('lets a string span lines', async () => {
    const doc = await nginx("log_format main '$remote_addr '\n    '$status';\nzz_after;");
    expectScope(doc, '$status', 'variable.other.nginx');
    expectScope(doc, "'$status'", 'string.quoted.single.nginx', { exact: true });
    expectScope(doc, 'zz_after', 'keyword.other.directive.nginx');
  });
});

describe('nginx grammar: values', () => {
  const conf = [
    'client_max_body_size 10m;',
    'keepalive_timeout 1h30m;',
    'proxy_read_timeout 500ms;',
    'worker_connections 1024;',
    'gzip on;',
    'sendfile off;',
    'server_name v10m ~^(www\\.)?(?<d>.+)$;',
    'listen 127.0.0.1:8080 default_server;',
    'allow 10.0.0.0/8;',
  ].join('\n');

  it('scopes numbers with size and time units', async () => {
    const doc = await nginx(conf);
    expectScope(doc, '10m', 'constant.numeric.nginx', { exact: true });
    expectScope(doc, 'm', 'keyword.other.unit.nginx', { after: '10' });
    expectScope(doc, '1h30m', 'constant.numeric.nginx', { exact: true });
    expectScope(doc, '500ms', 'constant.numeric.nginx', { exact: true });
    expectScope(doc, 'ms', 'keyword.other.unit.nginx', { after: '500' });
    expectScope(doc, '1024', 'constant.numeric.nginx', { exact: true });
    expectNoScope(doc, 'v10m', 'constant.numeric');
  });

  it('scopes on/off, server_name regexes and addresses', async () => {
    const doc = await nginx(conf);
    expectScope(doc, 'on', 'constant.language.boolean.nginx', { after: 'gzip ', exact: true });
    expectScope(doc, 'off', 'constant.language.boolean.nginx', { after: 'sendfile ', exact: true });
    expectScope(doc, '^(www\\.)?(?<d>.+)$', 'string.regexp.nginx', { exact: true });
    expectScope(doc, '127.0.0.1', 'constant.numeric.ip-address.nginx', { exact: true });
    expectScope(doc, '8080', 'constant.numeric.port.nginx', { exact: true });
    expectScope(doc, '10.0.0.0', 'constant.numeric.ip-address.nginx', { exact: true });
  });
});

describe('nginx grammar: Lua blocks', () => {
  const conf = [
    'location /lua {',
    '    content_by_lua_block {',
    '        local t = { a = { 1, 2 }, b = "}" }',
    "        local s = '{' .. [[ } ]] -- } not the end",
    '        --[[ a } block',
    '             comment } ]]',
    '        if t then ngx.say(#t) end',
    '    }',
    '    add_header X-After 1;',
    '}',
    'set_by_lua_block $res { return 32 + math.cos(32) }',
    'zz_after;',
  ].join('\n');

  it('marks the body as embedded Lua and hands it to source.lua', async () => {
    const doc = await nginx(conf);
    expectScope(doc, 'local t', 'meta.embedded.block.lua');
    expectScope(doc, 'local', 'keyword.control.lua', { exact: true });
    expectScope(doc, 'then', 'keyword.control.lua', { exact: true });
    expectScope(doc, 'content_by_lua_block', 'keyword.other.directive.block.nginx', { exact: true });
    expectNoScope(doc, 'content_by_lua_block', 'meta.embedded.block.lua');
  });

  it('tracks Lua tables, strings and comments so that their braces do not end the block', async () => {
    const doc = await nginx(conf);
    expectScope(doc, '"}"', 'string.quoted.double.lua', { exact: true });
    expectScope(doc, "'{'", 'string.quoted.single.lua', { exact: true });
    expectScope(doc, '[[ } ]]', 'string.quoted.other.multiline.lua', { exact: true });
    expectScope(doc, '-- } not the end', 'comment.line.double-dash.lua', { exact: true });
    expectScope(doc, 'comment } ]]', 'comment.block.lua');
    expectScope(doc, '#t', 'meta.embedded.block.lua');
    expectNoScope(doc, '#t', 'comment');
  });

  it('ends the Lua block at its own closing brace, after nested Lua braces', async () => {
    const doc = await nginx(conf);
    expectScope(doc, '}', 'punctuation.section.embedded.end.nginx', { after: 'ngx.say(#t) end\n' });
    expectNoScope(doc, '}', 'meta.embedded.block.lua', { after: 'ngx.say(#t) end\n' });
    expectScope(doc, 'add_header', 'keyword.other.directive.nginx', { exact: true });
    expectNoScope(doc, 'add_header', 'meta.embedded.block.lua');
    expectScope(doc, 'add_header', 'meta.directive.location.nginx');
  });

  const realLua = findVsCodeLuaGrammar();
  it('works with the Lua grammar VS Code ships', { skip: !realLua && 'no VS Code Lua grammar on this machine' }, async () => {
    const doc = await tokenize('source.nginx', conf, realLua);
    expectScope(doc, 'local', 'keyword', { after: 'content_by_lua_block {' });
    expectScope(doc, 'local t', 'meta.embedded.block.lua');
    expectScope(doc, '"}"', 'string.quoted.double.lua');
    expectScope(doc, '}', 'punctuation.section.embedded.end.nginx', { after: 'ngx.say(#t) end\n' });
    expectScope(doc, 'add_header', 'keyword.other.directive.nginx', { exact: true });
    expectNoScope(doc, 'add_header', 'meta.embedded.block.lua');
    const after = doc.tokensOf('zz_after')[0];
    assert.deepEqual(after.scopes, ['source.nginx', 'meta.directive.nginx', 'keyword.other.directive.nginx']);
  });

  it('reads a quoted directive name, as nginx does', async () => {
    const doc = await nginx('"rewrite_by_lua_block" { a = { 1 } }\n\'worker_processes\' 2;\n');
    expectScope(doc, 'rewrite_by_lua_block', 'keyword.other.directive.block.nginx', { exact: true });
    expectScope(doc, 'a = ', 'meta.embedded.block.lua');
    expectScope(doc, '}', 'punctuation.section.embedded.end.nginx', { after: '{ 1 } ' });
    expectScope(doc, 'worker_processes', 'keyword.other.directive.nginx', { exact: true });
    expectScope(doc, '2', 'constant.numeric.nginx');
  });

  it('handles a one-line block with an argument before it', async () => {
    const doc = await nginx(conf);
    expectScope(doc, '$res', 'variable.other.nginx', { exact: true });
    expectScope(doc, 'return 32', 'meta.embedded.block.lua');
    expectScope(doc, 'return', 'keyword.control.lua', { after: '$res' });
    const after = doc.tokensOf('zz_after')[0];
    assert.deepEqual(after.scopes, ['source.nginx', 'meta.directive.nginx', 'keyword.other.directive.nginx']);
  });
});

describe('nginx grammar: map, geo, split_clients and types bodies', () => {
  const conf = [
    'map $http_host $backend {',
    '    hostnames;',
    '    default        web;',
    '    ~^api\\.(?<sub>.+)$ api_$sub;',
    '    "~*^WWW"       www;',
    '    "quoted key"   "v";',
    '    example.com    $upstream_x;',
    '}',
    'geo $remote_addr $geo {',
    '    default 0;',
    '    10.0.0.0/8 1;',
    '}',
    'split_clients "${remote_addr}AAA" $variant {',
    '    50% .one;',
    '    *   "";',
    '}',
    'types {',
    '    text/html html htm;',
    '}',
    'zz_after;',
  ].join('\n');

  it('scopes map keys: special words, regexes, quoted and plain keys', async () => {
    const doc = await nginx(conf);
    expectScope(doc, 'map', 'keyword.other.directive.block.nginx', { exact: true });
    expectScope(doc, 'hostnames', 'keyword.other.table.nginx', { exact: true });
    expectScope(doc, 'default', 'keyword.other.table.nginx', { exact: true });
    expectScope(doc, '~^api\\.(?<sub>.+)$', 'string.regexp.nginx', { exact: true });
    expectScope(doc, '"~*^WWW"', 'string.regexp.nginx', { exact: true });
    expectScope(doc, '"quoted key"', 'string.quoted.key.nginx', { exact: true });
    expectScope(doc, 'example.com', 'string.unquoted.key.nginx', { exact: true });
  });

  it('scopes map values, source and target variables', async () => {
    const doc = await nginx(conf);
    expectScope(doc, '$http_host', 'variable.other.nginx', { exact: true });
    expectScope(doc, '$backend', 'variable.other.nginx', { exact: true });
    expectScope(doc, '$sub', 'variable.other.nginx', { exact: true });
    expectScope(doc, '$upstream_x', 'variable.other.nginx', { exact: true });
    expectNoScope(doc, 'web', 'keyword');
    expectScope(doc, 'web', 'meta.table.entry.nginx');
  });

  it('reads a charset_map body as a table of codes, not as directives', async () => {
    const doc = await nginx('charset_map koi8-r utf-8 {\n    C0 D18E;\n    A4 E28093;\n}\nzz_after;\n');
    expectScope(doc, 'C0', 'string.unquoted.key.nginx', { exact: true });
    expectNoScope(doc, 'C0', 'keyword');
    expectNoScope(doc, 'A4', 'keyword');
    expectScope(doc, 'zz_after', 'keyword.other.directive.nginx');
  });

  it('scopes geo, split_clients and types bodies as tables', async () => {
    const doc = await nginx(conf);
    expectScope(doc, '10.0.0.0/8', 'string.unquoted.key.nginx', { exact: true });
    expectScope(doc, '${remote_addr}', 'variable.other.nginx', { exact: true });
    expectScope(doc, '50%', 'string.unquoted.key.nginx', { exact: true });
    expectScope(doc, 'text/html', 'string.unquoted.key.nginx', { exact: true });
    expectScope(doc, 'htm', 'meta.block.table.nginx', { after: 'html ' });
    expectNoScope(doc, 'text/html', 'keyword');
    const after = doc.tokensOf('zz_after')[0];
    assert.deepEqual(after.scopes, ['source.nginx', 'meta.directive.nginx', 'keyword.other.directive.nginx']);
  });
});
