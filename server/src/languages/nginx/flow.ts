// Variable flow in an nginx config, for the security rules: where a variable's value can come
// from (request data, regex captures of location / if / rewrite / map / server_name, constants,
// `set`, `map` outputs), whether it can hold a line feed or a `/`, and which locations only
// internal redirects reach. Pure and lazy: `flowOf(file)` walks the tree once (kept in a WeakMap
// keyed by the parse, so every rule of one validation shares it) and resolves a variable only
// when a rule asks, remembering the answer per server.
//
// nginx semantics it follows:
// - `$uri`, `$document_uri` and the captures of a regex matched against them hold the decoded,
//   normalised path: `%0d%0a` becomes CR LF there. `$request_uri`, `$args`, `$arg_*`,
//   `$http_*`, `$cookie_*` are as the client sent them, and nginx rejects raw CR/LF in the
//   request line and headers, so they cannot hold one.
// - A numbered capture (`$1`) is the group of the last regex that matched: in a location that
//   is its own regex, unless an `if` or `rewrite` in the rewrite phase matched later.
// - `$host` is the client's Host header (validated, lowercased) wherever the server is the
//   default for one of its listen addresses: there any Host reaches it.
// - A location with `internal;` or a named location (`@x`) is reached only through internal
//   redirects (error_page, try_files, rewrite, X-Accel-Redirect): its own regex captures match
//   a URI nginx made, unless a `rewrite` lets the client choose that URI.
import type { Directive, NginxFile, Word } from './ast';
import { childContext, variablesIn } from './ast';
import { canHoldLf, canHoldSlash, parseRegex, type ParsedRegex } from './regex';
import { REQUEST_PASS_DIRECTIVES } from './data';

export interface Taint {
  /** The client can choose the value, or part of it. */
  user: boolean;
  /** The value can hold a line feed (a decoded `%0a`). */
  crlf: boolean;
  /** The value can hold a `/`. */
  slash: boolean;
  /** Used as a URL, the client chooses its scheme or host. */
  hostUser: boolean;
  /** The value always starts with `/` (a path). */
  startsSlash: boolean;
  /** Where the client-chosen part comes from, for messages (e.g. "$arg_to (a query argument)"). */
  why?: string;
  /** Where a line feed can come from. */
  crlfWhy?: string;
}

export const CONSTANT: Taint = Object.freeze({ user: false, crlf: false, slash: true, hostUser: false, startsSlash: false });
const UNKNOWN: Taint = CONSTANT;
const HOST_USER: Taint = Object.freeze({
  user: true,
  crlf: false,
  slash: false,
  hostUser: true,
  startsSlash: false,
  why: '$host (the Host header: this is a default server, so any Host reaches it)',
});
const HOST_CONST: Taint = Object.freeze({ ...CONSTANT, slash: false });
const INTERNAL_PATH: Taint = Object.freeze({ ...CONSTANT, startsSlash: true });

const builtinTaints = new Map<string, Taint>();
/** The taint of a request variable nothing in the config redefines (shared per name). */
function builtinTaint(name: string, b: Builtin): Taint {
  let t = builtinTaints.get(name);
  if (!t) {
    t = Object.freeze({
      user: true,
      crlf: b.crlf,
      slash: b.slash,
      hostUser: true,
      startsSlash: b.startsSlash,
      why: `$${name} (${b.what})`,
      crlfWhy: b.crlf ? `$${name} (${b.what}, where %0d%0a is decoded)` : undefined,
    });
    if (builtinTaints.size < 10000) builtinTaints.set(name, t);
  }
  return t;
}

/** A block of the tree as the flow sees it. */
export interface FlowScope {
  d: Directive | undefined;
  up: FlowScope | undefined;
  /** nginx context inside the block (`server`, `location`, `if in location`, ...). */
  ctx: string;
  children: Directive[];
  server: FlowServer | undefined;
  /** The innermost enclosing (or this) location. */
  location: Directive | undefined;
}

export interface FlowServer {
  id: number;
  d: Directive | undefined;
  /** Default server of one of its listen addresses (or the only server seen): any Host reaches it. */
  isDefault: boolean;
  /** `set` lines and named captures by variable name (made on the first). */
  defs: Map<string, Def[]> | undefined;
  /** `rewrite` lines anywhere in the server. */
  rewrites: { d: Directive; scope: FlowScope }[] | undefined;
  /** Variables the config defines, resolved so far (made on the first). */
  memo: Map<string, Taint> | undefined;
  /** Its `listen` lines (read when a rule first asks about default servers). */
  listens: Directive[] | undefined;
  /** Rewrites that let the client choose the start of an internal URI (computed on demand). */
  reachers?: { d: Directive; prefix: string }[];
}

type Def =
  | { kind: 'set'; d: Directive; scope: FlowScope; value: Word }
  | { kind: 'capture'; regex: ParsedRegex; group: number; subject: Subject; where: string };

/** What a regex is matched against. */
type Subject =
  { kind: 'uri'; scope: FlowScope } | { kind: 'host' } | { kind: 'value'; word: Word | undefined; scope: FlowScope | undefined };

export interface MapDef {
  d: Directive;
  source: Word | undefined;
  entries: { key: Word; value: Word | undefined; regex: ParsedRegex | undefined }[];
}

export interface Sink {
  d: Directive;
  scope: FlowScope;
}

/** Directive names whose uses the rules inspect, collected by the walk (the relevant ones: see `relevant`). */
export const SINK_NAMES: ReadonlySet<string> = new Set([
  ...REQUEST_PASS_DIRECTIVES,
  'add_header',
  'more_set_headers',
  'proxy_set_header',
  'rewrite',
  'return',
  'valid_referers',
  'if',
  'location',
  'resolver',
  'stub_status',
  // access rules and lines judged alone (also in stream blocks)
  'allow',
  'deny',
  'satisfy',
  'auth_basic',
  'auth_request',
  'error_log',
  'ssl_ciphers',
  'proxy_ssl_ciphers',
  'grpc_ssl_ciphers',
]);

export interface NginxFlow {
  sinks: Map<string, Sink[]>;
  /** Every block scope, in text order (servers, locations, ifs, limit_except, ...). */
  scopes: FlowScope[];
  maps: Map<string, MapDef>;
  servers: FlowServer[];
  /** The taint of a word's value as used by directive `d` in `scope`. */
  wordTaint(word: Word, d: Directive, scope: FlowScope): Taint;
  /** The taint of variable `name` (without `$`) used by `d` in `scope`. */
  variableTaint(name: string, d: Directive, scope: FlowScope): Taint;
  /** Whether only internal redirects reach this location (`internal;` or `@name`). */
  isInternal(location: Directive): boolean;
  /** For an internal location: a rewrite through which the client can still steer a request into it. */
  internalReacher(location: Directive, scope: FlowScope): Directive | undefined;
  /** The parsed regex of a location / if / rewrite / server_name pattern. */
  regexOf(d: Directive): ParsedRegex | undefined;
}

// ---------------------------------------------------------------------------------------------
// request variables

interface Builtin {
  crlf: boolean;
  slash: boolean;
  startsSlash: boolean;
  what: string;
}

const DECODED = (what: string, startsSlash = true): Builtin => ({ crlf: true, slash: true, startsSlash, what });
const RAW = (what: string, slash = true, startsSlash = false): Builtin => ({ crlf: false, slash, startsSlash, what });

const BUILTINS: ReadonlyMap<string, Builtin> = new Map([
  ['uri', DECODED('the decoded request path')],
  ['document_uri', DECODED('the decoded request path')],
  ['request_filename', DECODED('a file path built from the decoded request path')],
  ['fastcgi_script_name', DECODED('the decoded request path')],
  ['fastcgi_path_info', DECODED('part of the decoded request path', false)],
  ['request_body', DECODED('the request body', false)],
  ['remote_user', DECODED('the user name of the Authorization header', false)],
  ['request_uri', RAW('the request URI as sent', true, true)],
  ['args', RAW('the query string')],
  ['query_string', RAW('the query string')],
  ['request', RAW('the request line')],
  ['content_type', RAW('the Content-Type header')],
  ['http_host', RAW('the Host header as sent', false)],
]);

const PREFIXED: readonly [string, string][] = [
  ['arg_', 'a query argument'],
  ['http_', 'a request header'],
  ['cookie_', 'a cookie'],
];

function builtinOf(name: string): Builtin | undefined {
  const b = BUILTINS.get(name);
  if (b) return b;
  // indexed, not destructured: run for every variable, mostly before the JIT has optimised it
  for (let i = 0; i < PREFIXED.length; i++) {
    const p = PREFIXED[i][0];
    if (name.startsWith(p) && name.length > p.length) return RAW(PREFIXED[i][1]);
  }
  return undefined;
}

/**
 * Whether a sink can matter to a rule: what the rules read of a header or an address is its
 * variables (and, for add_header, a line break or a Content-Type name), of a location its regex.
 * The rest are left out of `sinks`, which keeps the walk's allocation small on big files.
 */
function relevant(d: Directive): boolean {
  switch (d.name) {
    case 'location':
      return d.args.length > 1 && d.args[0].value.startsWith('~');
    case 'proxy_set_header':
      return (d.args[1]?.raw.indexOf('$') ?? -1) >= 0;
    case 'add_header': {
      const v = d.args[1];
      if (!v) return false;
      const n = d.args[0].value;
      return v.raw.indexOf('$') >= 0 || v.value.indexOf('\n') >= 0 || (n.length === 12 && n.toLowerCase() === 'content-type');
    }
    default:
      return !REQUEST_PASS.has(d.name) || (d.args[0]?.raw.indexOf('$') ?? -1) >= 0;
  }
}

const REQUEST_PASS: ReadonlySet<string> = new Set(REQUEST_PASS_DIRECTIVES);

// ---------------------------------------------------------------------------------------------

const cache = new WeakMap<NginxFile, NginxFlow>();
/** Per `listen` statement, its address key and whether it says default_server (Flow.listenKey). */
const listenKeys = new WeakMap<Directive, { key: string; isDefault: boolean } | null>();

/**
 * The flow analysis of a parse, computed afresh: for one pass of rules that share it and drop it
 * (the tuning pass). Keeping it alive with the tree costs more than it saves in the editor: the
 * tree of the open document lives until the next edit, so a cached analysis is copied out of the
 * young generation and promoted with it at every keystroke.
 */
export function computeFlow(file: NginxFile, start = 'main'): NginxFlow {
  return new Flow(file, start);
}

/** The flow analysis of a parse (computed once per tree). `start` is the context of the file's top level. */
export function flowOf(file: NginxFile, start = 'main'): NginxFlow {
  let f = cache.get(file);
  if (!f) cache.set(file, (f = new Flow(file, start)));
  return f;
}

const isRegexLocation = (d: Directive): boolean => d.args.length > 1 && (d.args[0].value === '~' || d.args[0].value === '~*');

/** `if` arguments as nginx reads them: the parentheses stripped, e.g. [`$http_origin`, `~*`, `^https://`]. */
export function ifParts(d: Directive): { words: Word[]; op: string | undefined; subject: Word | undefined; pattern: Word | undefined } {
  const words = d.args;
  const vals = words.map((w) => w.value);
  // first word starts with "(", last ends with ")": the words in between are the condition
  let subject: Word | undefined;
  let op: string | undefined;
  let pattern: Word | undefined;
  const inner: { w: Word; v: string }[] = [];
  for (let i = 0; i < words.length; i++) {
    let v = vals[i];
    if (i === 0) v = v.replace(/^\(\s*/, '');
    if (i === words.length - 1) v = v.replace(/\s*\)$/, '');
    if (v !== '') inner.push({ w: words[i], v });
  }
  if (inner.length >= 3 && /^!?~\*?$/.test(inner[1].v)) {
    subject = inner[0].w;
    op = inner[1].v;
    pattern = inner[2].w;
  } else if (inner.length >= 1) subject = inner[0].w;
  return { words, op, subject, pattern };
}

/** The regex pattern text of an `if` pattern word (a `)` glued to it removed). */
export function ifPatternText(d: Directive): string | undefined {
  const p = ifParts(d);
  if (!p.pattern) return undefined;
  let v = p.pattern.value;
  if (p.pattern === d.args[d.args.length - 1]) v = v.replace(/\s*\)$/, '');
  return v;
}

class Flow implements NginxFlow {
  readonly sinks = new Map<string, Sink[]>();
  readonly scopes: FlowScope[] = [];
  readonly maps = new Map<string, MapDef>();
  readonly servers: FlowServer[] = [];
  private readonly regexes = new WeakMap<Directive, ParsedRegex | null>();
  private defaultsDone = false;
  private readonly resolving = new Set<string>();

  constructor(
    readonly file: NginxFile,
    start: string,
  ) {
    const top: FlowScope = { d: undefined, up: undefined, ctx: start, children: file.directives, server: undefined, location: undefined };
    // a fragment included in a server or location: its top level is one (unknown) server
    if (start === 'server' || start.startsWith('location') || start.startsWith('if')) {
      top.server = this.newServer(undefined);
    }
    for (const k of SINK_NAMES) this.sinks.set(k, []);
    this.walk(top);
  }

  private newServer(d: Directive | undefined): FlowServer {
    const s: FlowServer = {
      id: this.servers.length,
      d,
      isDefault: false,
      defs: undefined,
      rewrites: undefined,
      memo: undefined,
      listens: undefined,
    };
    this.servers.push(s);
    return s;
  }

  private addDef(server: FlowServer | undefined, name: string, def: Def): void {
    const s = server ?? this.globalServer();
    const defs = (s.defs ??= new Map());
    const list = defs.get(name);
    if (list) list.push(def);
    else defs.set(name, [def]);
  }

  private global: FlowServer | undefined;
  /** Definitions outside any server (a fragment's top level, http-level maps' captures). */
  private globalServer(): FlowServer {
    if (!this.global)
      this.global = { id: -1, d: undefined, isDefault: false, defs: undefined, rewrites: undefined, memo: undefined, listens: undefined };
    return this.global;
  }

  private addCaptures(server: FlowServer | undefined, re: ParsedRegex | undefined, subject: Subject, where: string): void {
    if (!re) return;
    for (const c of re.captures) if (c.name) this.addDef(server, c.name, { kind: 'capture', regex: re, group: c.index, subject, where });
  }

  private walk(scope: FlowScope): void {
    const list = scope.children;
    for (let i = 0; i < list.length; i++) {
      const d = list[i];
      if (d.entry) continue;
      const name = d.name;
      const sinks = this.sinks.get(name);
      if (sinks && relevant(d)) sinks.push({ d, scope });
      switch (name) {
        case 'set': {
          const v = d.args[0];
          if (v && v.value.startsWith('$') && d.args[1])
            this.addDef(scope.server, v.value.slice(1).replace(/^\{(.*)\}$/, '$1'), { kind: 'set', d, scope, value: d.args[1] });
          break;
        }
        case 'rewrite':
          if (scope.server) (scope.server.rewrites ??= []).push({ d, scope });
          this.addCaptures(scope.server, this.regexOf(d), { kind: 'uri', scope }, `rewrite \`${d.args[0]?.value ?? ''}\``);
          break;
        case 'server_name':
          if (scope.server) {
            for (const a of d.args) {
              if (!a.value.startsWith('~')) continue;
              this.addCaptures(scope.server, parseRegex(a.value.slice(1), true), { kind: 'host' }, `server_name \`${a.value}\``);
            }
          }
          break;
        case 'listen':
          if (scope.ctx === 'server' && scope.server) (scope.server.listens ??= []).push(d);
          break;
        case 'map':
          this.addMap(d, scope);
          break;
      }
      const block = d.block;
      if (!block || d.rawBody) continue;
      const ctx = childContext(scope.ctx, name);
      let server = scope.server;
      if (ctx === 'server') {
        server = this.newServer(d);
      }
      const inner: FlowScope = { d, up: scope, ctx, children: block.children, server, location: name === 'location' ? d : scope.location };
      this.scopes.push(inner);
      if (name === 'location' && isRegexLocation(d))
        this.addCaptures(server, this.regexOf(d), { kind: 'uri', scope: inner }, `location \`${d.args[d.args.length - 1].value}\``);
      if (name === 'if') {
        const p = ifParts(d);
        if (p.pattern && p.op && !p.op.startsWith('!'))
          this.addCaptures(server, this.regexOf(d), { kind: 'value', word: p.subject, scope }, `if \`${ifPatternText(d)}\``);
      }
      if (ctx === 'mail' || ctx === 'map' || ctx === 'types' || ctx === 'geo') continue; // nothing the rules read
      if (block.children.length) this.walk(inner);
    }
  }

  /** `listen 80` → `*:80`, `127.0.0.1` → `127.0.0.1:80`; and whether it says `default_server`. */
  private static listenKey(d: Directive): { key: string; isDefault: boolean } | undefined {
    // a function of the words alone: kept per statement, which the re-parse hands over from one
    // version of an open document to the next (parser.ts)
    const hit = listenKeys.get(d);
    if (hit !== undefined) return hit ?? undefined;
    const k = Flow.computeListenKey(d);
    listenKeys.set(d, k ?? null);
    return k;
  }

  private static computeListenKey(d: Directive): { key: string; isDefault: boolean } | undefined {
    const a = d.args[0]?.value;
    if (!a) return undefined;
    let key = a;
    if (/^\d+$/.test(a)) key = `*:${a}`;
    else if (!a.startsWith('unix:') && !/:\d+$/.test(a)) key = `${a}:80`;
    key = key.replace(/^0\.0\.0\.0:/, '*:');
    return { key, isDefault: d.args.some((w) => w.value === 'default_server' || w.value === 'default') };
  }

  private computeDefaults(): void {
    if (this.defaultsDone) return;
    this.defaultsDone = true;
    const servers = this.servers.filter((s) => s.d);
    const keys = servers.map((s) => {
      const list = (s.listens ?? []).map(Flow.listenKey).filter((k): k is { key: string; isDefault: boolean } => !!k);
      return list.length ? list : [{ key: '*:80', isDefault: false }];
    });
    // indexed loops: one step per server and listen, mostly before the JIT has optimised this
    const explicit = new Set<string>();
    for (let i = 0; i < keys.length; i++) for (let j = 0; j < keys[i].length; j++) if (keys[i][j].isDefault) explicit.add(keys[i][j].key);
    const taken = new Set<string>();
    for (let i = 0; i < servers.length; i++) {
      const list = keys[i];
      for (let j = 0; j < list.length; j++) {
        const k = list[j];
        if (k.isDefault || (!explicit.has(k.key) && !taken.has(k.key))) servers[i].isDefault = true;
        taken.add(k.key);
      }
    }
    for (const s of this.servers) if (!s.d) s.isDefault = true; // a fragment's own top level: unknown, assume any Host
  }

  private addMap(d: Directive, scope: FlowScope): void {
    const src = d.args[0];
    const out = d.args[1];
    if (!out || !out.value.startsWith('$') || !d.block) return;
    const m: MapDef = { d, source: src, entries: [] };
    const name = out.value.slice(1);
    for (const e of d.block.children) {
      if (!e.entry) continue;
      if (e.name === 'hostnames' || e.name === 'volatile' || e.name === 'include') continue;
      const key = e.nameWord;
      let re: ParsedRegex | undefined;
      if (key.value.startsWith('~')) {
        const caseless = key.value.startsWith('~*');
        re = parseRegex(key.value.slice(caseless ? 2 : 1), caseless);
        this.addCaptures(undefined, re, { kind: 'value', word: src, scope }, `map key \`${key.value}\``);
      }
      m.entries.push({ key, value: e.args[0], regex: re });
    }
    this.maps.set(name, m);
  }

  regexOf(d: Directive): ParsedRegex | undefined {
    const hit = this.regexes.get(d);
    if (hit !== undefined) return hit ?? undefined;
    let re: ParsedRegex | undefined;
    if (d.name === 'location' && isRegexLocation(d)) re = parseRegex(d.args[d.args.length - 1].value, d.args[0].value === '~*');
    else if (d.name === 'rewrite' && d.args[0]) re = parseRegex(d.args[0].value, false);
    else if (d.name === 'if') {
      const p = ifParts(d);
      const text = ifPatternText(d);
      if (text !== undefined && p.op) re = parseRegex(text, p.op.endsWith('*'));
    }
    this.regexes.set(d, re ?? null);
    return re;
  }

  isInternal(location: Directive): boolean {
    if (location.name !== 'location') return false;
    const last = location.args[location.args.length - 1]?.value ?? '';
    if (location.args.length === 1 && last.startsWith('@')) return true;
    return !!location.block?.children.some((c) => c.name === 'internal' && !c.entry);
  }

  internalReacher(location: Directive, scope: FlowScope): Directive | undefined {
    const server = scope.server;
    if (!server || !this.isInternal(location)) return undefined;
    const last = location.args[location.args.length - 1]?.value ?? '';
    if (last.startsWith('@')) return undefined; // a name, not a URI: no rewrite produces it
    const reachers = this.reachersOf(server);
    if (!reachers.length) return undefined;
    let prefix: string;
    if (isRegexLocation(location)) {
      const m = /^\^((?:[A-Za-z0-9_/\-]|\\[./\-])*)/.exec(last);
      prefix = m ? m[1].replace(/\\(.)/g, '$1') : '';
    } else prefix = last;
    for (const r of reachers) if (prefix.startsWith(r.prefix) || r.prefix.startsWith(prefix)) return r.d;
    return undefined;
  }

  /** Rewrites (no redirect) whose new URI has client data in its path: the literal text before it. */
  private reachersOf(server: FlowServer): { d: Directive; prefix: string }[] {
    if (server.reachers) return server.reachers;
    const out: { d: Directive; prefix: string }[] = [];
    for (const { d, scope } of server.rewrites ?? []) {
      const repl = d.args[1];
      if (!repl) continue;
      const flag = d.args[2]?.value;
      if (flag === 'redirect' || flag === 'permanent' || /^(https?:\/\/|\$scheme)/.test(repl.value)) continue;
      if (scope.location && this.isInternal(scope.location)) continue;
      const re = this.regexOf(d);
      for (const v of variablesIn(repl)) {
        let user = false;
        if (/^\d$/.test(v.name)) {
          const cap = re?.captures.find((c) => c.index === Number(v.name));
          user = !!cap && canHoldSlash(cap.chars);
        } else {
          const cap = re?.captures.find((c) => c.name === v.name);
          if (cap) user = canHoldSlash(cap.chars);
          else {
            const b = builtinOf(v.name);
            user = !!b && b.slash;
          }
        }
        if (user) {
          const lit = repl.raw.slice(0, v.start - repl.start).replace(/^["']/, '');
          out.push({ d, prefix: lit.replace(/\\(.)/g, '$1') });
          break;
        }
      }
    }
    server.reachers = out;
    return out;
  }

  /** Whether captures of `scope`'s location are of a URI nginx chose (an internal location no rewrite steers into). */
  private uriIsInternal(scope: FlowScope): boolean {
    const loc = scope.location;
    if (!loc || !this.isInternal(loc)) return false;
    if ((loc.args[loc.args.length - 1]?.value ?? '').startsWith('@')) return false; // named: the client's own URI
    let locScope: FlowScope | undefined = scope;
    while (locScope && locScope.d !== loc) locScope = locScope.up;
    return !this.internalReacher(loc, locScope ?? scope);
  }

  variableTaint(name: string, d: Directive, scope: FlowScope): Taint {
    if (/^\d$/.test(name)) return this.numbered(Number(name), d, scope);
    return this.named(name, scope, d);
  }

  private named(name: string, scope: FlowScope, at: Directive): Taint {
    const server = scope.server;
    const sdefs = server?.defs?.get(name);
    const gdefs = this.global && this.global !== server ? this.global.defs?.get(name) : undefined;
    const map = this.maps.get(name);
    const builtin = builtinOf(name);
    if (!sdefs && !gdefs && !map) {
      // nothing in the config defines it: nginx's own value (shared taints, nothing allocated)
      if (name === 'host') {
        this.computeDefaults();
        return server?.isDefault ? HOST_USER : HOST_CONST;
      }
      if (!builtin) return UNKNOWN; // a module's variable, or unknown: not counted as client data
      // $uri-like values in an internal location are the URI nginx chose
      if (builtin.crlf && builtin.startsSlash && name !== 'remote_user' && this.uriIsInternal(scope)) return INTERNAL_PATH;
      return builtinTaint(name, builtin);
    }
    // defined by the config: resolved once per server ($uri-like names not, they depend on the location)
    const cacheable = !(builtin && builtin.crlf);
    if (cacheable && server?.memo) {
      const hit = server.memo.get(name);
      if (hit) return hit;
    }
    const rkey = `${server?.id ?? -2}:${name}`;
    if (this.resolving.has(rkey)) return UNKNOWN;
    this.resolving.add(rkey);
    let t: Taint = UNKNOWN;
    try {
      const parts: Taint[] = [];
      if (sdefs) for (const def of sdefs) parts.push(this.defTaint(def, at));
      if (gdefs) for (const def of gdefs) parts.push(this.defTaint(def, at));
      if (map) parts.push(this.mapTaint(map, scope, at));
      if (name === 'host') {
        this.computeDefaults();
        parts.push(server?.isDefault ? HOST_USER : HOST_CONST);
      } else if (builtin) {
        parts.push(
          builtin.crlf && builtin.startsSlash && name !== 'remote_user' && this.uriIsInternal(scope)
            ? INTERNAL_PATH
            : builtinTaint(name, builtin),
        );
      }
      if (parts.length) t = join(parts);
    } finally {
      this.resolving.delete(rkey);
    }
    if (cacheable && server) (server.memo ??= new Map()).set(name, t);
    return t;
  }

  private defTaint(def: Def, at: Directive): Taint {
    if (def.kind === 'set') return this.wordTaint(def.value, def.d, def.scope);
    return this.captureTaint(def.regex, def.group, def.subject, def.where, at);
  }

  private subjectTaint(subject: Subject, at: Directive): Taint {
    switch (subject.kind) {
      case 'host':
        return { user: true, crlf: false, slash: false, hostUser: true, startsSlash: false, why: 'the Host header' };
      case 'uri':
        if (this.uriIsInternal(subject.scope)) return { ...CONSTANT, startsSlash: true };
        return {
          user: true,
          crlf: true,
          slash: true,
          hostUser: true,
          startsSlash: true,
          why: 'the decoded request path',
          crlfWhy: 'the decoded request path (%0d%0a becomes CR LF)',
        };
      case 'value':
        if (!subject.word || !subject.scope) return UNKNOWN;
        return this.wordTaint(subject.word, at, subject.scope);
    }
  }

  private captureTaint(re: ParsedRegex, group: number, subject: Subject, where: string, at: Directive): Taint {
    const cap = re.captures.find((c) => c.index === group);
    if (!cap) return { ...CONSTANT, slash: false };
    const s = this.subjectTaint(subject, at);
    const crlf = s.crlf && canHoldLf(cap.chars);
    const label = cap.name ? `$${cap.name}` : `$${group}`;
    return {
      user: s.user,
      crlf,
      slash: s.slash && canHoldSlash(cap.chars),
      hostUser: s.user,
      startsSlash: cap.startsSlash,
      why: s.user ? `${label} (a capture of ${where}, from ${s.why ?? 'client data'})` : undefined,
      crlfWhy: crlf
        ? `${label} (a capture of ${where} whose pattern can match a line feed, from ${s.crlfWhy ?? 'client data'})`
        : undefined,
    };
  }

  private mapTaint(m: MapDef, scope: FlowScope, at: Directive): Taint {
    const parts: Taint[] = [];
    for (const e of m.entries) {
      if (!e.value) continue;
      const vars = variablesIn(e.value);
      if (!vars.length) {
        parts.push({ ...CONSTANT, startsSlash: e.value.value.startsWith('/') });
        continue;
      }
      parts.push(
        this.piecesTaint(e.value, (name) => {
          if (/^\d$/.test(name)) {
            if (!e.regex) return { ...CONSTANT, slash: false };
            return this.captureTaint(e.regex, Number(name), { kind: 'value', word: m.source, scope }, `map key \`${e.key.value}\``, at);
          }
          return this.named(name, scope, at);
        }),
      );
    }
    if (!parts.length) return CONSTANT;
    const t = join(parts);
    if (t.why) t.why = `$${m.d.args[1]?.value.slice(1)} (a map output: ${t.why})`;
    return t;
  }

  /** Numbered captures: the groups of the regexes that can have matched last before `d`. */
  private numbered(n: number, d: Directive, scope: FlowScope): Taint {
    const candidates: { re: ParsedRegex; subject: Subject; where: string }[] = [];
    if (d.name === 'rewrite') {
      const re = this.regexOf(d);
      if (re) candidates.push({ re, subject: { kind: 'uri', scope }, where: `rewrite \`${d.args[0].value}\`` });
    } else {
      const contentPhase = d.name !== 'set' && d.name !== 'return' && d.name !== 'if' && d.name !== 'rewrite';
      for (let s: FlowScope | undefined = scope; s; s = s.up) {
        // rewrite-module regexes at this level that ran before `d`
        for (const c of s.children) {
          if (c === d && !contentPhase) break;
          if (c.entry) continue;
          if (c.name === 'rewrite') {
            const re = this.regexOf(c);
            if (re) candidates.push({ re, subject: { kind: 'uri', scope: s }, where: `rewrite \`${c.args[0]?.value}\`` });
          }
        }
        const b = s.d;
        if (!b) break;
        if (b.name === 'if') {
          const p = ifParts(b);
          const re = this.regexOf(b);
          if (re && p.op && !p.op.startsWith('!')) {
            candidates.push({ re, subject: { kind: 'value', word: p.subject, scope: s.up }, where: `if \`${ifPatternText(b)}\`` });
            break;
          }
        }
        if (b.name === 'location') {
          const re = isRegexLocation(b) ? this.regexOf(b) : undefined;
          if (re) candidates.push({ re, subject: { kind: 'uri', scope: s }, where: `location \`${b.args[b.args.length - 1].value}\`` });
          break;
        }
        if (b.name === 'server') {
          for (const sn of b.block?.children ?? []) {
            if (sn.name !== 'server_name' || sn.entry) continue;
            for (const a of sn.args) {
              if (!a.value.startsWith('~')) continue;
              const re = parseRegex(a.value.slice(1), true);
              if (re) candidates.push({ re, subject: { kind: 'host' }, where: `server_name \`${a.value}\`` });
            }
          }
          break;
        }
      }
    }
    if (!candidates.length) return { ...CONSTANT, slash: false };
    return join(candidates.map((c) => this.captureTaint(c.re, n, c.subject, c.where, d)));
  }

  wordTaint(word: Word, d: Directive, scope: FlowScope): Taint {
    if (word.raw.indexOf('$') < 0) return { ...CONSTANT, slash: word.value.includes('/'), startsSlash: word.value.startsWith('/') };
    return this.piecesTaint(word, (name) => this.variableTaint(name, d, scope));
  }

  /** Combines the literal text and the variables of a value, tracking whether a variable lands in a URL's scheme or host. */
  private piecesTaint(word: Word, resolve: (name: string) => Taint): Taint {
    const vars = variablesIn(word);
    const raw = word.raw;
    const base = word.start + (word.quote === 'none' ? 0 : 1);
    let state: 'start' | 'host' | 'path' = 'start';
    let pos = base;
    const out: Taint = { user: false, crlf: false, slash: false, hostUser: false, startsSlash: false };
    let first = true;
    /** The text so far ends in `scheme:/`: a value starting with `/` completes the `//` and then names the host. */
    let halfScheme = false;
    const literal = (text: string): void => {
      if (!text) return;
      halfScheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/$/.test(text) && state === 'start';
      if (halfScheme) {
        state = 'host';
        first = false;
        return;
      }
      if (text.includes('/')) out.slash = true;
      if (first) out.startsSlash = text.startsWith('/');
      first = false;
      if (state === 'path') return;
      if (state === 'start' && text.startsWith('/')) {
        state = 'path';
        return;
      }
      const scheme = text.indexOf('://');
      if (scheme >= 0) {
        state = 'host';
        if (/[/?#]/.test(text.slice(scheme + 3))) state = 'path';
        return;
      }
      if (/[/?#]/.test(text)) state = 'path';
      else if (state === 'start') state = 'host';
    };
    for (const v of vars) {
      literal(raw.slice(pos - word.start, v.start - word.start));
      const t = resolve(v.name);
      if (v.name === 'is_args') state = 'path'; // "?" or nothing: the query starts here
      if (first) out.startsSlash = t.startsSlash;
      first = false;
      if (t.user && !out.user) {
        out.user = true;
        out.why = t.why;
      }
      if (t.crlf && !out.crlf) {
        out.crlf = true;
        out.crlfWhy = t.crlfWhy;
      }
      if (t.slash) out.slash = true;
      if (halfScheme && t.hostUser) {
        out.hostUser = true;
        out.why = t.why;
      }
      halfScheme = false;
      if (state !== 'path') {
        if (t.startsSlash) state = 'path';
        else if (t.hostUser) {
          if (!out.hostUser) {
            out.hostUser = true;
            out.why = t.why;
          }
        }
      }
      pos = v.end;
    }
    literal(raw.slice(pos - word.start).replace(/["']$/, ''));
    return out;
  }
}

function join(parts: Taint[]): Taint {
  if (parts.length === 1) return { ...parts[0] };
  const out: Taint = { user: false, crlf: false, slash: false, hostUser: false, startsSlash: parts.length > 0 };
  for (const p of parts) {
    if (p.user && !out.user) {
      out.user = true;
      out.why = p.why;
    }
    if (p.hostUser) out.hostUser = true;
    if (p.crlf && !out.crlf) {
      out.crlf = true;
      out.crlfWhy = p.crlfWhy;
    }
    if (p.slash) out.slash = true;
    if (!p.startsSlash) out.startsSlash = false;
  }
  return out;
}
