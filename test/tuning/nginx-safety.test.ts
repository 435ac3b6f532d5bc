// nginx safety rules (gixy-style checks, our own logic): trigger, no trigger, fixed text.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyFix, expectNone, expectRule } from './helpers';

describe('nginx/alias-traversal', () => {
  it('flags a prefix without a slash when the alias has one, and adds the slash', () => {
    const { doc, found } = expectRule(
      'nginx',
      'server {\n    location <|/static|> {\n        alias /srv/static/;\n    }\n}\n',
      'nginx/alias-traversal',
    );
    assert.equal(applyFix(doc, found[0]), 'server {\n    location /static/ {\n        alias /srv/static/;\n    }\n}\n');
  });
  it('accepts matching slashes, regex locations and exact matches', () => {
    expectNone('nginx', 'server {\n    location /static/ {\n        alias /srv/static/;\n    }\n}\n', 'nginx/alias-traversal');
    expectNone('nginx', 'server {\n    location /static {\n        alias /srv/static;\n    }\n}\n', 'nginx/alias-traversal');
    expectNone('nginx', 'server {\n    location ~ ^/i/(.*)$ {\n        alias /srv/i/$1;\n    }\n}\n', 'nginx/alias-traversal');
    expectNone('nginx', 'server {\n    location = /favicon.ico {\n        alias /srv/icons/;\n    }\n}\n', 'nginx/alias-traversal');
  });
});

describe('nginx/add-header-inheritance', () => {
  const text = `server {
    add_header Strict-Transport-Security "max-age=31536000" always;
    add_header X-Frame-Options DENY;
    location /api/ {
        <|add_header|> Cache-Control no-store;
    }
}
`;
  it('flags the child that drops the parent headers and repeats them', () => {
    const { doc, found } = expectRule('nginx', text, 'nginx/add-header-inheritance');
    assert.match(found[0].message, /Strict-Transport-Security, X-Frame-Options/);
    assert.equal(
      applyFix(doc, found[0]),
      `server {
    add_header Strict-Transport-Security "max-age=31536000" always;
    add_header X-Frame-Options DENY;
    location /api/ {
        add_header Strict-Transport-Security "max-age=31536000" always;
        add_header X-Frame-Options DENY;
        add_header Cache-Control no-store;
    }
}
`,
    );
  });
  it('accepts a child that repeats them, one that sets none, and add_header_inherit merge', () => {
    expectNone(
      'nginx',
      'server {\n    add_header X-A 1;\n    location / {\n        add_header X-A 2;\n    }\n}\n',
      'nginx/add-header-inheritance',
    );
    expectNone(
      'nginx',
      'server {\n    add_header X-A 1;\n    location / {\n        root /srv;\n    }\n}\n',
      'nginx/add-header-inheritance',
    );
    expectNone(
      'nginx',
      'server {\n    add_header X-A 1;\n    location / {\n        add_header_inherit merge;\n        add_header X-B 2;\n    }\n}\n',
      'nginx/add-header-inheritance',
    );
  });
  it('sees through if blocks', () => {
    expectRule(
      'nginx',
      'server {\n    location / {\n        add_header X-A 1;\n        if ($arg_x) {\n            <|add_header|> X-B 2;\n        }\n    }\n}\n',
      'nginx/add-header-inheritance',
    );
  });
});

describe('nginx/proxy-set-header-inheritance', () => {
  it('flags a location dropping the server-level headers and repeats them', () => {
    const text =
      'server {\n    proxy_set_header Host $host;\n    location / {\n        <|proxy_set_header|> X-Id 1;\n        proxy_pass http://app;\n    }\n}\n';
    const { doc, found } = expectRule('nginx', text, 'nginx/proxy-set-header-inheritance');
    assert.equal(
      applyFix(doc, found[0]),
      'server {\n    proxy_set_header Host $host;\n    location / {\n        proxy_set_header Host $host;\n        proxy_set_header X-Id 1;\n        proxy_pass http://app;\n    }\n}\n',
    );
  });
  it('compares header names case-insensitively', () => {
    expectNone(
      'nginx',
      'server {\n    proxy_set_header Host $host;\n    location / {\n        proxy_set_header host $http_host;\n    }\n}\n',
      'nginx/proxy-set-header-inheritance',
    );
  });
});

describe('nginx/host-in-redirect', () => {
  it('flags $http_host in a return and replaces it with $host', () => {
    const text = 'server {\n    server_name example.com;\n    return 301 https://<|$http_host|>$request_uri;\n}\n';
    const { doc, found } = expectRule('nginx', text, 'nginx/host-in-redirect');
    assert.equal(applyFix(doc, found[0]), 'server {\n    server_name example.com;\n    return 301 https://$host$request_uri;\n}\n');
  });
  it('flags $http_host in a redirecting rewrite', () => {
    expectRule('nginx', 'server {\n    rewrite ^/old$ https://<|$http_host|>/new permanent;\n}\n', 'nginx/host-in-redirect');
  });
  it('hints at $host in a catch-all server, except the plain http-to-https redirect', () => {
    const { found } = expectRule(
      'nginx',
      'server {\n    listen 80 default_server;\n    return 302 https://<|$host|>/login;\n}\n',
      'nginx/host-in-redirect',
    );
    assert.equal(found[0].severity, 4);
    expectNone(
      'nginx',
      'server {\n    listen 80 default_server;\n    return 301 https://$host$request_uri;\n}\n',
      'nginx/host-in-redirect',
    );
  });
  it('accepts $host with a named server, and internal rewrites', () => {
    expectNone('nginx', 'server {\n    server_name example.com;\n    return 301 https://$host$request_uri;\n}\n', 'nginx/host-in-redirect');
    expectNone('nginx', 'server {\n    rewrite ^/a$ /b?h=$http_host last;\n}\n', 'nginx/host-in-redirect');
  });
});

describe('nginx/server-tokens-on', () => {
  it('flags server_tokens on and turns it off', () => {
    const { doc, found } = expectRule('nginx', 'http {\n    server_tokens <|on|>; # default\n}\n', 'nginx/server-tokens-on');
    assert.equal(applyFix(doc, found[0]), 'http {\n    server_tokens off; # default\n}\n');
  });
  it('accepts off', () => {
    expectNone('nginx', 'http {\n    server_tokens off;\n}\n', 'nginx/server-tokens-on');
  });
});

describe('nginx/if-in-location', () => {
  it('flags if with other directives than return / rewrite last', () => {
    const { found } = expectRule(
      'nginx',
      'server {\n    location / {\n        <|if|> ($http_x) {\n            proxy_pass http://a;\n        }\n    }\n}\n',
      'nginx/if-in-location',
    );
    assert.match(found[0].message, /proxy_pass/);
  });
  it('only informs when the body holds rewrite-module directives such as set', () => {
    const { found } = expectRule(
      'nginx',
      'server {\n    location / {\n        <|if|> ($http_range = "") {\n            set $no_range 1;\n        }\n    }\n}\n',
      'nginx/if-in-location',
    );
    assert.equal(found[0].severity, 3);
  });
  it('accepts return, rewrite ... last, and if in server', () => {
    expectNone(
      'nginx',
      'server {\n    location / {\n        if ($bad) {\n            return 403;\n        }\n        if ($old) {\n            rewrite ^ /new last;\n        }\n    }\n}\n',
      'nginx/if-in-location',
    );
    expectNone('nginx', 'server {\n    if ($host = a) {\n        set $x 1;\n    }\n}\n', 'nginx/if-in-location');
  });
  it('accepts the CORS preflight idiom: headers on the answer of a return in the same if', () => {
    expectNone(
      'nginx',
      "server {\n    location /api/ {\n        if ($request_method = 'OPTIONS') {\n            add_header 'Access-Control-Allow-Origin' '*';\n            add_header 'Access-Control-Max-Age' 1728000;\n            add_header 'Content-Length' 0;\n            return 204;\n        }\n        proxy_pass http://app;\n    }\n}\n",
      'nginx/if-in-location',
    );
    // without the return the headers land on the if's own (handler-less) location: still the trap
    expectRule(
      'nginx',
      "server {\n    location /api/ {\n        <|if|> ($request_method = 'OPTIONS') {\n            add_header 'Access-Control-Allow-Origin' '*';\n        }\n        proxy_pass http://app;\n    }\n}\n",
      'nginx/if-in-location',
    );
  });
});

describe('nginx/ssrf-proxy-pass', () => {
  it('flags a host taken from the query string or a header', () => {
    expectRule('nginx', 'location /p {\n    proxy_pass http://<|$arg_host|>/x;\n}\n', 'nginx/ssrf-proxy-pass');
    expectRule('nginx', 'location /p {\n    proxy_pass <|$http_x_target|>;\n}\n', 'nginx/ssrf-proxy-pass');
    expectRule('nginx', 'location /p {\n    proxy_pass http://<|$host|>;\n}\n', 'nginx/ssrf-proxy-pass');
  });
  it('accepts request data in the path only, and variables set by the config', () => {
    expectNone('nginx', 'location /p {\n    proxy_pass http://app$request_uri;\n}\n', 'nginx/ssrf-proxy-pass');
    expectNone('nginx', 'location /p {\n    proxy_pass http://$backend_from_map;\n}\n', 'nginx/ssrf-proxy-pass');
  });
});
