// Modules of the local nginx (`nginx -V`, its modules folder, Debian's modules-enabled) and the
// information diagnostics for directives whose module the binary lacks.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { parseNginx } from '../../server/src/languages/nginx/parser';
import {
  loadedModules,
  localNginxBuild,
  moduleDiagnostics,
  moduleStatus,
  parseNginxV,
  type NginxBuildFacts,
} from '../../server/src/host/binaryFacts';

const V = `nginx version: nginx/1.22.1
built with OpenSSL 3.0.11
configure arguments: --with-cc-opt='-g -O2 -fPIC' --prefix=/usr/share/nginx --modules-path=/usr/lib/nginx/modules --with-http_ssl_module --with-http_sub_module --with-stream_ssl_preread_module --with-http_geoip_module=dynamic --with-stream=dynamic --with-mail=dynamic --without-http_autoindex_module --add-dynamic-module=/build/njs/nginx`;

function diags(text: string, facts: NginxBuildFacts): string[] {
  return moduleDiagnostics(TextDocument.create('file:///n.conf', 'nginx', 1, text), parseNginx(text), facts).map((d) => d.message);
}

describe('nginx -V', () => {
  const facts: NginxBuildFacts = { ...parseNginxV(V), installed: ['ngx_http_geoip_module', 'ngx_stream_module'], enabled: [] };

  it('reads built-in, dynamic, left-out and added modules', () => {
    const f = parseNginxV(V);
    assert.equal(f.version, '1.22.1');
    assert.equal(f.modulesPath, '/usr/lib/nginx/modules');
    assert.deepEqual(f.builtIn, ['ngx_http_ssl_module', 'ngx_http_sub_module', 'ngx_stream_ssl_preread_module']);
    assert.deepEqual(f.dynamic, ['ngx_http_geoip_module', 'ngx_stream_module', 'ngx_mail_module']);
    assert.deepEqual(f.without, ['ngx_http_autoindex_module']);
    assert.deepEqual(f.added, ['/build/njs/nginx']);
  });

  it('judges modules: built in, dynamic loaded or not, not installed, not built', () => {
    assert.equal(moduleStatus('ngx_http_proxy_module', facts, []).status, 'present');
    assert.equal(moduleStatus('ngx_http_sub_module', facts, []).status, 'present');
    assert.equal(moduleStatus('ngx_http_geoip_module', facts, []).status, 'not-loaded');
    assert.equal(moduleStatus('ngx_http_geoip_module', facts, ['ngx_http_geoip_module']).status, 'present');
    assert.deepEqual(moduleStatus('ngx_stream_proxy_module', facts, []), { status: 'not-loaded', so: 'ngx_stream_module' });
    assert.equal(moduleStatus('ngx_stream_ssl_preread_module', facts, ['ngx_stream_module']).status, 'present');
    assert.equal(moduleStatus('ngx_mail_smtp_module', facts, []).status, 'not-installed');
    assert.equal(moduleStatus('ngx_http_image_filter_module', facts, []).status, 'not-built');
    assert.equal(moduleStatus('ngx_http_autoindex_module', facts, []).status, 'not-built');
  });

  it('load_module lines count as loaded', () => {
    assert.deepEqual(
      loadedModules('load_module modules/ngx_stream_module.so;\n  load_module "/usr/lib/nginx/modules/ngx_http_geoip_module.so";\n'),
      ['ngx_stream_module', 'ngx_http_geoip_module'],
    );
    assert.deepEqual(
      diags('load_module modules/ngx_stream_module.so;\nstream { server { listen 1; proxy_pass 127.0.0.1:2; } }\n', facts),
      [],
    );
  });

  it('one information diagnostic per missing module, on the directive', () => {
    const text =
      'http {\n  geoip_country /g.dat;\n  server { sub_filter a b; image_filter resize 10 10; image_filter_buffer 1m; autoindex on; }\n}\nstream { server { listen 1; } }\n';
    const d = moduleDiagnostics(TextDocument.create('file:///n.conf', 'nginx', 1, text), parseNginx(text), facts);
    assert.deepEqual(
      d.map((x) => [x.range.start.line, x.message]),
      [
        [
          1,
          '"geoip_country" is in ngx_http_geoip_module, which your nginx 1.22.1 has as a dynamic module that this config does not load (add `load_module modules/ngx_http_geoip_module.so;` at the top of the main config)',
        ],
        [2, '"image_filter" is in ngx_http_image_filter_module, which is not built into your nginx 1.22.1 (see `nginx -V`)'],
        [2, '"autoindex" is in ngx_http_autoindex_module, which is not built into your nginx 1.22.1 (see `nginx -V`)'],
        [
          4,
          '"stream" is in ngx_stream_core_module, which your nginx 1.22.1 has as a dynamic module that this config does not load (add `load_module modules/ngx_stream_module.so;` at the top of the main config)',
        ],
      ],
    );
    assert.ok(d.every((x) => x.severity === 3 && x.source === 'nginx -V' && x.code === 'nginx/module-not-in-binary'));
  });

  it('the local nginx: probed once, its stream module enabled system-wide on Debian', () => {
    const f = localNginxBuild();
    assert.ok(f, 'nginx is installed where the tests run');
    assert.match(f.version ?? '', /^\d+\.\d+\.\d+$/);
    assert.ok(f.builtIn.includes('ngx_http_ssl_module'));
    assert.equal(localNginxBuild(), f, 'cached');
    // stream is dynamic in Debian's build and enabled through /etc/nginx/modules-enabled
    if (f.dynamic.includes('ngx_stream_module') && f.enabled.includes('ngx_stream_module')) {
      assert.deepEqual(diags('stream { server { listen 12345; proxy_pass 127.0.0.1:1; } }\n', f), []);
    }
  });
});
