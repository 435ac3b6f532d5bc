// Outline features for both languages: document symbols, folding ranges, selection ranges,
// and workspace symbols over the index.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { DocumentSymbol, SelectionRange } from 'vscode-languageserver-types';
import { parseNginx } from '../../server/src/languages/nginx/parser';
import { parseHaproxy } from '../../server/src/languages/haproxy/parser';
import { nginxFolding, nginxSelectionRanges, nginxSymbols } from '../../server/src/languages/nginx/symbols';
import { haproxyFolding, haproxySelectionRanges, haproxySymbols } from '../../server/src/languages/haproxy/symbols';
import { workspaceSymbols } from '../../server/src/service/languageService';
import { parseMarkers } from '../lsp/markers';
import { tree } from './helpers';

type Tree = [string, number, Tree[]?];
function shape(symbols: DocumentSymbol[]): Tree[] {
  return symbols.map((s) => (s.children?.length ? [s.name, s.kind, shape(s.children)] : [s.name, s.kind]));
}

function chain(doc: TextDocument, r: SelectionRange | undefined): string[] {
  const out: string[] = [];
  for (let x = r; x; x = x.parent) out.push(doc.getText(x.range));
  return out;
}

const NGINX = `# main config
# two comment lines fold
events {
  worker_connections 1024;
}
http {
  upstream app {
    server 127.0.0.1:9000;
  }
  map $uri $dest {
    default 0;
  }
  server {
    listen 443 ssl;
    server_name example.com www.example.com;
    location = /exact { return 200; }
    location ~* \\.php$ {
      fastcgi_pass app;
    }
    location @fallback { return 404; }
  }
  include conf.d/*.conf;
}
stream {
  server { listen 5000; proxy_pass 127.0.0.1:5001; }
}
`;

describe('nginx outline', () => {
  const doc = TextDocument.create('file:///n.conf', 'nginx', 1, NGINX);
  const ast = parseNginx(NGINX);

  it('document symbols: blocks named by what identifies them, nested', () => {
    assert.deepEqual(shape(nginxSymbols(doc, ast)), [
      ['events', 24],
      [
        'http',
        3,
        [
          ['upstream app', 23],
          ['map $uri $dest', 13],
          [
            'server example.com www.example.com :443',
            5,
            [
              ['location = /exact', 6],
              ['location ~* \\.php$', 6],
              ['location @fallback', 6],
            ],
          ],
          ['include conf.d/*.conf', 1],
        ],
      ],
      ['stream', 3, [['server :5000', 5]]],
    ]);
    const server = nginxSymbols(doc, ast)[1].children![2];
    assert.equal(doc.getText(server.range).split('\n')[0], 'server {');
    assert.equal(doc.getText(server.selectionRange), 'server');
    assert.equal(doc.getText(nginxSymbols(doc, ast)[1].children![0].selectionRange), 'app');
  });

  it('folding: every multi-line block (closing brace left visible) and comment runs', () => {
    const folds = nginxFolding(doc, ast).map((f) => [f.startLine, f.endLine, f.kind ?? '']);
    assert.deepEqual(folds, [
      [0, 1, 'comment'],
      [2, 3, ''],
      [5, 21, ''],
      [6, 7, ''],
      [9, 10, ''],
      [12, 19, ''],
      [16, 17, ''],
      [23, 24, ''],
    ]);
  });

  it('selection ranges: word → directive → block body → block → ... → document', () => {
    const { text, cursor } = parseMarkers(NGINX.replace('fastcgi_pass app', 'fastcgi_pass a<|>pp'));
    const d = TextDocument.create('file:///n.conf', 'nginx', 1, text);
    const c = chain(d, nginxSelectionRanges(d, parseNginx(text), [cursor!])[0]);
    assert.equal(c[0], 'app');
    assert.equal(c[1], 'fastcgi_pass app;');
    // the body of the location is that one directive: no separate level
    assert.ok(c[2].startsWith('location ~* \\.php$ {') && c[2].endsWith('}'));
    // the server's body, without the blanks next to its braces, then the server block
    const body = c.findIndex((x) => x.startsWith('listen 443 ssl;'));
    assert.ok(body > 2 && c[body].endsWith('location @fallback { return 404; }'));
    assert.ok(c[body + 1].startsWith('server {'));
    assert.ok(c.some((s) => s.startsWith('server {')));
    assert.ok(c.some((s) => s.startsWith('http {')));
    assert.equal(c[c.length - 1], text);
    for (let i = 1; i < c.length; i++)
      assert.ok(c[i].includes(c[i - 1]) && c[i].length > c[i - 1].length, `level ${i} contains level ${i - 1}`);
  });

  it('selection ranges start at a variable inside a word', () => {
    const text = 'http { server { return 200 "x$host/y"; } }\n';
    const d = TextDocument.create('file:///n.conf', 'nginx', 1, text);
    const c = chain(d, nginxSelectionRanges(d, parseNginx(text), [d.positionAt(text.indexOf('host') + 1)])[0]);
    assert.deepEqual(c.slice(0, 3), ['$host', '"x$host/y"', 'return 200 "x$host/y";']);
  });
});

const HAPROXY = `global
    maxconn 100

# frontends
# and more
frontend web
    bind :80
    acl is_api path_beg /api
    use_backend api if is_api
    default_backend api

backend api
    server a1 127.0.0.1:9000 check
    server a2 127.0.0.1:9001 check

.if defined(DEBUG)
listen stats
    bind :9000
.endif
`;

describe('HAProxy outline', () => {
  const doc = TextDocument.create('file:///h.cfg', 'haproxy', 1, HAPROXY);
  const ast = parseHaproxy(HAPROXY);

  it('document symbols: sections with ACLs and servers as children', () => {
    assert.deepEqual(shape(haproxySymbols(doc, ast)), [
      ['global', 3],
      ['frontend web', 5, [['acl is_api', 17]]],
      [
        'backend api',
        5,
        [
          ['server a1', 8],
          ['server a2', 8],
        ],
      ],
      ['listen stats', 5],
    ]);
    const be = haproxySymbols(doc, ast)[2];
    assert.equal(be.children![0].detail, '127.0.0.1:9000');
    assert.equal(doc.getText(be.selectionRange), 'api');
    assert.ok(doc.getText(be.range).endsWith('127.0.0.1:9001 check'));
  });

  it('folding: sections to their last line, comment runs, .if blocks', () => {
    const folds = haproxyFolding(doc, ast).map((f) => [f.startLine, f.endLine, f.kind ?? '']);
    assert.deepEqual(
      folds.sort((a, b) => (a[0] as number) - (b[0] as number) || String(a[2]).localeCompare(String(b[2]))),
      [
        [0, 1, ''],
        [3, 4, 'comment'],
        [5, 9, ''],
        [11, 13, ''],
        [15, 17, ''],
        [16, 17, ''],
      ],
    );
  });

  it('selection ranges: ACL name → condition → line → section → document', () => {
    const pos = doc.positionAt(HAPROXY.indexOf('if is_api') + 5);
    const c = chain(doc, haproxySelectionRanges(doc, ast, [pos])[0]);
    assert.deepEqual(c.slice(0, 3), ['is_api', 'if is_api', 'use_backend api if is_api']);
    assert.ok(c[3].startsWith('frontend web') && c[3].endsWith('default_backend api'));
    assert.equal(c[c.length - 1], HAPROXY);
  });
});

describe('workspace symbols', () => {
  it('finds blocks and sections of every config under the roots, by subsequence', () => {
    const t = tree({
      'nginx/nginx.conf': `events {}\nhttp {\n  upstream payments_api { server 127.0.0.1:1; }\n}\n`,
      'haproxy/haproxy.cfg': `frontend fe\n    bind :80\n    default_backend payments\nbackend payments\n    server p1 127.0.0.1:1\n`,
      'README.md': 'upstream payments_readme {}\n',
    });
    try {
      const found = workspaceSymbols('paym', t.index).map((s) => [
        s.name,
        s.location.uri.split('/').slice(-2).join('/'),
        s.containerName ?? '',
      ]);
      assert.deepEqual(found.sort(), [
        ['backend payments', 'haproxy/haproxy.cfg', ''],
        ['upstream payments_api', 'nginx/nginx.conf', 'http'],
      ]);
      assert.deepEqual(
        workspaceSymbols('pyapi', t.index).map((s) => s.name),
        ['upstream payments_api'],
      );
      assert.ok(workspaceSymbols('', t.index).length >= 5);
    } finally {
      t.cleanup();
    }
  });
});
