// The benchmark scenarios as a facts table: one row per scenario, read by the load generator
// (bench/src/generator.ts), the engine's option checks, backend choice, listener picker and export
// (bench/src/index.ts), the command line, the panel host (client/src/benchmark) and the webview.
// Adding a scenario is one row here, plus its request builder in the generator if it sends
// requests of its own. Plain data only.

/** What the generator speaks on the wire. */
export type ScenarioTransport = 'http1' | 'http2' | 'tcp';

/**
 * The listener a scenario sends its load to:
 * - `http`: a plain HTTP listener, else a TLS one;
 * - `plain-http`: a plain HTTP listener only (a TLS one, if any, takes the TLS share of a `mix`);
 * - `tls`: a TLS listener;
 * - `http2`: an HTTP/2 listener, the one with TLS first;
 * - `stream`: a plain L4 (TCP) listener.
 */
export type ScenarioListener = 'http' | 'plain-http' | 'tls' | 'http2' | 'stream';

/**
 * How connections are used: kept open for many requests, a new one per request, or a fixed mix
 * of both per connection (`mix`); HTTP/2 keeps its connections and runs `streams` streams on each.
 */
export type ScenarioConnections = 'keep-alive' | 'per-request' | 'mix';

/**
 * TLS: `listener` uses TLS when the chosen listener has it; `required` needs a TLS listener (a
 * full handshake per new connection); `resume` needs one and resumes the previous session on
 * every new connection.
 */
export type ScenarioTls = 'listener' | 'required' | 'resume';

/**
 * The requests: `user` sends the run's method, path and body; the others are the scenario's
 * own (the run's method and body cannot be given): `get-post-mix` interleaves GETs and POSTs
 * with a 1 KiB JSON body, `tcp-echo` sends a 64-byte message the backend echoes.
 */
export type ScenarioRequests = 'user' | 'get-post-mix' | 'tcp-echo';

/** Shares of a `mix` scenario's connections, out of every 10 (in this order). */
export interface ConnectionMix {
  /** Kept open. */
  keepAlive: number;
  /** A new plain connection per request. */
  close: number;
  /** A new TLS connection with a full handshake per request (plain when the config has no TLS listener). */
  tlsClose: number;
}

export interface ScenarioFacts {
  /** One line for people (docs, help). */
  summary: string;
  transport: ScenarioTransport;
  listener: ScenarioListener;
  connections: ScenarioConnections;
  tls: ScenarioTls;
  requests: ScenarioRequests;
  /** The backend's response size unless the run sets one: its small fixed document, or the largest (1 MiB). */
  response: 'default' | 'max';
  /** What only the built-in Node backend does for this scenario (the native one cannot serve it), or null. */
  nodeBackendOnly: string | null;
  /** For `connections: 'mix'`. */
  mix?: ConnectionMix;
}

/**
 * The `get-post-mix` requests: in every `of` requests, POSTs with this JSON body at the `postAt`
 * positions (0-based), GETs at the others (the built-in generator keeps this order; exports
 * draw them at random with the same weights).
 */
export const GET_POST_MIX = {
  of: 10,
  postAt: [2, 5, 8] as readonly number[],
  postBody: JSON.stringify({ data: 'x'.repeat(1000) }).slice(0, 1024),
  postContentType: 'application/json',
};

/** Bytes of the `tcp-echo` message (echoed back whole). */
export const TCP_ECHO_BYTES = 64;

const row = (f: Partial<ScenarioFacts> & Pick<ScenarioFacts, 'summary'>): ScenarioFacts => ({
  transport: 'http1',
  listener: 'http',
  connections: 'keep-alive',
  tls: 'listener',
  requests: 'user',
  response: 'default',
  nodeBackendOnly: null,
  ...f,
});

export const SCENARIO_FACTS = {
  'http1-keepalive': row({ summary: 'HTTP/1.1, connections kept open' }),
  'http1-close': row({ summary: 'a new TCP connection per request', connections: 'per-request' }),
  'https-keepalive': row({ summary: 'HTTP/1.1 over TLS, connections kept open', listener: 'tls', tls: 'required' }),
  'https-handshake': row({
    summary: 'a new TLS connection with a full handshake per request',
    listener: 'tls',
    tls: 'required',
    connections: 'per-request',
  }),
  'https-resume': row({
    summary: 'a new TLS connection per request resuming the previous session',
    listener: 'tls',
    tls: 'resume',
    connections: 'per-request',
  }),
  http2: row({
    summary: 'HTTP/2 (h2c, or h2 over TLS when the listener has `ssl`), several streams per connection',
    transport: 'http2',
    listener: 'http2',
  }),
  tcp: row({
    summary: 'L4 stream proxy: a 64-byte message echoed back by the backend, connection kept open',
    transport: 'tcp',
    listener: 'stream',
    requests: 'tcp-echo',
    nodeBackendOnly: 'TCP echo',
  }),
  large: row({ summary: 'like http1-keepalive with 1 MiB responses', response: 'max' }),
  'get-post-mix': row({
    summary: '70% GET, 30% POST with a 1 KiB body, keep-alive',
    requests: 'get-post-mix',
    nodeBackendOnly: 'per-method accounting',
  }),
  mixed: row({
    summary:
      '50% of connections long-lived (keep-alive), 20% short (new connection per request), 30% short with a full TLS handshake per request',
    listener: 'plain-http',
    connections: 'mix',
    mix: { keepAlive: 5, close: 2, tlsClose: 3 },
  }),
} as const satisfies Record<string, ScenarioFacts>;

export type ScenarioName = keyof typeof SCENARIO_FACTS;

/** Every scenario, in the table's order (the first is the default). */
export const SCENARIOS = Object.keys(SCENARIO_FACTS) as ScenarioName[];

/** The facts of a scenario. */
export function scenarioFacts(s: ScenarioName): ScenarioFacts {
  return SCENARIO_FACTS[s];
}

/** Whether the scenario sends requests of its own (the run's method and body are not used). */
export function sendsOwnRequests(s: ScenarioName): boolean {
  return SCENARIO_FACTS[s].requests !== 'user';
}

/** Whether the scenario needs a TLS listener. */
export function needsTls(s: ScenarioName): boolean {
  return SCENARIO_FACTS[s].tls !== 'listener';
}
