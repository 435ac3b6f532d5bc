// nginx security rules built on the variable-flow analysis (tuning/nginx/security.ts): each
// rule with configs that should be flagged and configs that should not, and the fixed text.
// The header-splitting cases were checked on the real nginx 1.22.1 (see nginx-security-real.test.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyFix, expectNone, expectRule, fixOf, only, run } from './helpers';

const R = String.raw;
/** A whole config: `body` inside one server of an http block. */
const main = (server: string, http = ''): string =>
  `events {}\nhttp {\n${http}    server {\n        listen 80;\n        server_name example.com;\n${server}    }\n}\n`;

describe('nginx/ssrf-proxy-pass', () => {
  it('follows a named capture of the location into proxy_pass (the issue example)', () => {
    const { found } = expectRule(
      'nginx',
      main(R`        location ~ /proxy/(?P<p>.*)$ {
            proxy_pass <|$p|>;
        }
`),
      'nginx/ssrf-proxy-pass',
    );
    assert.match(found[0].message, /\$p \(a capture of location `\/proxy\/\(\?P<p>\.\*\)\$`, from the decoded request path\)/);
  });
  it('follows numbered captures, set and map into the host part', () => {
    expectRule(
      'nginx',
      main(R`        location ~ /proxy/(.*)/(.*)/(.*)$ {
            proxy_pass <|$1|>://$2/$3;
        }
`),
      'nginx/ssrf-proxy-pass',
    );
    expectRule(
      'nginx',
      main(R`        location ~ ^/p/([^/]+)/(.*)$ {
            set $target $1;
            proxy_pass http://<|$target|>/$2;
        }
`),
      'nginx/ssrf-proxy-pass',
    );
    expectRule(
      'nginx',
      main(
        '        location / {\n            proxy_pass http://<|$upstream_host|>;\n        }\n',
        '    map $arg_to $upstream_host {\n        default $arg_to;\n        a app-a;\n    }\n',
      ),
      'nginx/ssrf-proxy-pass',
    );
    expectRule(
      'nginx',
      main(R`        location ~* ^/backend/(?<path>.*) {
            proxy_pass http://some<|$path|>;
        }
`),
      'nginx/ssrf-proxy-pass',
    );
    expectRule(
      'nginx',
      main('        location /backend/ {\n            proxy_pass http://some<|${arg_la}|>.example;\n        }\n'),
      'nginx/ssrf-proxy-pass',
    );
    expectRule(
      'nginx',
      main('        location / {\n            proxy_pass <|$http_proxy_scheme|>://some/file.conf;\n        }\n'),
      'nginx/ssrf-proxy-pass',
    );
  });
  it('follows captures of if and server_name', () => {
    expectRule(
      'nginx',
      main(R`        if ($http_x_target ~ ^([a-z.]+)$) {
            set $t $1;
        }
        location / {
            proxy_pass http://<|$t|>;
        }
`),
      'nginx/ssrf-proxy-pass',
    );
    expectRule(
      'nginx',
      `events {}\nhttp {\n    server {\n        listen 80;\n        server_name ~^(?<sub>[a-z]+)\\.example\\.com$;\n        location / {\n            proxy_pass http://<|$sub|>.internal;\n        }\n    }\n}\n`,
      'nginx/ssrf-proxy-pass',
    );
  });
  it('takes $host as client data in a default server, not in a named one', () => {
    expectRule(
      'nginx',
      'events {}\nhttp {\n    server {\n        listen 80 default_server;\n        server_name _;\n        location / {\n            proxy_pass http://<|$host|>$request_uri;\n        }\n    }\n}\n',
      'nginx/ssrf-proxy-pass',
    );
    // the only server of its address is its default too
    expectRule('nginx', main('        location / {\n            proxy_pass http://<|$host|>;\n        }\n'), 'nginx/ssrf-proxy-pass');
    const named =
      'events {}\nhttp {\n    server {\n        listen 80 default_server;\n        return 444;\n    }\n    server {\n        listen 80;\n        server_name example.com;\n        location / {\n            proxy_pass http://$host;\n        }\n    }\n}\n';
    expectNone('nginx', named, 'nginx/ssrf-proxy-pass');
  });
  it('skips internal locations unless a rewrite steers the client into them', () => {
    expectNone(
      'nginx',
      main('        location /proxy/ {\n            internal;\n            proxy_pass $arg_some;\n        }\n'),
      'nginx/ssrf-proxy-pass',
    );
    expectNone(
      'nginx',
      main(R`        location ~* ^/internal-proxy/(?<h>[^/]+)/(.*)$ {
            internal;
            proxy_pass http://$h/$2;
        }
`),
      'nginx/ssrf-proxy-pass',
    );
    const { found } = expectRule(
      'nginx',
      main(R`        rewrite ^/(.*)/some$ /$1/ last;
        location ~* ^/internal-proxy/(?<h>[^/]+)/(.*)$ {
            internal;
            proxy_pass http://<|$h|>/$2;
        }
`),
      'nginx/ssrf-proxy-pass',
    );
    assert.match(found[0].message, /internal.*rewrite.*line 6/);
    // a rewrite into another prefix cannot reach it
    expectNone(
      'nginx',
      main(R`        rewrite ^/old/(.*)$ /new/$1 last;
        location ~* ^/internal-proxy/(?<h>[^/]+)/(.*)$ {
            internal;
            proxy_pass http://$h/$2;
        }
`),
      'nginx/ssrf-proxy-pass',
    );
  });
  it('accepts a constant host, request data in the path, and map outputs that are constants', () => {
    expectNone(
      'nginx',
      main('        location ~ /proxy/(.*)$ {\n            proxy_pass http://static.example.net/$1;\n        }\n'),
      'nginx/ssrf-proxy-pass',
    );
    expectNone(
      'nginx',
      main('        location / {\n            set $upstream "http://some$request_uri";\n            proxy_pass $upstream;\n        }\n'),
      'nginx/ssrf-proxy-pass',
    );
    expectNone(
      'nginx',
      main('        location / {\n            proxy_pass http://backend$is_args$args;\n        }\n'),
      'nginx/ssrf-proxy-pass',
    );
    expectNone(
      'nginx',
      main(
        '        location / {\n            proxy_pass http://$pool$request_uri;\n        }\n',
        '    map $arg_to $pool {\n        default app1;\n        b app2;\n    }\n',
      ),
      'nginx/ssrf-proxy-pass',
    );
    expectNone(
      'nginx',
      'events {}\nstream {\n    server {\n        listen 12345;\n        proxy_pass $x;\n    }\n}\n',
      'nginx/ssrf-proxy-pass',
    );
  });
  it('sees a path variable completing `http:/` into the host', () => {
    expectRule('nginx', main('        location / {\n            proxy_pass http:/<|$uri|>;\n        }\n'), 'nginx/ssrf-proxy-pass');
  });
  it('covers fastcgi_pass and grpc_pass too', () => {
    expectRule('nginx', main('        location / {\n            fastcgi_pass <|$arg_b|>;\n        }\n'), 'nginx/ssrf-proxy-pass');
  });
});

describe('nginx/header-injection', () => {
  it('flags $uri in add_header and offers $request_uri', () => {
    const text = main('        location /h/ {\n            add_header X-URI <|$uri|>;\n            return 200 "ok";\n        }\n');
    const { doc, found } = expectRule('nginx', text, 'nginx/header-injection');
    assert.match(found[0].message, /response splitting/);
    assert.equal(fixOf(found[0]).safe, false);
    assert.match(applyFix(doc, found[0]), /add_header X-URI \$request_uri;/);
  });
  it('flags a capture of a negated class and offers to keep whitespace out of it', () => {
    const text = main(R`        location ~ ^/n/([^/]*)$ {
            add_header X-C <|$1|>;
            return 200 "ok";
        }
`);
    const { doc, found } = expectRule('nginx', text, 'nginx/header-injection');
    assert.match(applyFix(doc, found[0]), /location ~ \^\/n\/\(\[\^\/\\s\]\*\)\$ \{/);
  });
  it('does not flag a capture of (.*): `.` never matches a line feed', () => {
    expectNone(
      'nginx',
      main('        location ~ ^/c/(.*)$ {\n            add_header X-C $1;\n            return 200 "ok";\n        }\n'),
      'nginx/header-injection',
    );
  });
  it("flags redirects built from $uri or from a capture, except a rewrite's own numbered captures", () => {
    expectRule(
      'nginx',
      main('        location /rw/ {\n            rewrite ^ http://example.com<|$uri|> redirect;\n        }\n'),
      'nginx/header-injection',
    );
    expectRule(
      'nginx',
      main(R`        location ~ ^/rt/([^/]*)$ {
            return 302 http://example.com/<|$1|>;
        }
`),
      'nginx/header-injection',
    );
    expectRule(
      'nginx',
      main(R`        location /rq/ {
            rewrite ^/rq/(?<p>[^/]*)$ http://example.com/<|$p|> redirect;
        }
`),
      'nginx/header-injection',
    );
    expectNone(
      'nginx',
      main(R`        location /rn/ {
            rewrite ^/rn/([^/]*)$ http://example.com/$1 redirect;
        }
`),
      'nginx/header-injection',
    );
  });
  it('does not flag a body, $request_uri, or a constant status', () => {
    expectNone('nginx', main('        location /b/ {\n            return 200 "$uri";\n        }\n'), 'nginx/header-injection');
    expectNone('nginx', main('        return 301 https://$host$request_uri;\n'), 'nginx/header-injection');
    expectNone('nginx', main('        return 403;\n'), 'nginx/header-injection');
  });
  it('flags request splitting towards the upstream', () => {
    const { found } = expectRule(
      'nginx',
      main(
        '        location /ps/ {\n            proxy_set_header X-U <|$document_uri|>;\n            proxy_pass http://127.0.0.1:8080;\n        }\n',
      ),
      'nginx/header-injection',
    );
    assert.match(found[0].message, /request splitting/);
    expectRule(
      'nginx',
      main(R`        location ~* ^/test/([^/]+)/ {
            proxy_pass http://10.10.10.10/<|$1|>;
        }
`),
      'nginx/header-injection',
    );
    expectNone(
      'nginx',
      main(R`        location ~* ^/test/(.*) {
            proxy_pass http://10.10.10.10/$1;
        }
`),
      'nginx/header-injection',
    );
  });
  it("follows set, and keeps an internal location's own URI out", () => {
    expectRule(
      'nginx',
      main('        location / {\n            set $u $uri;\n            add_header X-A <|$u|>;\n        }\n'),
      'nginx/header-injection',
    );
    expectNone(
      'nginx',
      main('        location /i/ {\n            internal;\n            add_header X-A $uri;\n        }\n'),
      'nginx/header-injection',
    );
  });
  it('flags the request body and the basic-auth user name', () => {
    expectRule(
      'nginx',
      main('        location / {\n            add_header X-Body <|$request_body|>;\n        }\n'),
      'nginx/header-injection',
    );
  });
});

describe('nginx/host-spoofing', () => {
  it('flags a query argument or another header as the Host', () => {
    expectRule('nginx', main('        proxy_set_header host <|$arg_host|>;\n'), 'nginx/host-spoofing');
    expectRule('nginx', main('        proxy_set_header Host <|$http_x_forwarded_host|>;\n'), 'nginx/host-spoofing');
  });
  it('accepts $host and $http_host: both name the virtual host nginx routed to ($http_host keeps the port)', () => {
    expectNone('nginx', main('        proxy_set_header Host $host;\n'), 'nginx/host-spoofing');
    expectNone(
      'nginx',
      main('        location / {\n            proxy_set_header HoSt $http_host;\n            proxy_pass http://app;\n        }\n'),
      'nginx/host-spoofing',
    );
    expectNone('nginx', main('        proxy_set_header Host ${http_host};\n'), 'nginx/host-spoofing');
    expectNone('nginx', main('        proxy_set_header X-Original-Host $http_host;\n'), 'nginx/host-spoofing');
    expectNone('nginx', main('        proxy_set_header Host app.internal;\n'), 'nginx/host-spoofing');
  });
});

describe('nginx/origin-regex', () => {
  it('flags an Origin check open at the end', () => {
    const { found } = expectRule(
      'nginx',
      main(R`        if ($http_origin ~* <|"^https://example\.com"|>) {
            add_header Access-Control-Allow-Origin $http_origin;
        }
`),
      'nginx/origin-regex',
    );
    assert.match(found[0].message, /https:\/\/example\.com\.attacker\.invalid/);
  });
  it('flags alternatives of which one is open (anchors inside the groups)', () => {
    expectRule(
      'nginx',
      main(R`        if ($http_origin ~* <|"((^https://www\.example\.com)|(^https://example\.org)$)"|>) {
            return 204;
        }
`),
      'nginx/origin-regex',
    );
  });
  it('flags a Referer check open at the start', () => {
    expectRule(
      'nginx',
      main(R`        if ($http_referer !~ "^https://example\.com/") {
            return 403;
        }
        if ($http_referer ~ <|"https://example\.com/"|>) {
            set $ok 1;
        }
`),
      'nginx/origin-regex',
    );
  });
  it('flags unescaped dots and escapes them', () => {
    const text = main(R`        if ($http_origin ~ <|"^https://www.example.com$"|>) {
            return 204;
        }
`);
    const { doc, found } = expectRule('nginx', text, 'nginx/origin-regex');
    assert.match(found[0].message, /unescaped/);
    assert.match(applyFix(doc, found[0]), /"\^https:\/\/www\\\.example\\\.com\$"/);
  });
  it('checks map keys on $http_origin and valid_referers patterns', () => {
    expectRule(
      'nginx',
      main(
        '',
        R`    map $http_origin $cors {
        default "";
        <|"~^https://example\.com"|> $http_origin;
    }
`,
      ),
      'nginx/origin-regex',
    );
    expectRule(
      'nginx',
      main(R`        valid_referers server_names <|~\.example\.com|>;
`),
      'nginx/origin-regex',
    );
  });
  it('accepts anchored patterns (an optional www, a port, a path after the host)', () => {
    expectNone(
      'nginx',
      main(R`        if ($http_origin ~* "^https://(www\.)?example\.com(:\d+)?$") {
            return 204;
        }
        if ($http_referer ~ "^https://example\.com/") {
            return 204;
        }
`),
      'nginx/origin-regex',
    );
    expectNone(
      'nginx',
      main(R`        valid_referers server_names ~^(www\.)?example\.com/;
`),
      'nginx/origin-regex',
    );
  });
});

describe('nginx/valid-referers-none', () => {
  it('flags none', () => {
    expectRule('nginx', main('        valid_referers <|none|> blocked server_names;\n'), 'nginx/valid-referers-none');
    expectNone('nginx', main('        valid_referers blocked server_names;\n'), 'nginx/valid-referers-none');
  });
});

describe('nginx/add-header-multiline', () => {
  it('flags a value over several lines and joins it', () => {
    const text = main(`        add_header Content-Security-Policy <|"default-src 'none';\n            script-src 'self'"|>;\n`);
    const { doc, found } = expectRule('nginx', text, 'nginx/add-header-multiline');
    assert.equal(fixOf(found[0]).safe, true);
    assert.match(applyFix(doc, found[0]), /add_header Content-Security-Policy "default-src 'none'; script-src 'self'";/);
  });
  it('flags a \\n escape (nginx turns it into a line feed), without a fix', () => {
    const { found } = expectRule(
      'nginx',
      main(R`        add_header X-Foo <|"a\n"|>;
`),
      'nginx/add-header-multiline',
    );
    assert.equal(found[0].data?.fixes, undefined);
  });
  it('accepts one-line values', () => {
    expectNone(
      'nginx',
      main(`        add_header Content-Security-Policy "default-src 'none'; script-src 'self'";\n`),
      'nginx/add-header-multiline',
    );
  });
});

describe('nginx/add-header-content-type', () => {
  it('flags add_header Content-Type and offers default_type', () => {
    const { doc, found } = expectRule(
      'nginx',
      main('        location /t {\n            add_header <|Content-Type|> text/plain;\n        }\n'),
      'nginx/add-header-content-type',
    );
    assert.match(applyFix(doc, found[0]), /location \/t \{\n            default_type text\/plain;\n/);
    expectNone(
      'nginx',
      main(
        '        location /t {\n            default_type text/plain;\n            add_header X-Content-Type-Options nosniff;\n        }\n',
      ),
      'nginx/add-header-content-type',
    );
  });
  it('accepts it where the upstream type is hidden, or on a 204 (no body, no type)', () => {
    expectNone(
      'nginx',
      main(
        '        location /api/ {\n            proxy_hide_header content-type;\n            add_header Content-Type application/json;\n            proxy_pass http://app;\n        }\n',
      ),
      'nginx/add-header-content-type',
    );
    expectNone(
      'nginx',
      main(
        '        proxy_hide_header Content-Type;\n        location /api/ {\n            add_header Content-Type application/json;\n            proxy_pass http://app;\n        }\n',
      ),
      'nginx/add-header-content-type',
    );
    expectNone(
      'nginx',
      main(
        "        location /api/ {\n            if ($request_method = OPTIONS) {\n                add_header Access-Control-Allow-Origin '*';\n                add_header Content-Type 'text/plain; charset=utf-8';\n                return 204;\n            }\n            proxy_pass http://app;\n        }\n",
      ),
      'nginx/add-header-content-type',
    );
  });
});

describe('nginx/allow-without-deny', () => {
  it('flags allow lines without deny and adds deny all', () => {
    const text = main('        location /admin/ {\n            allow 10.0.0.0/8;\n            <|allow|> 192.168.0.0/16;\n        }\n');
    const { doc, found } = expectRule('nginx', text, 'nginx/allow-without-deny');
    assert.match(applyFix(doc, found[0]), /allow 192\.168\.0\.0\/16;\n            deny all;\n/);
  });
  it('accepts a final deny, a deny list, allow all, and satisfy any', () => {
    expectNone(
      'nginx',
      main('        location /admin/ {\n            allow 10.0.0.0/8;\n            deny all;\n        }\n'),
      'nginx/allow-without-deny',
    );
    expectNone(
      'nginx',
      main('        location / {\n            deny 192.0.2.1;\n            allow all;\n        }\n'),
      'nginx/allow-without-deny',
    );
    expectNone('nginx', main('        location / {\n            allow all;\n        }\n'), 'nginx/allow-without-deny');
    expectNone(
      'nginx',
      main('        allow 10.0.0.0/8;\n        location / {\n            deny all;\n        }\n        deny all;\n'),
      'nginx/allow-without-deny',
    );
    expectNone(
      'nginx',
      main(
        '        location / {\n            satisfy any;\n            allow 10.0.0.0/8;\n            auth_basic "x";\n            auth_basic_user_file /etc/nginx/htpasswd;\n        }\n',
      ),
      'nginx/allow-without-deny',
    );
  });
});

describe('nginx/allow-without-deny in stream', () => {
  it('flags a stream server too (the stream access module works alike)', () => {
    expectRule(
      'nginx',
      'events {}\nstream {\n    server {\n        listen 12345;\n        <|allow|> 10.0.0.0/8;\n        proxy_pass 127.0.0.1:8080;\n    }\n}\n',
      'nginx/allow-without-deny',
    );
  });
});

describe('nginx/return-bypasses-access', () => {
  it('flags return next to allow/deny or auth_basic', () => {
    expectRule(
      'nginx',
      main(
        '        location /admin/ {\n            allow 10.0.0.0/8;\n            deny all;\n            <|return|> 200 "secret";\n        }\n',
      ),
      'nginx/return-bypasses-access',
    );
    expectRule(
      'nginx',
      main(
        '        location /admin/ {\n            auth_basic "admin";\n            auth_basic_user_file /etc/nginx/htpasswd;\n            <|return|> 302 /panel/;\n        }\n',
      ),
      'nginx/return-bypasses-access',
    );
  });
  it('accepts an error return next to the access rules (`deny all; return 403;`)', () => {
    expectNone(
      'nginx',
      main('        location /private/ {\n            deny all;\n            return 403;\n        }\n'),
      'nginx/return-bypasses-access',
    );
    expectNone(
      'nginx',
      main('        location /x/ {\n            allow 10.0.0.0/8;\n            deny all;\n            return 444;\n        }\n'),
      'nginx/return-bypasses-access',
    );
  });
  it('accepts return without access rules, or with them in another block', () => {
    expectNone('nginx', main('        location / {\n            return 200 "ok";\n        }\n'), 'nginx/return-bypasses-access');
    expectNone(
      'nginx',
      main('        allow 10.0.0.0/8;\n        deny all;\n        location / {\n            return 200 "ok";\n        }\n'),
      'nginx/return-bypasses-access',
    );
  });
});

describe('nginx/stub-status-open', () => {
  it('flags stub_status without restriction', () => {
    expectRule('nginx', main('        location = /status {\n            <|stub_status|>;\n        }\n'), 'nginx/stub-status-open');
  });
  it('accepts stub_status with allow/deny here or around it', () => {
    expectNone(
      'nginx',
      main('        location = /status {\n            stub_status;\n            allow 127.0.0.1;\n            deny all;\n        }\n'),
      'nginx/stub-status-open',
    );
    expectNone(
      'nginx',
      main('        allow 127.0.0.1;\n        deny all;\n        location = /status {\n            stub_status;\n        }\n'),
      'nginx/stub-status-open',
    );
  });
});

describe('nginx/resolver-external', () => {
  it('flags a public resolver: a warning when it picks upstream addresses, else information', () => {
    const { found } = expectRule(
      'nginx',
      main(
        '        resolver <|8.8.8.8|> [2001:4860:4860::8888] valid=30s;\n        location / {\n            proxy_pass http://$arg_x_pool_name_is_not_here_but_dynamic;\n        }\n',
      ),
      'nginx/resolver-external',
    );
    assert.equal(found[0].severity, 2);
    const { found: f2 } = expectRule('nginx', main('        ssl_stapling on;\n        resolver <|1.1.1.1|>;\n'), 'nginx/resolver-external');
    assert.equal(f2[0].severity, 3);
  });
  it('accepts loopback, private and link-local resolvers and names', () => {
    expectNone(
      'nginx',
      main('        resolver 127.0.0.53 10.0.0.2 172.16.0.1 192.168.1.1 [::1] [fd00::1]:53 valid=10s ipv6=off;\n'),
      'nginx/resolver-external',
    );
    expectNone('nginx', main('        resolver dns.internal;\n'), 'nginx/resolver-external');
  });
});

describe('nginx/regex-redos', () => {
  it('flags nested and overlapping repetitions in locations, maps, if and rewrite', () => {
    expectRule('nginx', main('        location ~ <|^/(a+)+$|> {\n            return 204;\n        }\n'), 'nginx/regex-redos');
    expectRule(
      'nginx',
      main(R`        location ~* <|^/search/(\w+\s?)*$|> {
            return 204;
        }
`),
      'nginx/regex-redos',
    );
    expectRule('nginx', main('', '    map $arg_list $bad {\n        <|"~^(.*,)*x$"|> 1;\n    }\n'), 'nginx/regex-redos');
    expectRule(
      'nginx',
      main(R`        if ($http_user_agent ~ <|"^(a|ab)*c"|>) {
            return 403;
        }
`),
      'nginx/regex-redos',
    );
  });
  it('accepts repetitions that can split only one way', () => {
    expectNone(
      'nginx',
      main(R`        location ~ ^/([a-z]+/)+$ {
            return 204;
        }
        location ~ \.php$ {
            return 204;
        }
        location ~ ^/(?<a>[^/]+)/(?<b>.*)$ {
            return 204;
        }
`),
      'nginx/regex-redos',
    );
  });
});

describe('nginx/ssl-ciphers-weak', () => {
  it('flags lists that enable RC4, 3DES, export or anonymous ciphers', () => {
    expectRule('nginx', main('        ssl_ciphers <|RC4-SHA:HIGH:!aNULL|>;\n'), 'nginx/ssl-ciphers-weak');
    expectRule('nginx', main('        ssl_ciphers <|ALL|>;\n'), 'nginx/ssl-ciphers-weak');
    expectRule('nginx', main('        ssl_ciphers <|ECDHE-RSA-AES128-GCM-SHA256:DES-CBC3-SHA|>;\n'), 'nginx/ssl-ciphers-weak');
  });
  it('reads aliases: a `+` combination with a weak part, static RSA key exchange', () => {
    for (const list of ['EECDH+AESGCM:DH+3DES:!aNULL', 'ECDHE+AESGCM:RSA+3DES:!aNULL', 'HIGH:kRSA:!aNULL', 'ECDHE+AESGCM:RSA+AESGCM'])
      expectRule('nginx', main(`        ssl_ciphers <|${list}|>;\n`), 'nginx/ssl-ciphers-weak');
    const { found } = expectRule(
      'nginx',
      main('        ssl_ciphers <|EECDH+AESGCM:EDH+AESGCM:DH+3DES:RSA+3DES|>;\n'),
      'nginx/ssl-ciphers-weak',
    );
    assert.match(found[0].message, /DH\+3DES, RSA\+3DES/);
    // an ephemeral exchange signed with RSA is sound; an excluded alias is not counted
    expectNone('nginx', main('        ssl_ciphers ECDHE+aRSA+AESGCM:EECDH+RSA+AESGCM:DHE+RSA:!kRSA:!3DES;\n'), 'nginx/ssl-ciphers-weak');
  });
  it('accepts exclusions and current lists', () => {
    expectNone('nginx', main('        ssl_ciphers HIGH:!aNULL:!MD5;\n'), 'nginx/ssl-ciphers-weak');
    expectNone('nginx', main('        ssl_ciphers ALL:!aNULL:!eNULL:!RC4:!3DES:!MD5:!EXP;\n'), 'nginx/ssl-ciphers-weak');
    expectNone(
      'nginx',
      main('        ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305;\n'),
      'nginx/ssl-ciphers-weak',
    );
  });
});

describe('nginx/alias-traversal stays quiet on an alias to a single file', () => {
  it('accepts location /favicon.ico with an alias to a file', () => {
    expectNone(
      'nginx',
      main('        location /favicon.ico {\n            alias /srv/static/favicon.ico;\n        }\n'),
      'nginx/alias-traversal',
    );
    expectNone('nginx', main('        location = /robots.txt {\n            alias /srv/robots/;\n        }\n'), 'nginx/alias-traversal');
  });
});

describe('security rules never throw on odd input', () => {
  it('survive broken regexes, empty ifs and unterminated blocks', () => {
    for (const text of [
      main('        location ~ ^/(a {\n            add_header X $1;\n        }\n'),
      main('        if () {\n        }\n        if ($http_origin ~) {\n        }\n'),
      'http { server { location ~ (?<x>[ { proxy_pass $x',
      main('        set;\n        set $a;\n        set $a $a;\n        add_header X $a;\n        proxy_pass $a;\n'),
      main('        set $a $b;\n        set $b $a;\n        proxy_pass http://$a;\n'),
    ]) {
      const { diagnostics } = run('nginx', text);
      assert.ok(Array.isArray(diagnostics));
      assert.equal(only(diagnostics, 'nginx/ssrf-proxy-pass').length <= 2, true);
    }
  });
});

describe('nginx/error-log-off', () => {
  it('flags error_log off and discards the log instead', () => {
    const { doc, found } = expectRule('nginx', 'error_log <|off|>;\nevents {}\n', 'nginx/error-log-off');
    assert.equal(applyFix(doc, found[0]), 'error_log /dev/null crit;\nevents {}\n');
    expectNone('nginx', 'error_log /var/log/nginx/error.log warn;\nevents {}\nhttp {\n    access_log off;\n}\n', 'nginx/error-log-off');
  });
});

describe('nginx/location-regex-unanchored', () => {
  it('flags an extension pattern without $, a warning when it passes requests on', () => {
    const { doc, found } = expectRule(
      'nginx',
      main(R`        location ~ <|\.php|> {
            fastcgi_pass unix:/run/php/php-fpm.sock;
        }
`),
      'nginx/location-regex-unanchored',
    );
    assert.equal(found[0].severity, 2);
    assert.match(applyFix(doc, found[0]), /location ~ \\\.php\$ \{/);
    const { found: f2 } = expectRule(
      'nginx',
      main(R`        location ~* <|\.(jpg|png)|> {
            expires 30d;
        }
`),
      'nginx/location-regex-unanchored',
    );
    assert.equal(f2[0].severity, 3);
  });
  it('accepts anchored patterns and prefixes', () => {
    expectNone(
      'nginx',
      main(R`        location ~ \.php$ {
            fastcgi_pass unix:/run/php/php-fpm.sock;
        }
        location ~ ^/api/ {
            return 204;
        }
        location /x.php {
            return 204;
        }
`),
      'nginx/location-regex-unanchored',
    );
  });
  it('accepts a location that only refuses: matching more only refuses more', () => {
    expectNone(
      'nginx',
      main(R`        location ~ /\.ht {
            deny all;
        }
        location ~* \.(bak|sql) {
            access_log off;
            return 404;
        }
`),
      'nginx/location-regex-unanchored',
    );
    expectRule(
      'nginx',
      main(R`        location ~ <|\.git|> {
            allow 10.0.0.0/8;
            deny all;
            root /srv;
        }
`),
      'nginx/location-regex-unanchored',
    );
  });
});
