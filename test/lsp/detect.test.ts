// Which language a document is, when the client's languageId does not say (Neovim sends its
// filetype, other clients `plaintext`), and for `proxy-tuner check`.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { detectLanguage, languageOf } from '../../server/src/service/languageService';
import { languageCorrection } from '../../server/src/languages/detect';

const HAPROXY_TEXT = 'global\n    maxconn 100\n\nbackend app\n    server a 127.0.0.1:80\n';
const NGINX_TEXT = 'events {}\nhttp {\n    server { listen 80; }\n}\n';

describe('detectLanguage', () => {
  it('goes by the file name first', () => {
    assert.equal(detectLanguage('/etc/haproxy/haproxy.cfg'), 'haproxy');
    assert.equal(detectLanguage('/srv/conf/haproxy-edge.conf', NGINX_TEXT), 'haproxy');
    assert.equal(detectLanguage('/etc/nginx/nginx.conf'), 'nginx');
    assert.equal(detectLanguage('/srv/x/nginx-site.cfg', HAPROXY_TEXT), 'nginx');
    assert.equal(detectLanguage('C:\\configs\\openresty.conf'), 'nginx');
  });

  it('then by the folder', () => {
    assert.equal(detectLanguage('/etc/haproxy/conf.d/10-web.cfg'), 'haproxy');
    assert.equal(detectLanguage('/etc/haproxy/errors.conf'), 'haproxy');
    assert.equal(detectLanguage('/etc/nginx/sites-enabled/default'), 'nginx');
    assert.equal(detectLanguage('/etc/nginx/conf.d/app.conf'), 'nginx');
    assert.equal(detectLanguage('C:\\etc\\nginx\\sites-available\\app'), 'nginx');
  });

  it('then by the content, then by the extension', () => {
    assert.equal(detectLanguage('/srv/lb.conf', HAPROXY_TEXT), 'haproxy');
    assert.equal(detectLanguage('/srv/site.cfg', NGINX_TEXT), 'nginx');
    assert.equal(detectLanguage('/srv/lb.cfg', ''), 'haproxy');
    assert.equal(detectLanguage('/srv/site.conf', ''), 'nginx');
    assert.equal(detectLanguage('/srv/unknown', '# nothing yet\n'), 'nginx');
  });

  it("takes nginx's shape over a HAProxy section keyword at column 0", () => {
    // a server block at the top of a fragment, `listen` at column 0 (gixy's test configs)
    assert.equal(detectLanguage('/srv/site.conf', 'server {\nlisten 80;\nserver_tokens on;\n}\n'), 'nginx');
    assert.equal(detectLanguage('/srv/site.cfg', 'listen 80;\nserver_name example.org;\n'), 'nginx');
    assert.equal(detectLanguage('/srv/x.cfg', 'location / {\n  return 200;\n}\n'), 'nginx');
    // a multi-line statement: its continuation lines are nginx's too
    assert.equal(detectLanguage('/srv/x.cfg', 'charset_types\n    text/css\n    text/plain\n    text/vtt;\n'), 'nginx');
    // HAProxy: headers (at column 0 or indented), anonymous ACL braces closing on their line
    assert.equal(
      detectLanguage(
        '/srv/x.conf',
        'frontend fe\n    bind :80\n    use_backend b if { path_beg /api }\nbackend b\n    server s 127.0.0.1:81\n',
      ),
      'haproxy',
    );
    assert.equal(detectLanguage('/srv/x.conf', '    global\n        maxconn 10\n    defaults\n        mode http\n'), 'haproxy');
    // a HAProxy folder does not make nginx text HAProxy, nor an nginx folder HAProxy text nginx
    assert.equal(detectLanguage('/etc/haproxy/extra/site.conf', NGINX_TEXT), 'nginx');
    assert.equal(detectLanguage('/etc/nginx/conf.d/lb.conf', HAPROXY_TEXT), 'haproxy');
  });
});

describe('languageOf (the server, per document)', () => {
  it('trusts our own language ids', () => {
    assert.equal(languageOf('haproxy', 'file:///srv/nginx.conf', NGINX_TEXT), 'haproxy');
    assert.equal(languageOf('nginx', 'untitled:Untitled-1', HAPROXY_TEXT), 'nginx');
  });

  it('detects for any other id from the uri and the text', () => {
    assert.equal(languageOf('conf', 'file:///etc/haproxy/haproxy.cfg', ''), 'haproxy');
    assert.equal(languageOf('cfg', 'file:///srv/my%20lb.cfg', HAPROXY_TEXT), 'haproxy');
    assert.equal(languageOf('', 'file:///srv/site.conf', NGINX_TEXT), 'nginx');
    assert.equal(languageOf('plaintext', 'untitled:Untitled-2', HAPROXY_TEXT), 'haproxy');
    assert.equal(languageOf(undefined, 'file:///srv/bad%E0%A4%A.cfg', ''), 'haproxy');
  });
});

describe('languageCorrection (the editor: a language VS Code gave by a package.json pattern)', () => {
  it('switches a document the folder put in the wrong language, and only then', () => {
    assert.equal(languageCorrection('nginx', '/etc/nginx/conf.d/lb.conf', HAPROXY_TEXT), 'haproxy');
    assert.equal(languageCorrection('haproxy', '/etc/haproxy/conf.d/site.cfg', NGINX_TEXT), 'nginx');
    assert.equal(languageCorrection('nginx', '/etc/nginx/sites-enabled/haproxy-edge', ''), 'haproxy'); // the name tells first
    assert.equal(languageCorrection('nginx', '/etc/nginx/conf.d/site.conf', NGINX_TEXT), undefined);
    assert.equal(languageCorrection('haproxy', '/etc/haproxy/haproxy.cfg', HAPROXY_TEXT), undefined);
    // an empty file under a pattern's folder: the detector reads the same folder
    assert.equal(languageCorrection('nginx', '/etc/nginx/conf.d/new.conf', ''), undefined);
    assert.equal(languageCorrection('haproxy', '/etc/haproxy/new.cfg', ''), undefined);
    // not one of ours: never touched
    assert.equal(languageCorrection('plaintext', '/etc/nginx/conf.d/x.conf', HAPROXY_TEXT), undefined);
  });
});
