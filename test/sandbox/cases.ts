// The adversarial configs of the sandbox suite (issue 16): each one tries to make the proxy
// connect, send or write somewhere else than loopback and the run's folder. `refuse` names a
// text on the line the engine must refuse (the refusal must name that line); otherwise the config
// must run, and its trace must show no connect/datagram off loopback and no write outside the
// run's folder that succeeded. Public addresses are documentation ranges only.

export interface AdversarialCase {
  name: string;
  kind: 'nginx' | 'haproxy';
  text: string;
  /** A text on the line that must be refused. */
  refuse?: string;
  /** A version-matrix binary (`nginx 1.30`); the host's binary otherwise. */
  matrix?: string;
  /** The rewrite alone must handle it: no attempt off loopback or outside the folder at all. */
  rewritten?: boolean;
  method?: string;
  body?: string;
  scenario?: string;
}

const nginx = (o: { main?: string; http?: string; server?: string; location?: string; stream?: string; pass?: string } = {}) =>
  `${o.main ?? ''}
events { worker_connections 64; }
http {
${o.http ?? ''}
    server {
        listen 80;
${o.server ?? ''}
        location / {
${o.location ?? ''}
            proxy_pass ${o.pass ?? 'http://203.0.113.5:80'};
        }
    }
}
${o.stream ? `stream {\n${o.stream}\n}\n` : ''}`;

const haproxy = (o: { global?: string; defaults?: string; frontend?: string; backend?: string; server?: string; extra?: string } = {}) =>
  `global
    maxconn 100
${o.global ?? ''}
defaults
    mode http
    timeout connect 1s
    timeout client 5s
    timeout server 5s
${o.defaults ?? ''}
frontend web
    bind :80
${o.frontend ?? ''}
    default_backend app
backend app
${o.backend ?? ''}
    ${o.server ?? 'server s1 203.0.113.5:80'}
${o.extra ?? ''}`;

export const CASES: AdversarialCase[] = [
  // ---- HAProxy: environment variables (found 1, 2)
  {
    name: 'haproxy: keyword through setenv',
    kind: 'haproxy',
    text: haproxy({ global: '    setenv KW server', server: '"${KW}" s1 203.0.113.5:80 check inter 200' }),
    refuse: '"${KW}" s1',
  },
  {
    name: 'haproxy: section header through setenv',
    kind: 'haproxy',
    text: haproxy({
      global: '    setenv SEC backend',
      frontend: '    use_backend evil',
      extra: '"${SEC}" evil\n    server e1 203.0.113.5:80\n',
    }),
    refuse: '"${SEC}" evil',
  },
  {
    name: 'haproxy: server address through setenv',
    kind: 'haproxy',
    text: haproxy({ global: '    setenv ADDR 203.0.113.5:80', server: 'server s1 "${ADDR}" check inter 200' }),
    rewritten: true,
  },
  {
    name: 'haproxy: server address through presetenv',
    kind: 'haproxy',
    text: haproxy({ global: '    presetenv PT_ADV_ADDR 203.0.113.6:80', server: 'server s1 "${PT_ADV_ADDR}"' }),
    rewritten: true,
  },
  {
    name: 'haproxy: address from a variable default',
    kind: 'haproxy',
    text: haproxy({ server: 'server s1 "${PT_ADV_UNSET-203.0.113.7:80}" check inter 200' }),
    rewritten: true,
  },
  {
    name: 'haproxy: log target through setenv',
    kind: 'haproxy',
    text: haproxy({ global: '    setenv LOGT 203.0.113.9:514\n    log "${LOGT}" local0' }),
    rewritten: true,
  },
  // ---- HAProxy: destinations chosen at run time (found 3)
  {
    name: 'haproxy: option transparent + http-request set-dst',
    kind: 'haproxy',
    text: haproxy({ frontend: '    http-request set-dst ipv4(203.0.113.7)', backend: '    option transparent' }),
    refuse: 'set-dst ipv4',
  },
  {
    name: 'haproxy: tcp-request content set-dst',
    kind: 'haproxy',
    text: haproxy({ frontend: '    tcp-request content set-dst ipv4(203.0.113.7)' }),
    refuse: 'tcp-request content set-dst',
  },
  {
    name: 'haproxy: http-request set-dst-port',
    kind: 'haproxy',
    text: haproxy({ frontend: '    http-request set-dst-port int(8080)' }),
    refuse: 'set-dst-port',
  },
  { name: 'haproxy: option transparent alone', kind: 'haproxy', text: haproxy({ backend: '    option transparent' }), rewritten: true },
  // ---- HAProxy: checks with their own address (found 4)
  {
    name: 'haproxy: tcp-check connect addr',
    kind: 'haproxy',
    text: haproxy({
      backend: '    option tcp-check\n    tcp-check connect addr 203.0.113.8 port 80',
      server: 'server s1 203.0.113.5:80 check inter 200',
    }),
    rewritten: true,
  },
  {
    name: 'haproxy: http-check connect addr',
    kind: 'haproxy',
    text: haproxy({
      backend: '    option httpchk\n    http-check connect addr 203.0.113.9 port 80\n    http-check send meth GET uri /',
      server: 'server s1 203.0.113.5:80 check inter 200',
    }),
    rewritten: true,
  },
  {
    name: 'haproxy: server check addr/port',
    kind: 'haproxy',
    text: haproxy({ server: 'server s1 203.0.113.5:80 check addr 203.0.113.8 port 81 inter 200' }),
    rewritten: true,
  },
  {
    name: 'haproxy: agent-check agent-addr',
    kind: 'haproxy',
    text: haproxy({
      server: 'server s1 203.0.113.5:80 check agent-check agent-addr 203.0.113.8 agent-port 9999 agent-inter 200 inter 200',
    }),
    rewritten: true,
  },
  // ---- HAProxy: other addresses
  {
    name: 'haproxy: server by host name',
    kind: 'haproxy',
    text: haproxy({ server: 'server s1 app.example.com:80 check inter 200' }),
    rewritten: true,
  },
  {
    name: 'haproxy: server-template',
    kind: 'haproxy',
    text: haproxy({ server: 'server-template web 3 203.0.113.10:80 check inter 200' }),
    rewritten: true,
  },
  { name: 'haproxy: source address', kind: 'haproxy', text: haproxy({ backend: '    source 203.0.113.1' }), rewritten: true },
  {
    name: 'haproxy: log in global and frontend',
    kind: 'haproxy',
    text: haproxy({ global: '    log 203.0.113.9:514 local0', frontend: '    log 198.51.100.9:514 local1\n    option httplog' }),
    rewritten: true,
  },
  {
    name: 'haproxy: log to /dev/log',
    kind: 'haproxy',
    text: haproxy({ global: '    log /dev/log local0', defaults: '    log global' }),
    rewritten: true,
  },
  {
    name: 'haproxy: bind on public addresses',
    kind: 'haproxy',
    text: haproxy({ frontend: '    bind 203.0.113.5:8080\n    bind [2001:db8::1]:8081' }),
    rewritten: true,
  },
  {
    name: 'haproxy: peers section',
    kind: 'haproxy',
    text: haproxy({
      backend: '    stick-table type ip size 1k peers mypeers\n    stick on src',
      extra: 'peers mypeers\n    peer here 203.0.113.20:10000\n    peer there 203.0.113.21:10000\n',
    }),
    rewritten: true,
  },
  {
    name: 'haproxy: mailers and email alerts',
    kind: 'haproxy',
    text: haproxy({
      backend: '    email-alert mailers mymailers\n    email-alert from a@example.com\n    email-alert to b@example.com',
      extra: 'mailers mymailers\n    mailer smtp1 203.0.113.25:25\n',
    }),
    rewritten: true,
  },
  {
    name: 'haproxy: ring with a public server',
    kind: 'haproxy',
    text: haproxy({ extra: 'ring myring\n    format rfc3164\n    maxlen 1200\n    size 32764\n    server logsrv 203.0.113.30:6514\n' }),
    rewritten: true,
  },
  {
    name: 'haproxy: stats socket on a public address and in /etc',
    kind: 'haproxy',
    text: haproxy({ global: '    stats socket /etc/pt-adv.sock mode 600 level admin\n    stats socket ipv4@203.0.113.5:9999 level admin' }),
    rewritten: true,
  },
  {
    name: 'haproxy: pidfile, chroot, user',
    kind: 'haproxy',
    text: haproxy({ global: '    pidfile /etc/pt-adv.pid\n    chroot /var/lib/haproxy\n    user haproxy\n    group haproxy\n    daemon' }),
    rewritten: true,
  },
  {
    name: 'haproxy: resolvers with a public name server',
    kind: 'haproxy',
    text: haproxy({ extra: 'resolvers dns\n    nameserver ns1 203.0.113.53:53\n' }),
    refuse: 'nameserver ns1',
  },
  {
    name: 'haproxy: parse-resolv-conf',
    kind: 'haproxy',
    text: haproxy({ extra: 'resolvers dns\n    parse-resolv-conf\n' }),
    refuse: 'parse-resolv-conf',
  },
  {
    name: 'haproxy: do-resolve',
    kind: 'haproxy',
    text: haproxy({ frontend: '    http-request do-resolve(txn.ip,dns,ipv4) hdr(host)' }),
    refuse: 'do-resolve',
  },
  { name: 'haproxy: option http_proxy', kind: 'haproxy', text: haproxy({ backend: '    option http_proxy' }), refuse: 'option http_proxy' },
  { name: 'haproxy: lua-load', kind: 'haproxy', text: haproxy({ global: '    lua-load /etc/pt-adv.lua' }), refuse: 'lua-load' },
  {
    name: 'haproxy: external-check',
    kind: 'haproxy',
    text: haproxy({ global: '    external-check', backend: '    option external-check\n    external-check command /bin/true' }),
    refuse: 'external-check',
  },
  {
    name: 'haproxy: program section',
    kind: 'haproxy',
    text: haproxy({ extra: 'program evil\n    command /bin/sh -c "exit 0"\n' }),
    refuse: 'program evil',
  },
  { name: 'haproxy: ssl-engine', kind: 'haproxy', text: haproxy({ global: '    ssl-engine rdrand' }), refuse: 'ssl-engine' },
  // ---- HAProxy: caps (found 9)
  {
    name: 'haproxy: maxconn 50000 over the file limit',
    kind: 'haproxy',
    text: haproxy({ global: '    maxconn 50000\n    nbthread 64' }).replace('    maxconn 100\n', ''),
  },
  // ---- HAProxy 3.x sections (version matrix)
  {
    name: 'haproxy 3.2: crt-store section',
    kind: 'haproxy',
    matrix: '3.2',
    text: haproxy({ extra: 'crt-store web\n    crt-base /etc/ssl/certs\n    load crt site.pem ocsp-update on\n' }),
  },
  {
    name: 'haproxy 3.2: log-profile and traces sections',
    kind: 'haproxy',
    matrix: '3.2',
    text: haproxy({ extra: 'log-profile prof\n    on any format "%ci"\ntraces\n    trace h1 sink stderr level error\n' }),
  },
  {
    name: 'haproxy 3.2: ring backing-file in /etc',
    kind: 'haproxy',
    matrix: '3.2',
    text: haproxy({ extra: 'ring myring\n    size 32764\n    backing-file /etc/pt-adv-ring\n' }),
  },
  {
    name: 'haproxy 3.0: server on a public address',
    kind: 'haproxy',
    matrix: '3.0',
    text: haproxy({ server: 'server s1 203.0.113.5:80 check inter 200' }),
  },
  {
    name: 'haproxy 3.2: acme section',
    kind: 'haproxy',
    matrix: '3.2',
    text: haproxy({ extra: 'acme le\n    directory https://acme.example.com/directory\n' }),
    refuse: 'acme le',
  },

  // ---- nginx: compiled-in paths (found 5)
  { name: 'nginx: plain config without access_log (compiled-in /var/log/nginx/access.log)', kind: 'nginx', text: nginx(), rewritten: true },
  {
    name: 'nginx: access_log and error_log in /etc',
    kind: 'nginx',
    text: nginx({ main: 'error_log /etc/pt-adv-error.log;', http: '    access_log /etc/pt-adv-access.log;' }),
    rewritten: true,
  },
  {
    name: 'nginx: logs to syslog on a public address',
    kind: 'nginx',
    text: nginx({ main: 'error_log syslog:server=203.0.113.9:514;', http: '    access_log syslog:server=203.0.113.9:514,tag=x;' }),
    rewritten: true,
  },
  {
    name: 'nginx: pid and lock file in /etc',
    kind: 'nginx',
    text: nginx({ main: 'pid /etc/pt-adv.pid;\nlock_file /etc/pt-adv.lock;' }),
    rewritten: true,
  },
  {
    name: 'nginx: temp and cache paths in /etc',
    kind: 'nginx',
    text: nginx({
      http: '    client_body_temp_path /etc/pt-adv-body;\n    proxy_temp_path /etc/pt-adv-proxy;\n    proxy_cache_path /etc/pt-adv-cache keys_zone=c:1m;',
      location: '            proxy_cache c;',
    }),
    rewritten: true,
  },
  // ---- nginx: load_module (found 6)
  {
    name: 'nginx: load_module of a library elsewhere',
    kind: 'nginx',
    text: nginx({ main: 'load_module /tmp/pt-adv-evil.so;' }),
    refuse: 'load_module /tmp',
  },
  {
    name: 'nginx: load_module escaping the modules folder',
    kind: 'nginx',
    text: nginx({ main: 'load_module modules/../../../../tmp/pt-adv-evil.so;' }),
    refuse: 'load_module modules/..',
  },
  {
    name: "nginx: load_module from the binary's own modules folder",
    kind: 'nginx',
    text: nginx({ main: 'load_module modules/ngx_stream_module.so;', stream: '    server { listen 9000; proxy_pass 203.0.113.5:9000; }' }),
  },
  // ---- nginx: names resolved at start (found 7)
  {
    name: 'nginx: set_real_ip_from a host name (http)',
    kind: 'nginx',
    text: nginx({ http: '    set_real_ip_from example.com;' }),
    refuse: 'set_real_ip_from example.com',
  },
  {
    name: 'nginx: set_real_ip_from a host name (stream)',
    kind: 'nginx',
    text: nginx({ stream: '    set_real_ip_from example.com;\n    server { listen 9000; proxy_pass 203.0.113.5:9000; }' }),
    refuse: 'set_real_ip_from example.com',
  },
  {
    name: 'nginx: set_real_ip_from a CIDR range',
    kind: 'nginx',
    text: nginx({ http: '    set_real_ip_from 203.0.113.0/24;\n    real_ip_header X-Forwarded-For;' }),
    rewritten: true,
  },
  {
    name: 'nginx: resolver on a public address',
    kind: 'nginx',
    text: nginx({ http: '    resolver 203.0.113.53;' }),
    refuse: 'resolver 203.0.113.53',
  },
  {
    name: 'nginx: resolver 127.0.0.1 (loopback) with a variable-free pass',
    kind: 'nginx',
    text: nginx({ http: '    resolver 127.0.0.1 valid=10s;' }),
    rewritten: true,
  },
  { name: 'nginx: resolver localhost.', kind: 'nginx', text: nginx({ http: '    resolver localhost.;' }), rewritten: true },
  {
    name: 'nginx: proxy_pass built from a variable',
    kind: 'nginx',
    text: nginx({ pass: 'http://$http_host' }),
    refuse: 'proxy_pass http://$http_host',
  },
  // ---- nginx: writes anywhere (found 8)
  {
    name: 'nginx: proxy_store to /etc',
    kind: 'nginx',
    text: nginx({ location: '            proxy_store /etc/pt-adv-store$uri;' }),
    rewritten: true,
  },
  {
    name: 'nginx: proxy_store on under root /etc',
    kind: 'nginx',
    text: nginx({ server: '        root /etc;', location: '            proxy_store on;' }),
    rewritten: true,
  },
  {
    name: 'nginx: fastcgi_store and uwsgi_store',
    kind: 'nginx',
    text: nginx({
      server:
        '        location /f { fastcgi_pass 203.0.113.5:9000; fastcgi_store /etc/pt-adv-f$uri; }\n        location /u { uwsgi_pass 203.0.113.5:9001; uwsgi_store on; root /etc; }',
    }),
    rewritten: true,
  },
  {
    name: 'nginx: dav_methods PUT under root /etc',
    kind: 'nginx',
    text: nginx({ server: '        location /dav { root /etc; dav_methods PUT DELETE; create_full_put_path on; }' }),
    refuse: 'dav_methods PUT',
  },
  // ---- nginx: addresses
  {
    name: 'nginx: listen on public addresses',
    kind: 'nginx',
    text: nginx({ server: '        listen 203.0.113.5:8080;\n        listen [2001:db8::1]:8081;' }),
    rewritten: true,
  },
  {
    name: 'nginx: upstream with public and named servers',
    kind: 'nginx',
    text: nginx({
      http: '    upstream app { server 203.0.113.10:80; server app.example.com:80 max_fails=2; keepalive 4; }',
      pass: 'http://app',
    }),
    rewritten: true,
  },
  { name: 'nginx: proxy_pass to a host name', kind: 'nginx', text: nginx({ pass: 'http://app.example.com:8080/x' }), rewritten: true },
  {
    name: 'nginx: https upstream',
    kind: 'nginx',
    text: nginx({ pass: 'https://203.0.113.5:443', location: '            proxy_ssl_server_name on;' }),
    rewritten: true,
  },
  {
    name: 'nginx: grpc, fastcgi, uwsgi, scgi, memcached passes',
    kind: 'nginx',
    text: nginx({
      server:
        '        location /g { grpc_pass grpc://203.0.113.5:50051; }\n        location /f { fastcgi_pass 203.0.113.5:9000; }\n        location /u { uwsgi_pass 203.0.113.5:9001; }\n        location /s { scgi_pass 203.0.113.5:9002; }\n        location /m { set $memcached_key $uri; memcached_pass 203.0.113.5:11211; }',
    }),
    rewritten: true,
  },
  {
    name: 'nginx: stream proxy_pass and upstream',
    kind: 'nginx',
    text: nginx({
      stream:
        '    upstream db { server 203.0.113.40:5432; }\n    server { listen 9000; proxy_pass db; }\n    server { listen 9001; proxy_pass 203.0.113.41:9001; }',
    }),
    rewritten: true,
  },
  {
    name: 'nginx: proxy_bind to a public source',
    kind: 'nginx',
    text: nginx({ location: '            proxy_bind 203.0.113.1;' }),
    rewritten: true,
  },
  {
    name: 'nginx: mirror and auth_request subrequests',
    kind: 'nginx',
    text: nginx({
      server:
        '        location = /auth { internal; proxy_pass http://198.51.100.7:80; }\n        location = /mirror { internal; proxy_pass http://198.51.100.8:80; }',
      location: '            auth_request /auth;\n            mirror /mirror;',
    }),
    rewritten: true,
  },
  {
    name: 'nginx: OCSP stapling with a responder',
    kind: 'nginx',
    text: nginx({
      server:
        '        listen 443 ssl;\n        ssl_certificate /etc/ssl/none.pem;\n        ssl_certificate_key /etc/ssl/none.key;\n        ssl_stapling on;\n        ssl_stapling_responder http://203.0.113.60/;\n        ssl_trusted_certificate /etc/ssl/none.pem;',
    }),
    rewritten: true,
  },
  // ---- nginx: code and includes
  { name: 'nginx: perl module', kind: 'nginx', text: nginx({ http: '    perl_modules /etc/perl;' }), refuse: 'perl_modules' },
  {
    name: 'nginx: Lua content handler',
    kind: 'nginx',
    text: nginx({ server: '        location /lua { content_by_lua_block { ngx.say("x") } }' }),
    refuse: 'content_by_lua_block',
  },
  { name: 'nginx: njs import', kind: 'nginx', text: nginx({ http: '    js_import /etc/pt-adv.js;' }), refuse: 'js_import' },
  { name: 'nginx: ssl_engine', kind: 'nginx', text: nginx({ main: 'ssl_engine rdrand;' }), refuse: 'ssl_engine' },
  {
    name: 'nginx: include /proc/self/environ',
    kind: 'nginx',
    text: nginx({ http: '    include /proc/self/environ;' }),
    refuse: 'include /proc',
  },
  // ---- nginx: caps (found 9)
  {
    name: 'nginx: 64 workers, 1,000,000 connections',
    kind: 'nginx',
    text: nginx({ main: 'worker_processes 64;\nworker_rlimit_nofile 1000000;' }).replace(
      'worker_connections 64;',
      'worker_connections 1000000;',
    ),
  },
  // ---- nginx: version matrix binaries
  {
    name: 'nginx 1.30: modules-enabled file of its own root and a stream server',
    kind: 'nginx',
    matrix: '1.30',
    text: nginx({
      main: 'include /etc/nginx/modules-enabled/50-mod-stream.conf;',
      stream: '    server { listen 9000; proxy_pass 203.0.113.5:9000; }',
    }),
  },
  {
    name: "nginx 1.26: load_module with the host's modules path",
    kind: 'nginx',
    matrix: '1.26',
    text: nginx({
      main: 'load_module /usr/lib/nginx/modules/ngx_stream_module.so;',
      stream: '    server { listen 9000; proxy_pass 203.0.113.5:9000; }',
    }),
  },
  { name: 'nginx 1.30: plain config (compiled-in log path)', kind: 'nginx', matrix: '1.30', text: nginx() },
  {
    name: "nginx 1.30: load_module from the host's folder refused for another root",
    kind: 'nginx',
    matrix: '1.30',
    text: nginx({ main: 'load_module /tmp/../usr/lib/nginx/modules/ngx_stream_module.so;' }),
    refuse: 'load_module /tmp/..',
  },
];
