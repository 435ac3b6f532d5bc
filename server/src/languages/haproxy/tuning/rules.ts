// The HAProxy tuning and safety rules as rows (see ../nginx/rules.ts for the shape). The
// checks are in checks.ts; docs/rules.md is generated from these rows.
import type { RuleMeta } from '../../../core/rules';
import { eolRuleRow } from '../../../core/lifecycle';

/** The HAProxy 2.6 configuration manual (the version Debian 12 ships). */
export const HAPROXY_DOC = 'https://docs.haproxy.org/2.6/configuration.html';
/** `nbproc` was removed in 2.5 (deprecated since 2.3). */
export const HAPROXY_NBPROC_REMOVED = '2.5';
/** Since 2.2 the default minimum TLS version of `bind ... ssl` is TLSv1.2. */
export const HAPROXY_TLS12_DEFAULT = '2.2';

type Row = Omit<RuleMeta<`haproxy/${string}`>, 'language'>;

const rows = [
  {
    id: 'haproxy/global-maxconn',
    category: 'performance',
    severity: 'warning',
    title: 'No `maxconn` in `global`',
    why: 'Without a global `maxconn` HAProxy derives the limit from the file-descriptor limit it starts with, so the real ceiling changes with the service manager and the host (1024 fds give about 500 connections; a huge limit lets memory run out first). State it: HAProxy needs about two descriptors per connection (measured: `maxconn 20000` failed under a 20000 fd limit).',
    docUrl: `${HAPROXY_DOC}#3.2-maxconn`,
    fix: "Adds `maxconn` to `global` (half the host's fd limit when known, else 4096).",
  },
  {
    id: 'haproxy/nbproc',
    category: 'compatibility',
    severity: 'warning',
    title: '`nbproc`: multi-process mode (deprecated in 2.3, removed in 2.5)',
    why: 'Several processes do not share stick tables, stats, `maxconn` or health checks, and HAProxy 2.5 removed `nbproc` altogether (the config no longer loads). Threads (`nbthread`, one per core by default since 2.0) give the same parallelism with shared state. On a 2-core machine more processes than cores only add contention.',
    docUrl: `${HAPROXY_DOC}#3.1-nbthread`,
    until: HAPROXY_NBPROC_REMOVED,
    fix: 'Replaces `nbproc` with `nbthread`. (From 2.5 on, the HAProxy module reports the removed keyword itself.)',
  },
  {
    id: 'haproxy/nbthread-above-cores',
    category: 'performance',
    severity: 'warning',
    title: '`nbthread` above the number of cores',
    why: 'Threads beyond the core count compete for the same CPUs: more context switches and lock contention, no more throughput. Since 2.0 HAProxy starts one thread per available core by default. Only checked when the host is known.',
    docUrl: `${HAPROXY_DOC}#3.1-nbthread`,
    fix: 'Sets `nbthread` to the core count.',
  },
  {
    id: 'haproxy/option-httpclose',
    category: 'performance',
    severity: 'information',
    title: '`option httpclose` / `option http-server-close` turn keep-alive off',
    why: '`httpclose` closes both sides after each response; `http-server-close` keeps the client side alive but opens a new server connection for every request. Without them HAProxy keeps both sides alive (the default HTTP mode) and, since 2.0 with the default `http-reuse safe`, reuses idle server connections: a TCP (and TLS) handshake saved per request. Keep them only for a backend that misbehaves with persistent connections.',
    docUrl: `${HAPROXY_DOC}#4.2-option%20http-server-close`,
    fix: 'Removes the option (not applied automatically: a backend may need it).',
  },
  {
    id: 'haproxy/http-reuse',
    category: 'performance',
    severity: 'hint',
    title: 'HTTP backend without `http-reuse`',
    why: 'The default since 2.0 (`safe`) already reuses idle server connections for the second and later requests of a client connection. Measured here: `http-reuse always` made no difference with keep-alive clients (x0.90-1.28), but with clients that close after each request it took 14.9k to 24.0k req/s and P99 from 14.4 to 4.4 ms. Worth it for such clients, if the servers do not tie state (such as NTLM authentication) to a connection.',
    docUrl: `${HAPROXY_DOC}#4.2-http-reuse`,
    fix: 'Adds `http-reuse always` (not applied automatically).',
  },
  {
    id: 'haproxy/server-no-check',
    category: 'correctness',
    severity: 'warning',
    title: 'A server without `check` in a backend with several servers',
    why: 'Without health checks HAProxy keeps sending a share of the traffic to a server that is down; clients get errors until someone notices. `check` takes failed servers out of the rotation and puts them back when they recover.',
    docUrl: `${HAPROXY_DOC}#5.2-check`,
    fix: 'Adds `check` to the server line.',
  },
  {
    id: 'haproxy/tcp-timeout-tunnel',
    category: 'correctness',
    severity: 'warning',
    title: 'A Kubernetes API balancer in TCP mode whose idle timeout cuts long-lived streams',
    why: 'In TCP mode `timeout client` and `timeout server` close a connection that is idle that long, unless `timeout tunnel` (which supersedes both once the connection is established) is longer. Streams to the Kubernetes API server stay idle for minutes: `kubectl exec`, `kubectl logs -f`, `kubectl port-forward` and watches are cut after, say, 35 seconds of silence. Set `timeout tunnel` to an hour or more there.',
    docUrl: `${HAPROXY_DOC}#4.2-timeout%20tunnel`,
    fix: 'Adds `timeout tunnel 1h` (not applied automatically).',
  },
  {
    id: 'haproxy/balance-long-lived',
    category: 'performance',
    severity: 'information',
    title: '`balance roundrobin`/`static-rr` for long-lived connections',
    why: 'Round robin spreads new connections evenly but ignores how long they stay. With long-lived connections (TCP mode, WebSocket or other tunnels) servers end up with very different loads; `leastconn` sends each new connection to the server with the fewest open ones.',
    docUrl: `${HAPROXY_DOC}#4.2-balance`,
    fix: 'Replaces the algorithm with `leastconn`.',
  },
  {
    id: 'haproxy/bufsize-without-maxrewrite',
    category: 'performance',
    severity: 'information',
    title: '`tune.bufsize` below the default without `tune.maxrewrite`',
    why: "HAProxy keeps `tune.maxrewrite` bytes (1024, or half the buffer when that is smaller) of every buffer free for header rewrites, and never reads more than `bufsize - maxrewrite` at first. With a smaller buffer that fixed reserve is a larger share, and requests with large headers are rejected sooner. When shrinking `tune.bufsize`, set the reserve on purpose. (For a larger buffer HAProxy's own default is fine.)",
    docUrl: `${HAPROXY_DOC}#3.2-tune.maxrewrite`,
  },
  {
    id: 'haproxy/splice-auto',
    category: 'performance',
    severity: 'hint',
    title: 'TCP proxy without `option splice-auto`',
    why: 'In TCP mode HAProxy copies every byte through user space. On Linux `option splice-auto` lets the kernel move data between the sockets (splice) when it judges it worthwhile, which lowers CPU use for large transfers.',
    docUrl: `${HAPROXY_DOC}#4.2-option%20splice-auto`,
    fix: 'Adds `option splice-auto`.',
  },
  {
    id: 'haproxy/ssl-old-protocols',
    category: 'security',
    severity: 'warning',
    title: 'TLS listeners that accept TLSv1.0/TLSv1.1',
    why: 'TLS 1.0 and 1.1 are deprecated (RFC 8996). Before HAProxy 2.2 a `bind ... ssl` accepted them unless `ssl-default-bind-options` (or the bind line) set `ssl-min-ver TLSv1.2` or `no-tlsv10 no-tlsv11`; since 2.2 TLSv1.2 is the default minimum, so only explicit older minimums are flagged there.',
    docUrl: `${HAPROXY_DOC}#3.1-ssl-default-bind-options`,
    fix: 'Sets `ssl-default-bind-options ssl-min-ver TLSv1.2` in `global`, or replaces the old minimum.',
  },
  {
    id: 'haproxy/log-without-dontlognull',
    category: 'performance',
    severity: 'hint',
    title: 'Logging without `option dontlognull`',
    why: 'Health checks and port scanners open connections that send nothing; without `option dontlognull` each one becomes a log line, which drowns the real traffic and costs I/O. The HAProxy manual itself advises against it on an uncontrolled (internet-facing) edge, where empty connections are the scans you want to see; hence only a hint.',
    docUrl: `${HAPROXY_DOC}#4.2-option%20dontlognull`,
    fix: 'Adds `option dontlognull`.',
  },
  {
    id: 'haproxy/stats-no-auth',
    category: 'security',
    severity: 'warning',
    title: 'The stats page is served on a network address without authentication',
    why: 'The stats page lists every frontend, backend and server with their addresses and health, and with `stats admin` lets a visitor put servers into maintenance. On a bind that is not loopback or a UNIX socket, without `stats auth` or an access rule (`http-request deny unless { src ... }`), anyone who reaches the port gets it.',
    docUrl: `${HAPROXY_DOC}#4.2-stats%20auth`,
  },
  {
    id: 'haproxy/stats-socket-exposed',
    category: 'security',
    severity: 'warning',
    title: 'The runtime API (`stats socket`) listens on a network address',
    why: 'The runtime API has no authentication of its own. At `level admin` (the default) it can disable servers, change weights, maps and ACLs, and at any level it reads the stats and stick tables. On an IP address anyone who reaches the port has that power; a UNIX socket with file permissions, or 127.0.0.1, keeps it local.',
    docUrl: `${HAPROXY_DOC}#3.1-stats%20socket`,
  },
  {
    id: 'haproxy/client-chosen-backend',
    category: 'security',
    severity: 'warning',
    title: 'Client input chooses the backend (`use_backend %[req.hdr(...)]`, or a header set from client input that routing reads)',
    why: 'When the backend or server name comes from a request header, a cookie, the path or a query parameter without a `map` lookup, a client can route itself to any backend of the file, including internal or administrative ones. The same holds when `http-request set-header` copies client input into a header that a `use_backend` rule then reads: the rule looks like it trusts a header the proxy set, but the client wrote it. Look the value up in a map of allowed names.',
    docUrl: `${HAPROXY_DOC}#4.2-use_backend`,
  },
  {
    id: 'haproxy/forwardfor-no-hygiene',
    category: 'security',
    severity: 'warning',
    title: "`option forwardfor` while the client's own X-Forwarded-For passes through",
    why: '`option forwardfor` adds the client address as a new X-Forwarded-For, after any the client sent itself, and with `if-none` it adds nothing when the client sent one. A backend that reads the first address (or the only one) then logs, rate-limits and allow-lists by an address the client chose. Delete the incoming header with `http-request del-header X-Forwarded-For` unless a trusted proxy in front sets it.',
    docUrl: `${HAPROXY_DOC}#4.2-option%20forwardfor`,
    fix: 'Adds `http-request del-header X-Forwarded-For` after the option (not applied automatically: a trusted proxy in front may set the header).',
  },
  {
    id: 'haproxy/ssl-weak-ciphers',
    category: 'security',
    severity: 'warning',
    title: 'TLS cipher lists that enable broken ciphers (RC4, DES/3DES, MD5, NULL, export, anonymous)',
    why: 'These ciphers are broken or unauthenticated: RC4 and 3DES (Sweet32) leak plaintext, export and NULL ciphers barely encrypt, anonymous suites allow a man in the middle. `ssl-default-bind-ciphers`, `ssl-default-server-ciphers` and the `ciphers` of a bind or server line should exclude them.',
    docUrl: `${HAPROXY_DOC}#3.1-ssl-default-bind-ciphers`,
  },
  {
    id: 'haproxy/server-ssl-verify-none',
    category: 'security',
    severity: 'information',
    title: 'TLS to a server without certificate verification (`verify none`)',
    why: 'With `verify none` (or `ssl-server-verify none` in `global`) HAProxy encrypts the connection to the server but accepts any certificate, so anyone on the network path can impersonate the server and read the traffic. Fine on loopback; across a network verify against a CA (`verify required ca-file ...`). Only reported for addresses that are not loopback.',
    docUrl: `${HAPROXY_DOC}#5.2-verify`,
  },
  {
    id: 'haproxy/weak-dh-param',
    category: 'security',
    severity: 'warning',
    title: '`tune.ssl.default-dh-param` below 2048 bits',
    why: 'Diffie-Hellman groups of 1024 bits or less are within reach of precomputation attacks (Logjam). HAProxy uses the value for DHE ciphers when the certificate file carries no DH parameters of its own.',
    docUrl: `${HAPROXY_DOC}#3.2-tune.ssl.default-dh-param`,
  },
] as const satisfies readonly Row[];

/** The ids of the tuning and safety rows (and the end-of-life rule). */
export type HaproxyTuningRuleId = (typeof rows)[number]['id'] | 'haproxy/version-end-of-life';

export const HAPROXY_TUNING_RULES: RuleMeta<HaproxyTuningRuleId>[] = [
  ...rows.map((r): RuleMeta<HaproxyTuningRuleId> => ({ ...r, language: 'haproxy' })),
  eolRuleRow('haproxy'),
];
