// nginx validation: judges a parsed file the way `nginx -t` would (syntax, unknown
// directives, contexts, argument counts, values, duplicates, variables), version-aware.
// Produces Findings against the rule rows below; the rule engine makes diagnostics of them.
import type { Diagnostic } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Finding, RuleMeta } from '../service/rules';
import { RuleRegistry } from '../service/rules';
import { compareVersions } from '../service/version';
import type { ServiceSettings } from '../service/types';
import type { Directive, NginxFile, Word } from './ast';
import { childContext, variablesIn } from './ast';
import {
  DIRECTIVES,
  deprecation,
  DIRECTIVE_NAMES,
  lookupVariable,
  thirdPartyModule,
  variantInVersion,
  type DirectiveVariant,
  type ValueType,
} from './data';

const DOC = 'https://nginx.org/en/docs/';
const rule = (id: string, category: RuleMeta['category'], severity: RuleMeta['severity'], title: string, why: string, docUrl = DOC): RuleMeta => ({
  id: `nginx/${id}`,
  language: 'nginx',
  category,
  severity,
  title,
  why,
  docUrl,
});

export const NGINX_RULES: RuleMeta[] = [
  rule('syntax', 'syntax', 'error', 'Syntax error', 'nginx refuses to start when its reader cannot split the file into directives and blocks.', 'https://nginx.org/en/docs/beginners_guide.html#conf_structure'),
  rule('unknown-directive', 'correctness', 'error', 'Unknown directive', 'nginx stops at a directive no loaded module defines; usually a typo.'),
  rule('not-allowed-here', 'correctness', 'error', 'Directive not allowed in this context', 'Each directive is accepted only in some blocks (http, server, location, stream...); elsewhere nginx refuses the config.'),
  rule('arg-count', 'correctness', 'error', 'Wrong number of arguments', 'nginx checks the number of arguments of every directive when it reads the config.'),
  rule('invalid-value', 'correctness', 'error', 'Invalid value', 'Flags, enumerations, sizes and times have fixed forms; nginx rejects anything else.'),
  rule('duplicate', 'correctness', 'error', 'Duplicate directive', 'Single-valued directives may appear once per block, and locations, upstreams and maps must have distinct names.'),
  rule('unknown-variable', 'correctness', 'error', 'Unknown variable', 'nginx refuses a config that uses a variable no module or `set`/`map`/`geo` defines.', 'https://nginx.org/en/docs/varindex.html'),
  rule('needs-newer-version', 'compatibility', 'error', 'Needs a newer nginx', 'The directive appeared in a later nginx version than the one the config is judged against.'),
  rule('removed-in-version', 'compatibility', 'error', 'Removed in the target version', 'The directive no longer exists in the nginx version the config is judged against.'),
  rule('third-party-directive', 'compatibility', 'information', 'Third-party module directive', 'The directive comes from a module that is not part of nginx (often packaged by distributions); it works only when that module is loaded.'),
  rule('commercial-directive', 'compatibility', 'warning', 'Commercial-only directive', 'The directive exists only in the commercial subscription build of nginx.'),
  rule('deprecated', 'compatibility', 'warning', 'Deprecated directive', 'nginx warns about directives and parameters it keeps only for compatibility; a later version removes them.'),
  rule('empty-upstream', 'correctness', 'error', 'Upstream without servers', 'nginx refuses an upstream block that lists no server.', 'https://nginx.org/en/docs/http/ngx_http_upstream_module.html#upstream'),
  rule('missing-certificate', 'correctness', 'error', 'TLS listener without certificate', 'A `listen ... ssl` server needs an `ssl_certificate` (and a key for each certificate) in the server or inherited from http, unless it rejects handshakes.', 'https://nginx.org/en/docs/http/ngx_http_ssl_module.html#ssl_certificate'),
  rule('missing-events', 'correctness', 'error', 'No events block', 'nginx requires an `events {}` block in the main configuration file.', 'https://nginx.org/en/docs/ngx_core_module.html#events'),
];

export const nginxRules = new RuleRegistry(NGINX_RULES);

export interface ValidateOptions {
  /** Target version (undefined: newest). */
  version?: string;
  /** Context the file is included in; `main` for a whole configuration. */
  context?: string;
}

const SIZE_RE = /^\d+[kKmMgG]?$/;
const TIME_RE = /^(\d+(ms|s|m|h|d|w|M|y)?)+$/;
const NUMBER_RE = /^\d+$/;

function checkType(t: ValueType, v: string): boolean {
  switch (t) {
    case 'size':
      return SIZE_RE.test(v);
    case 'time':
      return TIME_RE.test(v.replace(/ /g, ''));
    case 'number':
      return NUMBER_RE.test(v);
  }
}

/** Levenshtein distance, bounded (returns limit+1 when above). */
export function editDistance(a: string, b: string, limit = 3): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = new Array(b.length + 1);
  let cur = new Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = cur[0];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (cur[j] < rowMin) rowMin = cur[j];
    }
    if (rowMin > limit) return limit + 1;
    [prev, cur] = [cur, prev];
  }
  return prev[b.length];
}

const suggestions = new Map<string, string | undefined>();

export function suggestDirective(name: string, context?: string): string | undefined {
  const key = `${context ?? ''}\0${name}`;
  if (suggestions.has(key)) return suggestions.get(key);
  const s = computeSuggestion(name, context);
  if (suggestions.size > 5000) suggestions.clear();
  suggestions.set(key, s);
  return s;
}

function computeSuggestion(name: string, context?: string): string | undefined {
  const limit = name.length <= 4 ? 1 : name.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestD = limit + 1;
  for (const n of DIRECTIVE_NAMES) {
    const d = editDistance(name, n, limit);
    if (d < bestD || (d === bestD && best && context && allowedIn(n, context) && !allowedIn(best, context))) {
      best = n;
      bestD = d;
    }
  }
  return bestD <= limit ? best : undefined;
}

function allowedIn(name: string, ctx: string): boolean {
  return (DIRECTIVES.get(name) ?? []).some((v) => v.contexts.includes(ctx) || v.contexts.includes('*'));
}

/** Variables the file defines: set, map, geo, split_clients, js_set, perl_set, regex captures... */
/** Per parse: completion and hover ask again at every keystroke (a walk of the whole file each time). */
const definedVariables = new WeakMap<NginxFile, ReadonlySet<string>>();

export function collectDefinedVariables(file: NginxFile): ReadonlySet<string> {
  let known = definedVariables.get(file);
  if (!known) definedVariables.set(file, (known = walkDefinedVariables(file)));
  return known;
}

function walkDefinedVariables(file: NginxFile): Set<string> {
  const out = new Set<string>();
  const addWord = (w: Word | undefined) => {
    if (!w) return;
    const m = /^\$([A-Za-z0-9_]+)$/.exec(w.value);
    if (m) out.add(m[1].toLowerCase());
  };
  const addCaptures = (w: Word | undefined) => {
    if (!w) return;
    for (const m of w.value.matchAll(/\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/g)) out.add(m[1].toLowerCase());
    for (const m of w.value.matchAll(/\(\?P?'([A-Za-z_][A-Za-z0-9_]*)'/g)) out.add(m[1].toLowerCase());
  };
  const visit = (list: Directive[], parent: Directive | undefined) => {
    for (const d of list) {
      if (d.entry) {
        addCaptures(d.nameWord);
        if (parent && parent.name === 'geoip2') addWord(d.nameWord);
      } else {
        const n = d.name;
        for (const a of d.args) if (a.value.includes('(?')) addCaptures(a);
        if (d.nameWord.value.includes('(?')) addCaptures(d.nameWord);
        if (n === 'set' || n === 'js_set' || n === 'perl_set' || n === 'auth_request_set' || n === 'js_var' || n === 'auth_jwt_claim_set' || n === 'auth_jwt_header_set' || n.startsWith('set_') || n === 'set_by_lua' || n === 'set_by_lua_block' || n === 'set_by_lua_file' || n === 'perl_set') addWord(d.args[0]);
        else if (n === 'map' || n === 'split_clients' || n === 'keyval' || n === 'mirror_set') addWord(d.args[1]);
        else if (n === 'geo') addWord(d.args[d.args.length - 1]);
        else if (n.endsWith('_set') || n.startsWith('geoip2')) addWord(d.args[0]);
        if (n === 'server_name') for (const a of d.args) addCaptures(a);
      }
      if (d.block && !d.rawBody) visit(d.block.children, d);
    }
  };
  visit(file.directives, undefined);
  return out;
}

interface Ctx {
  findings: Finding[];
  version?: string;
  defined: ReadonlySet<string>;
  isFragment: boolean;
  isMain: boolean;
}

function fmtTarget(v: string | undefined): string {
  return v ?? 'newest';
}

const MAIN_ONLY = new Set(['http', 'events', 'stream', 'mail', 'worker_processes', 'user', 'pid', 'load_module', 'error_log', 'daemon', 'worker_rlimit_nofile']);
const CANDIDATE_CONTEXTS = ['main', 'http', 'server', 'location', 'stream', 'stream/server', 'upstream', 'stream/upstream', 'mail', 'mail/server'];

/** Directives of the tree that would not be allowed if the file were included in `ctx`. */
function misplacedCount(list: Directive[], ctx: string, limit: number): number {
  let n = 0;
  for (const d of list) {
    if (d.entry) continue;
    const v = DIRECTIVES.get(d.name);
    if (v && !v.some((x) => x.contexts.includes(ctx) || x.contexts.includes('*'))) n++;
    if (n > limit) return n;
    if (d.block && !d.rawBody && d.block.children.length) {
      const inner = childContext(ctx, d.name);
      if (!inner.startsWith('block:')) n += misplacedCount(d.block.children, inner, limit - n);
    }
  }
  return n;
}

/**
 * The context a file is included in: a `# context: server` comment before the first
 * directive says it; else `main` when it holds main-level directives; else the candidate
 * context where the fewest directives would be misplaced (a `sites-enabled` file with
 * `server {}` blocks is `http`, a `stream.d` file whose servers use `proxy_timeout` is `stream`).
 */
export function inferContext(file: NginxFile): string {
  const first = file.directives[0]?.start ?? Infinity;
  for (const c of file.comments) {
    if (c.start > first) break;
    const m = /^\s*context:\s*([a-z/ ]+?)\s*$/i.exec(c.text);
    if (m) return m[1].toLowerCase();
  }
  const top = file.directives.filter((d) => !d.entry);
  if (top.length === 0 || top.some((d) => MAIN_ONLY.has(d.name))) return 'main';
  let best = 'main';
  let bestN = Infinity;
  for (const ctx of CANDIDATE_CONTEXTS) {
    const n = misplacedCount(top, ctx, bestN);
    if (n < bestN) {
      best = ctx;
      bestN = n;
      if (n === 0) break;
    }
  }
  return best;
}

export function validateFile(file: NginxFile, opts: ValidateOptions = {}): Finding[] {
  const findings: Finding[] = [];
  for (const e of file.errors) findings.push({ ruleId: 'nginx/syntax', start: e.start, end: Math.max(e.end, e.start), message: e.message });
  const context = opts.context ?? 'main';
  const c: Ctx = { findings, version: opts.version, defined: collectDefinedVariables(file), isFragment: context !== 'main', isMain: context === 'main' };
  visitList(c, file.directives, context, undefined);
  if (context === 'main') {
    const top = file.directives;
    const hasHttp = top.find((d) => d.name === 'http' || d.name === 'stream' || d.name === 'mail');
    if (hasHttp && !top.some((d) => d.name === 'events') && !top.some((d) => d.name === 'include')) {
      findings.push({ ruleId: 'nginx/missing-events', start: hasHttp.nameStart, end: hasHttp.nameEnd, message: 'no "events" section in configuration' });
    }
  }
  return findings;
}

function visitList(c: Ctx, list: Directive[], ctx: string, parent: Directive | undefined): void {
  const seen = new Map<string, Directive>();
  const locations = new Map<string, Directive>();
  const upstreams = new Map<string, Directive>();
  const listens = ctx === 'http' ? new ListenTable() : undefined;
  for (const d of list) {
    if (d.entry) {
      if (parent?.name === 'map') {
        for (const a of d.args) checkVariables(c, a);
      }
      continue;
    }
    const variant = checkDirective(c, d, ctx);
    if (variant?.duplicate) {
      const prev = seen.get(d.name);
      if (prev) c.findings.push({ ruleId: 'nginx/duplicate', start: d.nameStart, end: d.nameEnd, message: `"${d.name}" directive is duplicate` });
      else seen.set(d.name, d);
    }
    if (d.name === 'location' && variant && d.args.length) {
      const loc = locationInfo(d);
      const key = loc.kind === 'exact' ? `=${loc.name}` : loc.kind === 'prefix' ? `p:${loc.name}` : undefined;
      if (key) {
        if (locations.has(key)) c.findings.push({ ruleId: 'nginx/duplicate', start: d.nameStart, end: d.args[d.args.length - 1].end, message: `duplicate location "${loc.name}"` });
        else locations.set(key, d);
      }
      if (parent?.name === 'location') checkNestedLocation(c, d, loc, locationInfo(parent));
    }
    if (d.name === 'upstream' && variant && d.block && d.args.length === 1 && (ctx === 'http' || ctx === 'stream')) {
      const name = d.args[0].value.toLowerCase();
      if (upstreams.has(name)) c.findings.push({ ruleId: 'nginx/duplicate', start: d.nameStart, end: d.args[0].end, message: `duplicate upstream "${d.args[0].value}"` });
      else upstreams.set(name, d);
    }
    if (d.name === 'upstream' && variant && d.block && !d.block.children.some((x) => x.name === 'server' || x.name === 'include' || !DIRECTIVES.has(x.name))) {
      c.findings.push({ ruleId: 'nginx/empty-upstream', start: d.nameStart, end: d.args[0]?.end ?? d.nameEnd, message: 'no servers are inside upstream' });
    }
    if (ctx === 'http' && d.name === 'server' && d.block && c.isMain && parent) checkCertificates(c, d, parent);
    if (d.name === 'return' && variant && (ctx === 'server' || ctx === 'location' || ctx.startsWith('if in'))) checkReturn(c, d);
    if (d.name === 'listen' && variant && !variant.module.startsWith('ngx_mail_')) checkListenParams(c, d, variant);
    if (listens && d.name === 'server' && d.block) listens.addServer(c, d);
    if (d.block && !d.rawBody) {
      const inner = childContext(ctx, d.name);
      if (inner.startsWith('block:')) continue; // unknown block: its content is not ours to judge
      visitList(c, d.block.children, inner, d);
    }
  }
}

/** What a server inherits from its http block, computed once per http block (not once per server). */
interface HttpTlsFacts {
  include: boolean;
  certs: Directive[];
  keys: Directive[];
  rejects: boolean;
}

const httpTlsFacts = new WeakMap<Directive, HttpTlsFacts>();

function tlsFactsOf(list: Directive[]): HttpTlsFacts {
  const pick = (name: string) => list.filter((x) => x.name === name && !x.entry);
  return {
    include: list.some((x) => x.name === 'include'),
    certs: pick('ssl_certificate'),
    keys: pick('ssl_certificate_key'),
    rejects: list.some((x) => x.name === 'ssl_reject_handshake' && x.args[0]?.value === 'on'),
  };
}

/** `listen ... ssl` needs a certificate; each certificate needs a key (judged only on whole configurations). */
function checkCertificates(c: Ctx, server: Directive, http: Directive): void {
  let up = httpTlsFacts.get(http);
  if (!up) httpTlsFacts.set(http, (up = tlsFactsOf(http.block!.children)));
  const own = tlsFactsOf(server.block!.children);
  if (own.include || up.include) return;
  const certs = own.certs.length ? own.certs : up.certs;
  const keys = own.keys.length ? own.keys : up.keys;
  const rejects = own.rejects || up.rejects;
  const sslListen = server.block!.children.find((x) => x.name === 'listen' && x.args.slice(1).some((a) => a.value === 'ssl'));
  if (sslListen && certs.length === 0 && !rejects) {
    c.findings.push({ ruleId: 'nginx/missing-certificate', start: sslListen.nameStart, end: sslListen.end, message: 'no "ssl_certificate" is defined for the "listen ... ssl" directive' });
  }
  if (certs.length > keys.length) {
    const cert = certs[keys.length];
    c.findings.push({ ruleId: 'nginx/missing-certificate', start: cert.nameStart, end: cert.end, message: `no "ssl_certificate_key" is defined for certificate "${cert.args[0]?.value ?? ''}"` });
  }
}

interface LocationInfo {
  kind: 'exact' | 'prefix' | 'regex' | 'named';
  /** As nginx prints it: the uri, the regex, or `@name`. */
  name: string;
}

function locationInfo(d: Directive): LocationInfo {
  const a = d.args;
  if (a.length >= 2) {
    const m = a[0].value;
    const name = a[1].value;
    if (m === '=') return { kind: 'exact', name };
    if (m === '~' || m === '~*') return { kind: 'regex', name };
    return { kind: 'prefix', name };
  }
  const v = a[0]?.value ?? '';
  if (v.startsWith('=')) return { kind: 'exact', name: v.slice(1) };
  if (v.startsWith('~*')) return { kind: 'regex', name: v.slice(2) };
  if (v.startsWith('~')) return { kind: 'regex', name: v.slice(1) };
  if (v.startsWith('^~')) return { kind: 'prefix', name: v.slice(2) };
  if (v.startsWith('@')) return { kind: 'named', name: v };
  return { kind: 'prefix', name: v };
}

/** nginx's rules for a location inside a location (ngx_http_core_location). */
function checkNestedLocation(c: Ctx, d: Directive, loc: LocationInfo, outer: LocationInfo): void {
  const at = (message: string): void => {
    c.findings.push({ ruleId: 'nginx/not-allowed-here', start: d.nameStart, end: d.args[d.args.length - 1].end, message });
  };
  if (outer.kind === 'exact') return at(`location "${loc.name}" cannot be inside the exact location "${outer.name}"`);
  if (outer.kind === 'named') return at(`location "${loc.name}" cannot be inside the named location "${outer.name}"`);
  if (loc.kind === 'named') return at(`named location "${loc.name}" can be on the server level only`);
  // a nested prefix location must start with the outer one's name (even when that one is a regex)
  if (loc.kind !== 'regex' && !loc.name.startsWith(outer.name)) at(`location "${loc.name}" is outside location "${outer.name}"`);
}

function checkReturn(c: Ctx, d: Directive): void {
  const a = d.args[0];
  if (!a) return;
  if (/^\d+$/.test(a.value)) {
    if (Number(a.value) > 999) c.findings.push({ ruleId: 'nginx/invalid-value', start: a.start, end: a.end, message: `invalid return code "${a.value}"` });
    return;
  }
  if (d.args.length === 1 && /^(https?:\/\/|\$scheme)/.test(a.value)) return;
  c.findings.push({ ruleId: 'nginx/invalid-value', start: a.start, end: a.end, message: `invalid return code "${a.value}"` });
}

/** `listen` parameters known to the syntax (name or `name=`). */
function checkListenParams(c: Ctx, d: Directive, v: DirectiveVariant): void {
  if (!v.params) return;
  for (const w of d.args.slice(1)) {
    if (w.raw.includes('$')) continue;
    const key = w.value.includes('=') ? w.value.slice(0, w.value.indexOf('=') + 1) : w.value;
    const p = v.params[key];
    const dep = p !== undefined && d.name === 'listen' ? deprecation(`listen ${key}`, c.version) : undefined;
    if (dep) {
      c.findings.push({ ruleId: 'nginx/deprecated', start: w.start, end: w.end, message: `"listen ... ${key}" is deprecated since nginx ${dep.since}${dep.use ? `, use the "${dep.use}" directive instead` : ''}`, deprecated: true });
    }
    if (p === undefined) {
      c.findings.push({ ruleId: 'nginx/invalid-value', start: w.start, end: w.end, message: `invalid parameter "${w.value}"` });
    } else if (p && c.version && compareVersions(c.version, p) < 0) {
      c.findings.push({ ruleId: 'nginx/needs-newer-version', start: w.start, end: w.end, message: `"listen ... ${key.replace(/=$/, '')}" needs nginx >= ${p} (target is ${c.version})` });
    }
  }
}

/** Normalized `addr:port` of a listen address, or undefined when it cannot be known statically. */
export function listenAddress(raw: string): string | undefined {
  if (raw.includes('$')) return undefined;
  if (raw.startsWith('unix:')) return raw;
  if (/^\d+$/.test(raw)) return `0.0.0.0:${raw}`;
  const v6 = /^\[([0-9a-fA-F:.]+)\](?::(\d+))?$/.exec(raw);
  if (v6) return `[${v6[1].toLowerCase()}]:${v6[2] ?? '80'}`;
  const m = /^(\*|\d{1,3}(?:\.\d{1,3}){3})(?::(\d+))?$/.exec(raw);
  if (!m) return undefined; // host names may resolve to several addresses
  return `${m[1] === '*' ? '0.0.0.0' : m[1]}:${m[2] ?? '80'}`;
}

const SOCKET_OPTIONS = ['setfib=', 'fastopen=', 'backlog=', 'rcvbuf=', 'sndbuf=', 'accept_filter=', 'deferred', 'bind', 'ipv6only=', 'reuseport', 'so_keepalive='];

/** The listen sockets of an http block: nginx's duplicate listen / default server / options checks. */
class ListenTable {
  private readonly byAddr = new Map<string, { defaultServer: boolean; options: boolean }>();

  addServer(c: Ctx, server: Directive): void {
    const own = new Set<string>();
    for (const d of server.block!.children) {
      if (d.name !== 'listen' || d.entry || !d.args.length) continue;
      const addr = listenAddress(d.args[0].value);
      if (!addr) continue;
      const range = { start: d.nameStart, end: d.args[d.args.length - 1].end };
      if (own.has(addr)) {
        c.findings.push({ ruleId: 'nginx/duplicate', ...range, message: `a duplicate listen ${addr}` });
        continue;
      }
      own.add(addr);
      const params = d.args.slice(1).map((w) => w.value);
      const isDefault = params.includes('default_server') || params.includes('default');
      const options = params.some((p) => SOCKET_OPTIONS.some((o) => (o.endsWith('=') ? p.startsWith(o) : p === o)));
      const prev = this.byAddr.get(addr);
      if (!prev) {
        this.byAddr.set(addr, { defaultServer: isDefault, options });
        continue;
      }
      if (isDefault && prev.defaultServer) c.findings.push({ ruleId: 'nginx/duplicate', ...range, message: `a duplicate default server for ${addr}` });
      else if (options && prev.options) c.findings.push({ ruleId: 'nginx/duplicate', ...range, message: `duplicate listen options for ${addr}` });
      prev.defaultServer ||= isDefault;
      prev.options ||= options;
    }
  }
}

function checkDirective(c: Ctx, d: Directive, ctx: string): DirectiveVariant | undefined {
  const all = DIRECTIVES.get(d.name);
  const words = d.args;
  if (!all) {
    const tp = thirdPartyModule(d.name);
    if (tp) {
      c.findings.push({ ruleId: 'nginx/third-party-directive', start: d.nameStart, end: d.nameEnd, message: `"${d.name}" comes from the third-party ${tp} module; it works only when that module is loaded` });
      return undefined;
    }
    const s = suggestDirective(d.name, ctx);
    const f: Finding = { ruleId: 'nginx/unknown-directive', start: d.nameStart, end: d.nameEnd, message: `unknown directive "${d.name}"${s ? `; did you mean "${s}"?` : ''}` };
    if (s) f.fixes = [{ title: `Change to "${s}"`, edits: [{ start: d.nameStart, end: d.nameEnd, newText: s }], safe: false }];
    c.findings.push(f);
    return undefined;
  }
  const here = all.filter((v) => v.contexts.includes(ctx) || v.contexts.includes('*'));
  if (here.length === 0) {
    // a third-party module may reuse a name in its own context
    c.findings.push({ ruleId: 'nginx/not-allowed-here', start: d.nameStart, end: d.nameEnd, message: `"${d.name}" directive is not allowed here (${ctx})` });
    for (const w of words) checkVariables(c, w);
    return undefined;
  }
  const inVersion = here.filter((v) => variantInVersion(v, c.version) === 'yes');
  if (inVersion.length === 0) {
    const newer = here.filter((v) => variantInVersion(v, c.version) === 'newer');
    if (newer.length) {
      const since = newer.map((v) => v.since!).sort()[0];
      c.findings.push({ ruleId: 'nginx/needs-newer-version', start: d.nameStart, end: d.nameEnd, message: `"${d.name}" needs nginx >= ${since} (target is ${fmtTarget(c.version)})` });
    } else {
      const until = here.map((v) => v.until!).sort()[0];
      c.findings.push({ ruleId: 'nginx/removed-in-version', start: d.nameStart, end: d.nameEnd, message: `"${d.name}" was removed in nginx ${until} (target is ${fmtTarget(c.version)})` });
    }
    return undefined;
  }
  if (inVersion.every((v) => v.commercial)) {
    c.findings.push({ ruleId: 'nginx/commercial-directive', start: d.nameStart, end: d.nameEnd, message: `"${d.name}" is available only in the commercial subscription build of nginx` });
  }
  const dep = deprecation(d.name, c.version, inVersion[0]);
  if (dep) {
    c.findings.push({
      ruleId: 'nginx/deprecated',
      start: d.nameStart,
      end: d.nameEnd,
      message: `the "${d.name}" directive is deprecated since nginx ${dep.since}${dep.use ? `, use "${dep.use}" instead` : ''}`,
      deprecated: true,
    });
  }
  // block or not
  const v = inVersion[0];
  const wantsBlock = inVersion.some((x) => x.block);
  const wantsPlain = inVersion.some((x) => !x.block);
  if (d.block && !d.rawBody && !wantsBlock) {
    c.findings.push({ ruleId: 'nginx/syntax', start: d.nameStart, end: d.nameEnd, message: `directive "${d.name}" is not terminated by ";"` });
  } else if (!d.block && d.terminated && !wantsPlain) {
    c.findings.push({ ruleId: 'nginx/syntax', start: d.nameStart, end: d.nameEnd, message: `directive "${d.name}" has no opening "{"` });
  }
  // arguments
  const n = words.length;
  const fits = inVersion.filter((x) => n >= x.min && (x.max < 0 || n <= x.max));
  if (fits.length === 0) {
    const end = n ? words[n - 1].end : d.nameEnd;
    c.findings.push({ ruleId: 'nginx/arg-count', start: d.nameStart, end, message: `invalid number of arguments in "${d.name}" directive` });
  } else {
    checkValues(c, d, fits[0]);
  }
  if (d.name === 'if') checkIf(c, d);
  words.forEach((w, i) => {
    if (isScriptArg(d, i)) checkVariables(c, w);
  });
  return fits[0] ?? v;
}

/** Whether argument i is compiled as an nginx script (regexes and embedded code are not). */
function isScriptArg(d: Directive, i: number): boolean {
  switch (d.name) {
    case 'location':
    case 'server_name':
    case 'perl':
    case 'perl_modules':
    case 'perl_require':
    case 'js_import':
    case 'js_include':
      return false;
    case 'rewrite':
      return i !== 0;
    case 'perl_set':
      return i !== 1;
    case 'if': {
      // the operand after a regex operator is a regex
      const prev = d.args[i - 1]?.value;
      return !(prev === '~' || prev === '~*' || prev === '!~' || prev === '!~*');
    }
  }
  return true;
}

function hasVariable(w: Word): boolean {
  return w.raw.includes('$');
}

function checkValues(c: Ctx, d: Directive, v: DirectiveVariant): void {
  const words = d.args;
  if (v.flag) {
    const w = words[0];
    if (w && !hasVariable(w)) {
      const val = w.value.toLowerCase();
      if (val !== 'on' && val !== 'off') {
        c.findings.push({
          ruleId: 'nginx/invalid-value',
          start: w.start,
          end: w.end,
          message: `invalid value "${w.value}" in "${d.name}" directive, it must be "on" or "off"`,
          fixes: [
            { title: 'Use "on"', edits: [{ start: w.start, end: w.end, newText: 'on' }], safe: false },
            { title: 'Use "off"', edits: [{ start: w.start, end: w.end, newText: 'off' }], safe: false },
          ],
        });
      }
    }
    return;
  }
  if (v.values) {
    for (const w of words) {
      if (hasVariable(w)) continue;
      if (!v.values.includes(w.value)) {
        c.findings.push({ ruleId: 'nginx/invalid-value', start: w.start, end: w.end, message: `invalid value "${w.value}" in "${d.name}" directive, it must be one of ${v.values.map((x) => `"${x}"`).join(', ')}` });
      }
    }
    return;
  }
  if (v.argTypes) {
    v.argTypes.forEach((t, i) => {
      const w = words[i];
      if (!t || !w || hasVariable(w)) return;
      if (t.values.includes(w.value)) return;
      if (t.types.some((ty) => checkType(ty, w.value))) return;
      const what = t.types.join(' or ');
      c.findings.push({ ruleId: 'nginx/invalid-value', start: w.start, end: w.end, message: `"${d.name}" directive invalid value "${w.value}": expected a ${what}${t.values.length ? ` or ${t.values.map((x) => `"${x}"`).join(', ')}` : ''}` });
    });
  }
}

/** nginx's own checks of `if (...)` (ngx_http_rewrite_if_condition), as far as they are static. */
function checkIf(c: Ctx, d: Directive): void {
  const a = d.args.map((w) => ({ w, v: w.value }));
  if (a.length === 0) return;
  const bad = (w: Word, text: string): void => {
    c.findings.push({ ruleId: 'nginx/invalid-value', start: w.start, end: w.end, message: `invalid condition "${text}"` });
  };
  if (!a[0].v.startsWith('(')) return bad(a[0].w, a[0].v);
  let cur = 0;
  if (a[0].v.length === 1) cur = 1;
  else a[0] = { w: a[0].w, v: a[0].v.slice(1) };
  let last = a.length - 1;
  if (!a[last].v.endsWith(')')) return bad(a[last].w, a[last].v);
  if (a[last].v.length === 1) last--;
  else a[last] = { w: a[last].w, v: a[last].v.slice(0, -1) };
  if (cur > last || !a[cur]) return bad(d.args[d.args.length - 1], ')');
  const p = a[cur].v;
  if (p.length > 1 && p[0] === '$') {
    if (cur !== last && cur + 2 !== last) return bad(a[cur].w, p);
    if (cur + 2 === last) {
      const op = a[cur + 1].v;
      if (!['=', '!=', '~', '~*', '!~', '!~*'].includes(op)) c.findings.push({ ruleId: 'nginx/invalid-value', start: a[cur + 1].w.start, end: a[cur + 1].w.end, message: `unexpected "${op}" in condition` });
    }
    return;
  }
  if ((p.length === 2 && p[0] === '-') || (p.length === 3 && p[0] === '!' && p[1] === '-')) {
    if (cur + 1 !== last) return bad(a[cur].w, p);
    if (!/^!?-[fdex]$/.test(p)) return bad(a[cur].w, p);
    return;
  }
  return bad(a[cur].w, p);
}

function checkVariables(c: Ctx, w: Word): void {
  if (w.raw.indexOf('$') < 0) return;
  for (const r of variablesIn(w)) {
    const name = r.name.toLowerCase();
    if (/^\d+$/.test(name)) continue; // regex captures
    if (c.defined.has(name)) continue;
    const info = lookupVariable(name);
    if (info) {
      if (info.since && c.version && compareVersions(c.version, info.since) < 0 && !info.prefix) {
        c.findings.push({ ruleId: 'nginx/needs-newer-version', start: r.start, end: r.end, message: `"$${r.name}" needs nginx >= ${info.since} (target is ${c.version})` });
      }
      continue;
    }
    c.findings.push({
      ruleId: 'nginx/unknown-variable',
      start: r.start,
      end: r.end,
      message: `unknown "${r.name}" variable`,
      severity: c.isFragment ? 'warning' : undefined,
    });
  }
}

export function validateToDiagnostics(doc: TextDocument, file: NginxFile, settings: ServiceSettings, context?: string): Diagnostic[] {
  const findings = validateFile(file, { version: settings.nginxVersion, context: context ?? inferContext(file) });
  return nginxRules.toDiagnostics(doc, findings, settings, 'nginx');
}

