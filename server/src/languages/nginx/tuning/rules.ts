// The nginx tuning and safety rules as rows: what each flags, why (in our words), the official
// page it rests on, the versions it applies to and what its quick fix does. The checks that
// produce the findings live in checks.ts; docs/rules.md is generated from these rows.
import type { RuleMeta } from '../../../core/rules';
import { eolRuleRow } from '../../../core/lifecycle';

const CORE = 'https://nginx.org/en/docs/ngx_core_module.html';
const HTTP_CORE = 'https://nginx.org/en/docs/http/ngx_http_core_module.html';
const PROXY = 'https://nginx.org/en/docs/http/ngx_http_proxy_module.html';
const UPSTREAM = 'https://nginx.org/en/docs/http/ngx_http_upstream_module.html';
const SSL = 'https://nginx.org/en/docs/http/ngx_http_ssl_module.html';
const HEADERS = 'https://nginx.org/en/docs/http/ngx_http_headers_module.html';

/** nginx 1.29.7 made upstream keep-alive (`keepalive 32 local`), HTTP/1.1 to upstreams and no `Connection: close` the defaults, for `upstream` blocks (not for `proxy_pass` to a literal address). */
/** The implicit pool of an `upstream` block without `keepalive` since 1.29.7 (measured on 1.30.6: like `keepalive 32`). */
export const NGINX_DEFAULT_UPSTREAM_POOL = 32;
export const NGINX_UPSTREAM_KEEPALIVE_DEFAULT = '1.29.7';
/** The `http2` directive replaced `listen ... http2` in 1.25.1. */
export const NGINX_HTTP2_DIRECTIVE = '1.25.1';
/** Before 1.23.4 the default `ssl_protocols` still offered TLSv1 and TLSv1.1. */
export const NGINX_MODERN_TLS_DEFAULT = '1.23.4';

type Row = Omit<RuleMeta<`nginx/${string}`>, 'language'>;

const rows = [
  // ---- performance: workers and events
  {
    id: 'nginx/worker-processes-not-auto',
    category: 'performance',
    severity: 'warning',
    title: '`worker_processes` is missing (one worker) or a fixed number instead of `auto`',
    why: 'Each nginx worker is single-threaded, so the number of workers caps how many cores nginx can use. Without the directive nginx runs one worker; a fixed number goes stale when the machine changes. `auto` starts one worker per available core.',
    docUrl: `${CORE}#worker_processes`,
    fix: 'Sets `worker_processes auto;` (replaces the number, or adds the line before `events`).',
  },
  {
    id: 'nginx/worker-connections-low',
    category: 'performance',
    severity: 'warning',
    title: '`worker_connections` is missing or at most the default of 512',
    why: 'A worker accepts at most `worker_connections` connections, and a proxied request holds two of them (client and upstream). At the default of 512 a worker proxies about 256 concurrent requests, then logs "worker_connections are not enough" and drops new ones.',
    docUrl: `${CORE}#worker_connections`,
    fix: 'Sets `worker_connections 4096;` in `events` (remember the file-descriptor limit: see nginx/worker-rlimit-nofile).',
  },
  {
    id: 'nginx/worker-rlimit-nofile',
    category: 'performance',
    severity: 'warning',
    title: "The workers' file-descriptor limit is below what `worker_connections` needs",
    why: 'Every connection is a file descriptor, and a proxied request uses two. Without `worker_rlimit_nofile` the workers inherit the process limit (1024 on most systems, or the host limit when known), so a large `worker_connections` is never reached: nginx fails with "Too many open files" first.',
    docUrl: `${CORE}#worker_rlimit_nofile`,
    fix: 'Sets `worker_rlimit_nofile` to twice `worker_connections`.',
  },
  {
    id: 'nginx/redundant-event-setting',
    category: 'style',
    severity: 'hint',
    title: '`use epoll` or `accept_mutex off`: already what nginx does on Linux',
    why: 'Tuning posts still copy these lines, but nginx picks the most efficient event method by itself (epoll on Linux), and `accept_mutex` has been off by default since 1.11.3. The lines change nothing; removing them removes noise and the impression that they matter.',
    docUrl: `${CORE}#accept_mutex`,
    fix: 'Removes the line.',
  },
  // ---- performance: upstream connections
  {
    id: 'nginx/upstream-keepalive',
    category: 'performance',
    severity: 'warning',
    title: 'An `upstream` used by `proxy_pass` keeps no idle connections (`keepalive` missing)',
    why: 'Without `keepalive` in the upstream block, nginx opens a new TCP connection to the backend for every request and closes it afterwards: a handshake per request, TIME_WAIT sockets piling up, and much higher latency under load. Measured on 2 cores: adding `keepalive` with HTTP/1.1 took a proxy from 17.7k to 27.6k req/s and P99 from 15.3 to 7.9 ms. The pool is per worker and must cover the concurrent requests of a worker: with 50 clients `keepalive 32` still opened a new connection for 8-31% of requests, `keepalive 64` almost never. Since nginx 1.29.7 an upstream block keeps idle connections by default (`keepalive 32 local`, HTTP/1.1, no `Connection: close`), so this rule stops there (a pool smaller than the concurrency is then nginx/upstream-keepalive-small).',
    docUrl: `${UPSTREAM}#keepalive`,
    until: NGINX_UPSTREAM_KEEPALIVE_DEFAULT,
    fix: 'Adds `keepalive 64;` to the upstream block and, where it is used, `proxy_http_version 1.1;` and `proxy_set_header Connection "";`.',
  },
  {
    id: 'nginx/upstream-keepalive-headers',
    category: 'performance',
    severity: 'warning',
    title: '`proxy_pass` to a keep-alive upstream still speaks HTTP/1.0 or sends `Connection: close`',
    why: 'The idle pool of `keepalive` is only used when nginx talks HTTP/1.1 to the backend and does not ask it to close: before 1.29.7 nginx defaults to HTTP/1.0 and a `Connection: close` header, so `keepalive` alone does nothing. Both lines are needed where `proxy_pass` is (or inherited from an enclosing block).',
    docUrl: `${UPSTREAM}#keepalive`,
    until: NGINX_UPSTREAM_KEEPALIVE_DEFAULT,
    fix: 'Adds `proxy_http_version 1.1;` and/or `proxy_set_header Connection "";` (next to the block\'s other `proxy_set_header` lines, so none is dropped).',
  },
  {
    id: 'nginx/upstream-keepalive-small',
    category: 'performance',
    severity: 'hint',
    title: 'A small upstream `keepalive` pool',
    why: '`keepalive N` keeps at most N idle connections per worker. When a worker has more requests in flight than that, the extra connections are closed after use and reopened for the next request. Measured here with 50 clients and one worker: `keepalive 32` still opened a new upstream connection for 8-31% of requests; `keepalive 64` for 0.1%. Size the pool for the concurrency per worker. Since 1.29.7 an upstream block without `keepalive` behaves as `keepalive 32 local`: measured on 1.30.6 with 50 clients, 0.23 new backend connections per request, the same as an explicit `keepalive 32`, so the hint also flags a missing `keepalive` there.',
    docUrl: `${UPSTREAM}#keepalive`,
    fix: 'Raises the pool to 64.',
  },
  {
    id: 'nginx/proxy-pass-no-upstream',
    category: 'performance',
    severity: 'warning',
    title: '`proxy_pass` to a literal address: no connection reuse to the backend',
    why: 'A `proxy_pass` with an address instead of an `upstream` name gets an implicit upstream that never keeps idle connections, in every version: every request opens and closes a backend connection. nginx 1.29.7 turned keep-alive on by default for explicit `upstream` blocks only; measured with `proxy-tuner bench` (docs/rule-evidence.md), `proxy_pass http://127.0.0.1:PORT;` still opens one backend connection per request on 1.22.1, 1.26.3 and 1.30.6, while an `upstream` block reuses connections on 1.30.6 even without `keepalive`. Before 1.29.7 the block also needs `keepalive`, `proxy_http_version 1.1` and an empty `Connection` header; from 1.29.7 on the block alone is enough.',
    docUrl: `${UPSTREAM}#keepalive`,
    fix: 'Creates an `upstream` block with the address and `keepalive 64;` and points `proxy_pass` at it; before 1.29.7 it also adds the HTTP/1.1 lines.',
  },
  {
    id: 'nginx/keepalive-requests-low',
    category: 'performance',
    severity: 'information',
    title: '`keepalive_requests` below 1000',
    why: 'After this many requests nginx closes a keep-alive connection (client side, or upstream side inside an `upstream` block) and the peer has to reconnect; HTTP/2 clients get a GOAWAY. Low values turn a long-lived connection into frequent reconnects. 1000 is the default since 1.19.10 (it was 100); busy proxies often use 10000.',
    docUrl: `${HTTP_CORE}#keepalive_requests`,
    fix: 'Sets the value to 1000.',
  },
  // ---- performance: logging, files, compression, buffering
  {
    id: 'nginx/access-log-unbuffered',
    category: 'performance',
    severity: 'information',
    // right but rarely worth acting on: operators read logs live (`tail -f`, /dev/stdout)
    title: '`access_log` writes every request as it completes (no `buffer=`)',
    why: 'An unbuffered access log costs one write system call per request in the worker that serves it. On a hot path `buffer=32k flush=5s` groups the writes (lines reach the file within 5 seconds); `access_log off` removes the cost where the log is not needed.',
    docUrl: 'https://nginx.org/en/docs/http/ngx_http_log_module.html#access_log',
    fix: 'Adds `buffer=32k flush=5s` (or, as a second choice, turns the log off).',
  },
  {
    id: 'nginx/sendfile-off',
    category: 'performance',
    severity: 'information',
    title: 'Static files served without `sendfile`',
    why: '`sendfile` (off by default) lets the kernel copy file data straight to the socket instead of reading it into nginx and writing it out again: less CPU and memory traffic for every static file.',
    docUrl: `${HTTP_CORE}#sendfile`,
    fix: 'Sets `sendfile on;` (and `tcp_nopush on;`).',
  },
  {
    id: 'nginx/tcp-nopush-off',
    category: 'performance',
    severity: 'hint',
    title: '`sendfile on` without `tcp_nopush on`',
    why: 'With `tcp_nopush` nginx sends the response header and the start of the file in full packets when using `sendfile`, instead of a small header packet first. It only has an effect together with `sendfile`.',
    docUrl: `${HTTP_CORE}#tcp_nopush`,
    fix: 'Adds `tcp_nopush on;` after `sendfile on;`.',
  },
  {
    id: 'nginx/gzip-min-length',
    category: 'performance',
    severity: 'information',
    // a micro-optimisation: a few bytes on tiny responses
    title: '`gzip on` also compresses tiny responses (`gzip_min_length` missing or below 256)',
    why: 'The default `gzip_min_length` is 20 bytes. Compressing a response of a few hundred bytes costs CPU and often makes it bigger (gzip adds about 20 bytes of framing and the saving on short bodies is small). 256 bytes or more skips the responses not worth compressing.',
    docUrl: 'https://nginx.org/en/docs/http/ngx_http_gzip_module.html#gzip_min_length',
    fix: 'Sets `gzip_min_length 256;`.',
  },
  {
    id: 'nginx/proxy-buffering-off',
    category: 'performance',
    severity: 'information',
    title: '`proxy_buffering off` without a reason',
    why: 'With buffering off nginx passes the response to the client as fast as the client reads it, holding the upstream connection (and the backend worker behind it) for a slow client. That is right for streaming (server-sent events, long polling) and wrong for ordinary responses. Say why next to the line, or leave buffering on.',
    docUrl: `${PROXY}#proxy_buffering`,
    fix: 'Removes the line (not applied automatically: streaming endpoints need it).',
  },
  {
    id: 'nginx/listen-backlog-somaxconn',
    category: 'performance',
    severity: 'warning',
    title: "`listen ... backlog=N` above the host's `net.core.somaxconn`",
    why: 'The kernel silently caps a listen queue at `net.core.somaxconn`, so a larger `backlog=` is never in effect and bursts of new connections overflow the smaller queue (dropped SYNs, retransmits after a second). Raise the sysctl or lower the backlog to what is real. Only checked when the host is known (local files).',
    docUrl: `${HTTP_CORE}#listen`,
    fix: "Sets the backlog to the host's somaxconn (the better fix is raising the sysctl).",
  },
  // ---- TLS
  {
    id: 'nginx/ssl-session-cache',
    category: 'performance',
    severity: 'warning',
    title: 'TLS session resumption without a shared session cache',
    why: 'With `ssl_session_tickets off` and no `ssl_session_cache shared:...`, no session can be resumed and every new connection pays a full handshake: measured here 1.4k vs 5.9k connections per second (x4.2). While session tickets are on (the default) clients resume through tickets and the cache changes nothing measurable; it then only helps clients that do not use tickets, hence only a hint.',
    docUrl: `${SSL}#ssl_session_cache`,
    fix: 'Adds `ssl_session_cache shared:SSL:10m;`.',
  },
  {
    id: 'nginx/ssl-protocols-old',
    category: 'security',
    severity: 'warning',
    title: 'TLS allows SSLv3, TLSv1 or TLSv1.1',
    why: 'TLS 1.0 and 1.1 are deprecated (RFC 8996) and rejected by current browsers; SSLv3 is broken. Before nginx 1.23.4 the default `ssl_protocols` still included TLSv1 and TLSv1.1, so a TLS server without the directive offers them too.',
    docUrl: `${SSL}#ssl_protocols`,
    fix: 'Removes the old protocols from `ssl_protocols` (or adds `ssl_protocols TLSv1.2 TLSv1.3;`).',
  },
  {
    id: 'nginx/http2-missing',
    category: 'performance',
    severity: 'information',
    title: 'A TLS server without HTTP/2',
    why: 'HTTP/2 multiplexes many requests over one TLS connection, saving handshakes and head-of-line waits for browsers that open many parallel requests. Since nginx 1.25.1 it is turned on with `http2 on;`; before, with the `http2` parameter of `listen`.',
    docUrl: 'https://nginx.org/en/docs/http/ngx_http_v2_module.html#http2',
    fix: '`http2 on;` after the `listen` line (1.25.1 and later), or `http2` added to `listen` (before 1.25.1).',
  },
  {
    id: 'nginx/listen-http2-deprecated',
    category: 'compatibility',
    severity: 'hint',
    title: '`listen ... http2` is deprecated since nginx 1.25.1',
    why: 'nginx 1.25.1 replaced the `http2` parameter of `listen` with the `http2` directive and warns about the old form at startup.',
    docUrl: 'https://nginx.org/en/docs/http/ngx_http_v2_module.html#http2',
    since: NGINX_HTTP2_DIRECTIVE,
    fix: 'Removes `http2` from `listen` and adds `http2 on;`.',
  },
  {
    id: 'nginx/ssl-stapling-no-resolver',
    category: 'correctness',
    severity: 'warning',
    title: '`ssl_stapling on` without a `resolver`',
    why: 'To staple OCSP responses nginx must resolve the OCSP responder named in the certificate, which needs a `resolver`. Without one nginx logs a warning and sends no stapled response, so clients fall back to asking the CA themselves.',
    docUrl: `${SSL}#ssl_stapling`,
  },
  // ---- safety
  {
    id: 'nginx/alias-traversal',
    category: 'security',
    severity: 'warning',
    title: 'Path traversal: location without a trailing slash, alias with one',
    why: 'With `location /static` and `alias /srv/static/;`, a request for `/static../secret` maps to `/srv/static/../secret`: the part after the location prefix is appended to the alias, so `..` walks out of the folder. Make both end with `/` (or neither).',
    docUrl: `${HTTP_CORE}#alias`,
    fix: 'Adds the trailing `/` to the location prefix.',
  },
  {
    id: 'nginx/add-header-inheritance',
    category: 'correctness',
    severity: 'warning',
    title: '`add_header` in a block drops every `add_header` of the enclosing blocks',
    why: '`add_header` lines are inherited from the enclosing level only when the current level has none. One `add_header` in a location therefore silently removes all headers set in the server or http block (often security headers such as HSTS or CSP) for that location.',
    docUrl: 'https://nginx.org/en/docs/http/ngx_http_headers_module.html#add_header',
    fix: 'Repeats the dropped `add_header` lines in the block.',
  },
  {
    id: 'nginx/proxy-set-header-inheritance',
    category: 'correctness',
    severity: 'warning',
    title: '`proxy_set_header` in a block drops every `proxy_set_header` of the enclosing blocks',
    why: '`proxy_set_header` lines are inherited only when the current level has none: one `proxy_set_header` in a location removes the `Host`, `X-Forwarded-For` and other headers set in the server or http block for that location.',
    docUrl: `${PROXY}#proxy_set_header`,
    fix: 'Repeats the dropped `proxy_set_header` lines in the block.',
  },
  {
    id: 'nginx/host-in-redirect',
    category: 'security',
    severity: 'warning',
    title: "A redirect built from the request's Host header",
    why: '`$http_host` is the Host header exactly as the client sent it: a redirect built from it sends users wherever a forged request says (cache poisoning, password-reset links to another domain). `$host` is normalised but still comes from the client in a catch-all server; use `$server_name` or the literal name there.',
    docUrl: `${HTTP_CORE}#var_host`,
    fix: 'Replaces `$http_host` with `$host`.',
  },
  {
    id: 'nginx/server-tokens-on',
    category: 'security',
    severity: 'information',
    title: '`server_tokens on` shows the nginx version to every client',
    why: 'The version in the `Server` header and on error pages tells an attacker which known vulnerabilities to try. `off` keeps the header but drops the version.',
    docUrl: `${HTTP_CORE}#server_tokens`,
    fix: 'Sets `server_tokens off;`.',
  },
  {
    id: 'nginx/if-in-location',
    category: 'correctness',
    severity: 'warning',
    title: '`if` inside a location with more than `return` or `rewrite ... last`',
    why: '`if` in a location creates a nested location that replaces the outer one when the condition is true; directives inside it that are not rewrite-module directives behave surprisingly (handlers and headers of the outer location are lost, some directives crash older versions). The only safe bodies are `return ...;` and `rewrite ... last;`; use `map`, `try_files` or separate locations for the rest.',
    docUrl: 'https://nginx.org/en/docs/http/ngx_http_rewrite_module.html#if',
  },
  {
    id: 'nginx/ssrf-proxy-pass',
    category: 'security',
    severity: 'warning',
    title: 'The `proxy_pass` (or `fastcgi_pass`, `grpc_pass`, ...) address comes from the request (SSRF)',
    why: "When the scheme or host of the address that nginx connects to is built from request data, a client chooses where nginx connects: internal services, cloud metadata endpoints, anything the proxy can reach. The rule follows the value through `set`, `map` and regex captures (numbered and named, of `location`, `if`, `rewrite`, `map` and `server_name`), and counts `$host` as client data in a default server, which any Host header reaches. Locations marked `internal` are skipped unless a `rewrite` copies the client's path into a URI they match. Map the request to a fixed set of upstreams instead.",
    docUrl: `${PROXY}#proxy_pass`,
  },
  {
    id: 'nginx/header-injection',
    category: 'security',
    severity: 'warning',
    title: 'A value that can hold CR/LF goes into a header (HTTP response or request splitting)',
    why: '`$uri`, `$document_uri` and regex captures of them hold the decoded path, so `%0d%0a` in a request becomes a real line break there. Written into `add_header`, a `return 30x` or redirecting `rewrite` target, or `proxy_set_header`/`proxy_pass`, it lets a client add headers of its own to the response (or to the request sent upstream). Checked on nginx 1.22.1: `add_header X-URI $uri` answered `/h/%0d%0aX-Injected:%201` with a real `X-Injected: 1` header. `$request_uri` never holds a raw line break; a capture of `(.*)` cannot hold a line feed (`.` does not match it); a rewrite\'s own `$1` is escaped by nginx; `return 200 "$uri"` writes the body, not a header.',
    docUrl: `${HEADERS}#add_header`,
    fix: 'Uses `$request_uri` instead of `$uri`, or adds `\\s` to the negated character class of the capture (both change behaviour: not applied automatically).',
  },
  {
    id: 'nginx/host-spoofing',
    category: 'security',
    severity: 'warning',
    title: '`proxy_set_header Host` copies a client value other than the Host header (`$arg_*`, `$http_x_*`, ...)',
    why: 'nginx picks the server block by the Host header, so `$host` and `$http_host` name the virtual host the request was routed to (`$http_host` keeps the port, which backends use for their redirects). A query argument or another header as the upstream Host lets a client make the backend believe any virtual host was asked for: poisoned caches, password-reset links to another domain, bypassed host-based routing.',
    docUrl: `${PROXY}#proxy_set_header`,
  },
  {
    id: 'nginx/origin-regex',
    category: 'security',
    severity: 'warning',
    title: 'An Origin or Referer check whose regex lets other sites through (unanchored, or an unescaped dot)',
    why: "A regex on `$http_origin` or `$http_referer` (in `if`, a `map` or `valid_referers`) that is not anchored at both ends accepts `https://example.com.attacker.invalid` or `https://attacker.invalid/?https://example.com`; an unescaped `.` accepts look-alike domains. Such checks usually guard CORS or clickjacking headers, so a bypass hands another site the user's session. The rule tries such crafted values against the pattern itself.",
    docUrl: 'https://nginx.org/en/docs/http/ngx_http_rewrite_module.html#if',
    fix: 'Escapes the unescaped dots.',
  },
  {
    id: 'nginx/valid-referers-none',
    category: 'security',
    severity: 'information',
    title: '`valid_referers none` accepts requests without a Referer',
    why: 'Any page can make a browser send a request without a Referer (a `Referrer-Policy: no-referrer`, a link from https to http, a `data:` URL), so `none` lets every other site through the check it was meant to enforce.',
    docUrl: 'https://nginx.org/en/docs/http/ngx_http_referer_module.html#valid_referers',
  },
  {
    id: 'nginx/add-header-multiline',
    category: 'correctness',
    severity: 'warning',
    title: 'A header value that spans several lines',
    why: 'nginx sends the line breaks of a quoted multi-line value as they are, which is obsolete header folding (RFC 7230, section 3.2.4): many clients and proxies reject the response or cut the header off. Long values such as a Content-Security-Policy belong on one line.',
    docUrl: `${HEADERS}#add_header`,
    fix: 'Joins the lines with single spaces.',
  },
  {
    id: 'nginx/add-header-content-type',
    category: 'correctness',
    severity: 'warning',
    title: '`add_header Content-Type` instead of `default_type`',
    why: '`add_header` appends a header; it does not replace the Content-Type that nginx (from `types`/`default_type`) or the upstream already sends, so the response carries two, and clients pick either. Set the type with `default_type`, or hide the upstream one with `proxy_hide_header`.',
    docUrl: `${HTTP_CORE}#default_type`,
    fix: 'Replaces the line with `default_type` (not applied automatically: it only applies when no type is known).',
  },
  {
    id: 'nginx/allow-without-deny',
    category: 'security',
    severity: 'warning',
    title: '`allow` without any `deny` in the same block',
    why: "nginx checks `allow`/`deny` in order and lets a request through when none matches, and a block with its own rules does not inherit the enclosing block's. A list of `allow` lines without a final `deny all;` therefore allows everyone. (Skipped with `satisfy any`, where authentication decides for the rest.)",
    docUrl: 'https://nginx.org/en/docs/http/ngx_http_access_module.html#allow',
    fix: 'Adds `deny all;` after the last `allow` (not applied automatically: check who must keep access).',
  },
  {
    id: 'nginx/return-bypasses-access',
    category: 'security',
    severity: 'warning',
    title: '`return` in a block whose `allow`/`deny` or authentication it bypasses',
    why: '`return` runs in the rewrite phase, which comes before the access phase where `allow`, `deny`, `auth_basic` and `auth_request` are checked, so every client gets the response: the access rules of the block never apply to it.',
    docUrl: 'https://nginx.org/en/docs/http/ngx_http_rewrite_module.html#return',
  },
  {
    id: 'nginx/stub-status-open',
    category: 'security',
    severity: 'information',
    title: '`stub_status` reachable without `allow`/`deny` or authentication',
    why: 'The status page shows active connections and request counters: useful to an attacker timing a flood, and usually meant for the monitoring host only. Restrict it with `allow`/`deny` or authentication.',
    docUrl: 'https://nginx.org/en/docs/http/ngx_http_stub_status_module.html',
  },
  {
    id: 'nginx/resolver-external',
    category: 'security',
    severity: 'warning',
    title: '`resolver` points at a public DNS server',
    why: "nginx's own resolver does not validate DNSSEC and accepts the first answer that matches, so queries that travel across the internet can be answered by an on-path attacker, who then picks the upstream address. nginx before 1.21.0 also had a memory corruption in it (CVE-2021-23017). Use a resolver on the host or in your own network.",
    docUrl: `${HTTP_CORE}#resolver`,
  },
  {
    id: 'nginx/regex-redos',
    category: 'security',
    severity: 'warning',
    title: 'A regex that can take exponential time on a crafted request (ReDoS)',
    why: 'A repetition whose body can match the same text in several ways (`(a+)+`, `(\\w+\\s?)*`, `(a|ab)*`) makes PCRE backtrack through exponentially many splits when the rest of the pattern fails, and a worker is busy with one request for seconds. Patterns of `location`, `if`, `rewrite` and `map` all run on client data.',
    docUrl: `${HTTP_CORE}#location`,
  },
  {
    id: 'nginx/ssl-ciphers-weak',
    category: 'security',
    severity: 'warning',
    title: '`ssl_ciphers` enables broken ciphers (RC4, DES/3DES, MD5, NULL, export, anonymous)',
    why: 'These ciphers are broken or unauthenticated: RC4 and 3DES (Sweet32) leak plaintext, export and NULL ciphers barely encrypt, anonymous suites allow a man in the middle. A list that names them, or `ALL` without `!aNULL`, offers them to any client that asks.',
    docUrl: `${SSL}#ssl_ciphers`,
  },
  {
    id: 'nginx/error-log-off',
    category: 'correctness',
    severity: 'warning',
    title: '`error_log off` writes a log file named `off`',
    why: 'Unlike `access_log`, `error_log` has no `off` value: the word is taken as a file name, so nginx keeps logging into `off` under its prefix, where nobody looks and nothing rotates it. Discard errors with `error_log /dev/null crit;` (or keep a real log).',
    docUrl: `${CORE}#error_log`,
    fix: 'Replaces it with `error_log /dev/null crit;`.',
  },
  {
    id: 'nginx/location-regex-unanchored',
    category: 'security',
    severity: 'warning',
    title: 'A regex location for a file extension without `$` (`location ~ \\.php`)',
    why: 'Without `$` the pattern matches the extension anywhere in the path: `location ~ \\.php` also takes `/uploads/avatar.php.jpg` and `/x.php/anything`, and when it passes requests to PHP-FPM (or another backend) an uploaded file with such a name may be executed. A warning when the location passes requests on, else information.',
    docUrl: `${HTTP_CORE}#location`,
    fix: 'Appends `$` to the pattern (not applied automatically: `/x.php/info` style paths may be intended).',
  },
] as const satisfies readonly Row[];

/** The ids of the tuning and safety rows (and the end-of-life rule). */
export type NginxTuningRuleId = (typeof rows)[number]['id'] | 'nginx/version-end-of-life';

export const NGINX_TUNING_RULES: RuleMeta<NginxTuningRuleId>[] = [
  ...rows.map((r): RuleMeta<NginxTuningRuleId> => ({ ...r, language: 'nginx' })),
  eolRuleRow('nginx'),
];
