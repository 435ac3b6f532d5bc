// The nginx tuning and safety checks: each reads the AST and pushes Findings against the rows
// of rules.ts. Inheritance follows nginx: a directive set at an inner level wins; "array"
// directives (add_header, proxy_set_header) are inherited only when a level sets none.
import type { Fix, FixEdit } from '../../../core/rules';
import type { NginxFinding as Finding, NginxRuleId } from '../rules';
import type { HostFacts, ServiceSettings } from '../../../core/types';
import { compareVersions } from '../../../core/version';
import type { Block, Directive, NginxFile, Word } from '../ast';
import { childContext, variablesIn } from '../ast';
import { inferContext } from '../inferContext';
import { isMainConfig, MAIN_MARKERS, PASS_DIRECTIVES } from '../data';
import {
  indentAt,
  indentUnit,
  insertLinesAfter,
  insertLinesBefore,
  lineEnd,
  lineStart,
  removeSpan,
  removeWord,
  replace,
} from '../../../core/findingText';
import {
  NGINX_DEFAULT_UPSTREAM_POOL,
  NGINX_HTTP2_DIRECTIVE,
  NGINX_MODERN_TLS_DEFAULT,
  NGINX_UPSTREAM_KEEPALIVE_DEFAULT,
  type NginxTuningRuleId,
} from './rules';

/**
 * A level of the tree: the file's top level, or the body of a block directive. Levels link to
 * the enclosing one, so "what applies here" walks up a few links instead of copying chains.
 */
export interface Level {
  /** The block directive; undefined for the top level. */
  d: Directive | undefined;
  /** The enclosing level; undefined for the top level. */
  up: Level | undefined;
  /** The context inside the body. */
  inner: string;
  /** The body's directives (table entries included: lookups skip them). */
  children: Directive[];
  /** Children by name for large levels, built on the first lookup. */
  index: Map<string, Directive[]> | undefined;
  /** Whether this level or an enclosing one includes a file that may hold settings (on demand). */
  inc: boolean | undefined;
  /** For a server in http: a `listen ... ssl` or `ssl on` in its body (set by the walk). */
  tls: boolean;
}

/** The body of a block directive. */
export interface BlockLevel extends Level {
  d: Directive;
  up: Level;
}

/** A directive and the level it is written in (its context is `up.inner`). */
export interface Node {
  d: Directive;
  up: Level;
}

// The directives the checks look at, collected in one walk into one list per name below (text
// order; a list of several directives interleaves them). The walk's table and the list indices
// (G.proxyPass...) are derived from this one table: a new list is one line here.
const LISTS = {
  proxyPass: ['proxy_pass'],
  otherPass: [...PASS_DIRECTIVES].filter((n) => n !== 'proxy_pass'), // the pass directives of data/groups.json
  upstream: ['upstream'],
  keepaliveRequests: ['keepalive_requests'],
  accessLog: ['access_log'],
  sendfile: ['sendfile'],
  tcpNopush: ['tcp_nopush'],
  root: ['root'],
  alias: ['alias'],
  gzip: ['gzip'],
  proxyBuffering: ['proxy_buffering'],
  listen: ['listen'],
  tls: ['ssl_protocols', 'ssl_stapling'], // one list: their findings interleave in text order
  resolver: ['resolver'],
  redirect: ['return', 'rewrite'],
  serverTokens: ['server_tokens'],
} as const satisfies Record<string, readonly string[]>;
type ListName = keyof typeof LISTS;
const LIST_NAMES = Object.keys(LISTS) as ListName[];
/** Each list's index in `ctx.groups`. */
const G = Object.fromEntries(LIST_NAMES.map((n, i) => [n, i])) as Record<ListName, number>;
const GROUP_COUNT = LIST_NAMES.length;
/** `ssl on` marks its server as TLS during the walk; no list is kept. */
const G_SSL = GROUP_COUNT;

const GROUP: ReadonlyMap<string, number> = new Map<string, number>([
  ...LIST_NAMES.flatMap((n) => LISTS[n].map((d): [string, number] => [d, G[n]])),
  ['ssl', G_SSL],
]);

export interface NginxCheckContext {
  file: NginxFile;
  text: string;
  settings: ServiceSettings;
  /** The target version; undefined means the newest. */
  version?: string;
  /** The file's top level. */
  top: Level;
  /** The first `http` block of a main file. */
  http: BlockLevel | undefined;
  /** `server` blocks in `http`, in text order. */
  servers: BlockLevel[];
  /** Blocks whose add_header / proxy_set_header lines replace the inherited ones, in text order. */
  headerBlocks: BlockLevel[];
  /** `if` blocks in locations, in text order. */
  locationIfs: BlockLevel[];
  /** The directives of each list of LISTS, in text order (`ctx.groups[G.proxyPass]`). */
  groups: Node[][];
  /** http-level upstream blocks by name. */
  upstreams: Map<string, Node>;
  /** The facts of the machine the file runs on, when known (service/tuning.ts decides). */
  host?: HostFacts;
  /** The file's indentation step, computed when a fix first needs it. */
  unit: string | undefined;
  /** Set when a fix asked for the indentation step, or a message for a line number (tuning/run.ts's memo reads them). */
  readUnit?: boolean;
  readLines?: boolean;
  out: Finding[];
}

/** True when the target version is at least `v` (an unknown target counts as the newest). */
function atLeast(ctx: NginxCheckContext, v: string): boolean {
  return !ctx.version || compareVersions(ctx.version, v) >= 0;
}

/**
 * The context a file's top level is in: `main` for a whole config; for an included fragment,
 * guessed from what it holds (locations: server; servers or upstreams: http).
 */
export function guessStartContext(file: NginxFile, configured?: string): string {
  // the validation's inference (directive tables, `# context: server` comments) keeps tuning
  // and validation judging a fragment in the same context
  try {
    const inferred = inferContext(file, configured);
    if (inferred) return inferred;
  } catch {
    // fall back to the shape of the top level
  }
  const names = new Set(file.directives.map((d) => d.name));
  if ([...names].some((n) => MAIN_MARKERS.has(n))) return 'main';
  if (names.has('location') || names.has('listen') || names.has('server_name')) return 'server';
  if (names.has('server') || names.has('upstream') || names.has('map')) return 'http';
  if (names.has('proxy_pass') || names.has('add_header') || names.has('proxy_set_header')) return 'location';
  return 'main';
}

/** One walk over the tree: the levels and the directives of every group. */
function collect(ctx: NginxCheckContext, level: Level): void {
  const list = level.children;
  for (let i = 0; i < list.length; i++) {
    const d = list[i];
    if (d.entry) continue;
    const g = GROUP.get(d.name);
    if (g !== undefined) {
      if (g === G.listen || g === G_SSL) {
        if (level.inner === 'server' && (g === G.listen ? hasWord(d, 'ssl') : firstArg(d) === 'on')) level.tls = true;
      }
      if (g !== G_SSL) ctx.groups[g].push({ d, up: level });
    }
    const block = d.block;
    if (block) {
      const b: BlockLevel = {
        d,
        up: level,
        inner: childContext(level.inner, d.name),
        children: block.children,
        index: undefined,
        inc: undefined,
        tls: false,
      };
      switch (b.inner) {
        case 'server':
          ctx.servers.push(b);
          ctx.headerBlocks.push(b);
          break;
        case 'if in location':
          ctx.locationIfs.push(b);
          ctx.headerBlocks.push(b);
          break;
        case 'http':
          if (!ctx.http) ctx.http = b;
          ctx.headerBlocks.push(b);
          break;
        case 'location':
        case 'if in server':
        case 'limit_except':
          ctx.headerBlocks.push(b);
          break;
      }
      if (!d.rawBody && block.children.length) collect(ctx, b);
    }
  }
}

export function buildContext(file: NginxFile, settings: ServiceSettings): NginxCheckContext {
  const top: Level = {
    d: undefined,
    up: undefined,
    inner: guessStartContext(file, settings.nginxContext),
    children: file.directives,
    index: undefined,
    inc: undefined,
    tls: false,
  };
  const groups: Node[][] = [];
  for (let g = 0; g < GROUP_COUNT; g++) groups.push([]);
  const ctx: NginxCheckContext = {
    file,
    text: file.text,
    settings,
    version: settings.nginxVersion,
    top,
    http: undefined,
    servers: [],
    headerBlocks: [],
    locationIfs: [],
    groups,
    upstreams: new Map(),
    host: settings.host?.target ? settings.host : undefined,
    unit: undefined,
    out: [],
  };
  collect(ctx, top);
  for (const n of groups[G.upstream]) {
    const name = n.d.args[0];
    if (n.up.inner === 'http' && name) ctx.upstreams.set(name.value, n);
  }
  return ctx;
}

export function unitOf(ctx: NginxCheckContext): string {
  ctx.readUnit = true;
  if (ctx.unit === undefined) ctx.unit = indentUnit(ctx.text);
  return ctx.unit;
}

const EMPTY: readonly Directive[] = [];
/** Levels with at least this many children get a by-name index; smaller ones are scanned. */
const INDEX_FROM = 16;

function indexOf(level: Level): Map<string, Directive[]> {
  let idx = level.index;
  if (!idx) {
    idx = new Map();
    for (const d of level.children) {
      if (d.entry) continue;
      const list = idx.get(d.name);
      if (list) list.push(d);
      else idx.set(d.name, [d]);
    }
    level.index = idx;
  }
  return idx;
}

/** The directives named `name` directly in `list` (entries skipped). */
function named(list: readonly Directive[], name: string): Directive[] {
  const out: Directive[] = [];
  for (const d of list) if (d.name === name && !d.entry) out.push(d);
  return out;
}

/** The last directive named `name` directly in `list`. */
function lastNamed(list: readonly Directive[], name: string): Directive | undefined {
  for (let i = list.length - 1; i >= 0; i--) {
    const d = list[i];
    if (d.name === name && !d.entry) return d;
  }
  return undefined;
}

/** The directives named `name` directly in `level` (shared: do not modify). */
function at(level: Level, name: string): readonly Directive[] {
  if (level.children.length >= INDEX_FROM) return indexOf(level).get(name) ?? EMPTY;
  const list = level.children;
  let out: Directive[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const d = list[i];
    if (d.name === name && !d.entry) (out ??= []).push(d);
  }
  return out ?? EMPTY;
}

function lastAt(level: Level, name: string): Directive | undefined {
  if (level.children.length >= INDEX_FROM) {
    const list = indexOf(level).get(name);
    return list && list[list.length - 1];
  }
  return lastNamed(level.children, name);
}

/** The nearest level, from `level` outward, that sets `name`. */
function levelSetting(level: Level, name: string): Level | undefined {
  for (let l: Level | undefined = level; l; l = l.up) if (lastAt(l, name)) return l;
  return undefined;
}

/** The directives named `name` that apply in `level`: the nearest level that sets any wins. */
function effective(level: Level, name: string): readonly Directive[] {
  const l = levelSetting(level, name);
  return l ? at(l, name) : EMPTY;
}

/** The last of the directives named `name` that apply in `level`. */
function lastEffective(level: Level, name: string): Directive | undefined {
  for (let l: Level | undefined = level; l; l = l.up) {
    const d = lastAt(l, name);
    if (d) return d;
  }
  return undefined;
}

/**
 * Records a finding. Its fixes may be given as a function: called only when the diagnostics carry
 * fixes (`check` without `--fix` shows none), so a rule that fires thousands of times on a big
 * config does not build edits nobody reads.
 */
export function add(
  ctx: NginxCheckContext,
  ruleId: NginxRuleId,
  at: { start: number; end: number },
  message: string,
  extra: Omit<Partial<Finding>, 'fixes'> & { fixes?: Fix[] | (() => Fix[]) } = {},
): void {
  const { fixes, ...rest } = extra;
  const f: Finding = { ruleId, start: at.start, end: at.end, message, ...rest };
  if (fixes && ctx.settings.fixData !== false) f.fixes = typeof fixes === 'function' ? fixes() : fixes;
  ctx.out.push(f);
}

/** Indentation for a line inside `block` (its children's, else the opener's plus one step). */
function innerIndent(ctx: NginxCheckContext, owner: Directive | undefined): string {
  if (!owner) {
    const first = ctx.file.directives[0];
    return first ? indentAt(ctx.text, first.start) : '';
  }
  const first = owner.block?.children[0];
  if (first && lineStart(ctx.text, first.start) !== lineStart(ctx.text, owner.start)) return indentAt(ctx.text, first.start);
  return indentAt(ctx.text, owner.start) + unitOf(ctx);
}

/** Inserts lines directly after directive `d` (same line when its block closes on that line). */
function insertAfter(ctx: NginxCheckContext, d: Directive, lines: string[], owner: Directive | undefined): FixEdit {
  const close = owner?.block?.closeStart;
  const le = lineEnd(ctx.text, d.end);
  if (close !== undefined && close <= le) return { start: d.end, end: d.end, newText: lines.map((l) => ` ${l}`).join('') };
  const sameLineAsOwner = owner && lineStart(ctx.text, d.start) === lineStart(ctx.text, owner.start);
  return insertLinesAfter(ctx.text, d.end, lines, sameLineAsOwner ? innerIndent(ctx, owner) : indentAt(ctx.text, d.start));
}

/** Inserts lines at the start of a block (after `{`), or at the top of the file without one. */
function insertAtBlockStart(ctx: NginxCheckContext, owner: Directive | undefined, lines: string[]): FixEdit {
  if (!owner) {
    const first = ctx.file.directives[0];
    if (!first) return { start: ctx.text.length, end: ctx.text.length, newText: lines.map((l) => `${l}\n`).join('') };
    return insertLinesBefore(ctx.text, first.start, lines, indentAt(ctx.text, first.start));
  }
  const b = owner.block as Block;
  const le = lineEnd(ctx.text, b.start);
  if (b.closeStart !== undefined && b.closeStart <= le)
    return { start: b.start + 1, end: b.start + 1, newText: lines.map((l) => ` ${l}`).join('') };
  return insertLinesAfter(ctx.text, b.start, lines, innerIndent(ctx, owner));
}

/** Inserts lines at the end of a block (before `}`). */
function insertAtBlockEnd(ctx: NginxCheckContext, owner: Directive, lines: string[]): FixEdit {
  const last = owner.block?.children[owner.block.children.length - 1];
  if (last) return insertAfter(ctx, last, lines, owner);
  return insertAtBlockStart(ctx, owner, lines);
}

const firstArg = (d: Directive | undefined): string | undefined => d?.args[0]?.value;

/** Includes that cannot hold the settings the "missing X" rules look for. */
const HARMLESS_INCLUDE = /(^|\/)(mime\.types|modules-enabled\/|modules\/|fastcgi_params|uwsgi_params|scgi_params)/;

/** Whether `list` includes another file (not one of the harmless ones). */
function includesIn(list: readonly Directive[]): boolean {
  for (const d of list) if (!d.entry && d.name === 'include' && !HARMLESS_INCLUDE.test(firstArg(d) ?? '')) return true;
  return false;
}

/**
 * Whether `level` or an enclosing level includes another file: a setting a rule finds missing
 * may come from there, so "missing X" rules stay silent (the included file is judged on its own).
 */
function includesAround(level: Level): boolean {
  if (level.inc === undefined) level.inc = includesIn(at(level, 'include')) || (level.up !== undefined && includesAround(level.up));
  return level.inc;
}

const num = (w: Word | undefined): number | undefined => (w && /^\d+$/.test(w.value) ? Number(w.value) : undefined);

/** nginx size values: `32k`, `1m`, plain bytes. */
function size(v: string | undefined): number | undefined {
  const m = v ? /^(\d+)([kKmMgG]?)$/.exec(v) : null;
  if (!m) return undefined;
  const mult = { '': 1, k: 1024, m: 1024 * 1024, g: 1024 * 1024 * 1024 }[m[2].toLowerCase()] ?? 1;
  return Number(m[1]) * mult;
}

function isMainFile(ctx: NginxCheckContext): boolean {
  return isMainConfig(ctx.file.directives);
}

// ---------------------------------------------------------------------------------------------
// workers and events

function checkWorkers(ctx: NginxCheckContext): void {
  if (!isMainFile(ctx)) return;
  const top = ctx.file.directives;
  const events = top.find((d) => d.name === 'events' && d.block);
  const wp = top.find((d) => d.name === 'worker_processes');
  const cpus = ctx.host?.cpuCount;
  if (wp) {
    const w = wp.args[0];
    const n = num(w);
    if (w && w.value !== 'auto' && n !== undefined && !(cpus !== undefined && n === cpus)) {
      add(
        ctx,
        'nginx/worker-processes-not-auto',
        w,
        n === 1
          ? 'One worker process uses one core: set `worker_processes auto;`.'
          : `A fixed worker count (${n}) goes stale when the core count changes: \`auto\` starts one per core.`,
        {
          severity: n === 1 || (cpus !== undefined && n < cpus) ? 'warning' : 'information',
          fixes: [{ title: 'Set worker_processes auto', safe: true, edits: [replace(w.start, w.end, 'auto')] }],
        },
      );
    }
  } else {
    // only a whole main file (with `events`): an http-only snippet is often a fragment
    const anchor = events;
    if (anchor) {
      add(
        ctx,
        'nginx/worker-processes-not-auto',
        anchor.nameWord,
        'No `worker_processes`: nginx runs a single worker on one core. Add `worker_processes auto;`.',
        {
          fixes: [
            {
              title: 'Add worker_processes auto',
              safe: true,
              edits: [insertLinesBefore(ctx.text, anchor.start, ['worker_processes auto;'], indentAt(ctx.text, anchor.start))],
            },
          ],
        },
      );
    }
  }

  let connections = 512;
  if (events) {
    const wc = lastNamed(events.block!.children, 'worker_connections');
    const n = num(wc?.args[0]);
    if (!wc) {
      add(
        ctx,
        'nginx/worker-connections-low',
        events.nameWord,
        'No `worker_connections`: each worker is limited to the default 512 connections (about 256 proxied requests).',
        {
          fixes: [
            { title: 'Add worker_connections 4096', safe: true, edits: [insertAtBlockStart(ctx, events, ['worker_connections 4096;'])] },
          ],
        },
      );
    } else if (n !== undefined) {
      connections = n;
      if (n <= 512) {
        const w = wc.args[0];
        add(
          ctx,
          'nginx/worker-connections-low',
          w,
          `worker_connections ${n} caps each worker at ${n} connections, about ${Math.floor(n / 2)} proxied requests.`,
          {
            fixes: [{ title: 'Set worker_connections 4096', safe: true, edits: [replace(w.start, w.end, '4096')] }],
          },
        );
      }
    }
    const need = connections * 2;
    const rl = top.find((d) => d.name === 'worker_rlimit_nofile');
    const limit = num(rl?.args[0]);
    if (rl && limit !== undefined && limit < need) {
      const w = rl.args[0];
      add(
        ctx,
        'nginx/worker-rlimit-nofile',
        w,
        `worker_rlimit_nofile ${limit} is below the ${need} descriptors that ${connections} connections per worker need when proxying (two each).`,
        {
          fixes: [{ title: `Set worker_rlimit_nofile ${need}`, safe: true, edits: [replace(w.start, w.end, String(need))] }],
        },
      );
    } else if (!rl && wc && n !== undefined && (ctx.host?.nofileLimit !== undefined || !containerised(ctx))) {
      const hostLimit = ctx.host?.nofileLimit ?? 1024;
      // a connection is at least one descriptor; a proxied one two
      const proxies = ctx.groups[G.proxyPass].length > 0 || ctx.groups[G.otherPass].length > 0;
      if (n >= hostLimit || (proxies && need > hostLimit)) {
        const anchor = wp ?? events;
        const edit =
          anchor === wp
            ? insertLinesAfter(ctx.text, wp.end, [`worker_rlimit_nofile ${need};`], indentAt(ctx.text, wp.start))
            : insertLinesBefore(ctx.text, events.start, [`worker_rlimit_nofile ${need};`], indentAt(ctx.text, events.start));
        add(
          ctx,
          'nginx/worker-rlimit-nofile',
          wc.args[0],
          `worker_connections ${n} needs up to ${need} file descriptors per worker when proxying, but without \`worker_rlimit_nofile\` the limit is the process's (${hostLimit}${ctx.host?.nofileLimit ? ' on this host' : ' on most systems'}).`,
          {
            severity: n >= hostLimit ? 'warning' : 'information',
            fixes: [{ title: `Add worker_rlimit_nofile ${need}`, safe: true, edits: [edit] }],
          },
        );
      }
    }
    for (const d of events.block!.children) {
      if (d.name === 'use' && firstArg(d) === 'epoll') {
        add(ctx, 'nginx/redundant-event-setting', d, 'nginx already uses epoll on Linux; `use epoll` changes nothing.', {
          unnecessary: true,
          fixes: [{ title: 'Remove `use epoll`', safe: true, edits: [removeSpan(ctx.text, d.start, d.end)] }],
        });
      }
      if (d.name === 'accept_mutex' && firstArg(d) === 'off' && atLeast(ctx, '1.11.3')) {
        add(ctx, 'nginx/redundant-event-setting', d, '`accept_mutex` is off by default since nginx 1.11.3; the line changes nothing.', {
          unnecessary: true,
          fixes: [{ title: 'Remove `accept_mutex off`', safe: true, edits: [removeSpan(ctx.text, d.start, d.end)] }],
        });
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// upstream keep-alive

interface ProxyTarget {
  scheme: string;
  host: string;
  rest: string;
  word: Word;
}

/** Where the host starts in an `http://` / `https://` target, else -1. */
function hostStart(v: string): number {
  return v.startsWith('http://') ? 7 : v.startsWith('https://') ? 8 : -1;
}

/** Where the host ends (the path's `/`, else the end); -1 when the path spans a line terminator. */
function hostEnd(v: string, from: number): number {
  const slash = v.indexOf('/', from);
  if (slash < 0) return v.length;
  for (let i = slash + 1; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) return -1;
  }
  return slash;
}

/** The host of an `http(s)://host/path` target, without building the rest. */
function targetHost(w: Word | undefined): string | undefined {
  if (!w) return undefined;
  const v = w.value;
  const from = hostStart(v);
  if (from < 0) return undefined;
  const to = hostEnd(v, from);
  return to < 0 ? undefined : v.slice(from, to);
}

function proxyTarget(d: Directive): ProxyTarget | undefined {
  const w = d.args[0];
  if (!w) return undefined;
  const v = w.value;
  const from = hostStart(v);
  if (from < 0) return undefined;
  const to = hostEnd(v, from);
  if (to < 0) return undefined;
  return { scheme: v.slice(0, from - 3), host: v.slice(from, to), rest: v.slice(to), word: w };
}

const isHttpCtx = (n: Node) => !n.up.inner.startsWith('stream') && !n.up.inner.startsWith('mail');

/** The level that holds the effective proxy_set_header lines (to add one next to them). */
function headerLevel(n: Node): Level {
  for (let l: Level | undefined = n.up; l && l.d; l = l.up) if (lastAt(l, 'proxy_set_header')) return l;
  return n.up;
}

/** Edits that add HTTP/1.1 and an empty Connection header where `proxy_pass` node `n` needs them. */
function keepaliveHeaderEdits(ctx: NginxCheckContext, n: Node): FixEdit[] {
  const owner = n.up.d;
  const edits: FixEdit[] = [];
  const version = lastEffective(n.up, 'proxy_http_version');
  const lines: string[] = [];
  if (firstArg(version) !== '1.1') {
    if (version && version.args[0]) edits.push(replace(version.args[0].start, version.args[0].end, '1.1'));
    else lines.push('proxy_http_version 1.1;');
  }
  if (!setsConnection(n.up)) {
    const level = headerLevel(n);
    const existing = level.d ? at(level, 'proxy_set_header') : EMPTY;
    if (existing.length && level.d !== owner) {
      edits.push(insertAfter(ctx, existing[existing.length - 1], ['proxy_set_header Connection "";'], level.d));
    } else if (existing.length) {
      edits.push(insertAfter(ctx, existing[existing.length - 1], ['proxy_set_header Connection "";'], owner));
    } else lines.push('proxy_set_header Connection "";');
  }
  if (lines.length) edits.push(insertAfter(ctx, n.d, lines, owner));
  return edits;
}

/** `proxy_set_header Connection ...` (any case; a lower-cased word of another length never reads "connection"). */
function isConnectionHeader(h: Directive): boolean {
  const v = h.args[0]?.value;
  if (v === undefined) return false;
  return v === 'Connection' || v === 'connection' || (v.length === 10 && v.toLowerCase() === 'connection');
}

/** Whether the proxy_set_header lines that apply in `level` set Connection. */
function setsConnection(level: Level): boolean {
  const from = levelSetting(level, 'proxy_set_header');
  if (!from) return false;
  const list = from.children.length >= INDEX_FROM ? at(from, 'proxy_set_header') : from.children;
  for (const d of list) if (d.name === 'proxy_set_header' && !d.entry && isConnectionHeader(d)) return true;
  return false;
}

/**
 * Whether the proxy_set_header lines that apply in `level` hand the connection over to a stream
 * (`Upgrade`, or a `Connection` other than ""): WebSocket and streaming locations, where each
 * request holds its backend connection for its whole life and an idle pool saves nothing.
 */
function streams(level: Level): boolean {
  const from = levelSetting(level, 'proxy_set_header');
  if (!from) return false;
  const list = from.children.length >= INDEX_FROM ? at(from, 'proxy_set_header') : from.children;
  for (const d of list) {
    if (d.name !== 'proxy_set_header' || d.entry) continue;
    if (d.args[0]?.value.toLowerCase() === 'upgrade') return true;
    if (isConnectionHeader(d) && d.args[1] && d.args[1].value !== '' && d.args[1].value.toLowerCase() !== 'close') return true;
  }
  return false;
}

/** An upstream whose servers are all unix sockets: a local connect costs next to nothing. */
function unixOnly(up: Directive): boolean {
  const servers = (up.block?.children ?? EMPTY).filter((c) => c.name === 'server' && !c.entry);
  return servers.length > 0 && servers.every((c) => c.args[0]?.value.startsWith('unix:'));
}

function checkUpstreams(ctx: NginxCheckContext): void {
  const before1297 = !atLeast(ctx, NGINX_UPSTREAM_KEEPALIVE_DEFAULT);
  const usedBy = new Map<string, Node[]>();
  for (const n of ctx.groups[G.proxyPass]) {
    if (!isHttpCtx(n)) continue;
    const host = targetHost(n.d.args[0]);
    if (host === undefined || host.includes('$')) continue;
    if (ctx.upstreams.has(host)) {
      const list = usedBy.get(host);
      if (list) list.push(n);
      else usedBy.set(host, [n]);
      continue;
    }
    if (!host.startsWith('unix:') && !streams(n.up)) checkLiteralProxyPass(ctx, n, proxyTarget(n.d)!);
  }
  for (const [name, up] of ctx.upstreams) {
    const all = usedBy.get(name);
    if (!all || unixOnly(up.d)) continue;
    const users = all.filter((u) => !streams(u.up));
    if (!users.length) continue;
    const children = up.d.block?.children ?? EMPTY;
    const ka = lastNamed(children, 'keepalive');
    // the upstream's own includes and the top level's (not the http block's)
    if (!ka && !includesIn(children) && !includesIn(at(ctx.top, 'include'))) {
      if (!before1297) {
        // the default pool since 1.29.7 (measured on 1.30.6: 0.23 new connections per request at 50 clients, as `keepalive 32`)
        add(
          ctx,
          'nginx/upstream-keepalive-small',
          up.d.args[0],
          `Upstream "${name}" has no \`keepalive\`: since nginx 1.29.7 that means \`keepalive ${NGINX_DEFAULT_UPSTREAM_POOL} local\`, at most ${NGINX_DEFAULT_UPSTREAM_POOL} idle connections per worker; with more concurrent requests per worker the rest reconnect (measured on 1.30.6: 0.23 new connections per request at 50 clients).`,
          {
            fixes: () => [
              { title: `Add keepalive 64 to upstream ${name}`, safe: false, edits: [insertAtBlockEnd(ctx, up.d, ['keepalive 64;'])] },
            ],
          },
        );
        continue;
      }
      const edits: FixEdit[] = [insertAtBlockEnd(ctx, up.d, ['keepalive 64;'])];
      for (const u of users) edits.push(...keepaliveHeaderEdits(ctx, u));
      add(
        ctx,
        'nginx/upstream-keepalive',
        up.d.args[0],
        `Upstream "${name}" keeps no idle connections: every request opens a new connection to the backend. Add \`keepalive\` (and HTTP/1.1 where it is used).`,
        {
          fixes: [{ title: `Add keepalive 64 to upstream ${name}`, safe: false, edits: dedupeEdits(edits) }],
        },
      );
      continue;
    }
    if (!ka) continue;
    const n = num(ka.args[0]);
    if (n !== undefined && n < 64) {
      const w = ka.args[0];
      add(
        ctx,
        'nginx/upstream-keepalive-small',
        w,
        `keepalive ${n} keeps at most ${n} idle connections per worker; with more concurrent requests per worker the rest reconnect (measured: keepalive 32 at 50 clients still opened new connections for 8-31% of requests).`,
        {
          fixes: () => [{ title: 'Raise the pool to 64', safe: false, edits: [replace(w.start, w.end, '64')] }],
        },
      );
    }
    if (!before1297) continue;
    for (const u of users) {
      if (includesAround(u.up)) continue;
      // most proxy_pass lines have both already: tell without building edits (the same two
      // questions keepaliveHeaderEdits asks; it builds the edits when a fix is wanted)
      const http11 = firstArg(lastEffective(u.up, 'proxy_http_version')) === '1.1';
      const connection = setsConnection(u.up);
      if (http11 && connection) continue;
      const missing = http11
        ? ['proxy_set_header Connection ""']
        : connection
          ? ['proxy_http_version 1.1']
          : ['proxy_http_version 1.1', 'proxy_set_header Connection ""'];
      add(
        ctx,
        'nginx/upstream-keepalive-headers',
        u.d.nameWord,
        `Upstream "${name}" has \`keepalive\`, but this proxy_pass still ${missing.length === 2 ? 'speaks HTTP/1.0 and sends Connection: close' : missing[0].startsWith('proxy_http') ? 'speaks HTTP/1.0' : 'sends Connection: close'}: add ${missing.map((m) => `\`${m};\``).join(' and ')}.`,
        {
          fixes: () => [{ title: 'Add the keep-alive lines', safe: true, edits: keepaliveHeaderEdits(ctx, u) }],
        },
      );
    }
  }
}

function dedupeEdits(edits: FixEdit[]): FixEdit[] {
  const seen = new Set<string>();
  return edits.filter((e) => {
    const k = `${e.start}:${e.end}:${e.newText}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function checkLiteralProxyPass(ctx: NginxCheckContext, n: Node, t: ProxyTarget): void {
  const host = t.host;
  const bare = host.replace(/:\d+$/, '');
  const isAddress =
    /^unix:/.test(host) ||
    /^\[[0-9a-fA-F:]+\]/.test(host) ||
    /^\d{1,3}(\.\d{1,3}){3}$/.test(bare) ||
    /:\d+$/.test(host) ||
    bare.includes('.') ||
    bare === 'localhost';
  if (!isAddress) return; // a bare name: most likely an upstream defined in another file
  const http = ctx.file.directives.find((d) => d.name === 'http' && d.block);
  const fixes: Fix[] = [];
  if (http) {
    let name = `backend_${bare
      .replace(/^unix:/, '')
      .replace(/[^A-Za-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')}`;
    const port = /:(\d+)$/.exec(host)?.[1];
    if (port && !host.startsWith('unix:')) name += `_${port}`;
    const server = host.startsWith('unix:') ? host.replace(/:$/, '') : port ? host : `${host}:${t.scheme === 'https' ? 443 : 80}`;
    const anchor = http.block!.children.find((d) => d.name === 'server' || d.name === 'upstream');
    const unit = unitOf(ctx);
    const block = [`upstream ${name} {`, `${unit}server ${server};`, `${unit}keepalive 64;`, '}'];
    const edits: FixEdit[] = [];
    if (ctx.upstreams.has(name)) return;
    edits.push(
      anchor ? insertLinesBefore(ctx.text, anchor.start, block, indentAt(ctx.text, anchor.start)) : insertAtBlockEnd(ctx, http, block),
    );
    edits.push(replace(t.word.start, t.word.end, quoteLike(t.word, `${t.scheme}://${name}${t.rest}`)));
    const before1297 = !atLeast(ctx, NGINX_UPSTREAM_KEEPALIVE_DEFAULT);
    if (before1297) edits.push(...keepaliveHeaderEdits(ctx, n));
    fixes.push({ title: `Create upstream ${name} with keepalive`, safe: false, edits });
  }
  const message = atLeast(ctx, NGINX_UPSTREAM_KEEPALIVE_DEFAULT)
    ? `proxy_pass to ${host} without an upstream block: nginx opens a new backend connection for every request, in every version (1.29.7's keep-alive default covers \`upstream\` blocks only). An \`upstream\` block alone is enough here: since 1.29.7 it keeps idle connections and speaks HTTP/1.1 without \`keepalive\` or the HTTP/1.1 lines.`
    : `proxy_pass to ${host} without an upstream block: nginx opens a new backend connection for every request. Use an \`upstream\` block with \`keepalive\`, plus \`proxy_http_version 1.1;\` and \`proxy_set_header Connection "";\` (before 1.29.7 all three are needed).`;
  add(ctx, 'nginx/proxy-pass-no-upstream', t.word, message, { fixes });
}

function quoteLike(w: Word, value: string): string {
  if (w.quote === 'double') return `"${value}"`;
  if (w.quote === 'single') return `'${value}'`;
  return value;
}

function checkKeepaliveRequests(ctx: NginxCheckContext): void {
  for (const n of ctx.groups[G.keepaliveRequests]) {
    if (!isHttpCtx(n)) continue;
    const w = n.d.args[0];
    const v = num(w);
    if (w && v !== undefined && v < 1000) {
      const where = n.up.inner === 'upstream' ? 'nginx closes each idle upstream connection' : 'clients must reconnect';
      add(ctx, 'nginx/keepalive-requests-low', w, `keepalive_requests ${v}: after ${v} requests ${where}. The default is 1000.`, {
        fixes: [{ title: 'Set keepalive_requests 1000', safe: true, edits: [replace(w.start, w.end, '1000')] }],
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// logging, files, compression, buffering, listen

/** Log paths that are the process's output streams (containers log there). */
const STREAM_LOG = /^\/dev\/(stdout|stderr|fd\/[12])$|^\/proc\/self\/fd\/[12]$/;

/**
 * A containerised deployment, from the file alone: `daemon off;` or logs to the output streams.
 * Its descriptor limit is the container runtime's (Docker's default is 1048576), not 1024.
 */
function containerised(ctx: NginxCheckContext): boolean {
  for (const d of ctx.file.directives) if (d.name === 'daemon' && firstArg(d) === 'off') return true;
  for (const n of ctx.groups[G.accessLog]) if (STREAM_LOG.test(n.d.args[0]?.value ?? '')) return true;
  return /^\s*error_log\s+\/(dev\/(stdout|stderr)|proc\/self\/fd\/[12])\b/m.test(ctx.text);
}

function checkAccessLog(ctx: NginxCheckContext): void {
  for (const n of ctx.groups[G.accessLog]) {
    if (n.up.inner === 'main') continue;
    const args = n.d.args;
    const path = args[0];
    if (!path || path.value === 'off' || path.value.startsWith('syslog:') || path.value.startsWith('memory:')) continue;
    // a stream read live (`docker logs`, `tail -f` of a pipe): unbuffered is what the operator wants
    if (STREAM_LOG.test(path.value)) continue;
    if (args.some((a) => /^(buffer|gzip)(=|$)/.test(a.value))) continue;
    const fixes: Fix[] = [];
    if (!path.value.includes('$')) {
      const last = args[args.length - 1];
      fixes.push({
        title: 'Buffer the log (buffer=32k flush=5s)',
        safe: true,
        edits: [{ start: last.end, end: last.end, newText: ' buffer=32k flush=5s' }],
      });
    }
    fixes.push({ title: 'Turn this access log off', safe: false, edits: [replace(path.start, args[args.length - 1].end, 'off')] });
    add(
      ctx,
      'nginx/access-log-unbuffered',
      n.d.nameWord,
      'Unbuffered access log: one write system call per request. Add `buffer=32k flush=5s`, or turn the log off on hot paths.',
      { fixes },
    );
  }
}

function checkSendfile(ctx: NginxCheckContext): void {
  const allSendfile = ctx.groups[G.sendfile];
  for (const n of allSendfile) {
    if (firstArg(n.d) === 'off' && isHttpCtx(n)) {
      const w = n.d.args[0];
      add(ctx, 'nginx/sendfile-off', w, '`sendfile off`: static files are copied through nginx instead of sent by the kernel.', {
        fixes: [{ title: 'Set sendfile on', safe: true, edits: [replace(w.start, w.end, 'on')] }],
      });
    }
  }
  const http = ctx.http;
  if (http && !allSendfile.length && servesFiles(ctx, http) && !includesAround(http)) {
    add(
      ctx,
      'nginx/sendfile-off',
      http.d.nameWord,
      'Static files are served without `sendfile` (off by default): add `sendfile on;` and `tcp_nopush on;`.',
      {
        fixes: [
          {
            title: 'Add sendfile on and tcp_nopush on',
            safe: true,
            edits: [insertAtBlockStart(ctx, http.d, ['sendfile on;', 'tcp_nopush on;'])],
          },
        ],
      },
    );
  }
  const anyNopush = ctx.groups[G.tcpNopush].length > 0;
  for (const n of allSendfile) {
    if (anyNopush || firstArg(n.d) !== 'on' || !isHttpCtx(n)) continue;
    const owner = n.up.d;
    const nopush = lastEffective(n.up, 'tcp_nopush');
    if (!nopush && !includesAround(n.up)) {
      add(
        ctx,
        'nginx/tcp-nopush-off',
        n.d.nameWord,
        '`sendfile on` without `tcp_nopush on`: the response header goes out in its own small packet.',
        {
          fixes: [{ title: 'Add tcp_nopush on', safe: true, edits: [insertAfter(ctx, n.d, ['tcp_nopush on;'], owner)] }],
        },
      );
    }
  }
}

/** Whether a `root` or `alias` lies inside `http`. */
function servesFiles(ctx: NginxCheckContext, http: BlockLevel): boolean {
  const inside = (n: Node): boolean => {
    for (let l: Level | undefined = n.up; l; l = l.up) if (l === http) return true;
    return false;
  };
  return ctx.groups[G.root].some(inside) || ctx.groups[G.alias].some(inside);
}

function checkGzip(ctx: NginxCheckContext): void {
  for (const n of ctx.groups[G.gzip]) {
    if (firstArg(n.d) !== 'on' || !isHttpCtx(n)) continue;
    const owner = n.up.d;
    const min = lastEffective(n.up, 'gzip_min_length');
    if (!min && includesAround(n.up)) continue;
    const v = size(firstArg(min));
    if (min && v !== undefined && v >= 256) continue;
    if (min && v === undefined) continue;
    if (min) {
      const w = min.args[0];
      add(ctx, 'nginx/gzip-min-length', w, `gzip_min_length ${w.value}: responses this small are not worth compressing; use 256 or more.`, {
        fixes: () => [{ title: 'Set gzip_min_length 256', safe: true, edits: [replace(w.start, w.end, '256')] }],
      });
    } else {
      add(
        ctx,
        'nginx/gzip-min-length',
        n.d,
        '`gzip on` with the default `gzip_min_length` of 20 bytes compresses tiny responses too; set 256.',
        {
          fixes: () => [{ title: 'Add gzip_min_length 256', safe: true, edits: [insertAfter(ctx, n.d, ['gzip_min_length 256;'], owner)] }],
        },
      );
    }
  }
}

const STREAMING_HINT = /stream|sse|event|socket|\bws\b|live|push|poll|chat|notif|subscribe|grpc|upload|download|long/i;

function checkProxyBuffering(ctx: NginxCheckContext): void {
  for (const n of ctx.groups[G.proxyBuffering]) {
    if (firstArg(n.d) !== 'off') continue;
    const ls = lineStart(ctx.text, n.d.start);
    const prevLineStart = ls > 0 ? lineStart(ctx.text, ls - 1) : ls;
    const commented = ctx.file.comments.some(
      (c) => (c.start >= n.d.end && c.start <= lineEnd(ctx.text, n.d.end)) || (c.start >= prevLineStart && c.start < ls),
    );
    if (commented) continue;
    const owner = n.up.d;
    const ownerWords = owner ? owner.args.map((a) => a.value).join(' ') : '';
    const siblings = n.up.children;
    const streaming =
      STREAMING_HINT.test(ownerWords) ||
      siblings.some(
        (s) =>
          (s.name === 'proxy_set_header' &&
            /^(upgrade|connection)$/i.test(s.args[0]?.value ?? '') &&
            /upgrade/i.test(s.args[1]?.value ?? '')) ||
          s.name === 'chunked_transfer_encoding' ||
          (s.name === 'add_header' && /x-accel-buffering/i.test(s.args[0]?.value ?? '')) ||
          s.name === 'proxy_request_buffering',
      );
    if (streaming) continue;
    add(
      ctx,
      'nginx/proxy-buffering-off',
      n.d,
      "`proxy_buffering off` ties the upstream connection to the client's reading speed. If this location streams, say so in a comment; otherwise leave buffering on.",
      {
        fixes: [{ title: 'Remove proxy_buffering off', safe: false, edits: [removeSpan(ctx.text, n.d.start, n.d.end)] }],
      },
    );
  }
}

function checkBacklog(ctx: NginxCheckContext): void {
  const somaxconn = ctx.host?.somaxconn;
  if (somaxconn === undefined) return;
  // indexed: every listen line's every word, walked mostly before the JIT has optimised this
  const listens = ctx.groups[G.listen];
  for (let i = 0; i < listens.length; i++) {
    const args = listens[i].d.args;
    for (let k = 0; k < args.length; k++) {
      const a = args[k];
      if (!a.value.startsWith('backlog=')) continue;
      const m = /^backlog=(\d+)$/.exec(a.value);
      if (m && Number(m[1]) > somaxconn) {
        add(
          ctx,
          'nginx/listen-backlog-somaxconn',
          a,
          `backlog=${m[1]} is above this host's net.core.somaxconn (${somaxconn}): the kernel caps the queue at ${somaxconn}. Raise the sysctl or lower the backlog.`,
          {
            fixes: [{ title: `Set backlog=${somaxconn}`, safe: false, edits: [replace(a.start, a.end, `backlog=${somaxconn}`)] }],
          },
        );
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// TLS

interface TlsServer {
  server: BlockLevel;
  listens: Directive[];
  sslListens: Directive[];
}

const hasWord = (d: Directive, value: string): boolean => {
  for (const a of d.args) if (a.value === value) return true;
  return false;
};

function tlsServers(ctx: NginxCheckContext): TlsServer[] {
  const out: TlsServer[] = [];
  for (const b of ctx.servers) {
    if (!b.tls) continue;
    const listens = named(b.children, 'listen');
    out.push({ server: b, listens, sslListens: listens.filter((l) => hasWord(l, 'ssl')) });
  }
  return out;
}

function checkTls(ctx: NginxCheckContext): void {
  const servers = tlsServers(ctx);
  const reportedTickets = new Set<Directive>();
  for (const s of servers) {
    const server = s.server;
    const d = server.d;
    const included = includesAround(server);
    const ticketsLevel = levelSetting(server, 'ssl_session_tickets');
    const tickets = ticketsLevel && lastAt(ticketsLevel, 'ssl_session_tickets');
    const cache = lastEffective(server, 'ssl_session_cache');
    const shared = cache?.args.some((a) => a.value.startsWith('shared:'));
    const anchor = s.sslListens[0] ?? s.listens[0];
    if (!shared && firstArg(tickets) === 'off' && tickets) {
      if (!reportedTickets.has(tickets)) {
        reportedTickets.add(tickets);
        const owner = ticketsLevel!.d;
        add(
          ctx,
          'nginx/ssl-session-cache',
          tickets,
          '`ssl_session_tickets off` and no shared `ssl_session_cache`: no session can be resumed, every connection pays a full handshake (measured x4.2 slower).',
          {
            fixes: [
              {
                title: 'Add ssl_session_cache shared:SSL:10m',
                safe: true,
                edits: [insertAfter(ctx, tickets, ['ssl_session_cache shared:SSL:10m;'], owner)],
              },
            ],
          },
        );
      }
    } else if (!cache && anchor && !included) {
      add(
        ctx,
        'nginx/ssl-session-cache',
        anchor.nameWord,
        'No `ssl_session_cache`: clients resume through session tickets (on by default), so this only matters for clients without ticket support.',
        {
          severity: 'hint',
          fixes: [
            {
              title: 'Add ssl_session_cache shared:SSL:10m',
              safe: false,
              edits: [insertAfter(ctx, anchor, ['ssl_session_cache shared:SSL:10m;'], d)],
            },
          ],
        },
      );
    }
    // implicit old protocols before 1.23.4
    if (!atLeast(ctx, NGINX_MODERN_TLS_DEFAULT) && anchor && !included && !levelSetting(server, 'ssl_protocols')) {
      add(
        ctx,
        'nginx/ssl-protocols-old',
        anchor.nameWord,
        `Without \`ssl_protocols\`, nginx before ${NGINX_MODERN_TLS_DEFAULT} offers TLSv1 and TLSv1.1: add \`ssl_protocols TLSv1.2 TLSv1.3;\`.`,
        {
          fixes: [
            {
              title: 'Add ssl_protocols TLSv1.2 TLSv1.3',
              safe: true,
              edits: [insertAfter(ctx, anchor, ['ssl_protocols TLSv1.2 TLSv1.3;'], d)],
            },
          ],
        },
      );
    }
    // HTTP/2
    const hasListenH2 = s.listens.some((l) => hasWord(l, 'http2'));
    const h2 = lastEffective(server, 'http2');
    const quicOnly = s.sslListens.length === 0;
    if (!hasListenH2 && firstArg(h2) !== 'on' && !quicOnly && !h2 && !included) {
      const first = s.sslListens[0];
      const edits: FixEdit[] = [];
      let title: string;
      if (atLeast(ctx, NGINX_HTTP2_DIRECTIVE)) {
        title = 'Add http2 on';
        edits.push(insertAfter(ctx, s.sslListens[s.sslListens.length - 1], ['http2 on;'], d));
      } else {
        title = 'Add http2 to listen';
        for (const l of s.sslListens) {
          const ssl = l.args.find((a) => a.value === 'ssl')!;
          edits.push({ start: ssl.end, end: ssl.end, newText: ' http2' });
        }
      }
      add(
        ctx,
        'nginx/http2-missing',
        first.nameWord,
        'This TLS server speaks only HTTP/1.1: enable HTTP/2 so browsers multiplex requests over one connection.',
        {
          fixes: [{ title, safe: false, edits }],
        },
      );
    }
    if (hasListenH2 && atLeast(ctx, NGINX_HTTP2_DIRECTIVE)) {
      const edits: FixEdit[] = [];
      let last: Directive | undefined;
      for (const l of s.listens) {
        const w = l.args.find((a) => a.value === 'http2');
        if (w) {
          edits.push(removeWord(ctx.text, w.start, w.end));
          last = l;
        }
      }
      if (!h2 && last) edits.push(insertAfter(ctx, last, ['http2 on;'], d));
      const first = s.listens.find((l) => l.args.some((a) => a.value === 'http2'))!;
      const w = first.args.find((a) => a.value === 'http2')!;
      add(ctx, 'nginx/listen-http2-deprecated', w, '`listen ... http2` is deprecated since nginx 1.25.1: use `http2 on;`.', {
        deprecated: true,
        fixes: [{ title: 'Use the http2 directive', safe: true, edits }],
      });
    }
  }
  for (const n of ctx.groups[G.tls]) {
    if (n.d.name === 'ssl_protocols') {
      const old = n.d.args.filter(isOldProtocol);
      if (!old.length) continue;
      const keep = n.d.args.filter((a) => !old.includes(a));
      const edits: FixEdit[] = keep.length
        ? old.map((a) => removeWord(ctx.text, a.start, a.end))
        : [replace(n.d.args[0].start, n.d.args[n.d.args.length - 1].end, 'TLSv1.2 TLSv1.3')];
      add(
        ctx,
        'nginx/ssl-protocols-old',
        { start: old[0].start, end: old[old.length - 1].end },
        `${old.map((a) => a.value).join(', ')} ${old.length > 1 ? 'are' : 'is'} deprecated and insecure: allow TLSv1.2 and TLSv1.3 only.`,
        {
          fixes: [{ title: 'Remove the old protocols', safe: true, edits }],
        },
      );
    }
    if (n.d.name === 'ssl_stapling' && firstArg(n.d) === 'on') {
      const owner = n.up.d;
      const resolver = levelSetting(n.up, 'resolver') !== undefined;
      const local =
        levelSetting(n.up, 'ssl_stapling_file') !== undefined ||
        effective(n.up, 'ssl_stapling_responder').some((r) => /^https?:\/\/\d/.test(firstArg(r) ?? ''));
      const inServers = n.up.inner === 'http' && owner !== undefined && ctx.groups[G.resolver].some((m) => within(m, owner));
      if (!resolver && !local && !inServers && !includesAround(n.up)) {
        add(
          ctx,
          'nginx/ssl-stapling-no-resolver',
          n.d,
          '`ssl_stapling on` needs a `resolver` to look up the OCSP responder; without one nothing is stapled.',
        );
      }
    }
  }
}

/** Whether block directive `owner` encloses node `n`. */
function within(n: Node, owner: Directive): boolean {
  for (let l: Level | undefined = n.up; l; l = l.up) if (l.d === owner) return true;
  return false;
}

const OLD_PROTOCOLS: ReadonlySet<string> = new Set(['SSLv2', 'SSLv3', 'TLSv1', 'TLSv1.1']);
const isOldProtocol = (a: Word): boolean => OLD_PROTOCOLS.has(a.value);

// ---------------------------------------------------------------------------------------------
// safety

function checkAlias(ctx: NginxCheckContext): void {
  for (const n of ctx.groups[G.alias]) {
    const loc = n.up.d;
    if (!loc || loc.name !== 'location') continue;
    const args = loc.args;
    const mod = args.length > 1 ? args[0].value : '';
    if (mod === '~' || mod === '~*' || mod === '=') continue;
    const path = args[args.length - 1];
    if (!path || path.value.startsWith('@') || path.value.endsWith('/')) continue;
    const alias = n.d.args[0];
    if (!alias || !alias.value.endsWith('/')) continue;
    add(
      ctx,
      'nginx/alias-traversal',
      path,
      `\`location ${path.value}\` without a trailing slash and \`alias ${alias.value}\` with one: \`${path.value}../\` escapes the folder.`,
      {
        fixes: [
          {
            title: `Use location ${path.value}/`,
            safe: false,
            edits: [{ start: path.end - (path.quote === 'none' ? 0 : 1), end: path.end - (path.quote === 'none' ? 0 : 1), newText: '/' }],
          },
        ],
      },
    );
  }
}

function checkInheritance(
  ctx: NginxCheckContext,
  blocks: readonly BlockLevel[],
  directive: 'add_header' | 'proxy_set_header',
  ruleId: NginxRuleId,
): void {
  for (const b of blocks) {
    if (!lastAt(b, directive)) continue;
    if (directive === 'add_header' && at(b, 'add_header_inherit').some((d) => firstArg(d) === 'merge')) continue;
    const from = levelSetting(b.up, directive);
    if (!from) continue;
    const own = at(b, directive);
    const inherited = at(from, directive);
    const ownNames = new Set(own.map((d) => d.args[0]?.value.toLowerCase()));
    const dropped = inherited.filter((d) => !ownNames.has(d.args[0]?.value.toLowerCase()));
    if (!dropped.length) continue;
    const list = dropped.map((d) => d.args[0]?.value ?? '').join(', ');
    const copies = dropped.map((d) => ctx.text.slice(d.start, d.end));
    add(
      ctx,
      ruleId,
      own[0].nameWord,
      `This ${directive} makes the block ignore the ${dropped.length} ${directive} line${dropped.length > 1 ? 's' : ''} of the enclosing block (${list}).`,
      {
        fixes: [
          {
            title: `Repeat the inherited ${directive} lines here`,
            safe: false,
            edits: [insertLinesBefore(ctx.text, own[0].start, copies, indentAt(ctx.text, own[0].start))],
          },
        ],
      },
    );
  }
}

function checkRedirectHost(ctx: NginxCheckContext): void {
  for (const n of ctx.groups[G.redirect]) {
    let target: Word | undefined;
    if (n.d.name === 'return' && n.d.args.length >= 2 && /^30[12378]$/.test(n.d.args[0].value)) target = n.d.args[1];
    else if (n.d.name === 'rewrite' && n.d.args.length >= 2) {
      const flag = n.d.args[2]?.value;
      if (flag === 'redirect' || flag === 'permanent' || /^https?:\/\//.test(n.d.args[1].value)) target = n.d.args[1];
    }
    if (!target) continue;
    const vars = variablesIn(target);
    const httpHost = vars.filter((v) => v.name === 'http_host');
    if (httpHost.length) {
      add(
        ctx,
        'nginx/host-in-redirect',
        httpHost[0],
        "This redirect copies the client's Host header (`$http_host`) unchecked: a forged Host sends users to another site. Use `$host` (validated by server_name) or a literal name.",
        {
          fixes: [{ title: 'Use $host', safe: false, edits: httpHost.map((v) => replace(v.start, v.end, v.braced ? '${host}' : '$host')) }],
        },
      );
      continue;
    }
    const host = vars.find((v) => v.name === 'host');
    if (!host) continue;
    // the usual "same host, now over https" redirect sends the client where it already was
    if (/^https?:\/\/\$\{?host\}?\$\{?request_uri\}?$/.test(target.value)) continue;
    let server: Directive | undefined;
    for (let l: Level | undefined = n.up; l && l.d; l = l.up) {
      if (l.d.name === 'server') {
        server = l.d;
        break;
      }
    }
    if (!server?.block) continue;
    const names = named(server.block.children, 'server_name').flatMap((d) => d.args.map((a) => a.value));
    const catchAll =
      !names.length ||
      names.some((v) => v === '_' || v === '' || v.startsWith('~') || v.startsWith('*') || v.endsWith('*')) ||
      named(server.block.children, 'listen').some((l) => l.args.some((a) => a.value === 'default_server' || a.value === 'default'));
    if (catchAll) {
      add(
        ctx,
        'nginx/host-in-redirect',
        host,
        'In a catch-all server `$host` is whatever Host the client sent; redirect to `$server_name` or a literal name.',
        {
          severity: 'hint',
        },
      );
    }
  }
}

function checkServerTokens(ctx: NginxCheckContext): void {
  for (const n of ctx.groups[G.serverTokens]) {
    const w = n.d.args[0];
    if (w && (w.value === 'on' || w.value === 'build')) {
      add(ctx, 'nginx/server-tokens-on', w, `server_tokens ${w.value} shows the nginx version in every response header and error page.`, {
        fixes: [{ title: 'Set server_tokens off', safe: true, edits: [replace(w.start, w.end, 'off')] }],
      });
    }
  }
}

/** Directives that only shape the response of a `return` in the same `if` (the CORS preflight idiom). */
const RETURN_COMPANIONS = new Set(['add_header', 'more_set_headers', 'more_clear_headers', 'default_type', 'set']);

function checkIfInLocation(ctx: NginxCheckContext): void {
  for (const n of ctx.locationIfs) {
    // `add_header ...; return 204;`: the if answers itself, and its headers go on that answer
    const answers = n.children.some((c) => !c.entry && c.name === 'return');
    const bad = n.children.filter((c) => {
      if (c.entry) return false;
      if (c.name === 'return') return false;
      if (answers && RETURN_COMPANIONS.has(c.name)) return false;
      if (c.name === 'rewrite' && c.args[c.args.length - 1]?.value === 'last') return false;
      return true;
    });
    if (!bad.length) continue;
    const names = [...new Set(bad.map((b) => b.name))].join(', ');
    // rewrite-module directives run in the rewrite phase and behave; anything else is the trap
    const rewriteOnly = bad.every((b) =>
      ['set', 'break', 'rewrite', 'return', 'rewrite_log', 'uninitialized_variable_warn'].includes(b.name),
    );
    add(
      ctx,
      'nginx/if-in-location',
      n.d.nameWord,
      `\`if\` in a location with ${names}: only \`return\` and \`rewrite ... last\` are safe inside it; the rest behaves unexpectedly. Use map, try_files or a separate location.`,
      rewriteOnly ? { severity: 'information' } : {},
    );
  }
}

export type NginxCheck = (ctx: NginxCheckContext) => void;

/**
 * The check that emits each tuning row's findings (rules.ts), in the order the checks run (a
 * check's first key places it): the run list is derived from it. Its type makes it complete: a
 * row without its check here or in security.ts's table, or an id without a row, does not compile.
 * (The end-of-life row is the service's: core/lifecycle.ts.)
 */
export const CHECK_OF = {
  'nginx/worker-processes-not-auto': checkWorkers,
  'nginx/worker-connections-low': checkWorkers,
  'nginx/worker-rlimit-nofile': checkWorkers,
  'nginx/redundant-event-setting': checkWorkers,
  'nginx/upstream-keepalive': checkUpstreams,
  'nginx/upstream-keepalive-small': checkUpstreams,
  'nginx/upstream-keepalive-headers': checkUpstreams,
  'nginx/proxy-pass-no-upstream': checkUpstreams,
  'nginx/keepalive-requests-low': checkKeepaliveRequests,
  'nginx/access-log-unbuffered': checkAccessLog,
  'nginx/sendfile-off': checkSendfile,
  'nginx/tcp-nopush-off': checkSendfile,
  'nginx/gzip-min-length': checkGzip,
  'nginx/proxy-buffering-off': checkProxyBuffering,
  'nginx/listen-backlog-somaxconn': checkBacklog,
  'nginx/ssl-session-cache': checkTls,
  'nginx/ssl-protocols-old': checkTls,
  'nginx/http2-missing': checkTls,
  'nginx/listen-http2-deprecated': checkTls,
  'nginx/ssl-stapling-no-resolver': checkTls,
  'nginx/alias-traversal': checkAlias,
  'nginx/add-header-inheritance': (ctx) => checkInheritance(ctx, ctx.headerBlocks, 'add_header', 'nginx/add-header-inheritance'),
  'nginx/proxy-set-header-inheritance': (ctx) =>
    checkInheritance(ctx, ctx.headerBlocks, 'proxy_set_header', 'nginx/proxy-set-header-inheritance'),
  'nginx/host-in-redirect': checkRedirectHost,
  'nginx/server-tokens-on': checkServerTokens,
  'nginx/if-in-location': checkIfInLocation,
} satisfies Partial<Record<NginxTuningRuleId, NginxCheck>>; // complete: checked in run.ts, with the security rows

/**
 * The checks whose findings are those of each node of their lists on its own, in the lists' text
 * order (one pass, nothing carried from one node to the next), from what the node's block and the
 * blocks around it say: run over a part of the file's lists they find that part's findings.
 * tuning/run.ts runs them per http-level server and keeps an unchanged server's findings.
 */
export const PER_PART_CHECKS: ReadonlySet<NginxCheck> = new Set<NginxCheck>([
  checkKeepaliveRequests,
  checkAccessLog,
  checkGzip,
  checkProxyBuffering,
  checkBacklog,
  checkAlias,
  CHECK_OF['nginx/add-header-inheritance'],
  CHECK_OF['nginx/proxy-set-header-inheritance'],
  checkRedirectHost,
  checkServerTokens,
  checkIfInLocation,
]);

/** The lists of `ctx.groups` the PER_PART_CHECKS read (with headerBlocks and locationIfs; the other lists of a part are left empty). */
export const PER_PART_GROUPS: readonly number[] = [
  G.keepaliveRequests,
  G.accessLog,
  G.gzip,
  G.proxyBuffering,
  G.listen,
  G.alias,
  G.redirect,
  G.serverTokens,
];
