// nginx includes: glob resolution as nginx does it, document links, fragments judged in the
// context of the include that reads them, and names resolved across the include tree.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expandGlob, resolveInclude, type IncludeFs } from '../../server/src/languages/nginx/includes';
import {
  createWorkspaceIndex,
  definitionInWorkspace,
  documentLinks,
  references,
  rename,
  validateInWorkspace,
} from '../../server/src/service/languageService';
import { nodeFileSystem } from '../../server/src/host/nodeHost';
import { nginxConfDirOf } from '../../server/src/host/hostFacts';
import { matrixBinaries, nginxTest } from '../snippets/helpers';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { applyWorkspaceEdit, keys, marked, tree } from './helpers';

/** An in-memory folder tree for the pure resolver. */
function memFs(paths: string[]): IncludeFs {
  const files = new Set(paths);
  return {
    isFile: (p) => files.has(p),
    readDir: (d) => {
      const prefix = d.endsWith('/') ? d : `${d}/`;
      const names = new Set<string>();
      for (const p of files) if (p.startsWith(prefix)) names.add(p.slice(prefix.length).split('/')[0]);
      return names.size ? [...names] : undefined;
    },
  };
}

describe('include glob resolution', () => {
  const fs = memFs([
    '/etc/nginx/nginx.conf',
    '/etc/nginx/conf.d/b.conf',
    '/etc/nginx/conf.d/a.conf',
    '/etc/nginx/conf.d/.hidden.conf',
    '/etc/nginx/conf.d/c.conf.bak',
    '/etc/nginx/conf.d/x1.conf',
    '/etc/nginx/conf.d/x2.conf',
    '/etc/nginx/sites-enabled/default',
    '/etc/nginx/sites-enabled/api',
    '/etc/nginx/snippets/ssl.conf',
    '/srv/app/nginx/site.conf',
    '/srv/app/nginx/local/extra.conf',
  ]);

  it('expands * in name order and skips dot files and other extensions', () => {
    assert.deepEqual(expandGlob('/etc/nginx/conf.d/*.conf', fs), [
      '/etc/nginx/conf.d/a.conf',
      '/etc/nginx/conf.d/b.conf',
      '/etc/nginx/conf.d/x1.conf',
      '/etc/nginx/conf.d/x2.conf',
    ]);
    assert.deepEqual(expandGlob('/etc/nginx/sites-enabled/*', fs), ['/etc/nginx/sites-enabled/api', '/etc/nginx/sites-enabled/default']);
  });

  it('supports ? and [...] classes, globs in folder segments, and an empty match', () => {
    assert.deepEqual(expandGlob('/etc/nginx/conf.d/x?.conf', fs), ['/etc/nginx/conf.d/x1.conf', '/etc/nginx/conf.d/x2.conf']);
    assert.deepEqual(expandGlob('/etc/nginx/conf.d/[ab].conf', fs), ['/etc/nginx/conf.d/a.conf', '/etc/nginx/conf.d/b.conf']);
    assert.deepEqual(expandGlob('/etc/nginx/conf.d/[!ab]*.conf', fs), ['/etc/nginx/conf.d/x1.conf', '/etc/nginx/conf.d/x2.conf']);
    assert.deepEqual(expandGlob('/etc/*/snippets/*.conf', fs), ['/etc/nginx/snippets/ssl.conf']);
    assert.deepEqual(expandGlob('/etc/nginx/none.d/*.conf', fs), []);
  });

  it('takes relative paths from the main config folder, then from the including file', () => {
    assert.deepEqual(resolveInclude('snippets/ssl.conf', '/etc/nginx', '/etc/nginx/sites-enabled', fs), ['/etc/nginx/snippets/ssl.conf']);
    assert.deepEqual(resolveInclude('local/*.conf', '/etc/nginx', '/srv/app/nginx', fs), ['/srv/app/nginx/local/extra.conf']);
    assert.deepEqual(resolveInclude('/etc/nginx/conf.d/a.conf', '/anything', '/else', fs), ['/etc/nginx/conf.d/a.conf']);
    assert.deepEqual(resolveInclude('../nginx/snippets/ssl.conf', '/etc/nginx', '/etc/nginx', fs), ['/etc/nginx/snippets/ssl.conf']);
  });
});

const MAIN = `events {}
http {
  map $uri $pool { default app; }
  include conf.d/*.conf;
  include sites-enabled/*;
}
stream {
  include stream.d/*.conf;
}
`;

describe('fragments in the context of their includer', () => {
  it('a stream fragment gets no "not allowed here", and a variable mapped in nginx.conf is known in a site', () => {
    const files = {
      'nginx.conf': MAIN,
      'conf.d/upstreams.conf': `upstream app { server 127.0.0.1:9000; }\n`,
      'sites-enabled/example': `server {\n  listen 80;\n  location / { proxy_pass http://app; add_header X-Pool $pool; }\n}\n`,
      'stream.d/db.conf': `upstream db { server 127.0.0.1:5432; }\nserver { listen 5433; proxy_pass db; }\n`,
    };
    const t = tree(files);
    try {
      for (const rel of ['stream.d/db.conf', 'sites-enabled/example', 'conf.d/upstreams.conf']) {
        const f = t.files[rel];
        const errors = validateInWorkspace(f.doc, 'nginx', {}, t.index).filter(
          (d) => d.severity! <= 2 && String(d.code).startsWith('nginx/') && !/keepalive|proxy-pass/.test(String(d.code)),
        );
        assert.deepEqual(
          errors.map((d) => `${d.code}: ${d.message}`),
          [],
          rel,
        );
      }
      assert.equal(t.index.contextOf(t.files['stream.d/db.conf'].uri), 'stream');
      assert.equal(t.index.contextOf(t.files['sites-enabled/example'].uri), 'http');
    } finally {
      t.cleanup();
    }
  });

  it('the fixture is one where the context decides: the stream fragment judged inside http is refused', () => {
    const t = tree({ 'db.conf': `upstream db { server 127.0.0.1:5432; }\nserver { listen 5433; proxy_pass db; }\n` });
    try {
      const f = t.files['db.conf'];
      assert.equal(t.index.contextOf(f.uri), undefined);
      const judgedInStream = t.index.moduleOf('nginx').validateInContext!(f.doc, t.index.get(f.uri)!.ast, {}, 'stream').filter(
        (d) => d.code === 'nginx/not-allowed-here',
      );
      const judgedInHttp = t.index.moduleOf('nginx').validateInContext!(f.doc, t.index.get(f.uri)!.ast, {}, 'http').filter(
        (d) => d.code === 'nginx/not-allowed-here',
      );
      assert.equal(judgedInStream.length, 0);
      assert.ok(judgedInHttp.length > 0);
    } finally {
      t.cleanup();
    }
  });

  it('an open editor buffer wins over the disk (an unsaved include line)', () => {
    const t = tree({
      'nginx.conf': `events {}\nhttp {\n}\n`,
      'conf.d/site.conf': `server { location / { proxy_pass http://a<|>pp; } }\nupstream <|app|> { server 127.0.0.1:1; }\n`,
    });
    try {
      const site = t.files['conf.d/site.conf'];
      assert.equal(t.index.contextOf(site.uri), undefined);
      t.open.set(
        t.files['nginx.conf'].uri,
        TextDocument.create(t.files['nginx.conf'].uri, 'nginx', 2, `events {}\nhttp {\n  include conf.d/*.conf;\n}\n`),
      );
      assert.equal(t.index.contextOf(site.uri), 'http');
      assert.deepEqual(keys(definitionInWorkspace(site.doc, site.cursor!, t.index)), marked(t, 'conf.d/site.conf'));
    } finally {
      t.cleanup();
    }
  });
});

describe('Debian layout: sites-enabled links to sites-available', () => {
  it('the file being edited under sites-available is the one nginx.conf includes through the link', () => {
    const t = tree({
      'nginx.conf': `events {}\nhttp {\n  upstream <|app|> { server 127.0.0.1:1; }\n  include sites-enabled/*;\n}\n`,
      'sites-available/example': `server {\n  location / { proxy_pass http://<|a<|>pp|>; }\n}\n`,
    });
    try {
      mkdirSync(join(t.dir, 'sites-enabled'));
      symlinkSync(join(t.dir, 'sites-available/example'), join(t.dir, 'sites-enabled/example'));
      const site = t.files['sites-available/example'];
      t.open.set(site.uri, site.doc);
      assert.equal(t.index.contextOf(site.uri), 'http');
      assert.deepEqual(keys(references(site.doc, site.cursor!, true, t.index)), marked(t, 'nginx.conf', 'sites-available/example'));
      const edit = rename(site.doc, site.cursor!, 'web', t.index) as any;
      assert.deepEqual(Object.keys(edit.changes).sort(), [t.files['nginx.conf'].uri, site.uri].sort());
    } finally {
      t.cleanup();
    }
  });
});

describe('names across the include tree', () => {
  const files = {
    'nginx.conf': `events {}
http {
  limit_req_zone $binary_remote_addr zone=<|perip|>:10m rate=1r/s;
  include conf.d/*.conf;
}
`,
    'conf.d/10-upstreams.conf': `upstream <|app|> { server 127.0.0.1:9000; }\nupstream idle { server 127.0.0.1:9001; }\n`,
    'conf.d/20-site.conf': `server {
  location / { limit_req zone=<|per<|>ip|>; proxy_pass http://<|app|>; }
  location /b { proxy_pass http://<|a<|>pp|>/b; }
}
`,
  };

  it('definition of an upstream in another included file', () => {
    const t = tree(files);
    try {
      const site = t.files['conf.d/20-site.conf'];
      const def = definitionInWorkspace(site.doc, site.cursor!, t.index);
      assert.deepEqual(keys(def), [`${t.files['conf.d/10-upstreams.conf'].uri}:0:9-0:12`]);
    } finally {
      t.cleanup();
    }
  });

  it('references and rename across files', () => {
    const t = tree(files);
    try {
      const site = t.files['conf.d/20-site.conf'];
      const refs = keys(references(site.doc, site.cursor!, true, t.index));
      assert.deepEqual(
        refs,
        marked(t, 'conf.d/10-upstreams.conf', 'conf.d/20-site.conf').filter((k) => !k.includes(':1:30-')),
      );
      const edit = rename(site.doc, site.cursor!, 'web', t.index) as any;
      const after = applyWorkspaceEdit(t, edit);
      assert.deepEqual(Object.keys(after).sort(), ['conf.d/10-upstreams.conf', 'conf.d/20-site.conf']);
      assert.equal(
        after['conf.d/10-upstreams.conf'],
        `upstream web { server 127.0.0.1:9000; }\nupstream idle { server 127.0.0.1:9001; }\n`,
      );
      assert.equal(
        after['conf.d/20-site.conf'],
        `server {\n  location / { limit_req zone=perip; proxy_pass http://web; }\n  location /b { proxy_pass http://web/b; }\n}\n`,
      );
      // a zone defined in nginx.conf, renamed from its use in a fragment
      const zonePos = site.doc.positionAt(site.text.indexOf('perip') + 2);
      const zoneEdit = applyWorkspaceEdit(t, rename(site.doc, zonePos, 'byip', t.index) as any);
      assert.match(zoneEdit['nginx.conf'], /zone=byip:10m/);
      assert.match(zoneEdit['conf.d/20-site.conf'], /limit_req zone=byip;/);
    } finally {
      t.cleanup();
    }
  });

  it('unused and undefined names are judged over the whole tree', () => {
    const t = tree(files);
    try {
      const ups = t.files['conf.d/10-upstreams.conf'];
      const found = validateInWorkspace(ups.doc, 'nginx', {}, t.index).filter((d) => /unused|undefined/.test(String(d.code)));
      assert.deepEqual(
        found.map((d) => d.message),
        ["upstream 'idle' is never used."],
      );
      const site = t.files['conf.d/20-site.conf'];
      assert.deepEqual(
        validateInWorkspace(site.doc, 'nginx', {}, t.index).filter((d) => /unused|undefined/.test(String(d.code))),
        [],
      );
    } finally {
      t.cleanup();
    }
  });

  it('document links from include lines to the files they read; a missing plain include is reported', () => {
    const t = tree({
      ...files,
      'other.conf': `events {}\nhttp {\n  include mime.types;\n  include /nonexistent/abs.conf;\n  include conf.d/10-upstreams.conf;\n}\n`,
    });
    try {
      const main = t.files['nginx.conf'];
      const links = documentLinks(main.doc, t.index);
      assert.equal(links.length, 1);
      assert.equal(links[0].target, t.files['conf.d/10-upstreams.conf'].uri);
      assert.match(links[0].tooltip!, /2 files: 10-upstreams.conf, 20-site.conf/);
      assert.equal(main.doc.getText(links[0].range), 'conf.d/*.conf');
      const other = t.files['other.conf'];
      const missing = validateInWorkspace(other.doc, 'nginx', {}, t.index).filter((d) => d.code === 'nginx/include-not-found');
      assert.deepEqual(
        missing.map((d) => other.doc.getText(d.range)),
        ['mime.types'],
      );
      const defs = definitionInWorkspace(main.doc, main.doc.positionAt(main.text.indexOf('conf.d/*') + 3), t.index);
      assert.deepEqual(
        (defs ?? []).map((l) => l.uri),
        [t.files['conf.d/10-upstreams.conf'].uri, t.files['conf.d/20-site.conf'].uri],
      );
    } finally {
      t.cleanup();
    }
  });
});

describe("a vhost outside any conf tree: relative includes read from the installed nginx's conf folder", () => {
  it('finds the stock fastcgi_params and snippets/fastcgi-php.conf there, and reports what neither folder has', () => {
    const t = tree({
      'etc-nginx/fastcgi_params': 'fastcgi_param QUERY_STRING $query_string;\n',
      'etc-nginx/snippets/fastcgi-php.conf': 'fastcgi_split_path_info ^(.+?\\.php)(/.*)$;\ntry_files $fastcgi_script_name =404;\n',
      'repo/deploy/site.conf':
        'server {\n  listen 80;\n  location ~ \\.php$ {\n    include snippets/fastcgi-php.conf;\n    include fastcgi_params;\n    include nowhere.conf;\n    fastcgi_pass unix:/run/php/php-fpm.sock;\n  }\n}\n',
    });
    try {
      const confDir = join(t.dir, 'etc-nginx');
      const index = createWorkspaceIndex({
        fs: nodeFileSystem,
        open: { get: () => undefined, all: () => [] },
        nginxConfDir: () => confDir,
      });
      const site = t.files['repo/deploy/site.conf'];
      const links = documentLinks(site.doc, index);
      assert.deepEqual(
        links.map((l) => [site.doc.getText(l.range), l.target]),
        [
          ['snippets/fastcgi-php.conf', t.files['etc-nginx/snippets/fastcgi-php.conf'].uri],
          ['fastcgi_params', t.files['etc-nginx/fastcgi_params'].uri],
        ],
      );
      const missing = validateInWorkspace(site.doc, 'nginx', {}, index).filter((d) => d.code === 'nginx/include-not-found');
      assert.deepEqual(
        missing.map((d) => site.doc.getText(d.range)),
        ['nowhere.conf'],
      );
      assert.match(missing[0].message, /etc-nginx/);
      // no such folder on this machine: the file's own folder, as before
      const bare = createWorkspaceIndex({
        fs: nodeFileSystem,
        open: { get: () => undefined, all: () => [] },
        nginxConfDir: () => join(t.dir, 'absent'),
      });
      assert.equal(validateInWorkspace(site.doc, 'nginx', {}, bare).filter((d) => d.code === 'nginx/include-not-found').length, 3);
    } finally {
      t.cleanup();
    }
  });
  it("counts the stock files' directives: a try_files next to Debian's snippets/fastcgi-php.conf is a duplicate, as nginx -t says", () => {
    const snippet = 'fastcgi_split_path_info ^(.+?\\.php)(/.*)$;\ntry_files $fastcgi_script_name =404;\nfastcgi_index index.php;\n';
    const location = (extra: string) =>
      `server {\n  listen 127.0.0.1:18080;\n  location ~ \\.php$ {\n${extra}    include snippets/fastcgi-php.conf;\n    fastcgi_pass unix:/run/php/php-fpm.sock;\n  }\n}\n`;
    const t = tree({
      'etc-nginx/snippets/fastcgi-php.conf': snippet,
      'repo/dup.conf': location('    try_files $uri =404;\n'),
      'repo/ok.conf': location(''),
    });
    try {
      const confDir = join(t.dir, 'etc-nginx');
      const index = createWorkspaceIndex({
        fs: nodeFileSystem,
        open: { get: () => undefined, all: () => [] },
        nginxConfDir: () => confDir,
      });
      const dups = (rel: string) =>
        validateInWorkspace(t.files[rel].doc, 'nginx', {}, index)
          .filter((d) => d.code === 'nginx/duplicate')
          .map((d) => [t.files[rel].doc.getText(d.range), d.severity, d.message]);
      assert.deepEqual(dups('repo/dup.conf'), [
        ['snippets/fastcgi-php.conf', 1, '"try_files" directive is duplicate: snippets/fastcgi-php.conf gives it again (after this block)'],
      ]);
      assert.deepEqual(dups('repo/ok.conf'), []);
      // the binaries agree: the same server read by nginx -t through the snippet's absolute path
      for (const bin of matrixBinaries('nginx', ['1.22', '1.26', '1.30'])) {
        for (const [rel, fatal] of [
          ['repo/dup.conf', true],
          ['repo/ok.conf', false],
        ] as const) {
          const server = t.files[rel].text.replace('include snippets/', `include ${confDir}/snippets/`);
          const run = nginxTest(bin, t.dir, `events {}\nhttp {\n  access_log off;\n${server}}\n`);
          assert.equal(run.status !== 0, fatal, `${bin.version} ${rel}: ${run.output}`);
          if (fatal) assert.match(run.output, /"try_files" directive is duplicate/);
        }
      }
    } finally {
      t.cleanup();
    }
  });
  it("reads the conf folder from `nginx -V` (--conf-path's folder, else --prefix's conf, else /etc/nginx)", () => {
    assert.equal(nginxConfDirOf('configure arguments: --prefix=/usr/share/nginx --conf-path=/etc/nginx/nginx.conf'), '/etc/nginx');
    assert.equal(nginxConfDirOf('configure arguments: --prefix=/opt/nginx --with-http_ssl_module'), '/opt/nginx/conf');
    assert.equal(nginxConfDirOf("configure arguments: --prefix=/opt/n --conf-path='conf/main.conf'"), '/opt/n/conf');
    assert.equal(nginxConfDirOf('nginx version: nginx/1.22.1'), '/etc/nginx');
  });
});

describe('HAProxy configs split across a folder', () => {
  const files = {
    '00-global.cfg': `global\n    maxconn 100\ndefaults\n    mode http\n    timeout connect 1s\n    timeout client 1s\n    timeout server 1s\n`,
    '10-frontends.cfg': `frontend fe\n    bind 127.0.0.1:8080\n    use_backend a<|>pi if { path_beg /api }\n    default_backend web\n`,
    '20-backends.cfg': `backend <|api|>\n    server s1 127.0.0.1:9000\nbackend web\n    server s1 127.0.0.1:9001\nbackend spare\n    server s1 127.0.0.1:9002\n`,
  };

  it('a backend defined in another file: no unknown-backend, definition and rename across files', () => {
    const t = tree(files);
    try {
      const fe = t.files['10-frontends.cfg'];
      const diags = validateInWorkspace(fe.doc, 'haproxy', {}, t.index);
      assert.deepEqual(
        diags.filter((d) => d.code === 'haproxy/unknown-backend'),
        [],
      );
      assert.deepEqual(keys(definitionInWorkspace(fe.doc, fe.cursor!, t.index)), marked(t, '20-backends.cfg'));
      const after = applyWorkspaceEdit(t, rename(fe.doc, fe.cursor!, 'api_v2', t.index) as any);
      assert.match(after['10-frontends.cfg'], /use_backend api_v2 if/);
      assert.match(after['20-backends.cfg'], /^backend api_v2\n/);
      const be = t.files['20-backends.cfg'];
      assert.deepEqual(
        validateInWorkspace(be.doc, 'haproxy', {}, t.index)
          .filter((d) => d.code === 'haproxy/unused-definition')
          .map((d) => d.message),
        ["backend 'spare' is never used."],
      );
    } finally {
      t.cleanup();
    }
  });

  it('files HAProxy loads together, named in .proxy-tuner.json (haproxy.files), resolve names across each other', () => {
    const t = tree({
      'lb/global.cfg': `global\n    maxconn 100\ndefaults\n    mode http\n    timeout connect 1s\n    timeout client 1s\n    timeout server 1s\nbackend app\n    server s1 127.0.0.1:9000\n`,
      'lb/sites/site.haproxy': `frontend fe\n    bind 127.0.0.1:8080\n    default_backend app\n`,
      'lb/other/lonely.haproxy': `frontend fe2\n    bind 127.0.0.1:8081\n    default_backend app\n`,
      'lb/.proxy-tuner.json': JSON.stringify({ haproxy: { files: [['global.cfg', 'sites/site.haproxy']] } }),
    });
    try {
      const unknown = (rel: string) =>
        validateInWorkspace(t.files[rel].doc, 'haproxy', {}, t.index)
          .filter((d) => d.code === 'haproxy/unknown-backend')
          .map((d) => d.message);
      assert.deepEqual(unknown('lb/sites/site.haproxy'), []);
      assert.deepEqual(unknown('lb/other/lonely.haproxy'), ["No backend named 'app'."]);
    } finally {
      t.cleanup();
    }
  });

  it('the same frontend alone still gets unknown-backend from the module', () => {
    const t = tree({ 'only.cfg': files['10-frontends.cfg'] });
    try {
      const fe = t.files['only.cfg'];
      assert.equal(validateInWorkspace(fe.doc, 'haproxy', {}, t.index).filter((d) => d.code === 'haproxy/unknown-backend').length, 2);
    } finally {
      t.cleanup();
    }
  });
});
