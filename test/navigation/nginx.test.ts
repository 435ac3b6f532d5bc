// nginx navigation within and across files: definition, references, rename, prepareRename,
// undefined and unused names. Ranges marked `<|...|>` are the expected locations.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { definitionInWorkspace, prepareRename, references, rename, validateInWorkspace } from '../../server/src/service/languageService';
import { applyWorkspaceEdit, keys, marked, tree } from './helpers';

function refsAtCursor(files: Record<string, string>, at: string) {
  const t = tree(files);
  try {
    const f = t.files[at];
    return { t, got: keys(references(f.doc, f.cursor!, true, t.index)), want: marked(t, ...Object.keys(files)) };
  } finally {
    t.cleanup();
  }
}

describe('nginx: references and definition in one file', () => {
  const cases: [string, string][] = [
    [
      'upstream through proxy_pass http://NAME/path, grpc_pass and fastcgi_pass bare names',
      `events {}
http {
  upstream <|a<|>pp|> { server 127.0.0.1:9000; }
  server {
    location / { proxy_pass http://<|app|>/v1; }
    location /g { grpc_pass grpc://<|app|>; }
    location /f { fastcgi_pass <|app|>; }
    location /h { proxy_pass http://app:8080; }
  }
}
`,
    ],
    [
      'named location from try_files and error_page, scoped to its server',
      `events {}
http {
  server {
    error_page 404 = @<|missing|>;
    location / { try_files $uri @<|missing|>; }
    location @<|miss<|>ing|> { return 404; }
  }
  server {
    location @missing { return 410; }
    location / { try_files $uri @missing; }
  }
}
`,
    ],
    [
      'limit_req zone',
      `events {}
http {
  limit_req_zone $binary_remote_addr zone=<|per<|>ip|>:10m rate=1r/s;
  server { location / { limit_req zone=<|perip|> burst=5; } }
}
`,
    ],
    [
      'limit_conn zone',
      `events {}
http {
  limit_conn_zone $binary_remote_addr zone=<|addr|>:10m;
  server { limit_conn <|ad<|>dr|> 10; }
}
`,
    ],
    [
      'proxy_cache keys_zone',
      `events {}
http {
  proxy_cache_path /tmp/c keys_zone=<|one|>:10m;
  server { location / { proxy_cache <|o<|>ne|>; proxy_pass http://127.0.0.1:1; } }
}
`,
    ],
    [
      'variables from set, map and geo (without the $, in braces too)',
      `events {}
http {
  map $uri $<|tar<|>get|> { default a; }
  geo $<|target|> { default b; }
  server { location / { set $<|target|> c; return 200 "\${<|target|>} $<|target|>"; } }
}
`,
    ],
    [
      'a variable from a named regex capture',
      `events {}
http {
  server {
    location ~ ^/users/(?<<|u<|>id|>>\\d+)$ { return 200 $<|uid|>; }
  }
}
`,
    ],
  ];
  for (const [name, text] of cases) {
    it(name, () => {
      const { got, want } = refsAtCursor({ 'nginx.conf': text }, 'nginx.conf');
      assert.deepEqual(got, want);
    });
  }

  it('definition of a proxy_pass upstream, from the reference', () => {
    const t = tree({
      'nginx.conf': `events {}\nhttp {\n  upstream <|app|> { server 127.0.0.1:1; }\n  server { location / { proxy_pass http://a<|>pp; } }\n}\n`,
    });
    try {
      const f = t.files['nginx.conf'];
      assert.deepEqual(keys(definitionInWorkspace(f.doc, f.cursor!, t.index)), marked(t, 'nginx.conf'));
    } finally {
      t.cleanup();
    }
  });

  it('definition of variables from js_var (its first argument), split_clients and geo with a source', () => {
    const t = tree({
      'nginx.conf': `events {}\nhttp {\n  js_var $<|flag|> $uri;\n  split_clients $remote_addr $<|flag|> { 50% a; * b; }\n  geo $remote_addr $<|flag|> { default c; }\n  server { location / { return 200 $f<|>lag; } }\n}\n`,
    });
    try {
      const f = t.files['nginx.conf'];
      assert.deepEqual(keys(definitionInWorkspace(f.doc, f.cursor!, t.index)), marked(t, 'nginx.conf'));
    } finally {
      t.cleanup();
    }
  });

  it('stream upstreams are their own namespace', () => {
    const t = tree({
      'nginx.conf': `events {}\nstream {\n  upstream <|db|> { server 127.0.0.1:5432; }\n  server { listen 5433; proxy_pass <|d<|>b|>; }\n}\nhttp {\n  upstream db { server 127.0.0.1:1; }\n  server { location / { proxy_pass http://db; } }\n}\n`,
    });
    try {
      const f = t.files['nginx.conf'];
      assert.deepEqual(keys(references(f.doc, f.cursor!, true, t.index)), marked(t, 'nginx.conf'));
    } finally {
      t.cleanup();
    }
  });
});

describe('nginx: rename', () => {
  it('renames an upstream, its definition and every use, keeping scheme and path', () => {
    const t = tree({
      'nginx.conf': `events {}\nhttp {\n  upstream app { server 127.0.0.1:1; }\n  server { location / { proxy_pass http://a<|>pp/x; } location /g { grpc_pass app; } }\n}\n`,
    });
    try {
      const f = t.files['nginx.conf'];
      const edit = rename(f.doc, f.cursor!, 'backend', t.index);
      assert.ok(!('error' in edit));
      assert.equal(
        applyWorkspaceEdit(t, edit as any)['nginx.conf'],
        `events {}\nhttp {\n  upstream backend { server 127.0.0.1:1; }\n  server { location / { proxy_pass http://backend/x; } location /g { grpc_pass backend; } }\n}\n`,
      );
    } finally {
      t.cleanup();
    }
  });

  it('renames a variable whether or not the new name is typed with $', () => {
    const t = tree({ 'nginx.conf': `events {}\nhttp {\n  map $uri $t<|>o { default a; }\n  server { return 200 $to\${to}; }\n}\n` });
    try {
      const f = t.files['nginx.conf'];
      for (const newName of ['dest', '$dest']) {
        const edit = rename(f.doc, f.cursor!, newName, t.index);
        assert.equal(
          applyWorkspaceEdit(t, edit as any)['nginx.conf'],
          `events {}\nhttp {\n  map $uri $dest { default a; }\n  server { return 200 $dest\${dest}; }\n}\n`,
        );
      }
      assert.match((rename(f.doc, f.cursor!, 'two words', t.index) as any).error, /not a valid/);
    } finally {
      t.cleanup();
    }
  });

  it('prepareRename gives the name range, and refuses directives, built-in variables and host names', () => {
    const t = tree({
      'nginx.conf': `events {}\nhttp {\n  upstream app { server 127.0.0.1:1; }\n  server { location / { proxy_pass http://app; proxy_set_header Host $host; } location /x { proxy_pass http://example.com; } }\n}\n`,
    });
    try {
      const f = t.files['nginx.conf'];
      const text = f.text;
      const pos = (needle: string, delta = 1) => f.doc.positionAt(text.indexOf(needle) + delta);
      const ok = prepareRename(f.doc, pos('app;'), t.index);
      assert.ok('range' in ok);
      assert.equal(f.doc.getText(ok.range), 'app');
      assert.match((prepareRename(f.doc, pos('proxy_set_header'), t.index) as any).error, /can be renamed/);
      assert.match((prepareRename(f.doc, pos('$host', 2), t.index) as any).error, /built-in variable/);
      assert.match((prepareRename(f.doc, pos('example.com'), t.index) as any).error, /not defined/);
    } finally {
      t.cleanup();
    }
  });
});

describe('nginx: undefined and unused names', () => {
  function diags(text: string) {
    const t = tree({ 'nginx.conf': text });
    try {
      const f = t.files['nginx.conf'];
      return validateInWorkspace(f.doc, 'nginx', {}, t.index).filter((d) => /undefined-reference|unused-definition/.test(String(d.code)));
    } finally {
      t.cleanup();
    }
  }

  it('a single-label proxy_pass name with no upstream is an error nginx reports; host names, ports, localhost and variables are not', () => {
    const found = diags(`events {}
http {
  server {
    location /a { proxy_pass http://nosuch; }
    location /b { proxy_pass http://example.com; }
    location /c { proxy_pass http://backend:8080; }
    location /d { proxy_pass http://localhost; }
    location /e { proxy_pass http://$host; }
    location /f { proxy_pass http://127.0.0.1; }
    location /g { fastcgi_pass php; }
    location /h { fastcgi_pass unix:/run/php.sock; }
  }
}
`);
    assert.deepEqual(
      found.map((d) => [d.code, d.severity, d.range.start.line]),
      [
        ['nginx/undefined-reference', 1, 3],
        ['nginx/undefined-reference', 1, 9],
      ],
    );
    assert.match(found[0].message, /host not found in upstream "nosuch"/);
  });

  it('unknown zones and caches are errors, a missing named location a warning', () => {
    const found = diags(`events {}
http {
  server {
    location / { limit_req zone=none; limit_conn nada 1; proxy_cache nocache; try_files $uri @nowhere; proxy_pass http://127.0.0.1:1; }
  }
}
`);
    assert.deepEqual(
      found.map((d) => [d.severity, d.range.start.character]).sort(),
      [
        [1, 32],
        [1, 49],
        [1, 69],
        [2, 94],
      ].sort(),
    );
  });

  it('an upstream, zone or map nothing uses is a hint tagged unnecessary', () => {
    const found = diags(`events {}
http {
  upstream idle { server 127.0.0.1:1; }
  upstream used { server 127.0.0.1:2; }
  limit_req_zone $binary_remote_addr zone=z:1m rate=1r/s;
  map $uri $unusedvar { default 1; }
  server { location / { proxy_pass http://used; } }
}
`);
    assert.deepEqual(
      found.map((d) => [d.code, d.severity, d.tags, d.message]),
      [
        ['nginx/unused-definition', 4, [1], "upstream 'idle' is never used."],
        ['nginx/unused-definition', 4, [1], "limit_req zone 'z' is never used."],
        ['nginx/unused-definition', 4, [1], "variable 'unusedvar' is never used."],
      ],
    );
  });

  it('a proxy_pass through a variable may reach any upstream: no unused hints for upstreams then', () => {
    const found = diags(`events {}
http {
  upstream a { server 127.0.0.1:1; }
  map $host $pool { default a; }
  server { location / { proxy_pass http://$pool; } }
}
`);
    assert.deepEqual(found, []);
  });

  it('a fragment whose includer is unknown reports neither (its names may be used or defined elsewhere)', () => {
    const t = tree({
      'snippets/up.conf': `upstream lonely { server 127.0.0.1:1; }\nserver { location / { proxy_pass http://elsewhere; } }\n`,
    });
    try {
      const f = t.files['snippets/up.conf'];
      const found = validateInWorkspace(f.doc, 'nginx', {}, t.index).filter((d) =>
        /undefined-reference|unused-definition/.test(String(d.code)),
      );
      assert.deepEqual(found, []);
    } finally {
      t.cleanup();
    }
  });
});
