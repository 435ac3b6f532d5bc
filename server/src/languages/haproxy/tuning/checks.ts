// The HAProxy tuning and safety checks: each reads the AST and pushes Findings against the
// rows of rules.ts. A proxy section inherits from the `defaults` section before it (or the one
// named with `from`); HAProxy's own default mode is tcp.
import { PROXY_KINDS, TRAFFIC_PROXY_KINDS } from '../overrides';
import { matchSections } from '../sectionMatch';
import type { Fix, FixEdit } from '../../../core/rules';
import type { HaproxyFinding as Finding, HaproxyRuleId } from '../rules';
import type { HostFacts, ServiceSettings } from '../../../core/types';
import { compareVersions } from '../../../core/version';
import type { HaproxyFile, Section, Statement, Word } from '../ast';
import { keywordName } from '../ast';
import { indentAt, indentUnit, insertLinesAfter, removeSpan, replace } from '../../../core/findingText';
import { HAPROXY_NBPROC_REMOVED, HAPROXY_TLS12_DEFAULT, type HaproxyTuningRuleId } from './rules';

export interface HaproxyCheckContext {
  file: HaproxyFile;
  text: string;
  settings: ServiceSettings;
  version?: string;
  /** The facts of the machine the file runs on, when known (service/tuning.ts decides). */
  host?: HostFacts;
  /** The file's indentation step, computed when a fix first needs it. */
  unit: string | undefined;
  out: Finding[];
  /** Per run: each section's index of live statements by lookup name (carried over from the previous run where its text is the same), and its statements by name as asked; */
  indexes: Map<Section, { index: SectionIndex; lists: Map<string, readonly Statement[]> }>;
  /** the previous run's indexes of the sections whose text is the same as then; */
  carried?: Map<Section, SectionIndex>;
  /** whether a `.if` block disabled some statement (validation marks them before the tuning pass runs); */
  anyDisabled?: boolean;
  /** the `defaults` section each section inherits from, built in one pass when first asked; */
  defaults?: Map<Section, Section | undefined>;
  /** frontends by the backend names they route to, built when first asked. */
  routes?: Map<string, Section[]>;
}

/**
 * The positions, among a section's statements, of its live lines by lookup name (INDEXED_NAMES):
 * the same for every section of the same text and `.if` state, so it is kept from one version
 * of a document to the next (HaproxyTuningMemo) instead of being built for every section at
 * every keystroke. Positions, not statements: a section after the edit is a new object.
 */
export interface SectionIndex {
  /** Positions of the statements a `.if` block disabled ('' for none). */
  disabled: string;
  names: Map<string, number[]>;
  /** The section it was built for, whose statements `lists` holds (the re-parse keeps the sections before an edit as they are). */
  of: Section;
  lists: Map<string, readonly Statement[]>;
  /** What the security checks gathered from `lists` (security.ts), kept with them. */
  scan?: unknown;
  /** The TLS check's findings for the section and where its header was then (security.ts), kept with them. */
  tls?: unknown;
}

/** The previous tuning run of a document: its tree and the section indexes it built. */
export interface HaproxyTuningMemo {
  file?: HaproxyFile;
  indexes: (SectionIndex | undefined)[];
  /** Section indexes taken over and built by the last run (for tests and benchmarks). */
  carried: number;
  built: number;
}

export function createHaproxyTuningMemo(): HaproxyTuningMemo {
  return { indexes: [], carried: 0, built: 0 };
}

export function buildHaproxyContext(file: HaproxyFile, settings: ServiceSettings, memo?: HaproxyTuningMemo): HaproxyCheckContext {
  const ctx: HaproxyCheckContext = {
    file,
    text: file.text,
    settings,
    version: settings.haproxyVersion,
    host: settings.host?.target ? settings.host : undefined,
    unit: undefined,
    out: [],
    indexes: new Map(),
  };
  if (memo?.file) {
    const match = matchSections(memo.file, file);
    const carried = new Map<Section, SectionIndex>();
    for (let i = 0; i < match.length; i++) {
      const idx = match[i] >= 0 ? memo.indexes[match[i]] : undefined;
      if (idx) carried.set(file.sections[i], idx);
    }
    ctx.carried = carried;
  }
  return ctx;
}

/** Keeps this run's section indexes for the next version of the document. */
export function rememberHaproxyIndexes(ctx: HaproxyCheckContext, memo: HaproxyTuningMemo): void {
  memo.file = ctx.file;
  memo.indexes = ctx.file.sections.map((s) => ctx.indexes.get(s)?.index);
  memo.carried = memo.built = 0;
  for (const [sec, e] of ctx.indexes) {
    if (ctx.carried?.get(sec)?.names === e.index.names) memo.carried++;
    else memo.built++;
  }
}

function disabledOf(ctx: HaproxyCheckContext, sec: Section): string {
  if (ctx.anyDisabled === undefined) ctx.anyDisabled = ctx.file.sections.some((s) => s.statements.some((st) => st.disabled));
  if (!ctx.anyDisabled) return '';
  let sig = '';
  const list = sec.statements;
  for (let i = 0; i < list.length; i++) if (list[i].disabled) sig += `${i},`;
  return sig;
}

/**
 * A section's index: the previous run's when its text and `.if` state are the same, else built;
 * with the lists of statements by name for this section object (the index's own when it was
 * built for this very section, else filled as asked).
 */
function sectionEntry(ctx: HaproxyCheckContext, sec: Section): { index: SectionIndex; lists: Map<string, readonly Statement[]> } {
  let e = ctx.indexes.get(sec);
  if (e) return e;
  const disabled = disabledOf(ctx, sec);
  const old = ctx.carried?.get(sec);
  let idx: SectionIndex;
  // taken over for another section object (after the edit), it is re-pointed at this one: the
  // memo never keeps a section of an earlier tree alive
  if (old && old.disabled === disabled) idx = old.of === sec ? old : { disabled, names: old.names, of: sec, lists: new Map() };
  else {
    const names = new Map<string, number[]>();
    const list = sec.statements;
    for (let i = 0; i < list.length; i++) {
      const st = list[i];
      if (st.disabled || !st.keyword || !indexed(st)) continue;
      const key = keywordName(st);
      const at = names.get(key);
      if (at) at.push(i);
      else names.set(key, [i]);
    }
    idx = { disabled, names, of: sec, lists: new Map() };
  }
  e = { index: idx, lists: idx.lists };
  ctx.indexes.set(sec, e);
  return e;
}

function unitOf(ctx: HaproxyCheckContext): string {
  if (ctx.unit === undefined) ctx.unit = indentUnit(ctx.text);
  return ctx.unit;
}

function atLeast(ctx: HaproxyCheckContext, v: string): boolean {
  return !ctx.version || compareVersions(ctx.version, v) >= 0;
}

function add(
  ctx: HaproxyCheckContext,
  ruleId: HaproxyRuleId,
  at: { start: number; end: number },
  message: string,
  extra: Partial<Finding> = {},
): void {
  ctx.out.push({ ruleId, start: at.start, end: at.end, message, ...extra });
}

export const live = (sec: Section) => sec.statements.filter((s) => !s.disabled && s.keyword);

const NONE: readonly Statement[] = [];

// The lookup names the checks ask for. Only these are indexed (the security checks read acl,
// use_backend and http-request lines, so those are in too); any other name is found by a scan.
const INDEXED_KEYWORDS: ReadonlySet<string> = new Set([
  'maxconn',
  'nbproc',
  'nbthread',
  'tune.bufsize',
  'tune.maxrewrite',
  'ssl-default-bind-options',
  'bind',
  'server',
  'default-server',
  'http-reuse',
  'mode',
  'balance',
  'log',
  'stats',
  'http-request',
  'tcp-request',
  'use_backend',
  'use-server',
  'acl',
]);
const INDEXED_OPTIONS: ReadonlySet<string> = new Set([
  'httpclose',
  'http-server-close',
  'forceclose',
  'splice-auto',
  'splice-request',
  'splice-response',
  'dontlognull',
  'forwardfor',
]);
const INDEXED_TIMEOUTS: ReadonlySet<string> = new Set(['tunnel']);
const INDEXED_NAMES: ReadonlySet<string> = new Set([
  ...INDEXED_KEYWORDS,
  ...[...INDEXED_OPTIONS].map((o) => `option ${o}`),
  ...[...INDEXED_TIMEOUTS].map((t) => `timeout ${t}`),
]);

/** Whether a live statement's lookup name is one of INDEXED_NAMES (without building the name). */
function indexed(st: Statement): boolean {
  const k = st.keyword!.value;
  if (st.sub && (k === 'option' || k === 'timeout')) return (k === 'option' ? INDEXED_OPTIONS : INDEXED_TIMEOUTS).has(st.sub.value);
  return INDEXED_NAMES.has(k);
}

/** Statements with this lookup name (`option httplog`, `timeout client`, `bind`), `no` lines included. Do not modify the list. */
export function find(ctx: HaproxyCheckContext, sec: Section | undefined, name: string): readonly Statement[] {
  if (!sec) return NONE;
  if (!INDEXED_NAMES.has(name)) return sec.statements.filter((st) => !st.disabled && st.keyword && keywordName(st) === name);
  const e = sectionEntry(ctx, sec);
  const at = e.index.names.get(name);
  if (!at) return NONE;
  const lists = e.lists;
  let hit = lists.get(name);
  if (hit) return hit;
  {
    const statements = sec.statements;
    const out: Statement[] = new Array(at.length);
    for (let i = 0; i < at.length; i++) out[i] = statements[at[i]];
    hit = out;
  }
  lists.set(name, hit);
  return hit;
}

/** The section's index for this run (security.ts keeps what it derives from `find` in it). */
export function sectionIndexOf(ctx: HaproxyCheckContext, sec: Section): SectionIndex {
  return sectionEntry(ctx, sec).index;
}

/** The last statement with this lookup name in the section. */
function lastOf(ctx: HaproxyCheckContext, sec: Section | undefined, name: string): Statement | undefined {
  const list = find(ctx, sec, name);
  return list[list.length - 1];
}

/** The `defaults` section a proxy inherits from: the last one before it, or the last one before it with the name given by `from`. */
export function defaultsOf(ctx: HaproxyCheckContext, sec: Section): Section | undefined {
  if (!ctx.defaults) {
    const map = new Map<Section, Section | undefined>();
    let last: Section | undefined;
    const named = new Map<string, Section>();
    for (const s of ctx.file.sections) {
      const args = s.header.args;
      let fromName: string | undefined;
      for (let i = 0; i < args.length; i++) {
        if (args[i].value === 'from') {
          fromName = args[i + 1]?.value;
          break;
        }
      }
      map.set(s, fromName === undefined ? last : named.get(fromName));
      if (s.keyword !== 'defaults') continue;
      last = s;
      if (s.name?.value !== undefined) named.set(s.name.value, s);
    }
    ctx.defaults = map;
  }
  return ctx.defaults.get(sec);
}

/** The last statement named `name` in the section, else in its defaults. */
export function lookup(ctx: HaproxyCheckContext, sec: Section, name: string): { st: Statement; from: Section } | undefined {
  const own = lastOf(ctx, sec, name);
  if (own) return { st: own, from: sec };
  if (sec.keyword === 'defaults') return undefined;
  const def = defaultsOf(ctx, sec);
  const inherited = lastOf(ctx, def, name);
  return inherited && def ? { st: inherited, from: def } : undefined;
}

/** Whether `option NAME` is on for the section (a `no option NAME` turns it off). */
function optionOn(ctx: HaproxyCheckContext, sec: Section, name: string): boolean {
  const hit = lookup(ctx, sec, `option ${name}`);
  return !!hit && hit.st.prefix?.value !== 'no';
}

export function modeOf(ctx: HaproxyCheckContext, sec: Section): string {
  return lookup(ctx, sec, 'mode')?.st.args[0]?.value ?? 'tcp';
}

/** Whether a `defaults` section feeds an HTTP proxy; with none in the file, its own mode says. */
function feedsHttp(ctx: HaproxyCheckContext, defaults: Section): boolean {
  let users = 0;
  for (const s of ctx.file.sections) {
    if (s.keyword === 'defaults' || !PROXY_KINDS.has(s.keyword) || defaultsOf(ctx, s) !== defaults) continue;
    users++;
    if (modeOf(ctx, s) === 'http') return true;
  }
  return users === 0 && modeOf(ctx, defaults) === 'http';
}

function lastWord(st: Statement): Word {
  return st.words[st.words.length - 1];
}

/** Indentation of a section's statements. */
function bodyIndent(ctx: HaproxyCheckContext, sec: Section | undefined): string {
  const first = sec?.statements.find((s) => s.keyword);
  if (first) return indentAt(ctx.text, first.start);
  const any = ctx.file.sections.flatMap((s) => s.statements).find((s) => s.keyword);
  return any ? indentAt(ctx.text, any.start) : unitOf(ctx);
}

/** Inserts lines at the end of a section's statements (after its header when it has none). */
function appendToSection(ctx: HaproxyCheckContext, sec: Section, lines: string[]): FixEdit {
  const last = live(sec).pop();
  return insertLinesAfter(ctx.text, last ? last.end : sec.header.end, lines, bodyIndent(ctx, sec));
}

/** Inserts lines right after the section header. */
function prependToSection(ctx: HaproxyCheckContext, sec: Section, lines: string[]): FixEdit {
  return insertLinesAfter(ctx.text, sec.header.end, lines, bodyIndent(ctx, sec));
}

export function insertAfterStatement(ctx: HaproxyCheckContext, st: Statement, lines: string[]): FixEdit {
  return insertLinesAfter(ctx.text, st.end, lines, indentAt(ctx.text, st.start));
}

const sectionName = (sec: Section) => `${sec.keyword}${sec.name ? ` ${sec.name.value}` : ''}`;
const headerWord = (sec: Section): Word => sec.name ?? sec.header.keyword!;

// ---------------------------------------------------------------------------------------------

function checkGlobal(ctx: HaproxyCheckContext): void {
  const global = ctx.file.sections.find((s) => s.keyword === 'global');
  if (!global) return;
  if (!find(ctx, global, 'maxconn').length) {
    const nofile = ctx.host?.nofileLimit;
    const value = nofile ? Math.max(256, Math.floor(nofile / 2)) : 4096;
    add(
      ctx,
      'haproxy/global-maxconn',
      global.header.keyword!,
      'No `maxconn` in `global`: the connection limit is derived from whatever file-descriptor limit HAProxy starts with. Set it explicitly.',
      {
        fixes: [{ title: `Add maxconn ${value}`, safe: false, edits: [prependToSection(ctx, global, [`maxconn ${value}`])] }],
      },
    );
  }
  for (const st of find(ctx, global, 'nbproc')) {
    const n = Number(st.args[0]?.value);
    if (Number.isFinite(n) && n <= 1) continue;
    const hasThreads = find(ctx, global, 'nbthread').length > 0;
    const edits: FixEdit[] = [
      hasThreads ? removeSpan(ctx.text, st.start, st.end) : replace(st.keyword!.start, st.keyword!.end, 'nbthread'),
    ];
    add(
      ctx,
      'haproxy/nbproc',
      st.keyword!,
      `\`nbproc${Number.isFinite(n) ? ` ${n}` : ''}\` runs separate processes that share no stats, stick tables, limits or health checks (deprecated since 2.3, removed in ${HAPROXY_NBPROC_REMOVED}): use \`nbthread\`.`,
      {
        fixes: [{ title: hasThreads ? 'Remove nbproc (nbthread is set)' : 'Use nbthread instead', safe: false, edits }],
      },
    );
  }
  const cpus = ctx.host?.cpuCount;
  for (const st of find(ctx, global, 'nbthread')) {
    const w = st.args[0];
    const n = Number(w?.value);
    if (w && cpus && Number.isInteger(n) && n > cpus) {
      add(
        ctx,
        'haproxy/nbthread-above-cores',
        w,
        `nbthread ${n} on a host with ${cpus} core${cpus > 1 ? 's' : ''}: extra threads only add contention.`,
        {
          fixes: [{ title: `Set nbthread ${cpus}`, safe: false, edits: [replace(w.start, w.end, String(cpus))] }],
        },
      );
    }
  }
  const bufsize = lastOf(ctx, global, 'tune.bufsize');
  const size = Number(bufsize?.args[0]?.value);
  if (bufsize && !find(ctx, global, 'tune.maxrewrite').length && Number.isFinite(size) && size < 16384) {
    const reserve = Math.min(1024, Math.floor(size / 2));
    add(
      ctx,
      'haproxy/bufsize-without-maxrewrite',
      bufsize.args[0],
      `tune.bufsize ${size} without tune.maxrewrite: ${reserve} bytes stay reserved for rewrites, so requests must fit in ${size - reserve} bytes. Set tune.maxrewrite to the reserve you want.`,
    );
  }
  // TLS protocol floor
  const opts = lastOf(ctx, global, 'ssl-default-bind-options');
  const globalFloor = tlsFloor(opts?.args ?? []);
  const binds = ctx.file.sections
    .filter((s) => TRAFFIC_PROXY_KINDS.has(s.keyword))
    .flatMap((s) => find(ctx, s, 'bind'))
    .filter((b) => b.args.some((a) => a.value === 'ssl'));
  for (const b of binds) {
    const own = tlsFloor(b.args);
    const floor = own ?? globalFloor;
    const weak = floor !== undefined ? floor === 'old' : !atLeast(ctx, HAPROXY_TLS12_DEFAULT);
    if (!weak) continue;
    const fix = globalTlsFix(ctx, global, opts, own === 'old' ? b : undefined);
    add(
      ctx,
      'haproxy/ssl-old-protocols',
      b.keyword!,
      floor === 'old'
        ? 'This TLS listener accepts TLSv1.0/TLSv1.1 (explicit minimum below TLSv1.2).'
        : `Before HAProxy ${HAPROXY_TLS12_DEFAULT} a TLS bind accepts TLSv1.0 and TLSv1.1 unless \`ssl-default-bind-options ssl-min-ver TLSv1.2\` is set.`,
      {
        fixes: fix ? [fix] : [],
      },
    );
  }
}

/** 'ok' when the words set a TLSv1.2+ floor, 'old' when they allow older, undefined when silent. */
function tlsFloor(words: Word[]): 'ok' | 'old' | undefined {
  const values = words.map((w) => w.value);
  const i = values.indexOf('ssl-min-ver');
  if (i >= 0 && values[i + 1]) return /^TLSv1\.[23]$/.test(values[i + 1]) ? 'ok' : 'old';
  if (values.some((v) => /^force-(sslv3|tlsv10|tlsv11)$/.test(v))) return 'old';
  if (values.some((v) => /^force-tlsv1[23]$/.test(v))) return 'ok';
  if (values.includes('no-tlsv10') && values.includes('no-tlsv11')) return 'ok';
  return undefined;
}

function globalTlsFix(
  ctx: HaproxyCheckContext,
  global: Section,
  opts: Statement | undefined,
  bind: Statement | undefined,
): Fix | undefined {
  const target = bind ?? opts;
  if (target) {
    const i = target.words.findIndex((w) => w.value === 'ssl-min-ver');
    const v = i >= 0 ? target.words[i + 1] : undefined;
    if (v) return { title: 'Raise ssl-min-ver to TLSv1.2', safe: true, edits: [replace(v.start, v.end, 'TLSv1.2')] };
    const forced = target.words.find((w) => /^force-(sslv3|tlsv10|tlsv11)$/.test(w.value));
    if (forced) return { title: 'Force TLSv1.2 instead', safe: false, edits: [replace(forced.start, forced.end, 'force-tlsv12')] };
    if (target === opts) {
      const last = lastWord(opts);
      return {
        title: 'Add ssl-min-ver TLSv1.2 to ssl-default-bind-options',
        safe: true,
        edits: [{ start: last.end, end: last.end, newText: ' ssl-min-ver TLSv1.2' }],
      };
    }
  }
  return {
    title: 'Add ssl-default-bind-options ssl-min-ver TLSv1.2',
    safe: true,
    edits: [appendToSection(ctx, global, ['ssl-default-bind-options ssl-min-ver TLSv1.2'])],
  };
}

function checkProxies(ctx: HaproxyCheckContext): void {
  const reportedDefaults = new Set<Statement>();
  const reportedReuse = new Set<Statement>();
  for (const sec of ctx.file.sections) {
    if (!PROXY_KINDS.has(sec.keyword)) continue;
    const mode = modeOf(ctx, sec);
    // keep-alive killers, reported where they are written (in line order); not where only TCP
    // proxies read them (a tcp-mode proxy, or a defaults whose proxies are all tcp-mode)
    const http = sec.keyword === 'defaults' ? feedsHttp(ctx, sec) : mode === 'http';
    for (const st of http ? closers(ctx, sec) : []) {
      const name = st.sub!.value;
      if (st.prefix?.value === 'no') continue;
      {
        const what =
          name === 'http-server-close' ? 'opens a new server connection for every request' : 'closes the connection after every response';
        add(
          ctx,
          'haproxy/option-httpclose',
          st.sub ?? st.keyword!,
          `\`option ${name}\` ${what}; HAProxy keeps both sides alive and reuses server connections by default.`,
          {
            fixes: [{ title: `Remove option ${name}`, safe: false, edits: [removeSpan(ctx.text, st.start, st.end)] }],
          },
        );
      }
    }
    if (sec.keyword === 'defaults') continue;
    const servers = find(ctx, sec, 'server');
    const isBackend = sec.keyword === 'backend' || sec.keyword === 'listen';
    // http-reuse on HTTP backends
    if (isBackend && mode === 'http' && servers.length && !lookup(ctx, sec, 'http-reuse')) {
      // when the HTTP mode comes from defaults, say it once there (http-reuse is inherited too)
      const modeSt = lookup(ctx, sec, 'mode');
      const viaDefaults = modeSt?.from.keyword === 'defaults' ? modeSt : undefined;
      if (!viaDefaults || !reportedReuse.has(viaDefaults.st)) {
        if (viaDefaults) reportedReuse.add(viaDefaults.st);
        const target = viaDefaults ? viaDefaults.from : sec;
        const at = viaDefaults ? (viaDefaults.st.args[0] ?? viaDefaults.st.keyword!) : headerWord(sec);
        add(
          ctx,
          'haproxy/http-reuse',
          at,
          `${viaDefaults ? `The HTTP backends using ${sectionName(target)} have` : `${sectionName(sec)} has`} no \`http-reuse\`: the default (safe) is fine for keep-alive clients; \`http-reuse always\` helps when clients close after each request (measured x1.59).`,
          {
            fixes: [
              {
                title: 'Add http-reuse always',
                safe: false,
                edits: [
                  viaDefaults
                    ? insertAfterStatement(ctx, viaDefaults.st, ['http-reuse always'])
                    : appendToSection(ctx, sec, ['http-reuse always']),
                ],
              },
            ],
          },
        );
      }
    }
    // health checks
    if (isBackend && servers.length > 1) {
      const defaultCheck = [...find(ctx, sec, 'default-server'), ...find(ctx, defaultsOf(ctx, sec), 'default-server')].some((d) =>
        d.args.some((a) => a.value === 'check'),
      );
      if (!defaultCheck) {
        for (const st of servers) {
          if (st.args.some((a) => a.value === 'check' || a.value === 'track' || a.value === 'disabled')) continue;
          const last = lastWord(st);
          add(
            ctx,
            'haproxy/server-no-check',
            st.args[0] ?? st.keyword!,
            `Server ${st.args[0]?.value ?? ''} has no \`check\`: if it goes down, HAProxy keeps sending it traffic.`,
            {
              fixes: [{ title: 'Add check', safe: true, edits: [{ start: last.end, end: last.end, newText: ' check' }] }],
            },
          );
        }
      }
    }
    // balance for long-lived connections
    if (isBackend) {
      const tunnel = lookup(ctx, sec, 'timeout tunnel');
      const longLived = mode === 'tcp' || !!tunnel;
      const bal = lookup(ctx, sec, 'balance');
      const alg = bal?.st.args[0];
      if (longLived && bal && alg && (alg.value === 'roundrobin' || alg.value === 'static-rr') && !reportedDefaults.has(bal.st)) {
        if (bal.from.keyword === 'defaults') reportedDefaults.add(bal.st);
        const why = mode === 'tcp' ? 'TCP-mode connections' : 'tunnelled (WebSocket) connections';
        add(
          ctx,
          'haproxy/balance-long-lived',
          alg,
          `balance ${alg.value} for ${why}, which may stay open for long: \`leastconn\` keeps the load even.`,
          {
            fixes: [{ title: 'Use balance leastconn', safe: false, edits: [replace(alg.start, alg.end, 'leastconn')] }],
          },
        );
      }
    }
    // splice for TCP proxies (HAProxy splices when the frontend or the backend asks for it)
    if (mode === 'tcp' && isBackend && servers.length && !splices(ctx, sec) && !frontendsOf(ctx, sec).some((f) => splices(ctx, f))) {
      const modeSt = lookup(ctx, sec, 'mode');
      const inDefaults = modeSt?.from.keyword === 'defaults' ? modeSt.st : undefined;
      if (inDefaults && reportedDefaults.has(inDefaults)) continue;
      if (inDefaults) reportedDefaults.add(inDefaults);
      const target = inDefaults ? modeSt!.from : sec;
      add(
        ctx,
        'haproxy/splice-auto',
        inDefaults ? (inDefaults.args[0] ?? inDefaults.keyword!) : headerWord(sec),
        `TCP proxying without \`option splice-auto\`${inDefaults ? ' (for the proxies using these defaults)' : ''}: on Linux the kernel can move the data between sockets without copying it through HAProxy.`,
        {
          fixes: [
            {
              title: 'Add option splice-auto',
              safe: false,
              edits: [insertAfterStatement(ctx, inDefaults ?? live(target).pop() ?? target.header, ['option splice-auto'])],
            },
          ],
        },
      );
    }
  }
}

/** The section's `option httpclose` / `http-server-close` / `forceclose` lines, in line order. */
function closers(ctx: HaproxyCheckContext, sec: Section): readonly Statement[] {
  const a = find(ctx, sec, 'option httpclose');
  const b = find(ctx, sec, 'option http-server-close');
  const c = find(ctx, sec, 'option forceclose');
  if (!b.length && !c.length) return a;
  if (!a.length && !c.length) return b;
  if (!a.length && !b.length) return c;
  return [...a, ...b, ...c].sort((x, y) => x.start - y.start);
}

function splices(ctx: HaproxyCheckContext, sec: Section): boolean {
  return ['splice-auto', 'splice-request', 'splice-response'].some((o) => optionOn(ctx, sec, o));
}

/** Frontends that send traffic to a backend (`default_backend` / `use_backend` naming it). */
export function frontendsOf(ctx: HaproxyCheckContext, backend: Section): Section[] {
  const name = backend.name?.value;
  if (!name) return [];
  if (!ctx.routes) {
    const routes = new Map<string, Section[]>();
    for (const s of ctx.file.sections) {
      if (s.keyword !== 'frontend') continue;
      for (const st of live(s)) {
        const kw = st.keyword?.value;
        const target = st.args[0]?.value;
        if ((kw !== 'default_backend' && kw !== 'use_backend') || target === undefined) continue;
        const list = routes.get(target);
        if (!list) routes.set(target, [s]);
        else if (list[list.length - 1] !== s) list.push(s);
      }
    }
    ctx.routes = routes;
  }
  return ctx.routes.get(name) ?? [];
}

function checkLogging(ctx: HaproxyCheckContext): void {
  const reported = new Set<Section>();
  for (const sec of ctx.file.sections) {
    if (sec.keyword !== 'frontend' && sec.keyword !== 'listen') continue;
    const log = lookup(ctx, sec, 'log');
    if (!log || log.st.prefix?.value === 'no') continue;
    if (lookup(ctx, sec, 'option dontlognull')) continue;
    const target = log.from;
    if (reported.has(target)) continue;
    reported.add(target);
    add(
      ctx,
      'haproxy/log-without-dontlognull',
      log.st.keyword!,
      `${sectionName(target)} logs connections that send nothing (health checks, scanners): add \`option dontlognull\`.`,
      {
        fixes: [{ title: 'Add option dontlognull', safe: true, edits: [insertAfterStatement(ctx, log.st, ['option dontlognull'])] }],
      },
    );
  }
}

/** The Kubernetes API server's port, and names that say a proxy is its balancer. */
const KUBE_API_PORT = /:6443$/;
const KUBE_API_NAME = /kube|k8s|apiserver|control-?plane/i;
/** An idle timeout under this cuts `kubectl exec`/`logs -f` sessions (ms). */
const TUNNEL_FLOOR_MS = 3_600_000;

/** HAProxy's time format: a number with an optional unit (ms by default). */
function timeMs(v: string | undefined): number | undefined {
  const m = v ? /^(\d+)(us|ms|s|m|h|d)?$/.exec(v) : null;
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] ?? 'ms']!;
  return n * unit;
}

/**
 * TCP-mode balancers of the Kubernetes API whose idle timeouts cut long-lived streams (no
 * `timeout tunnel`). The tunnel timeout is a backend setting (a frontend ignores it, with a
 * warning), so the finding is on the backend or listen section that carries the streams; the
 * idle limit it replaces is the shorter of its client and server timeouts.
 */
function checkTunnels(ctx: HaproxyCheckContext): void {
  // the backends a Kubernetes API frontend hands its connections to
  const fed = new Set<string>();
  for (const sec of ctx.file.sections) {
    if (sec.keyword !== 'frontend') continue;
    const binds = find(ctx, sec, 'bind').map((b) => b.args[0]?.value ?? '');
    if (!binds.some((a) => KUBE_API_PORT.test(a)) && !KUBE_API_NAME.test(sec.name?.value ?? '')) continue;
    for (const st of [...find(ctx, sec, 'default_backend'), ...find(ctx, sec, 'use_backend')]) if (st.args[0]) fed.add(st.args[0].value);
  }
  for (const sec of ctx.file.sections) {
    if (sec.keyword !== 'listen' && sec.keyword !== 'backend') continue;
    if (modeOf(ctx, sec) !== 'tcp' || lookup(ctx, sec, 'timeout tunnel')) continue;
    const addrs = [
      ...find(ctx, sec, 'bind').map((b) => b.args[0]?.value ?? ''),
      ...find(ctx, sec, 'server').map((s) => s.args[1]?.value ?? ''),
    ];
    const name = sec.name?.value ?? '';
    if (!addrs.some((a) => KUBE_API_PORT.test(a)) && !KUBE_API_NAME.test(name) && !fed.has(name)) continue;
    if (!addrs.length) continue;
    let shortest: { side: string; text: string; ms: number } | undefined;
    for (const side of ['timeout client', 'timeout server']) {
      const t = lookup(ctx, sec, side);
      const text = t?.st.args[t.st.args.length - 1]?.value;
      const ms = timeMs(t?.st.args[1]?.value ?? t?.st.args[0]?.value);
      if (t && text && ms !== undefined && (!shortest || ms < shortest.ms)) shortest = { side, text, ms };
    }
    if (!shortest || shortest.ms >= TUNNEL_FLOOR_MS) continue;
    add(
      ctx,
      'haproxy/tcp-timeout-tunnel',
      headerWord(sec),
      `${sectionName(sec)} balances the Kubernetes API in TCP mode with \`${shortest.side} ${shortest.text}\` and no \`timeout tunnel\`: \`kubectl exec\`, \`logs -f\` and watches idle longer than that are cut. Add \`timeout tunnel 1h\`.`,
      { fixes: [{ title: 'Add timeout tunnel 1h', safe: false, edits: [appendToSection(ctx, sec, ['timeout tunnel 1h'])] }] },
    );
  }
}

export type HaproxyCheck = (ctx: HaproxyCheckContext) => void;

/**
 * The check that emits each tuning row's findings (rules.ts), in run order (a check's first key
 * places it); the run list is derived. Its type makes it complete with security.ts's table: a
 * row without its check, or an id without a row, does not compile (end-of-life: core/lifecycle.ts).
 */
export const CHECK_OF = {
  'haproxy/global-maxconn': checkGlobal,
  'haproxy/nbproc': checkGlobal,
  'haproxy/nbthread-above-cores': checkGlobal,
  'haproxy/bufsize-without-maxrewrite': checkGlobal,
  'haproxy/ssl-old-protocols': checkGlobal,
  'haproxy/option-httpclose': checkProxies,
  'haproxy/http-reuse': checkProxies,
  'haproxy/server-no-check': checkProxies,
  'haproxy/balance-long-lived': checkProxies,
  'haproxy/tcp-timeout-tunnel': checkTunnels,
  'haproxy/splice-auto': checkProxies,
  'haproxy/log-without-dontlognull': checkLogging,
} satisfies Partial<Record<HaproxyTuningRuleId, HaproxyCheck>>; // complete: checked in run.ts, with the security rows
