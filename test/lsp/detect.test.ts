// Which language a document is, when the client's languageId does not say (Neovim sends its
// filetype, other clients `plaintext`), and for `proxy-tuner check`.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { detectLanguage, languageOf } from '../../server/src/service/languageService';

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
