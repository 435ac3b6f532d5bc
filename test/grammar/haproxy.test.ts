import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expectNoScope, expectScope, tokenize } from './harness';

const haproxy = (text: string) => tokenize('source.haproxy', text);

describe('HAProxy grammar: sections', () => {
  const named = [
    'frontend',
    'backend',
    'listen',
    'resolvers',
    'peers',
    'userlist',
    'mailers',
    'program',
    'http-errors',
    'ring',
    'cache',
    'log-forward',
    'crt-store',
  ];

  it('scopes every section keyword and the section name', async () => {
    const doc = await haproxy(['global', ...named.map((s) => `${s} my_${s.replace('-', '_')}`)].join('\n'));
    expectScope(doc, 'global', 'storage.type.section.haproxy', { exact: true });
    for (const s of named) {
      expectScope(doc, s, 'storage.type.section.haproxy', { after: '\n', exact: true });
      expectScope(doc, `my_${s.replace('-', '_')}`, 'entity.name.section.haproxy', { exact: true });
    }
  });

  it('scopes defaults with a name and `from`, and the address of an old-style listen', async () => {
    const doc = await haproxy('defaults tcp_base from common\nlisten stats 127.0.0.1:8404\n');
    expectScope(doc, 'defaults', 'storage.type.section.haproxy', { exact: true });
    expectScope(doc, 'tcp_base', 'entity.name.section.haproxy', { exact: true });
    expectScope(doc, 'from', 'keyword.other.from.haproxy', { exact: true });
    expectScope(doc, 'common', 'entity.name.section.haproxy', { exact: true });
    expectScope(doc, '127.0.0.1', 'constant.numeric.ip-address.haproxy', { exact: true });
  });

  it('does not take a keyword that merely starts like a section for a header', async () => {
    const doc = await haproxy('backend be\n    cache-use mycache\n    backend_x 1\n');
    expectScope(doc, 'cache-use', 'keyword.other.haproxy', { exact: true });
    expectNoScope(doc, 'cache-use', 'storage.type.section');
    expectScope(doc, 'backend_x', 'keyword.other.haproxy', { exact: true });
  });
});

describe('HAProxy grammar: keywords, options and acl', () => {
  const cfg = [
    'frontend fe',
    '    maxconn 2000',
    '    option forwardfor except 127.0.0.0/8',
    '    no option httplog',
    '    acl is_api path_beg -i /api /v2',
    '    acl host_ok req.hdr(host),lower,word(1,:) -m str example.com',
    '    acl slow be_conn(app) gt 10',
    '    http-request set-var(txn.host) req.hdr(host),lower',
    '    tcp-request content accept if { req.ssl_hello_type 1 }',
    '    server s1 10.0.0.1:80 check',
    '    use_backend be_api if is_api',
  ].join('\n');

  it('scopes the keyword at line start', async () => {
    const doc = await haproxy(cfg);
    for (const k of ['maxconn', 'acl', 'http-request', 'tcp-request', 'server', 'use_backend']) {
      expectScope(doc, k, 'keyword.other.haproxy', { exact: true });
    }
  });

  it('scopes option and no option with the option name', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, 'option', 'keyword.other.haproxy', { exact: true });
    expectScope(doc, 'forwardfor', 'support.constant.option.haproxy', { exact: true });
    expectScope(doc, 'no', 'storage.modifier.haproxy', { exact: true });
    expectScope(doc, 'option', 'keyword.other.haproxy', { after: 'no ', exact: true });
    expectScope(doc, 'httplog', 'support.constant.option.haproxy', { exact: true });
    expectScope(doc, '127.0.0.0', 'constant.numeric.ip-address.haproxy', { exact: true });
  });

  it('scopes acl names, their fetch, flags and match methods', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, 'is_api', 'entity.name.function.acl.haproxy', { exact: true });
    expectScope(doc, 'path_beg', 'support.function.fetch.haproxy', { exact: true });
    expectScope(doc, '-i', 'storage.modifier.flag.haproxy', { exact: true });
    expectScope(doc, 'host_ok', 'entity.name.function.acl.haproxy', { exact: true });
    expectScope(doc, '-m', 'storage.modifier.flag.haproxy', { exact: true });
    expectScope(doc, 'str', 'support.constant.match-method.haproxy', { exact: true });
    expectScope(doc, 'be_conn', 'support.function.fetch.haproxy', { exact: true });
    expectScope(doc, 'gt', 'keyword.operator.comparison.haproxy', { exact: true });
  });

  it('scopes sample fetches with converters and their arguments', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, 'req.hdr', 'support.function.fetch.haproxy', { exact: true });
    expectScope(doc, 'host', 'variable.parameter.haproxy', { after: 'req.hdr(', exact: true });
    expectScope(doc, ',', 'punctuation.separator.converter.haproxy', { after: 'req.hdr(host)' });
    expectScope(doc, 'lower', 'support.function.converter.haproxy', { exact: true });
    expectScope(doc, 'word', 'support.function.converter.haproxy', { exact: true });
    expectScope(doc, '1', 'variable.parameter.haproxy', { after: 'word(' });
    expectScope(doc, ',', 'punctuation.separator.arguments.haproxy', { after: 'word(1' });
    expectNoScope(doc, 'example.com', 'support.function');
  });

  it('tells actions with arguments from sample fetches', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, 'set-var', 'support.function.action.haproxy', { exact: true });
    expectNoScope(doc, 'set-var', 'support.function.fetch');
    expectScope(doc, 'txn.host', 'variable.parameter.haproxy', { exact: true });
    expectScope(doc, 'req.hdr', 'support.function.fetch.haproxy', { after: 'set-var(txn.host) ', exact: true });
    expectScope(doc, 'lower', 'support.function.converter.haproxy', { after: 'set-var(txn.host) ' });
    expectScope(doc, 'accept', 'support.function.action.haproxy', { exact: true });
    expectScope(doc, 'content', 'keyword.other.haproxy', { exact: true });
  });

  it('takes a bare lowercase word followed by ,converter for a fetch, but not a list of values', async () => {
    const doc = await haproxy(
      'backend b\n    http-request set-var(txn.net) src,ipmask(24),hex\n    http-response set-header Cache-Control no-cache,no-store\n',
    );
    expectScope(doc, 'src', 'support.function.fetch.haproxy', { exact: true });
    expectScope(doc, 'ipmask', 'support.function.converter.haproxy', { exact: true });
    expectScope(doc, '24', 'variable.parameter.haproxy', { exact: true });
    expectScope(doc, 'hex', 'support.function.converter.haproxy', { exact: true });
    expectNoScope(doc, 'no-cache,no-store', 'support.function');
  });

  it('leaves plain comma lists alone and reads fetch names with a dash where a sample is expected', async () => {
    const doc = await haproxy('userlist u\n    group G1 users tiger,scott\nbackend b\n    http-check send hdr x-id %[unique-id]\n');
    expectNoScope(doc, 'tiger,scott', 'support.function');
    expectScope(doc, 'unique-id', 'support.function.fetch.haproxy', { exact: true });
  });

  it('scopes server names and backend references', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, 's1', 'entity.name.tag.server.haproxy', { exact: true });
    expectScope(doc, 'be_api', 'entity.name.section.haproxy', { exact: true });
  });
});

describe('HAProxy grammar: conditions', () => {
  const cfg = [
    'backend b',
    '    http-request deny if !is_api || { src 10.0.0.0/8 } or METH_POST',
    '    http-request redirect scheme https unless { ssl_fc } # plain',
    '    use_backend static if { path_end -i .css .js } !is_api',
  ].join('\n');

  it('scopes if/unless, !, || and or', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, 'if', 'keyword.control.conditional.haproxy', { exact: true });
    expectScope(doc, 'unless', 'keyword.control.conditional.haproxy', { exact: true });
    expectScope(doc, '!', 'keyword.operator.logical.haproxy', { exact: true });
    expectScope(doc, '||', 'keyword.operator.logical.haproxy', { exact: true });
    expectScope(doc, 'or', 'keyword.operator.logical.haproxy', { after: '} ', exact: true });
  });

  it('scopes acl references and predefined acls', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, 'is_api', 'variable.other.acl.haproxy', { exact: true });
    expectScope(doc, 'METH_POST', 'support.constant.acl.haproxy', { exact: true });
    expectScope(doc, 'is_api', 'variable.other.acl.haproxy', { after: '.js } !', exact: true });
  });

  it('scopes anonymous acls with their fetch, flags and values', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, '{ src 10.0.0.0/8 }', 'meta.acl.anonymous.haproxy', { exact: true });
    expectScope(doc, '{', 'punctuation.section.acl.begin.haproxy', { after: '|| ' });
    expectScope(doc, 'src', 'support.function.fetch.haproxy', { exact: true });
    expectScope(doc, '10.0.0.0', 'constant.numeric.ip-address.haproxy', { exact: true });
    expectScope(doc, '}', 'punctuation.section.acl.end.haproxy', { after: '10.0.0.0/8 ' });
    expectScope(doc, 'ssl_fc', 'support.function.fetch.haproxy', { exact: true });
    expectScope(doc, 'path_end', 'support.function.fetch.haproxy', { exact: true });
    expectScope(doc, '-i', 'storage.modifier.flag.haproxy', { after: 'path_end ', exact: true });
  });

  it('ends the condition at a comment', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, '# plain', 'comment.line.number-sign.haproxy', { exact: true });
    expectNoScope(doc, '# plain', 'meta.condition');
  });
});

describe('HAProxy grammar: sample expressions and log formats', () => {
  const cfg = [
    'frontend fe',
    '    http-request set-header X-Host %[req.hdr(host),lower]',
    '    log-format "%ci:%cp [%tr] %{+Q}r %[var(txn.host)] 100%%"',
    '    http-request set-path \'%[path,regsub("^/(a)(/|$)","/b",g)]\'',
    '    http-request return status 200 content-type text/plain lf-string "%[src]"',
  ].join('\n');

  it('scopes %[...] with its fetch, converters and arguments', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, '%[req.hdr(host),lower]', 'meta.sample-expression.haproxy', { exact: true });
    expectScope(doc, '%[', 'punctuation.definition.sample.begin.haproxy');
    expectScope(doc, 'req.hdr', 'support.function.fetch.haproxy', { exact: true });
    expectScope(doc, 'lower', 'support.function.converter.haproxy', { exact: true });
    expectScope(doc, ']', 'punctuation.definition.sample.end.haproxy', { after: 'lower' });
  });

  it('scopes log-format placeholders and samples inside quoted strings', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, '%ci', 'constant.other.placeholder.haproxy', { exact: true });
    expectScope(doc, '%{+Q}r', 'constant.other.placeholder.haproxy', { exact: true });
    expectScope(doc, '{+Q}', 'storage.modifier.log-format.haproxy');
    expectScope(doc, 'var', 'support.function.fetch.haproxy', { exact: true });
    expectScope(doc, 'var', 'string.quoted.double.haproxy');
    expectScope(doc, '%%', 'constant.other.placeholder.haproxy', { exact: true });
    expectScope(doc, 'src', 'support.function.fetch.haproxy', { exact: true });
  });

  it('reads a sample inside single quotes, with quoted converter arguments', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, 'path', 'support.function.fetch.haproxy', { after: "'%[", exact: true });
    expectScope(doc, 'regsub', 'support.function.converter.haproxy', { exact: true });
    expectScope(doc, '"^/(a)(/|$)"', 'string.quoted.double.haproxy', { exact: true });
    expectScope(doc, '"^/(a)(/|$)"', 'string.quoted.single.haproxy');
    expectScope(doc, 'g', 'variable.parameter.haproxy', { after: '"/b",', exact: true });
  });
});

describe('HAProxy grammar: strings, environment variables, comments', () => {
  const cfg = [
    'global',
    '    log "${LOG_HOST-127.0.0.1}:514" local0',
    '    user "$HAPROXY_USER"',
    '    setenv LIST "${SERVERS[*]}"',
    'frontend fe',
    '    bind 127.0.0.1:${PORT}',
    "    http-request set-header X-Raw 'a$b\\n#x'",
    '    http-request set-header X-Esc "a\\"b\\n\\x41 #y"',
    '    http-request set-header X-Word a\\#b',
    '    server s1 10.0.0.1:80 check a#b',
  ].join('\n');

  it('scopes ${VAR}, $VAR, defaults and [*] in double quotes', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, '${LOG_HOST-127.0.0.1}', 'variable.other.environment.haproxy', { exact: true });
    expectScope(doc, '127.0.0.1', 'string.unquoted.default.haproxy', { after: 'LOG_HOST-' });
    expectScope(doc, ':514', 'string.quoted.double.haproxy');
    expectScope(doc, '$HAPROXY_USER', 'variable.other.environment.haproxy', { exact: true });
    expectScope(doc, '${SERVERS[*]}', 'variable.other.environment.haproxy', { exact: true });
  });

  it('scopes ${VAR} in an address (the address parser expands it)', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, '${PORT}', 'variable.other.environment.haproxy', { exact: true });
  });

  it('leaves an unquoted $word alone (only ${VAR} is expanded outside quotes)', async () => {
    const doc = await haproxy('userlist u\n    user admin password $6$rounds=5000$abc\n');
    expectNoScope(doc, '$6$rounds=5000$abc', 'variable');
  });

  it('interprets nothing inside single quotes', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, "'a$b\\n#x'", 'string.quoted.single.haproxy', { exact: true });
    expectNoScope(doc, '$b', 'variable');
    expectNoScope(doc, '\\n#x', 'constant.character.escape');
    expectNoScope(doc, '#x', 'comment');
  });

  it('scopes escapes in double quotes and outside quotes', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, '\\"', 'constant.character.escape.haproxy');
    expectNoScope(doc, 'b', 'constant.character.escape', { after: 'X-Esc "a\\"' });
    expectScope(doc, '\\x41', 'constant.character.escape.haproxy');
    expectNoScope(doc, ' ', 'constant.character.escape', { after: '\\x41' });
    expectScope(doc, '"a\\"b\\n\\x41 #y"', 'string.quoted.double.haproxy', { exact: true });
    expectNoScope(doc, '#y', 'comment');
    expectScope(doc, '\\#', 'constant.character.escape.haproxy', { exact: true });
    expectNoScope(doc, '\\#b', 'comment');
  });

  it('starts a comment at any unquoted, unescaped # (even inside a word, as HAProxy does)', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, '#b', 'comment.line.number-sign.haproxy', { after: 'check a', exact: true });
    expectNoScope(doc, 'check a', 'comment');
  });
});

describe('HAProxy grammar: numbers and addresses', () => {
  const cfg = [
    'defaults',
    '    timeout client 30s',
    '    timeout http-keep-alive 500ms',
    '    timeout tunnel 1h',
    '    tune.bufsize 16384',
    '    stick-table type ip size 100k expire 30m',
    'frontend fe',
    '    bind :443 ssl crt /etc/ssl/x.pem',
    '    bind *:80',
    '    bind ipv4@0.0.0.0:8080',
    '    bind 127.0.0.1:10000-10010',
    '.if version_atleast(2.5)',
    '    nbthread 2',
    '.endif',
  ].join('\n');

  it('scopes numbers with time and size units', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, '30s', 'constant.numeric.haproxy', { exact: true });
    expectScope(doc, 's', 'keyword.other.unit.haproxy', { after: '30' });
    expectScope(doc, '500ms', 'constant.numeric.haproxy', { exact: true });
    expectScope(doc, 'ms', 'keyword.other.unit.haproxy', { after: '500' });
    expectScope(doc, '1h', 'constant.numeric.haproxy', { exact: true });
    expectScope(doc, '16384', 'constant.numeric.haproxy', { exact: true });
    expectScope(doc, '100k', 'constant.numeric.haproxy', { exact: true });
    expectNoScope(doc, 'x.pem', 'constant.numeric');
  });

  it('scopes IP:port addresses, bare ports, wildcards and address families', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, ':', 'punctuation.separator.port.haproxy', { after: 'bind ' });
    expectScope(doc, '443', 'constant.numeric.port.haproxy', { exact: true });
    expectScope(doc, '*', 'constant.numeric.ip-address.haproxy', { after: 'bind ', exact: true });
    expectScope(doc, 'ipv4', 'storage.type.address-family.haproxy', { exact: true });
    expectScope(doc, '0.0.0.0', 'constant.numeric.ip-address.haproxy', { exact: true });
    expectScope(doc, '8080', 'constant.numeric.port.haproxy', { exact: true });
    expectScope(doc, '10000-10010', 'constant.numeric.port.haproxy', { exact: true });
  });

  it('scopes the .if/.endif preprocessor lines', async () => {
    const doc = await haproxy(cfg);
    expectScope(doc, '.if', 'keyword.control.conditional.haproxy', { exact: true });
    expectScope(doc, 'version_atleast', 'support.function.predicate.haproxy', { exact: true });
    expectScope(doc, '.endif', 'keyword.control.conditional.haproxy', { exact: true });
    expectScope(doc, 'nbthread', 'keyword.other.haproxy', { exact: true });
  });

  it('confines an unterminated string to its line', async () => {
    const doc = await haproxy('frontend fe\n    http-request set-header X "open\n    maxconn 10\n');
    const maxconn = doc.tokensOf('maxconn')[0];
    assert.deepEqual(maxconn.scopes, ['source.haproxy', 'meta.statement.haproxy', 'keyword.other.haproxy']);
  });
});
