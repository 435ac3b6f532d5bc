// The before/after config pairs behind the version-bound and default-dependent tuning rules, and
// how a measurement of them becomes a verdict. `npm run bench:rules` (scripts/bench-rules.mjs)
// measures every pair with `proxy-tuner bench` on each binary of the version matrix and writes
// docs/rule-evidence.md; test/tuning/ruleEvidence.test.ts keeps that file's verdicts in step
// with the rule table (the rows' since/until and what the linter says at each version).
import { TextDocument } from 'vscode-languageserver-textdocument';
import { validate } from '../../server/src/service/languageService';
import type { LanguageId } from '../../server/src/core/types';
import { NGINX_TUNING_RULES } from '../../server/src/languages/nginx/tuning/rules';
import { HAPROXY_TUNING_RULES } from '../../server/src/languages/haproxy/tuning/rules';

/** What one `proxy-tuner bench --json` run gave (the fields the verdicts read). */
export interface Measured {
  rps: number;
  p99: number;
  /** Backend connections per request (the robust signal: no timing in it). */
  cpr: number;
  requests: number;
  errors: number;
  tlsHandshakes?: number;
  tlsResumed?: number;
  warnings: string[];
  /** The binary refused the config (`nginx -t` / `haproxy -c`): its message. */
  refused?: string;
}

export interface EvidenceCase {
  /** A short key, unique: `rule-id` or `rule-id#variant`. */
  key: string;
  rule: string;
  product: LanguageId;
  /** What the rule's advice rests on: the bound, or the default. */
  restsOn: string;
  before: string;
  /** The config with the advice applied; per binary version when the fix differs, null where none applies. */
  after: string | ((version: string) => string | null);
  bench: { scenario?: string; connections: number };
  /** Which measurement the verdict reads, in words (shown in the doc). */
  signal: string;
  /** Whether the measurement shows the problem the rule names. */
  problem(before: Measured, after: Measured | null): boolean;
  /** Count only findings of at least this severity as "fires" (1 error ... 4 hint). Default: any. */
  minSeverity?: 1 | 2 | 3 | 4;
}

const HTTP_HEAD = 'events {}\nhttp {\n    access_log off;\n';
const nginx = (body: string) => `${HTTP_HEAD}${body}}\n`;
const UP = '    upstream app {\n        server 127.0.0.1:1980;\nEXTRA    }\n';
const up = (extra = '') => UP.replace('EXTRA', extra);
const SERVER = (loc: string) => `    server {\n        listen 1990;\n        location / {\n${loc}        }\n    }\n`;
const HTTP11 = '            proxy_http_version 1.1;\n            proxy_set_header Connection "";\n';
const TO_APP = '            proxy_pass http://app;\n';
const KA_FIX = nginx(up('        keepalive 64;\n') + SERVER(TO_APP + HTTP11));

const TLS_SERVER = (extra: string) =>
  nginx(
    `    server {\n        listen 8443 ssl;\n        ssl_certificate /etc/ssl/certs/example.pem;\n        ssl_certificate_key /etc/ssl/private/example.key;\n${extra}        location / {\n            proxy_pass http://app;\n${HTTP11}        }\n    }\n` +
      up('        keepalive 64;\n'),
  );

const HA = (backend: string, defaults = '') =>
  `defaults\n    mode http\n    timeout connect 5s\n    timeout client 30s\n    timeout server 30s\n${defaults}frontend fe\n    bind :8080\n    default_backend be\nbackend be\n${backend}    server s1 127.0.0.1:1980\n`;

const REUSE = 0.5;
export const CASES: EvidenceCase[] = [
  {
    key: 'nginx/proxy-pass-no-upstream',
    rule: 'nginx/proxy-pass-no-upstream',
    product: 'nginx',
    restsOn:
      'the implicit upstream of `proxy_pass` to an address keeps no idle connections (the 1.29.7 default covers `upstream` blocks only)',
    before: nginx(SERVER('            proxy_pass http://127.0.0.1:1980;\n')),
    after: KA_FIX,
    bench: { connections: 20 },
    signal: 'backend connections per request of `before` ≥ 0.5',
    problem: (b) => b.cpr >= REUSE,
  },
  {
    key: 'nginx/upstream-keepalive',
    rule: 'nginx/upstream-keepalive',
    product: 'nginx',
    restsOn: 'bound: until 1.29.7 (no upstream keep-alive by default before it)',
    before: nginx(up() + SERVER(TO_APP)),
    after: KA_FIX,
    bench: { connections: 20 },
    signal: 'backend connections per request of `before` ≥ 0.5 (20 clients, fewer than the 1.29.7 default pool of 32)',
    problem: (b) => b.cpr >= REUSE,
  },
  {
    key: 'nginx/upstream-keepalive-headers',
    rule: 'nginx/upstream-keepalive-headers',
    product: 'nginx',
    restsOn: 'bound: until 1.29.7 (HTTP/1.0 and `Connection: close` to upstreams by default before it)',
    before: nginx(up('        keepalive 64;\n') + SERVER(TO_APP)),
    after: KA_FIX,
    bench: { connections: 20 },
    signal: 'backend connections per request of `before` ≥ 0.5',
    problem: (b) => b.cpr >= REUSE,
  },
  {
    key: 'nginx/upstream-keepalive-small',
    rule: 'nginx/upstream-keepalive-small',
    product: 'nginx',
    restsOn: 'a pool smaller than the concurrency per worker (explicit `keepalive 8`, 50 clients, one worker)',
    before: nginx(up('        keepalive 8;\n') + SERVER(TO_APP + HTTP11)),
    after: KA_FIX,
    bench: { connections: 50 },
    signal: '`before` reconnects for ≥ 5% of requests and `after` for under half as many',
    problem: (b, a) => b.cpr >= 0.05 && (!a || a.cpr < b.cpr / 2),
  },
  {
    key: 'nginx/upstream-keepalive-small#default-pool',
    rule: 'nginx/upstream-keepalive-small',
    product: 'nginx',
    restsOn: 'default: since 1.29.7 an upstream without `keepalive` has a pool of 32 (`keepalive 32 local`); 50 clients, one worker',
    before: nginx(up() + SERVER(TO_APP)),
    after: KA_FIX,
    bench: { connections: 50 },
    signal: 'partial reuse in `before`: 0.05 ≤ connections per request < 0.9 (1 means no pool at all: nginx/upstream-keepalive)',
    problem: (b) => b.cpr >= 0.05 && b.cpr < 0.9,
  },
  {
    key: 'nginx/keepalive-requests-low',
    rule: 'nginx/keepalive-requests-low',
    product: 'nginx',
    restsOn: 'default: `keepalive_requests 1000` (since 1.19.10); here `keepalive_requests 10` in the upstream block',
    before: nginx(up('        keepalive 64;\n        keepalive_requests 10;\n') + SERVER(TO_APP + HTTP11)),
    after: KA_FIX,
    bench: { connections: 20 },
    signal: '`before` reconnects for ≥ 5% of requests and `after` for under half as many',
    problem: (b, a) => b.cpr >= 0.05 && (!a || a.cpr < b.cpr / 2),
  },
  {
    key: 'nginx/worker-connections-low',
    rule: 'nginx/worker-connections-low',
    product: 'nginx',
    restsOn: 'default: `worker_connections 512` (a proxied request holds two); 400 clients, one worker',
    before: nginx(up('        keepalive 64;\n') + SERVER(TO_APP + HTTP11)),
    after: KA_FIX.replace('events {}', 'events {\n    worker_connections 4096;\n}'),
    bench: { connections: 400 },
    signal: 'failed requests or connections in `before` (nginx: "worker_connections are not enough"), none in `after`',
    problem: (b, a) => b.errors > 0 && (!a || a.errors === 0),
  },
  {
    key: 'nginx/listen-http2-deprecated',
    rule: 'nginx/listen-http2-deprecated',
    product: 'nginx',
    restsOn: 'bound: since 1.25.1 (`listen ... http2` deprecated in favour of `http2 on;`)',
    before: TLS_SERVER('').replace('listen 8443 ssl;', 'listen 8443 ssl http2;'),
    after: (v) => (cmp(v, '1.25.1') >= 0 ? TLS_SERVER('        http2 on;\n') : null),
    bench: { scenario: 'https-keepalive', connections: 10 },
    signal: "the binary's own config test warns that `listen ... http2` is deprecated",
    problem: (b) => b.warnings.some((w) => /http2.*deprecated|deprecated.*http2/i.test(w)),
  },
  {
    key: 'nginx/ssl-session-cache',
    rule: 'nginx/ssl-session-cache',
    product: 'nginx',
    restsOn: 'default: session tickets on; here `ssl_session_tickets off` and no shared cache',
    before: TLS_SERVER('        ssl_session_tickets off;\n'),
    after: TLS_SERVER('        ssl_session_tickets off;\n        ssl_session_cache shared:SSL:10m;\n'),
    bench: { scenario: 'https-resume', connections: 10 },
    signal: 'no TLS session resumed in `before`, some in `after`',
    problem: (b, a) => (b.tlsResumed ?? 0) === 0 && (!a || (a.tlsResumed ?? 0) > 0),
    minSeverity: 2,
  },
  {
    key: 'nginx/ssl-session-cache#tickets-default',
    rule: 'nginx/ssl-session-cache',
    product: 'nginx',
    restsOn: 'default: session tickets on, no cache (the rule only hints then)',
    before: TLS_SERVER(''),
    after: TLS_SERVER('        ssl_session_cache shared:SSL:10m;\n'),
    bench: { scenario: 'https-resume', connections: 10 },
    signal: 'no TLS session resumed in `before` (a warning-level finding must match it; the hint is not counted)',
    problem: (b) => (b.tlsResumed ?? 0) === 0,
    minSeverity: 2,
  },
  {
    key: 'haproxy/option-httpclose',
    rule: 'haproxy/option-httpclose',
    product: 'haproxy',
    restsOn: 'default: keep-alive on both sides with `http-reuse safe` (since 2.0); here `option http-server-close`',
    before: HA('    option http-server-close\n'),
    after: HA(''),
    bench: { connections: 20 },
    signal: 'backend connections per request of `before` ≥ 0.5, of `after` under half of that',
    problem: (b, a) => b.cpr >= REUSE && (!a || a.cpr < b.cpr / 2),
  },
  {
    key: 'haproxy/http-reuse',
    rule: 'haproxy/http-reuse',
    product: 'haproxy',
    restsOn: 'default: `http-reuse safe` (the first request of a client connection never reuses); clients that close after each request',
    before: HA(''),
    after: HA('    http-reuse always\n'),
    bench: { scenario: 'http1-close', connections: 20 },
    signal: 'backend connections per request of `before` ≥ 0.5, of `after` under half of that',
    problem: (b, a) => b.cpr >= REUSE && (!a || a.cpr < b.cpr / 2),
  },
  {
    key: 'haproxy/nbproc',
    rule: 'haproxy/nbproc',
    product: 'haproxy',
    restsOn: 'bound: until 2.5 (`nbproc` removed; every binary of the matrix is 2.5 or later)',
    before: `global\n    nbproc 2\n${HA('')}`,
    after: `global\n    nbthread 2\n${HA('')}`,
    bench: { connections: 10 },
    signal:
      'the binary runs the config in multi-process mode (a refusal by `haproxy -c` means the problem cannot happen: the config does not load, and the HAProxy module reports the removed keyword as an error)',
    problem: (b) => b.refused === undefined,
  },
];

/**
 * Tuning rules whose advice rests on a version bound or a default but that this bench cannot
 * show here, and why (the doc lists them; the test checks every bound rule is either measured
 * or here).
 */
export const NOT_MEASURED: { rule: string; why: string }[] = [
  {
    rule: 'nginx/worker-processes-not-auto',
    why: 'more workers only help when nginx is the bottleneck; on these 2 cores the load generator and the Node backend take most of the CPU',
  },
  {
    rule: 'nginx/worker-rlimit-nofile',
    why: 'needs more concurrent connections than the soft fd limit (1024 here) allows the generator itself',
  },
  {
    rule: 'nginx/redundant-event-setting',
    why: 'the lines change nothing by definition (epoll is picked, accept_mutex is off since 1.11.3): nothing to measure',
  },
  { rule: 'nginx/sendfile-off', why: 'static files: the bench proxies to its backend' },
  { rule: 'nginx/tcp-nopush-off', why: 'static files: the bench proxies to its backend' },
  {
    rule: 'nginx/gzip-min-length',
    why: 'compression of tiny bodies: CPU per response below what a short run resolves on a shared machine',
  },
  { rule: 'nginx/access-log-unbuffered', why: 'a write per request: below what a short run resolves on a shared machine' },
  { rule: 'nginx/ssl-protocols-old', why: 'security rule (default TLSv1/1.1 before 1.23.4): the bench client speaks TLS 1.2+ only' },
  { rule: 'nginx/http2-missing', why: "browser-style parallel requests; the bench measures one config's own protocol" },
  { rule: 'haproxy/global-maxconn', why: "the derived limit depends on the service manager's fd limit, not on the config" },
  {
    rule: 'haproxy/ssl-old-protocols',
    why: 'security rule (TLSv1.2 minimum by default since 2.2): no binary before 2.2 in the matrix, and the bench client speaks TLS 1.2+ only',
  },
  { rule: 'haproxy/splice-auto', why: 'CPU for large TCP transfers: below what a short run resolves on a shared machine' },
];

function cmp(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

export function afterFor(c: EvidenceCase, version: string): string | null {
  return typeof c.after === 'function' ? c.after(version) : c.after;
}

/** Whether the linter, judging `text` at `version`, reports `rule` (at `minSeverity` or more severe). */
export function ruleFires(c: EvidenceCase, text: string, version: string): boolean {
  const doc = TextDocument.create(`file:///evidence/${c.product === 'nginx' ? 'nginx.conf' : 'haproxy.cfg'}`, c.product, 1, text);
  const settings = c.product === 'nginx' ? { nginxVersion: version } : { haproxyVersion: version };
  return validate(doc, c.product, settings).some((d) => d.code === c.rule && (d.severity ?? 2) <= (c.minSeverity ?? 4));
}

/** The rule's row bound as the doc prints it: `since 1.25.1`, `until 1.29.7`, `all versions`. */
export function boundOf(rule: string): string {
  const row = [...NGINX_TUNING_RULES, ...HAPROXY_TUNING_RULES].find((r) => r.id === rule);
  if (!row) return 'unknown rule';
  const parts = [row.since ? `since ${row.since}` : '', row.until ? `until ${row.until}` : ''].filter(Boolean);
  return parts.length ? parts.join(', ') : 'all versions';
}

/** Every tuning rule with a version bound. */
export function boundRules(): string[] {
  return [...NGINX_TUNING_RULES, ...HAPROXY_TUNING_RULES].filter((r) => r.since || r.until).map((r) => r.id);
}

/** The verdict: the rule fires on `before` iff the measurement shows the problem, and not on `after`. */
export function verdict(problem: boolean, firesBefore: boolean, firesAfter: boolean | null): 'agrees' | 'contradicts' {
  return problem === firesBefore && firesAfter !== true ? 'agrees' : 'contradicts';
}
