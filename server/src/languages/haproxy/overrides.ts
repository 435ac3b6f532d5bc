// The one hand-kept file of HAProxy facts: what the generated tables (data/*.json) cannot say.
// Everything else about keywords comes from scripts/gen-haproxy-data.mjs. Descriptions are ours.

/**
 * Keywords gone before the oldest generated version (2.4), or with a better replacement to suggest;
 * `replaceWith`: a keyword that takes the same argument, offered as the quick fix.
 */
export const REMOVED: Record<string, { until: string; use: string; sections?: 'global' | 'proxy'; replaceWith?: string }> = {
  nbproc: { until: '2.5', use: '`nbthread` (threads replace processes)', sections: 'global', replaceWith: 'nbthread' },
  'bind-process': { until: '2.7', use: '`thread` on the `bind` line', sections: 'proxy' },
  grace: { until: '2.5', use: '`grace` in the `global` section (or nothing)', sections: 'proxy' },
  'tune.chksize': { until: '2.5', use: 'nothing (the setting has no effect any more)', sections: 'global' },
  'option http_proxy': { until: '2.5', use: '`http-request set-dst` with `http-request set-uri`', sections: 'proxy' },
  block: { until: '2.1', use: '`http-request deny`', sections: 'proxy' },
  reqadd: { until: '2.1', use: '`http-request add-header`', sections: 'proxy' },
  reqdel: { until: '2.1', use: '`http-request del-header`', sections: 'proxy' },
  reqrep: { until: '2.1', use: '`http-request replace-header`', sections: 'proxy' },
  reqirep: { until: '2.1', use: '`http-request replace-header`', sections: 'proxy' },
  reqallow: { until: '2.1', use: '`http-request allow`', sections: 'proxy' },
  reqdeny: { until: '2.1', use: '`http-request deny`', sections: 'proxy' },
  reqpass: { until: '2.1', use: 'nothing', sections: 'proxy' },
  reqtarpit: { until: '2.1', use: '`http-request tarpit`', sections: 'proxy' },
  rspadd: { until: '2.1', use: '`http-response add-header`', sections: 'proxy' },
  rspdel: { until: '2.1', use: '`http-response del-header`', sections: 'proxy' },
  rsprep: { until: '2.1', use: '`http-response replace-header`', sections: 'proxy' },
  rspdeny: { until: '2.1', use: '`http-response deny`', sections: 'proxy' },
  clitimeout: { until: '2.1', use: '`timeout client`', sections: 'proxy' },
  contimeout: { until: '2.1', use: '`timeout connect`', sections: 'proxy' },
  srvtimeout: { until: '2.1', use: '`timeout server`', sections: 'proxy' },
  redispatch: { until: '2.1', use: '`option redispatch`', sections: 'proxy' },
  'monitor-net': { until: '2.4', use: '`http-request return` or `tcp-request connection` rules on `src`', sections: 'proxy' },
  'option independant-streams': { until: '2.1', use: '`option independent-streams`', sections: 'proxy' },
};

/**
 * Lines the tuning blogs write in `global` that are not HAProxy keywords at all, with what was
 * meant. The fix removes the line from `global`; the replacement goes into a proxy section.
 */
export const NOT_KEYWORDS_IN_GLOBAL: Record<string, { use: string; replacement?: string; accepted?: boolean }> = {
  'splice request': {
    use: '`option splice-request` in a `defaults`, `frontend`, `listen` or `backend` section',
    replacement: 'option splice-request',
  },
  'splice response': {
    use: '`option splice-response` in a `defaults`, `frontend`, `listen` or `backend` section',
    replacement: 'option splice-response',
  },
  'splice auto': {
    use: '`option splice-auto` in a `defaults`, `frontend`, `listen` or `backend` section',
    replacement: 'option splice-auto',
  },
  splice: { use: '`option splice-auto` (or `splice-request`/`splice-response`) in a proxy section', replacement: 'option splice-auto' },
  // HAProxy accepts this one: in `global` it only drops the global log targets declared above it.
  'no log': { use: '`no log` in a proxy section to stop logging there', replacement: 'no log', accepted: true },
};

/** Values of `mode` by version. */
export const MODE_VALUES: Record<string, { since?: string; until?: string }> = {
  tcp: {},
  http: {},
  health: { until: '2.4' },
  log: { since: '2.9' },
  spop: { since: '3.1' },
};

/** Load-balancing algorithms of `balance` by version. */
export const BALANCE_ALGOS: Record<string, { since?: string; until?: string; takesArg?: boolean }> = {
  roundrobin: {},
  'static-rr': {},
  leastconn: {},
  first: {},
  source: {},
  uri: {},
  url_param: { takesArg: true },
  hdr: {},
  random: {},
  rdp_cookie: {},
  hash: { since: '2.6', takesArg: true },
  'log-hash': { since: '2.9' },
  sticky: { since: '2.9' },
};

/** bind/server options whose argument is a time value. */
export const TIME_OPTIONS = new Set([
  'inter',
  'fastinter',
  'downinter',
  'slowstart',
  'agent-inter',
  'pool-purge-delay',
  'error-limit-time',
  'tcp-ut',
  'idle-ping',
]);

/** bind/server options whose argument is a plain integer. */
export const INT_OPTIONS = new Set([
  'rise',
  'fall',
  'weight',
  'maxconn',
  'minconn',
  'maxqueue',
  'port',
  'id',
  'backlog',
  'error-limit',
  'pool-max-conn',
  'pool-low-conn',
  'max-reuse',
  'agent-port',
  'mss',
  'nice',
  'uid',
  'gid',
]);

/**
 * A keyword argument with a form HAProxy checks: a whole number (`int`: HAProxy reads many counts
 * with atol(), so `16k` becomes 16), a time (a number with an optional unit us, ms, s, m, h, d) or
 * a size (a number with an optional k, m or g suffix).
 */
export interface ValueArg {
  type: 'int' | 'time' | 'size';
  /** Index of the value among the words after the keyword (the keyword's own words excluded for proxy keywords). */
  arg: number;
  /** The keyword takes that one argument and no other. */
  only?: boolean;
  /**
   * From this version on the value is a size (`32k`); before, atol() reads `32k` as 32, which
   * makes HAProxy crash at start (`tune.bufsize`: checked on 2.6.12 and 3.0.11, accepted by 3.2.26).
   */
  sizeSince?: string;
}

const INT1: ValueArg = { type: 'int', arg: 0, only: true };
const TIME0: ValueArg = { type: 'time', arg: 0 };

/**
 * Keywords whose arguments have a checked form, by where they are written: `global`; `proxy`
 * (defaults, frontend, listen, backend; by first word, so `timeout` stands for every `timeout`
 * kind, and `arg` counts after the matched keyword's words); `section` (every other section:
 * resolvers, peers, mailers, ring, ...); and a section keyword for what only that section has.
 */
export const VALUE_ARGS: Readonly<Record<'global' | 'proxy' | 'section' | 'ring', Readonly<Record<string, ValueArg>>>> = {
  global: {
    maxconn: INT1,
    nbthread: INT1,
    'ulimit-n': INT1,
    maxsslconn: INT1,
    maxpipes: INT1,
    maxzlibmem: INT1,
    maxcompcpuusage: INT1,
    maxcomprate: INT1,
    maxconnrate: INT1,
    maxsessrate: INT1,
    maxsslrate: INT1,
    'tune.bufsize': { type: 'int', arg: 0, only: true, sizeSince: '3.1' },
    'tune.maxrewrite': INT1,
    'tune.maxaccept': INT1,
    'tune.maxpollevents': INT1,
    'tune.http.maxhdr': INT1,
    'tune.ssl.cachesize': INT1,
    'tune.ssl.maxrecord': INT1,
    'tune.rcvbuf.client': INT1,
    'tune.rcvbuf.server': INT1,
    'tune.sndbuf.client': INT1,
    'tune.sndbuf.server': INT1,
    'tune.pipesize': INT1,
    'tune.recv_enough': INT1,
    'tune.h2.max-concurrent-streams': INT1,
    'tune.h2.initial-window-size': INT1,
    'tune.h2.header-table-size': INT1,
    'hard-stop-after': TIME0,
    'close-spread-time': TIME0,
    grace: TIME0,
    'tune.lua.session-timeout': TIME0,
    'tune.lua.task-timeout': TIME0,
    'tune.lua.service-timeout': TIME0,
    'tune.lua.burst-timeout': TIME0,
    'tune.idletimer': TIME0,
  },
  proxy: {
    maxconn: { type: 'int', arg: 0 },
    retries: { type: 'int', arg: 0 },
    fullconn: { type: 'int', arg: 0 },
    backlog: { type: 'int', arg: 0 },
    timeout: TIME0,
  },
  section: {
    timeout: { type: 'time', arg: 1 },
    hold: { type: 'time', arg: 1 },
  },
  ring: {
    size: { type: 'size', arg: 0 },
  },
};

/**
 * The proxy sections and their capabilities (HAProxy's frontend and backend sides): the keys of
 * one proxy's names (a frontend and a backend may share a name, a listen is both). `defaults`
 * has none: it only passes settings on to the proxies after it.
 */
export const PROXY_SECTIONS: Readonly<Record<string, { caps: readonly ('fe' | 'be')[] }>> = {
  defaults: { caps: [] },
  frontend: { caps: ['fe'] },
  backend: { caps: ['be'] },
  listen: { caps: ['fe', 'be'] },
};
/** defaults, frontend, backend, listen. */
export const PROXY_KINDS: ReadonlySet<string> = new Set(Object.keys(PROXY_SECTIONS));
/** frontend, backend, listen: the proxies that carry traffic. */
export const TRAFFIC_PROXY_KINDS: ReadonlySet<string> = new Set(Object.keys(PROXY_SECTIONS).filter((k) => PROXY_SECTIONS[k].caps.length));

/** Short descriptions in our own words for the keywords people type most; others get a generated line. */
export const DESCRIPTIONS: Record<string, string> = {
  global: 'Process-wide settings: limits, threads, logging, TLS defaults, tuning.',
  defaults: 'Settings inherited by the proxies that follow it (or that name it with `from`).',
  frontend: 'A set of listening addresses and the rules that pick a backend for each request.',
  backend: 'A pool of servers and how traffic is balanced and checked across them.',
  listen: 'A frontend and a backend in one section.',
  resolvers: 'DNS servers used to resolve server names at run time.',
  peers: 'Other HAProxy processes that stick-table contents are synchronised with.',
  userlist: 'Users and groups for HTTP basic authentication.',
  mailers: 'SMTP servers that receive e-mail alerts on server state changes.',
  program: 'An external program started and supervised by the master process.',
  'http-errors': 'A named set of error pages that proxies can refer to.',
  ring: 'An in-memory ring buffer that receives logs or traces and may forward them.',
  cache: 'A small in-memory HTTP response cache used with `http-request cache-use`.',
  'log-forward': 'Receives syslog messages and forwards them to other log targets.',
  'fcgi-app': 'A FastCGI application that backends can talk to.',
  'crt-store': 'A named store of certificates and keys loaded once and referenced by name.',
  traces: 'Traces set up at startup instead of through the runtime API.',
  acme: 'Automatic certificate issuance and renewal through the ACME protocol.',
  'log-profile': 'Per-step log formats that log targets can use.',
  maxconn:
    'Upper bound on concurrent connections (process-wide in `global`, per proxy elsewhere). Needs about twice as many file descriptors.',
  nbthread: 'Number of worker threads; by default one per CPU the process may run on.',
  nbproc: 'Number of worker processes. Removed in 2.5: threads (`nbthread`) replace it.',
  daemon: 'Run in the background.',
  log: 'Where log lines are sent (a syslog address, a file socket, a ring) and at which facility and level.',
  chroot: 'Directory the process locks itself into after start-up.',
  user: 'User the process switches to after start-up.',
  group: 'Group the process switches to after start-up.',
  'tune.bufsize': 'Size in bytes of each request/response buffer; bigger buffers cost memory per connection.',
  'tune.maxrewrite': 'Part of each buffer kept free for header rewrites.',
  'ssl-default-bind-ciphers': 'Default TLS 1.2 cipher list for `bind ... ssl` lines.',
  'ssl-default-bind-options': 'Default TLS options (minimum version, tickets...) for `bind ... ssl` lines.',
  bind: 'Address and port (or socket) the proxy listens on, followed by listener options.',
  server: 'A server of the backend: its name, address and options such as `check`.',
  'default-server': 'Options every following `server` line of the proxy starts with.',
  mode: 'Protocol the proxy works at: `http` (parses HTTP) or `tcp` (forwards bytes).',
  balance: 'How requests or connections are spread over the servers.',
  timeout: 'How long to wait at one stage of a connection before giving up.',
  'timeout connect': 'Maximum time to wait for a connection to a server to be established.',
  'timeout client': 'Maximum inactivity time on the client side.',
  'timeout server': 'Maximum inactivity time on the server side.',
  'timeout http-request': 'Maximum time to receive a complete HTTP request (protects against slow clients).',
  'timeout http-keep-alive': 'Maximum time to wait for the next request on a kept-alive connection.',
  'timeout queue': 'Maximum time a request may wait in the queue for a free server slot.',
  'timeout tunnel': 'Maximum inactivity time once a connection is a tunnel (WebSocket, CONNECT, TCP).',
  'timeout check': 'Extra time allowed for a health check to get its answer.',
  acl: 'Names a test on a sample (`acl NAME FETCH [flags] VALUES`) for use in conditions.',
  use_backend: 'Backend to send the request to when the condition holds.',
  default_backend: 'Backend used when no `use_backend` rule matched.',
  'http-request': 'A rule applied to each HTTP request: set/remove headers, redirect, deny, route...',
  'http-response': 'A rule applied to each HTTP response from a server.',
  'http-after-response': 'A rule applied to every response, including the ones HAProxy generates itself.',
  'tcp-request': 'A rule applied to incoming connections or their content before HTTP processing.',
  'tcp-response': 'A rule applied to response contents in TCP mode.',
  'option httplog': 'Detailed HTTP log lines (timers, status, headers captured).',
  'option tcplog': 'Detailed TCP log lines (timers, bytes, termination state).',
  'option forwardfor': 'Adds an `X-Forwarded-For` header with the client address.',
  'option http-server-close': 'Close the server side after each response while keeping the client side alive.',
  'option redispatch': 'Let a request move to another server when its assigned server is down.',
  'option splice-auto': 'Let the kernel splice data between sockets when HAProxy thinks it pays off.',
  'option splice-request': 'Always splice request data between sockets in the kernel.',
  'option splice-response': 'Always splice response data between sockets in the kernel.',
  'option httpchk': 'Health checks send an HTTP request instead of just connecting.',
  'option dontlognull': 'Do not log connections that sent no data.',
  'http-reuse': 'When idle server connections may be shared between client sessions.',
  retries: 'How many times to retry a failed connection to a server.',
  'stick-table': 'A table of keys (addresses, cookies...) with counters, used for rate limits and persistence.',
  cookie: 'Cookie-based server persistence.',
  'hash-type': 'How keys are hashed for hash-based balancing.',
  errorfile: 'Replaces an HAProxy-generated error page with the contents of a file.',
  compression: 'HTTP response compression settings.',
  stats: 'The statistics page or socket.',
};

/** Short descriptions of common bind/server options (ours). */
export const OPTION_DESCRIPTIONS: Record<string, string> = {
  ssl: 'Enable TLS on this listener or towards this server.',
  crt: 'Certificate (and key) file or directory to serve.',
  alpn: 'Protocols offered in the TLS ALPN extension (e.g. `h2,http/1.1`).',
  check: 'Enable health checks of this server.',
  inter: 'Interval between two health checks.',
  rise: 'Successful checks needed to consider the server up.',
  fall: 'Failed checks needed to consider the server down.',
  weight: 'Relative share of the load this server gets.',
  maxconn: 'Maximum concurrent connections to this server (or accepted on this listener).',
  backup: 'Only used when all non-backup servers are down.',
  verify: 'Whether the peer certificate is verified (`none` or `required`).',
  'accept-proxy': 'Expect a PROXY protocol header on every accepted connection.',
  'send-proxy': 'Send a PROXY protocol header to the server.',
  'send-proxy-v2': 'Send a PROXY protocol v2 header to the server.',
  thread: 'Threads that accept connections on this listener.',
  process: 'Processes that accept connections on this listener (removed in 2.7 with multi-process mode).',
  resolvers: 'A `resolvers` section used to re-resolve the server address at run time.',
  'init-addr': 'How the server address is found at start-up.',
  proto: 'Force the multiplexer protocol (e.g. `h2`).',
  backlog: 'Length of the kernel accept queue for this listener.',
  tfo: 'Enable TCP Fast Open.',
  cookie: 'Value of the persistence cookie for this server.',
  'pool-max-conn': 'Maximum idle connections kept to this server for reuse.',
};

/** Sample fetches and converters of optional device-detection modules, not in every build. */
export const OPTIONAL_MODULE_SAMPLES = /^(wurfl-|51d\.|da-csv)/;

/** Proxy keywords that HAProxy refuses (not just ignores) in a proxy without the needed capability. */
export const PLACEMENT_ERRORS = new Set(['server', 'default-server', 'server-template', 'retry-on', 'use-fcgi-app', 'declare capture']);

/** Address prefixes the "Address formats" section does not list, or lists only from a later version than they exist. */
export const EXTRA_ADDRESS_PREFIXES: Record<string, { since?: string; until?: string }> = {
  'rhttp@': { since: '2.9' },
  // QUIC binds exist since 2.6 in builds with QUIC: 2.6.12 without it says "QUIC is not compiled in"
  'quic4@': { since: '2.6' },
  'quic6@': { since: '2.6' },
};

/**
 * Proxy keywords HAProxy ignores in a proxy that runs in tcp mode ("... ignored for proxy 'p' as
 * it requires HTTP mode", "needs 'mode http'"), each with a line that shows it: completion leaves
 * them out of sections in `mode tcp` (their own or their defaults'). test/haproxy/modeAware.test.ts
 * checks every line against `haproxy -c` of 2.6, 3.0 and 3.2 in both modes. A family name
 * (`stats`) stands for all its members; `capture request header` works in tcp mode, so only
 * `capture cookie` is here.
 */
export const HTTP_ONLY_KEYWORDS: Record<string, string> = {
  'http-request': 'http-request deny',
  'http-response': 'http-response del-header X-A',
  'http-after-response': 'http-after-response set-header X-A 1',
  redirect: 'redirect prefix http://example.com',
  cookie: 'cookie SRV insert',
  'capture cookie': 'capture cookie c len 10',
  'monitor-uri': 'monitor-uri /m',
  stats: 'stats enable',
  'option httplog': 'option httplog',
  'option httpslog': 'option httpslog',
  'option forwardfor': 'option forwardfor',
  'option forwarded': 'option forwarded',
  'option originalto': 'option originalto',
  'option http-buffer-request': 'option http-buffer-request',
  'option http-pretend-keepalive': 'option http-pretend-keepalive',
  'option http-ignore-probes': 'option http-ignore-probes',
  'option http-no-delay': 'option http-no-delay',
  'option http-use-proxy-header': 'option http-use-proxy-header',
  'option checkcache': 'option checkcache',
  'option disable-h2-upgrade': 'option disable-h2-upgrade',
  'option accept-invalid-http-request': 'option accept-invalid-http-request',
  'option accept-invalid-http-response': 'option accept-invalid-http-response',
  'option accept-unsafe-violations-in-http-request': 'option accept-unsafe-violations-in-http-request',
  'option accept-unsafe-violations-in-http-response': 'option accept-unsafe-violations-in-http-response',
};

/** Whether a proxy keyword (`stats uri`, `option forwardfor`) needs `mode http`. */
export function httpOnlyKeyword(name: string): boolean {
  return (
    Object.prototype.hasOwnProperty.call(HTTP_ONLY_KEYWORDS, name) ||
    Object.prototype.hasOwnProperty.call(HTTP_ONLY_KEYWORDS, name.split(' ')[0])
  );
}

/** What each log-format item flag (`%{+Q}`) does, in our words; which exist per version comes from data/logFormat.json. */
export const LOG_FLAG_DESCRIPTIONS: Record<string, string> = {
  Q: 'quoted between double quotes',
  X: 'in hexadecimal (addresses, ports, timestamps, counters)',
  E: 'with `"`, `\\` and `]` escaped by a backslash (RFC 5424 structured data)',
  bin: 'binary data kept as it is (only as a global flag, on `%o`)',
  json: 'encoded as JSON',
  cbor: 'encoded as CBOR',
  utf8: 'with `json`: valid UTF-8 sequences kept rather than escaped byte by byte',
};
