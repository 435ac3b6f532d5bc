// The nginx variable-flow analysis (server/src/languages/nginx/flow.ts) and its regex reader
// (server/src/languages/nginx/regex.ts): sources, CR/LF and slash, internal locations, default
// servers, and the cache keyed by the parse.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseNginx } from '../../server/src/languages/nginx/parser';
import { flowOf, type NginxFlow, type Sink } from '../../server/src/languages/nginx/flow';
import { parseRegex, redosRisk, canHoldLf, canHoldSlash, anchoredStart } from '../../server/src/languages/nginx/regex';

const R = String.raw;

/** The flow of a config and the sinks of one directive name. */
function setup(text: string, sink: string): { flow: NginxFlow; sinks: Sink[] } {
  const flow = flowOf(parseNginx(text), text.startsWith('server') ? 'http' : 'main');
  return { flow, sinks: flow.sinks.get(sink) ?? [] };
}

const taintOfArg = (flow: NginxFlow, s: Sink, arg: number) => flow.wordTaint(s.d.args[arg], s.d, s.scope);

describe('regex reader', () => {
  it('knows which characters a group can hold', () => {
    const re = parseRegex(R`^/p/(.*)/([^/]+)/(\w+)/(?<n>[^.]*)/(\s)$`)!;
    const [dot, notSlash, word, named, space] = re.captures;
    assert.equal(canHoldLf(dot.chars), false, '`.` does not match a line feed');
    assert.equal(canHoldSlash(dot.chars), true);
    assert.equal(canHoldLf(notSlash.chars), true, 'a negated class matches a line feed');
    assert.equal(canHoldSlash(notSlash.chars), false);
    assert.equal(canHoldLf(word.chars) || canHoldSlash(word.chars), false);
    assert.equal(named.name, 'n');
    assert.equal(canHoldLf(named.chars), true);
    assert.equal(canHoldLf(space.chars), true);
    assert.equal(canHoldLf(parseRegex('(?s)(.*)')!.captures[0].chars), true, 'dotall');
    assert.equal(parseRegex('(/a)')!.captures[0].startsSlash, true);
  });
  it('reads PCRE forms (named groups in three spellings, classes, escapes, inline flags) and refuses broken ones', () => {
    for (const p of [
      R`(?P<a>x)(?<b>y)(?'c'z)`,
      R`[]a-z\d\-]+`,
      R`\Qa.b\E`,
      R`(?i)abc`,
      R`(?:a|b){2,3}`,
      R`x(?=y)(?!z)(?<=w)`,
      R`[[:alpha:]]+`,
      R`\x41\x{42}`,
    ])
      assert.ok(parseRegex(p), p);
    assert.deepEqual(
      parseRegex(R`(?P<a>x)(?<b>y)(?'c'z)`)!.captures.map((c) => c.name),
      ['a', 'b', 'c'],
    );
    for (const p of ['(a', '[a-', 'a)', '(?Z)']) assert.equal(parseRegex(p), undefined, p);
  });
  it('finds exponential backtracking and leaves unambiguous repetitions alone', () => {
    for (const p of ['(a+)+$', R`^(\w+\s?)*$`, '^(.*,)*x', '(a|ab)*c', R`^(\d+|\w+)+$`]) assert.ok(redosRisk(parseRegex(p)!), p);
    for (const p of ['^/([a-z]+/)+$', R`\.php$`, '^/(.*)/(.*)$', '(ab)+', R`^(?<a>[^/]+)/(?<b>.*)$`])
      assert.equal(redosRisk(parseRegex(p)!), undefined, p);
  });
  it('tells anchored patterns', () => {
    assert.equal(anchoredStart(parseRegex('^https://a')!.root), true);
    assert.equal(anchoredStart(parseRegex('(^a)|(^b)')!.root), true);
    assert.equal(anchoredStart(parseRegex('(^a)|b')!.root), false);
  });
});

describe('variable flow', () => {
  it('classifies request variables', () => {
    const { flow, sinks } = setup(
      'server {\n    listen 80;\n    server_name a.example;\n    add_header A $uri;\n    add_header B $request_uri;\n    add_header C $arg_x;\n    add_header D $server_name;\n}\n',
      'add_header',
    );
    const [uri, requestUri, arg, serverName] = sinks.map((s) => taintOfArg(flow, s, 1));
    assert.deepEqual([uri.user, uri.crlf, uri.slash], [true, true, true]);
    assert.deepEqual([requestUri.user, requestUri.crlf], [true, false], '$request_uri holds no raw CR/LF');
    assert.deepEqual([arg.user, arg.crlf], [true, false]);
    assert.equal(serverName.user, false);
  });
  it('follows set, map outputs and captures, and names the source', () => {
    const text = R`http {
    map $http_x_to $dest {
        default $http_x_to;
        ~^pool-(?<n>[0-9]+)$ app$n;
    }
    map $arg_p $fixed {
        default a;
        b c;
    }
    server {
        listen 80;
        location ~ ^/a/(?<seg>[^/]+)/(.*)$ {
            set $x $seg;
            proxy_pass http://$x/$2;
            add_header Y $dest;
            add_header Z $fixed;
        }
    }
}
`;
    const flow = flowOf(parseNginx(text));
    const pass = flow.sinks.get('proxy_pass')![0];
    const t = taintOfArg(flow, pass, 0);
    assert.equal(t.hostUser, true);
    assert.match(t.why!, /\$seg \(a capture of location/);
    const [dest, fixed] = flow.sinks.get('add_header')!.map((s) => taintOfArg(flow, s, 1));
    assert.equal(dest.user, true);
    assert.equal(fixed.user, false, 'a map of constants is constant');
    assert.equal(flow.variableTaint('x', pass.d, pass.scope).crlf, true, '[^/]+ of the decoded path can hold CR/LF');
  });
  it('resolves a numbered capture to the regex that matched last', () => {
    const text = R`server {
    listen 80;
    location ~ ^/l/(.*)$ {
        if ($http_x ~ ^([a-z]+)$) {
            add_header A $1;
        }
        add_header B $1;
    }
}
`;
    const { flow, sinks } = setup(text, 'add_header');
    const [inIf, inLoc] = sinks.map((s) => taintOfArg(flow, s, 1));
    assert.equal(inIf.slash, false, 'inside the if: the if regex ([a-z]+) on a header');
    assert.equal(inLoc.slash, true, 'in the location: its own (.*)');
  });
  it('knows internal locations and the rewrites that reach them', () => {
    const text = R`server {
    listen 80;
    rewrite ^/go/(.*)$ /internal/$1 last;
    location /internal/ {
        internal;
        add_header A $uri;
    }
    location @named {
        add_header B $uri;
    }
    location /other/ {
        internal;
    }
}
`;
    const { flow } = setup(text, 'location');
    // the location blocks, with the scope they are written in
    const [internal, named, other] = flow.scopes.filter((s) => s.d?.name === 'location').map((s) => ({ d: s.d!, scope: s.up! }));
    assert.equal(flow.isInternal(internal.d), true);
    assert.equal(flow.isInternal(named.d), true);
    assert.equal(flow.internalReacher(internal.d, internal.scope)?.name, 'rewrite');
    assert.equal(flow.internalReacher(other.d, other.scope), undefined);
    // a named location is reached with the client's own URI
    const [a, b] = flow.sinks.get('add_header')!.map((s) => taintOfArg(flow, s, 1));
    assert.equal(a.user, true, 'the rewrite copies the client path into /internal/');
    assert.equal(b.user, true);
  });
  it('finds default servers per listen address', () => {
    const text =
      'http {\n    server {\n        listen 80;\n        server_name a.example;\n        add_header A $host;\n    }\n    server {\n        listen 80;\n        server_name b.example;\n        add_header B $host;\n    }\n    server {\n        listen 8080;\n        server_name c.example;\n        add_header C $host;\n    }\n    server {\n        listen 8080 default_server;\n        add_header D $host;\n    }\n}\n';
    const { flow, sinks } = setup(text, 'add_header');
    assert.deepEqual(
      sinks.map((s) => taintOfArg(flow, s, 1).user),
      [true, false, false, true],
    );
  });
  it('is computed once per parse', () => {
    const ast = parseNginx('server { add_header A $uri; }');
    assert.equal(flowOf(ast), flowOf(ast));
    assert.notEqual(flowOf(ast), flowOf(parseNginx('server { add_header A $uri; }')));
  });
});
