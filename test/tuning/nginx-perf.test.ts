// nginx performance rules: for each rule a fixture that fires (with the exact range), one
// that must not, and the whole text after the quick fix; version cases for version-bound rules.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyFix, expectNone, expectRule, fixOf, only, run } from './helpers';

const V122 = { nginxVersion: '1.22.1' };
const V1297 = { nginxVersion: '1.29.7' };

describe('nginx/worker-processes-not-auto', () => {
  it('flags a single worker and fixes it to auto', () => {
    const { doc, found } = expectRule(
      'nginx',
      'worker_processes <|1|>;\nevents {\n    worker_connections 4096;\n}\n',
      'nginx/worker-processes-not-auto',
    );
    assert.equal(applyFix(doc, found[0]), 'worker_processes auto;\nevents {\n    worker_connections 4096;\n}\n');
    assert.equal(fixOf(found[0]).safe, true);
  });
  it('flags a missing directive at events and inserts the line before it', () => {
    const { doc, found } = expectRule(
      'nginx',
      '# main\n<|events|> {\n    worker_connections 4096;\n}\n',
      'nginx/worker-processes-not-auto',
    );
    assert.equal(applyFix(doc, found[0]), '# main\nworker_processes auto;\nevents {\n    worker_connections 4096;\n}\n');
  });
  it('accepts auto, and a number equal to the known core count', () => {
    expectNone('nginx', 'worker_processes auto;\nevents {}\n', 'nginx/worker-processes-not-auto');
    expectNone('nginx', 'worker_processes 2;\nevents {}\n', 'nginx/worker-processes-not-auto', { host: { cpuCount: 2, target: true } });
  });
  it('stays quiet on fragments (no events/http at the top)', () => {
    expectNone('nginx', 'server {\n    listen 80;\n}\n', 'nginx/worker-processes-not-auto');
  });
  it('judges a file that opens stream or mail at the top as a main file, as the workspace index does (data.ts MAIN_BLOCKS)', () => {
    for (const block of ['stream', 'mail']) {
      expectRule('nginx', `worker_processes <|1|>;\n${block} {\n}\n`, 'nginx/worker-processes-not-auto');
    }
    expectNone('nginx', 'worker_processes 1;\nhttp;\n', 'nginx/worker-processes-not-auto');
  });
});

describe('nginx/worker-connections-low', () => {
  it('flags the default value and raises it', () => {
    const { doc, found } = expectRule(
      'nginx',
      'worker_processes auto;\nevents {\n    worker_connections <|512|>;\n}\n',
      'nginx/worker-connections-low',
    );
    assert.equal(applyFix(doc, found[0]), 'worker_processes auto;\nevents {\n    worker_connections 4096;\n}\n');
  });
  it('flags a missing worker_connections and adds it with the block indentation', () => {
    const { doc, found } = expectRule(
      'nginx',
      'worker_processes auto;\n<|events|> {\n  multi_accept on;\n}\n',
      'nginx/worker-connections-low',
    );
    assert.equal(applyFix(doc, found[0]), 'worker_processes auto;\nevents {\n  worker_connections 4096;\n  multi_accept on;\n}\n');
  });
  it('accepts more than 512', () => {
    expectNone('nginx', 'events {\n    worker_connections 1024;\n}\n', 'nginx/worker-connections-low');
  });
});

describe('nginx/worker-rlimit-nofile', () => {
  it('flags a limit below two descriptors per connection', () => {
    const { doc, found } = expectRule(
      'nginx',
      'worker_rlimit_nofile <|10000|>;\nevents {\n    worker_connections 65535;\n}\n',
      'nginx/worker-rlimit-nofile',
    );
    assert.equal(applyFix(doc, found[0]), 'worker_rlimit_nofile 131070;\nevents {\n    worker_connections 65535;\n}\n');
  });
  it('flags a missing limit when connections exceed the process limit, and adds it after worker_processes', () => {
    const { doc, found } = expectRule(
      'nginx',
      'worker_processes auto;\nevents {\n    worker_connections <|4096|>;\n}\n',
      'nginx/worker-rlimit-nofile',
    );
    assert.equal(
      applyFix(doc, found[0]),
      'worker_processes auto;\nworker_rlimit_nofile 8192;\nevents {\n    worker_connections 4096;\n}\n',
    );
  });
  it('for connections under the process limit, only informs, and only when proxying', () => {
    expectNone('nginx', 'events {\n    worker_connections 1000;\n}\nhttp {\n    server { root /srv; }\n}\n', 'nginx/worker-rlimit-nofile');
    const { found } = expectRule(
      'nginx',
      'events {\n    worker_connections <|1000|>;\n}\nhttp {\n    server { location / { proxy_pass http://app; } }\n}\n',
      'nginx/worker-rlimit-nofile',
    );
    assert.equal(found[0].severity, 3);
  });
  it('uses the host limit when known', () => {
    expectNone('nginx', 'events {\n    worker_connections 4096;\n}\n', 'nginx/worker-rlimit-nofile', {
      host: { nofileLimit: 1048576, target: true },
    });
    expectNone('nginx', 'worker_rlimit_nofile 200000;\nevents {\n    worker_connections 65535;\n}\n', 'nginx/worker-rlimit-nofile');
  });
  it("is silent on a missing limit in a container (daemon off, logs to the output streams): the runtime's limit applies", () => {
    const proxied = 'http {\n    server { location / { proxy_pass http://app; } }\n}\n';
    for (const head of ['daemon off;\n', 'error_log /dev/stderr warn;\n', ''])
      expectNone(
        'nginx',
        `${head}events {\n    worker_connections 4096;\n}\n${head ? proxied : proxied.replace('server {', 'access_log /dev/stdout;\n    server {')}`,
        'nginx/worker-rlimit-nofile',
      );
    // a limit set too low is still wrong there
    expectRule(
      'nginx',
      'daemon off;\nworker_rlimit_nofile <|1000|>;\nevents {\n    worker_connections 4096;\n}\n',
      'nginx/worker-rlimit-nofile',
    );
  });
});

describe('nginx/redundant-event-setting', () => {
  it('marks use epoll and accept_mutex off as unnecessary and removes the lines (comments stay)', () => {
    const text = 'events {\n    # tuned\n    <|use epoll;|>\n    <|accept_mutex off;|>\n    worker_connections 4096;\n}\n';
    const { doc, found } = expectRule('nginx', text, 'nginx/redundant-event-setting');
    assert.deepEqual(
      found.map((d) => d.tags),
      [[1], [1]],
    );
    assert.equal(found[0].severity, 4);
    assert.equal(applyFix(doc, found[0]), 'events {\n    # tuned\n    accept_mutex off;\n    worker_connections 4096;\n}\n');
    assert.equal(applyFix(doc, found[1]), 'events {\n    # tuned\n    use epoll;\n    worker_connections 4096;\n}\n');
  });
  it('keeps a trailing comment when removing', () => {
    const { doc, found } = expectRule('nginx', 'events {\n    <|use epoll;|> # linux\n}\n', 'nginx/redundant-event-setting');
    assert.equal(applyFix(doc, found[0]), 'events {\n    # linux\n}\n');
  });
  it('does not flag accept_mutex on, or accept_mutex off before 1.11.3', () => {
    expectNone('nginx', 'events {\n    accept_mutex on;\n    use poll;\n}\n', 'nginx/redundant-event-setting');
    expectNone('nginx', 'events {\n    accept_mutex off;\n}\n', 'nginx/redundant-event-setting', { nginxVersion: '1.10.3' });
  });
});

const UPSTREAM_NO_KA = `http {
    upstream app {
        server 127.0.0.1:8081;
    }
    server {
        location / {
            proxy_pass http://app;
        }
    }
}
`;

describe('nginx/upstream-keepalive (version-bound: before 1.29.7)', () => {
  it('fires at 1.22.1 and the fix adds keepalive and the HTTP/1.1 lines', () => {
    const marked = UPSTREAM_NO_KA.replace('upstream app', 'upstream <|app|>');
    const { doc, found } = expectRule('nginx', marked, 'nginx/upstream-keepalive', V122);
    assert.equal(
      applyFix(doc, found[0]),
      `http {
    upstream app {
        server 127.0.0.1:8081;
        keepalive 64;
    }
    server {
        location / {
            proxy_pass http://app;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
`,
    );
  });
  it('does not fire at 1.29.7, where keep-alive is the default', () => {
    expectNone('nginx', UPSTREAM_NO_KA, 'nginx/upstream-keepalive', V1297);
  });
  it('does not fire for an upstream nobody proxies to, nor for one with keepalive', () => {
    expectNone('nginx', 'http {\n    upstream app {\n        server 127.0.0.1:1;\n    }\n}\n', 'nginx/upstream-keepalive', V122);
    expectNone(
      'nginx',
      UPSTREAM_NO_KA.replace('server 127.0.0.1:8081;', 'server 127.0.0.1:8081;\n        keepalive 64;'),
      'nginx/upstream-keepalive',
      V122,
    );
  });
});

describe('upstream keep-alive advice where a pool cannot help', () => {
  const WS = UPSTREAM_NO_KA.replace(
    'proxy_pass http://app;',
    'proxy_pass http://app;\n            proxy_http_version 1.1;\n            proxy_set_header Upgrade $http_upgrade;\n            proxy_set_header Connection $connection_upgrade;',
  );
  const codes = [
    'nginx/upstream-keepalive',
    'nginx/upstream-keepalive-small',
    'nginx/upstream-keepalive-headers',
    'nginx/proxy-pass-no-upstream',
  ];
  it('is silent on an upstream used only by WebSocket (Upgrade) locations, at every version', () => {
    for (const v of [V122, V1297]) for (const c of codes) expectNone('nginx', WS, c, v);
    for (const c of codes)
      expectNone('nginx', WS.replace('keepalive', '').replace('upstream app {', 'upstream app {\n        keepalive 8;'), c, V122);
  });
  it('is silent on a literal proxy_pass to a WebSocket or streaming backend, and to a unix socket', () => {
    const sse =
      'http {\n    server {\n        location /events {\n            proxy_pass http://127.0.0.1:9000;\n            proxy_set_header Connection keep-alive;\n            proxy_buffering off;\n        }\n    }\n}\n';
    expectNone('nginx', sse, 'nginx/proxy-pass-no-upstream', V122);
    const unix = 'http {\n    server {\n        location / {\n            proxy_pass http://unix:/run/app.sock:;\n        }\n    }\n}\n';
    expectNone('nginx', unix, 'nginx/proxy-pass-no-upstream', V122);
  });
  it('is silent on an upstream of unix sockets', () => {
    const text = UPSTREAM_NO_KA.replace('server 127.0.0.1:8081;', 'server unix:/run/gunicorn.sock;');
    for (const c of codes) expectNone('nginx', text, c, V122);
  });
  it('still advises the plain HTTP users of an upstream that also serves WebSocket', () => {
    const both = WS.replace('    }\n}\n', '        location /api/ {\n            proxy_pass http://app;\n        }\n    }\n}\n').replace(
      'upstream app',
      'upstream <|app|>',
    );
    const { doc, found } = expectRule('nginx', both, 'nginx/upstream-keepalive', V122);
    const fixed = applyFix(doc, found[0]);
    // the WebSocket location keeps its Connection header; the HTTP one gets the keep-alive lines
    assert.match(fixed, /Connection \$connection_upgrade;/);
    assert.match(
      fixed,
      /location \/api\/ \{\n            proxy_pass http:\/\/app;\n            proxy_http_version 1\.1;\n            proxy_set_header Connection "";/,
    );
  });
});

describe('nginx/upstream-keepalive-headers', () => {
  const withKa = UPSTREAM_NO_KA.replace('server 127.0.0.1:8081;', 'server 127.0.0.1:8081;\n        keepalive 64;');
  it('flags proxy_pass without HTTP/1.1 and adds the lines after it', () => {
    const { doc, found } = expectRule(
      'nginx',
      withKa.replace('            proxy_pass', '            <|proxy_pass|>'),
      'nginx/upstream-keepalive-headers',
      V122,
    );
    assert.equal(
      applyFix(doc, found[0]),
      withKa.replace(
        'proxy_pass http://app;',
        'proxy_pass http://app;\n            proxy_http_version 1.1;\n            proxy_set_header Connection "";',
      ),
    );
  });
  it('adds Connection next to the inherited proxy_set_header lines, so none is dropped', () => {
    const text = `http {
    upstream app {
        server 127.0.0.1:8081;
        keepalive 64;
    }
    server {
        proxy_http_version 1.1;
        proxy_set_header Host $host;
        location / {
            <|proxy_pass|> http://app;
        }
    }
}
`;
    const { doc, found } = expectRule('nginx', text, 'nginx/upstream-keepalive-headers', V122);
    assert.match(found[0].message, /Connection: close/);
    assert.equal(
      applyFix(doc, found[0]),
      text
        .replace('<|proxy_pass|>', 'proxy_pass')
        .replace('proxy_set_header Host $host;', 'proxy_set_header Host $host;\n        proxy_set_header Connection "";'),
    );
  });
  it('accepts the inherited lines in every location of the server (corpus false positive: proxy_keepalive.conf)', () => {
    const text =
      'http {\n    upstream b {\n        server 127.0.0.1:1;\n        keepalive 8;\n    }\n    server {\n        proxy_http_version 1.1;\n        proxy_set_header Connection "";\n        location / {\n            proxy_pass http://b;\n        }\n        location /u/ {\n            proxy_pass http://b;\n        }\n    }\n}\n';
    expectNone('nginx', text, 'nginx/upstream-keepalive-headers', V122);
  });
  it('accepts the lines inherited from the server, and is off at 1.29.7', () => {
    const ok = withKa.replace('    server {\n', '    server {\n        proxy_http_version 1.1;\n        proxy_set_header Connection "";\n');
    expectNone('nginx', ok, 'nginx/upstream-keepalive-headers', V122);
    expectNone('nginx', withKa, 'nginx/upstream-keepalive-headers', V1297);
  });
});

describe('nginx/upstream-keepalive-small', () => {
  it('hints at pools below 64 and raises them', () => {
    const text =
      'http {\n    upstream app {\n        server 127.0.0.1:1;\n        keepalive <|16|>;\n    }\n    server {\n        location / { proxy_pass http://app; proxy_http_version 1.1; proxy_set_header Connection ""; }\n    }\n}\n';
    const { doc, found } = expectRule('nginx', text, 'nginx/upstream-keepalive-small', V122);
    assert.equal(found[0].severity, 4);
    assert.equal(applyFix(doc, found[0]), text.replace('<|16|>', '64'));
  });
  it('since 1.29.7 flags an upstream without keepalive (the default pool is keepalive 32: measured 0.23 new connections per request at 50 clients on 1.30.6)', () => {
    const text =
      'http {\n    upstream <|app|> {\n        server 127.0.0.1:1;\n    }\n    server { location / { proxy_pass http://app; } }\n}\n';
    const { doc, found } = expectRule('nginx', text, 'nginx/upstream-keepalive-small', { nginxVersion: '1.30.6' });
    assert.equal(found[0].severity, 4);
    assert.match(found[0].message, /keepalive 32 local/);
    assert.match(applyFix(doc, found[0]), /server 127\.0\.0\.1:1;\n        keepalive 64;\n    \}/);
    expectNone('nginx', text.replace(/<\||\|>/g, ''), 'nginx/upstream-keepalive-small', V122);
  });
  it('accepts 64 and more', () => {
    expectNone(
      'nginx',
      'http {\n    upstream app {\n        server 127.0.0.1:1;\n        keepalive 128;\n    }\n    server { location / { proxy_pass http://app; } }\n}\n',
      'nginx/upstream-keepalive-small',
    );
  });
});

describe('nginx/proxy-pass-no-upstream (the seed 002 config)', () => {
  const seed002 =
    'http {\n    access_log off;\n    server {\n        listen 1990;\n        location / {\n            proxy_pass <|http://127.0.0.1:1980|>;\n        }\n    }\n}\n';
  it('fires at 1.22.1 and the fix creates an upstream with keepalive', () => {
    const { doc, found } = expectRule('nginx', seed002, 'nginx/proxy-pass-no-upstream', V122);
    assert.equal(fixOf(found[0]).safe, false);
    assert.equal(
      applyFix(doc, found[0]),
      `http {
    access_log off;
    upstream backend_127_0_0_1_1980 {
        server 127.0.0.1:1980;
        keepalive 64;
    }
    server {
        listen 1990;
        location / {
            proxy_pass http://backend_127_0_0_1_1980;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
    }
}
`,
    );
  });
  it('still fires at 1.29.7 and 1.30.6 (measured: one backend connection per request there too); there the block alone is enough', () => {
    for (const v of [V1297, { nginxVersion: '1.30.6' }, {}]) {
      const { doc, found } = expectRule('nginx', seed002, 'nginx/proxy-pass-no-upstream', v);
      assert.match(found[0].message, /upstream` block alone is enough/);
      assert.equal(
        applyFix(doc, found[0]),
        'http {\n    access_log off;\n    upstream backend_127_0_0_1_1980 {\n        server 127.0.0.1:1980;\n        keepalive 64;\n    }\n    server {\n        listen 1990;\n        location / {\n            proxy_pass http://backend_127_0_0_1_1980;\n        }\n    }\n}\n',
      );
    }
    const { found } = expectRule('nginx', seed002, 'nginx/proxy-pass-no-upstream', V122);
    assert.match(found[0].message, /before 1\.29\.7 all three are needed/);
  });
  it('does not fire for upstream names, bare names from other files, or variables', () => {
    expectNone('nginx', UPSTREAM_NO_KA, 'nginx/proxy-pass-no-upstream', V122);
    expectNone('nginx', 'location / {\n    proxy_pass http://backend;\n}\n', 'nginx/proxy-pass-no-upstream', V122);
    expectNone('nginx', 'location / {\n    proxy_pass http://$target;\n}\n', 'nginx/proxy-pass-no-upstream', V122);
  });
  it('still flags a fragment, without a fix (no http block to put the upstream in)', () => {
    const { found } = expectRule(
      'nginx',
      'location / {\n    proxy_pass <|http://10.0.0.5:8080/api/|>;\n}\n',
      'nginx/proxy-pass-no-upstream',
      V122,
    );
    assert.equal((found[0].data as { fixes?: unknown[] } | undefined)?.fixes?.length ?? 0, 0);
  });
});

describe('nginx/keepalive-requests-low', () => {
  it('flags values below 1000 and sets the default', () => {
    const { doc, found } = expectRule('nginx', 'http {\n    keepalive_requests <|100|>;\n}\n', 'nginx/keepalive-requests-low');
    assert.equal(applyFix(doc, found[0]), 'http {\n    keepalive_requests 1000;\n}\n');
  });
  it('accepts 1000 and more', () => {
    expectNone('nginx', 'http {\n    keepalive_requests 10000;\n}\n', 'nginx/keepalive-requests-low');
  });
});

describe('nginx/access-log-unbuffered', () => {
  it('flags an unbuffered log; first fix buffers it, second turns it off', () => {
    const text = 'http {\n    <|access_log|> /var/log/nginx/access.log main;\n}\n';
    const { doc, found } = expectRule('nginx', text, 'nginx/access-log-unbuffered');
    assert.equal(applyFix(doc, found[0], 0), 'http {\n    access_log /var/log/nginx/access.log main buffer=32k flush=5s;\n}\n');
    assert.equal(applyFix(doc, found[0], 1), 'http {\n    access_log off;\n}\n');
  });
  it('accepts buffered, gzip, off and syslog logs', () => {
    for (const line of [
      'access_log /x.log main buffer=64k;',
      'access_log /x.log combined gzip;',
      'access_log off;',
      'access_log syslog:server=unix:/dev/log;',
      // read live (docker logs, tail -f of a pipe): unbuffered is right
      'access_log /dev/stdout;',
      'access_log /dev/stdout main;',
      'access_log /proc/self/fd/1 combined;',
    ]) {
      expectNone('nginx', `http {\n    ${line}\n}\n`, 'nginx/access-log-unbuffered');
    }
  });
  it('offers no buffering fix when the path has variables', () => {
    const { found } = expectRule('nginx', 'http {\n    <|access_log|> /var/log/$host.log;\n}\n', 'nginx/access-log-unbuffered');
    assert.equal(fixOf(found[0]).title, 'Turn this access log off');
  });
});

describe('nginx/sendfile-off and nginx/tcp-nopush-off', () => {
  it('flags static serving without sendfile and adds both lines', () => {
    const text = '<|http|> {\n    server {\n        root /var/www;\n    }\n}\n';
    const { doc, found } = expectRule('nginx', text, 'nginx/sendfile-off');
    assert.equal(applyFix(doc, found[0]), 'http {\n    sendfile on;\n    tcp_nopush on;\n    server {\n        root /var/www;\n    }\n}\n');
  });
  it('flags an explicit sendfile off', () => {
    const { doc, found } = expectRule('nginx', 'http {\n    sendfile <|off|>;\n}\n', 'nginx/sendfile-off');
    assert.equal(applyFix(doc, found[0]), 'http {\n    sendfile on;\n}\n');
  });
  it('hints at tcp_nopush next to sendfile on', () => {
    const { doc, found } = expectRule('nginx', 'http {\n    <|sendfile|> on;\n}\n', 'nginx/tcp-nopush-off');
    assert.equal(applyFix(doc, found[0]), 'http {\n    sendfile on;\n    tcp_nopush on;\n}\n');
  });
  it('does not flag a pure proxy or a tuned http block', () => {
    expectNone('nginx', 'http {\n    server {\n        location / { proxy_pass http://app; }\n    }\n}\n', 'nginx/sendfile-off');
    expectNone('nginx', 'http {\n    sendfile on;\n    tcp_nopush on;\n    server { root /var/www; }\n}\n', 'nginx/sendfile-off');
    expectNone('nginx', 'http {\n    sendfile on;\n    tcp_nopush on;\n}\n', 'nginx/tcp-nopush-off');
  });
});

describe('nginx/gzip-min-length', () => {
  it('flags gzip on without a minimum and adds one', () => {
    const { doc, found } = expectRule('nginx', 'http {\n    <|gzip on;|>\n    gzip_types text/css;\n}\n', 'nginx/gzip-min-length');
    assert.equal(applyFix(doc, found[0]), 'http {\n    gzip on;\n    gzip_min_length 256;\n    gzip_types text/css;\n}\n');
  });
  it('flags a tiny minimum', () => {
    const { doc, found } = expectRule('nginx', 'http {\n    gzip on;\n    gzip_min_length <|20|>;\n}\n', 'nginx/gzip-min-length');
    assert.equal(applyFix(doc, found[0]), 'http {\n    gzip on;\n    gzip_min_length 256;\n}\n');
  });
  it('accepts 256 or more (also inherited), and gzip off', () => {
    expectNone('nginx', 'http {\n    gzip_min_length 1k;\n    server {\n        gzip on;\n    }\n}\n', 'nginx/gzip-min-length');
    expectNone('nginx', 'http {\n    gzip off;\n}\n', 'nginx/gzip-min-length');
  });
});

describe('nginx/proxy-buffering-off', () => {
  it('flags proxy_buffering off without a reason', () => {
    const { doc, found } = expectRule(
      'nginx',
      'location /api/ {\n    proxy_pass http://app;\n    <|proxy_buffering off;|>\n}\n',
      'nginx/proxy-buffering-off',
    );
    assert.equal(applyFix(doc, found[0]), 'location /api/ {\n    proxy_pass http://app;\n}\n');
  });
  it('accepts a comment next to it, or a streaming location', () => {
    expectNone('nginx', 'location /api/ {\n    # the app streams progress\n    proxy_buffering off;\n}\n', 'nginx/proxy-buffering-off');
    expectNone('nginx', 'location /api/ {\n    proxy_buffering off; # long polling\n}\n', 'nginx/proxy-buffering-off');
    expectNone('nginx', 'location /events {\n    proxy_buffering off;\n}\n', 'nginx/proxy-buffering-off');
    expectNone(
      'nginx',
      'location /x {\n    proxy_set_header Upgrade $http_upgrade;\n    proxy_buffering off;\n}\n',
      'nginx/proxy-buffering-off',
    );
  });
});

describe('nginx/listen-backlog-somaxconn (host-aware)', () => {
  const text = 'server {\n    listen 80 <|backlog=65535|>;\n}\n';
  it('flags a backlog above the host somaxconn', () => {
    const { doc, found } = expectRule('nginx', text, 'nginx/listen-backlog-somaxconn', { host: { somaxconn: 4096, target: true } });
    assert.equal(applyFix(doc, found[0]), 'server {\n    listen 80 backlog=4096;\n}\n');
  });
  it('is silent without host facts or below the limit', () => {
    expectNone('nginx', text.replace(/<\||\|>/g, ''), 'nginx/listen-backlog-somaxconn');
    expectNone('nginx', text.replace(/<\||\|>/g, ''), 'nginx/listen-backlog-somaxconn', { host: { somaxconn: 65535, target: true } });
  });
});

describe('nginx/ssl-session-cache (honest about tickets)', () => {
  it('warns when tickets are off and no shared cache exists, and adds one', () => {
    const text = 'http {\n    <|ssl_session_tickets off;|>\n    server {\n        listen 443 ssl;\n    }\n}\n';
    const { doc, found } = expectRule('nginx', text, 'nginx/ssl-session-cache');
    assert.equal(found[0].severity, 2);
    assert.equal(
      applyFix(doc, found[0]),
      'http {\n    ssl_session_tickets off;\n    ssl_session_cache shared:SSL:10m;\n    server {\n        listen 443 ssl;\n    }\n}\n',
    );
  });
  it('is only a hint while tickets are on', () => {
    const { found } = expectRule('nginx', 'http {\n    server {\n        <|listen|> 443 ssl;\n    }\n}\n', 'nginx/ssl-session-cache');
    assert.equal(found[0].severity, 4);
  });
  it('accepts tickets off with a shared cache', () => {
    expectNone(
      'nginx',
      'http {\n    ssl_session_cache shared:SSL:20m;\n    ssl_session_tickets off;\n    server {\n        listen 443 ssl;\n    }\n}\n',
      'nginx/ssl-session-cache',
    );
  });
});

describe('nginx/ssl-protocols-old', () => {
  it('removes only the old protocol words', () => {
    const { doc, found } = expectRule(
      'nginx',
      'http {\n    ssl_protocols <|TLSv1 TLSv1.1|> TLSv1.2; # legacy\n}\n',
      'nginx/ssl-protocols-old',
    );
    assert.equal(applyFix(doc, found[0]), 'http {\n    ssl_protocols TLSv1.2; # legacy\n}\n');
  });
  it('replaces a list of only old protocols', () => {
    const { doc, found } = expectRule('nginx', 'http {\n    ssl_protocols <|TLSv1|>;\n}\n', 'nginx/ssl-protocols-old');
    assert.equal(applyFix(doc, found[0]), 'http {\n    ssl_protocols TLSv1.2 TLSv1.3;\n}\n');
  });
  it('flags the implicit default before 1.23.4 only', () => {
    const text = 'http {\n    ssl_session_cache shared:SSL:1m;\n    server {\n        <|listen|> 443 ssl http2;\n    }\n}\n';
    const { doc, found } = expectRule('nginx', text, 'nginx/ssl-protocols-old', V122);
    assert.equal(
      applyFix(doc, found[0]),
      'http {\n    ssl_session_cache shared:SSL:1m;\n    server {\n        listen 443 ssl http2;\n        ssl_protocols TLSv1.2 TLSv1.3;\n    }\n}\n',
    );
    expectNone('nginx', text.replace(/<\||\|>/g, ''), 'nginx/ssl-protocols-old', { nginxVersion: '1.24.0' });
    expectNone('nginx', 'http {\n    ssl_protocols TLSv1.2 TLSv1.3;\n}\n', 'nginx/ssl-protocols-old');
  });
});

describe('"missing X" rules and includes', () => {
  it('stay silent when the block includes another file that may set it', () => {
    const text = 'http {\n    server {\n        listen 443 ssl;\n        include snippets/tls.conf;\n    }\n}\n';
    for (const id of ['nginx/ssl-protocols-old', 'nginx/ssl-session-cache', 'nginx/http2-missing']) expectNone('nginx', text, id, V122);
    expectNone('nginx', 'http {\n    include conf.d/perf.conf;\n    server { root /srv; }\n}\n', 'nginx/sendfile-off');
  });
  it('but mime.types is no such file', () => {
    expectRule('nginx', '<|http|> {\n    include mime.types;\n    server { root /srv; }\n}\n', 'nginx/sendfile-off');
  });
});

describe('nginx/http2-missing (fix differs before/after 1.25.1)', () => {
  const text = 'http {\n    server {\n        <|listen|> 443 ssl;\n        ssl_session_cache shared:SSL:1m;\n    }\n}\n';
  it('1.22.1: adds http2 to listen', () => {
    const { doc, found } = expectRule('nginx', text, 'nginx/http2-missing', V122);
    assert.equal(
      applyFix(doc, found[0]),
      'http {\n    server {\n        listen 443 ssl http2;\n        ssl_session_cache shared:SSL:1m;\n    }\n}\n',
    );
  });
  it('1.25.1 and later: adds the http2 directive', () => {
    const { doc, found } = expectRule('nginx', text, 'nginx/http2-missing', { nginxVersion: '1.25.1' });
    assert.equal(
      applyFix(doc, found[0]),
      'http {\n    server {\n        listen 443 ssl;\n        http2 on;\n        ssl_session_cache shared:SSL:1m;\n    }\n}\n',
    );
  });
  it('accepts either form, and plain-HTTP servers', () => {
    expectNone('nginx', 'http {\n    server {\n        listen 443 ssl http2;\n    }\n}\n', 'nginx/http2-missing', V122);
    expectNone('nginx', 'http {\n    http2 on;\n    server {\n        listen 443 ssl;\n    }\n}\n', 'nginx/http2-missing');
    expectNone('nginx', 'http {\n    server {\n        listen 80;\n    }\n}\n', 'nginx/http2-missing');
  });
});

describe('nginx/listen-http2-deprecated (since 1.25.1)', () => {
  const text = 'http {\n    server {\n        listen 443 ssl <|http2|>;\n    }\n}\n';
  it('moves http2 from listen to the directive', () => {
    const { doc, found } = expectRule('nginx', text, 'nginx/listen-http2-deprecated', { nginxVersion: '1.25.1' });
    assert.deepEqual(found[0].tags, [2]);
    assert.equal(applyFix(doc, found[0]), 'http {\n    server {\n        listen 443 ssl;\n        http2 on;\n    }\n}\n');
  });
  it('is silent before 1.25.1', () => {
    expectNone('nginx', text.replace(/<\||\|>/g, ''), 'nginx/listen-http2-deprecated', V122);
  });
});

describe('nginx/ssl-stapling-no-resolver', () => {
  it('flags stapling without a resolver', () => {
    expectRule(
      'nginx',
      'http {\n    server {\n        listen 443 ssl;\n        <|ssl_stapling on;|>\n    }\n}\n',
      'nginx/ssl-stapling-no-resolver',
    );
  });
  it('accepts a resolver in an enclosing block', () => {
    expectNone(
      'nginx',
      'http {\n    resolver 127.0.0.53;\n    server {\n        listen 443 ssl;\n        ssl_stapling on;\n    }\n}\n',
      'nginx/ssl-stapling-no-resolver',
    );
  });
});

describe('rule settings', () => {
  it('a setting changes the severity or turns a rule off', () => {
    const text = 'http {\n    keepalive_requests 10;\n}\n';
    assert.equal(
      only(run('nginx', text, { rules: { 'nginx/keepalive-requests-low': 'error' } }).diagnostics, 'nginx/keepalive-requests-low')[0]
        .severity,
      1,
    );
    assert.equal(
      only(run('nginx', text, { rules: { 'nginx/keepalive-requests-low': 'off' } }).diagnostics, 'nginx/keepalive-requests-low').length,
      0,
    );
  });
});
