// HAProxy navigation: backends, ACLs per proxy, servers, userlists, resolvers, peers, mailers,
// stick tables and named defaults; rename; undefined and unused names, without reporting twice
// what the module's validation already reports.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { definitionInWorkspace, prepareRename, references, rename, validateInWorkspace } from '../../server/src/service/languageService';
import { applyWorkspaceEdit, keys, marked, tree } from './helpers';

function refs(text: string) {
  const t = tree({ 'haproxy.cfg': text });
  try {
    const f = t.files['haproxy.cfg'];
    return { got: keys(references(f.doc, f.cursor!, true, t.index)), want: marked(t, 'haproxy.cfg') };
  } finally {
    t.cleanup();
  }
}

const HEAD = `global
    maxconn 100
defaults
    mode http
    timeout connect 1s
    timeout client 1s
    timeout server 1s
`;

describe('haproxy: references', () => {
  const cases: [string, string][] = [
    [
      'a backend from use_backend and default_backend',
      `frontend fe
    bind 127.0.0.1:8080
    acl is_api path_beg /api
    use_backend <|api|> if is_api
    default_backend <|a<|>pi|>
backend <|api|>
    server s1 127.0.0.1:9000
`,
    ],
    [
      'an ACL within its own proxy only (negated and ORed uses included)',
      `frontend fe
    bind 127.0.0.1:8080
    acl <|is_<|>api|> path_beg /api
    acl admin src 10.0.0.0/8
    http-request deny if !<|is_api|> || admin <|is_api|>
    default_backend be
backend be
    acl is_api path_beg /other
    http-request deny if is_api
    server s1 127.0.0.1:9000
`,
    ],
    [
      'a server from use-server in its backend',
      `backend be
    use-server <|s<|>1|> if { path_beg /one }
    server <|s1|> 127.0.0.1:9000
    server s2 127.0.0.1:9001
`,
    ],
    [
      'a userlist from http_auth and http_auth_group',
      `userlist <|admins|>
    user bob insecure-password x
frontend fe
    bind 127.0.0.1:8080
    acl ok http_auth(<|admins|>)
    http-request auth realm r unless ok
    http-request deny unless { http_auth_group(<|adm<|>ins|>) ops }
    default_backend be
backend be
    server s1 127.0.0.1:9000
`,
    ],
    [
      'resolvers from server and default-server',
      `resolvers <|dns|>
    nameserver ns1 127.0.0.1:53
backend be
    default-server resolvers <|dns|>
    server s1 app.local:80 resolvers <|d<|>ns|>
`,
    ],
    [
      'peers from stick-table',
      `peers <|mypeers|>
    peer local 127.0.0.1:10000
backend st
    stick-table type ip size 1k peers <|myp<|>eers|>
frontend fe
    bind 127.0.0.1:8080
    http-request track-sc0 src table st
    default_backend st
`,
    ],
    [
      'a stick table from track-sc, table and sc/src fetches (the backend is the same name)',
      `backend <|rates|>
    stick-table type ip size 1k store http_req_rate(10s)
frontend fe
    bind 127.0.0.1:8080
    http-request track-sc1 src table <|rates|>
    http-request deny if { sc_http_req_rate(1,<|rat<|>es|>) gt 10 }
    http-request deny if { src_conn_rate(<|rates|>) gt 10 }
    http-request deny if { sc0_get_gpc0(<|rates|>) gt 1 }
    default_backend be
backend be
    server s1 127.0.0.1:9000
`,
    ],
    [
      'a named defaults section from frontend ... from NAME',
      `defaults <|base|>
    mode http
frontend fe from <|ba<|>se|>
    bind 127.0.0.1:8080
`,
    ],
  ];
  for (const [name, text] of cases) {
    it(name, () => {
      const { got, want } = refs(text);
      assert.deepEqual(got, want);
    });
  }

  it('definition from a use_backend name', () => {
    const t = tree({
      'haproxy.cfg': `frontend fe\n    bind :80\n    use_backend a<|>pp if TRUE\nbackend <|app|>\n    server s 127.0.0.1:1\n`,
    });
    try {
      const f = t.files['haproxy.cfg'];
      assert.deepEqual(keys(definitionInWorkspace(f.doc, f.cursor!, t.index)), marked(t, 'haproxy.cfg'));
    } finally {
      t.cleanup();
    }
  });
});

describe('haproxy: rename', () => {
  it('renames a backend and every switching rule', () => {
    const t = tree({
      'haproxy.cfg': `frontend fe\n    bind :80\n    use_backend app if { path_beg /a }\n    default_backend app\nbackend a<|>pp\n    server s 127.0.0.1:1\n`,
    });
    try {
      const f = t.files['haproxy.cfg'];
      const edit = rename(f.doc, f.cursor!, 'web', t.index);
      assert.equal(
        applyWorkspaceEdit(t, edit as any)['haproxy.cfg'],
        `frontend fe\n    bind :80\n    use_backend web if { path_beg /a }\n    default_backend web\nbackend web\n    server s 127.0.0.1:1\n`,
      );
    } finally {
      t.cleanup();
    }
  });

  it('renames an ACL only in its proxy', () => {
    const t = tree({
      'haproxy.cfg': `frontend a\n    acl x<|> src 1.2.3.4\n    http-request deny if x !x\nfrontend b\n    acl x src 1.2.3.4\n    http-request deny if x\n`,
    });
    try {
      const f = t.files['haproxy.cfg'];
      const edit = rename(f.doc, f.cursor!, 'blocked', t.index);
      assert.equal(
        applyWorkspaceEdit(t, edit as any)['haproxy.cfg'],
        `frontend a\n    acl blocked src 1.2.3.4\n    http-request deny if blocked !blocked\nfrontend b\n    acl x src 1.2.3.4\n    http-request deny if x\n`,
      );
    } finally {
      t.cleanup();
    }
  });

  it('refuses keywords and predefined ACLs', () => {
    const t = tree({ 'haproxy.cfg': `frontend fe\n    bind :80\n    http-request deny if TRUE\n` });
    try {
      const f = t.files['haproxy.cfg'];
      assert.match((prepareRename(f.doc, f.doc.positionAt(f.text.indexOf('bind') + 1), t.index) as any).error, /can be renamed/);
      assert.match((prepareRename(f.doc, f.doc.positionAt(f.text.indexOf('TRUE') + 1), t.index) as any).error, /not defined/);
    } finally {
      t.cleanup();
    }
  });
});

describe('haproxy: undefined and unused names', () => {
  function diags(text: string) {
    const t = tree({ 'haproxy.cfg': text });
    try {
      const f = t.files['haproxy.cfg'];
      return validateInWorkspace(f.doc, 'haproxy', {}, t.index);
    } finally {
      t.cleanup();
    }
  }

  it('unknown resolvers, peers, userlists and tables are reported once, by the module', () => {
    const found = diags(
      HEAD +
        `frontend fe
    bind 127.0.0.1:8080
    http-request deny unless { http_auth(nobody) }
    http-request track-sc0 src table nosuchtable
    default_backend be
backend be
    stick-table type ip size 1k peers nopeers
    server s1 app.local:80 resolvers nodns
`,
    ).filter((d) => /nobody|nosuchtable|nopeers|nodns/.test(d.message));
    assert.deepEqual(
      found.map((d) => d.code),
      Array(4).fill('haproxy/unknown-reference'),
    );
    assert.ok(found.every((d) => d.severity === 1));
  });

  it('an unknown backend or ACL is reported once, by the module', () => {
    const found = diags(
      HEAD +
        `frontend fe\n    bind 127.0.0.1:8080\n    use_backend nosuch if undeclared\n    default_backend be\nbackend be\n    server s1 127.0.0.1:1\n`,
    );
    assert.deepEqual(
      found
        .filter((d) => /nosuch|undeclared/.test(d.message))
        .map((d) => d.code)
        .sort(),
      ['haproxy/undeclared-acl', 'haproxy/unknown-backend'],
    );
  });

  it('a backend, ACL or resolvers section nothing uses is a hint tagged unnecessary; a dynamic use_backend hides backend hints', () => {
    const found = diags(
      HEAD +
        `resolvers dns
    nameserver ns 127.0.0.1:53
frontend fe
    bind 127.0.0.1:8080
    acl unused_acl path_beg /x
    default_backend used
backend used
    server s1 127.0.0.1:1
backend orphan
    server s1 127.0.0.1:2
`,
    ).filter((d) => d.code === 'haproxy/unused-definition');
    assert.deepEqual(
      found.map((d) => [d.message, d.severity, d.tags]),
      [
        ["resolvers section 'dns' is never used.", 4, [1]],
        ["ACL 'unused_acl' is never used.", 4, [1]],
        ["backend 'orphan' is never used.", 4, [1]],
      ],
    );
    const dynamic = diags(
      HEAD +
        `frontend fe\n    bind 127.0.0.1:8080\n    use_backend be_%[req.hdr(host)]\n    default_backend a\nbackend a\n    server s1 127.0.0.1:1\nbackend b\n    server s1 127.0.0.1:2\n`,
    );
    assert.deepEqual(
      dynamic.filter((d) => d.code === 'haproxy/unused-definition'),
      [],
    );
  });
});
