// Typed access to the generated HAProxy tables (data/*.json), with lookup maps built once.
import keywordsJson from './data/keywords.json';
import optionsJson from './data/options.json';
import samplesJson from './data/samples.json';
import probedJson from './data/versions.json';
import { compareVersions } from '../../core/version';
import { editDistance } from '../../core/editDistance';
import { DESCRIPTIONS, EXTRA_ADDRESS_PREFIXES, PROXY_KINDS, REMOVED } from './overrides';

export interface Versioned {
  since?: string;
  until?: string;
}

export interface KeywordInfo extends Versioned {
  syntax?: string[];
  doc: string;
  /** For proxy keywords: the proxy section kinds that accept it. */
  sections?: string[];
  namedDefaultsOnly?: boolean;
  noPrefix?: boolean;
  deprecated?: boolean;
}

export interface OptionInfo extends Versioned {
  syntax?: string[];
  doc: string;
  takesArg?: boolean;
  /** Takes a variable number of values. */
  variadic?: boolean;
}

export interface SampleInfo extends Versioned {
  syntax?: string;
  doc: string;
  args?: string;
  type?: string;
}

export interface ActionInfo extends Versioned {
  sets: string[];
  doc: string;
  deprecated?: boolean;
}

export interface SectionInfo extends Versioned {
  keywords?: Record<string, KeywordInfo>;
}

type Table<T> = Record<string, T>;

const kw = keywordsJson as unknown as {
  versions: string[];
  sections: Table<SectionInfo>;
  global: Table<KeywordInfo>;
  proxy: Table<KeywordInfo>;
  actions: Table<ActionInfo>;
  addressPrefixes: Table<Versioned>;
  logFormatAliases: Table<Versioned & { http?: boolean }>;
};
const opts = optionsJson as unknown as { bind: Table<OptionInfo>; server: Table<OptionInfo> };
const samples = samplesJson as unknown as {
  fetches: Table<SampleInfo>;
  converters: Table<SampleInfo>;
  aclDerivatives: Table<Versioned>;
  predefinedAcls: Table<Versioned>;
  filters: string[];
  services: string[];
};

export const VERSIONS: readonly string[] = kw.versions;
export const NEWEST: string = VERSIONS[VERSIONS.length - 1];

export { PROXY_KINDS };

function toMap<T>(t: Table<T>): Map<string, T> {
  return new Map(Object.entries(t));
}

export const SECTIONS = toMap(kw.sections);
export const GLOBAL = toMap(kw.global);
export const PROXY = toMap(kw.proxy);

// ---------- facts probed from the matrix binaries (versions.json, scripts/probe-versions.mjs) ----------

const probed = probedJson as unknown as {
  versions: string[];
  /** global / proxy keywords -> versions whose binary knows them (absent: every probed version) */
  global: Record<string, string[]>;
  proxy: Record<string, string[]>;
  /** version -> the converters / sample fetches its binary registers (-dKcnv / -dKsmp) */
  converters: Record<string, string[]>;
  fetches: Record<string, string[]>;
  /** version -> bind / server options and rule actions its binary registers (-dKcfg) */
  bindOptions?: Record<string, string[]>;
  serverOptions?: Record<string, string[]>;
  actions?: Record<string, string[]>;
  /** `stats` sub-keywords -> versions whose binary knows them */
  stats: Record<string, string[]>;
  checks: Record<string, Record<string, { refused: boolean; warned: boolean; message: string }>>;
};

/** The matrix versions whose binaries were probed, oldest first. */
export const PROBED_VERSIONS: readonly string[] = [...probed.versions].sort(compareVersions);

// `stats` sub-keywords every probed binary knows but the keyword matrix leaves out (`stats show-modules`)
for (const [sub, known] of Object.entries(probed.stats)) {
  const like = PROXY.get('stats enable');
  if (like && known.length === PROBED_VERSIONS.length && !PROXY.has(`stats ${sub}`))
    PROXY.set(`stats ${sub}`, { ...like, syntax: [`stats ${sub}`] });
}

const branchOf = (v: string): string => v.split('.').slice(0, 2).join('.');

/**
 * What the matrix binaries said of one probed check (`duplicate server name`, `program section`)
 * at a target version: `refused` / `warned` / `accepted` at its own branch's binary; for a target
 * between two probed branches, `refused` only when both refuse (else `warned` if either warns or
 * refuses); newer than every probed binary: the newest one's answer; older: the oldest one's.
 */
export function probedCheck(name: string, target: string): 'refused' | 'warned' | 'accepted' | undefined {
  const byVersion = probed.checks[name];
  if (!byVersion || !PROBED_VERSIONS.length) return undefined;
  const at = (v: string) => (byVersion[v]?.refused ? 'refused' : byVersion[v]?.warned ? 'warned' : 'accepted');
  const t = branchOf(target);
  const same = PROBED_VERSIONS.find((v) => branchOf(v) === t);
  if (same) return at(same);
  if (compareVersions(t, branchOf(PROBED_VERSIONS[0])) < 0) return at(PROBED_VERSIONS[0]);
  const newest = PROBED_VERSIONS[PROBED_VERSIONS.length - 1];
  if (compareVersions(t, branchOf(newest)) > 0) return at(newest);
  const i = PROBED_VERSIONS.findIndex((v) => compareVersions(branchOf(v), t) > 0);
  const a = at(PROBED_VERSIONS[i - 1]);
  const b = at(PROBED_VERSIONS[i]);
  if (a === 'refused' && b === 'refused') return 'refused';
  return a === 'accepted' && b === 'accepted' ? 'accepted' : 'warned';
}

/** The oldest probed version whose binary refuses (or warns about) a check; for messages. */
export function probedFirst(name: string, what: 'refused' | 'warned'): string | undefined {
  const byVersion = probed.checks[name];
  return PROBED_VERSIONS.find((v) => byVersion?.[v]?.[what] || (what === 'warned' && byVersion?.[v]?.refused));
}
/** Action names with trailing digits folded (`track-sc0` → `track-sc`). */
export const ACTIONS = new Map<string, ActionInfo>();
for (const [n, e] of Object.entries(kw.actions)) {
  const k = actionKey(n);
  const cur = ACTIONS.get(k);
  if (!cur) ACTIONS.set(k, { ...e, sets: [...e.sets] });
  else for (const s of e.sets) if (!cur.sets.includes(s)) cur.sets.push(s);
}
export const BIND_OPTIONS = toMap(opts.bind);
/** Log-format aliases (`%ci`, `%Tr`, ...); `http` marks the HTTP-only ones. */
export const LOG_ALIASES = toMap(kw.logFormatAliases ?? {});
/** Address prefixes such as `ipv4@`, `abnsz@`, `quic+` (plus the hand-kept ones of the overrides). */
export const ADDRESS_PREFIXES = new Map<string, Versioned>([
  ...Object.entries(kw.addressPrefixes ?? {}),
  ...Object.entries(EXTRA_ADDRESS_PREFIXES),
]);
export const SERVER_OPTIONS = toMap(opts.server);
export const FETCHES = toMap(samples.fetches);
export const CONVERTERS = toMap(samples.converters);
export const ACL_DERIVATIVES = toMap(samples.aclDerivatives);
export const PREDEFINED_ACLS = toMap(samples.predefinedAcls);

/** Per other section kind (resolvers, peers, ...), its keywords. */
export const SECTION_KEYWORDS_MAP = new Map<string, Map<string, KeywordInfo>>();
for (const [name, s] of SECTIONS) if (s.keywords) SECTION_KEYWORDS_MAP.set(name, toMap(s.keywords));

/** Names of `option` keywords and `timeout` kinds. */
export const OPTION_NAMES = [...PROXY.keys()].filter((k) => k.startsWith('option ')).map((k) => k.slice(7));
export const TIMEOUT_KINDS = [...PROXY.keys()].filter((k) => k.startsWith('timeout ')).map((k) => k.slice(8));

/** Proxy keywords by first word, longest first, with their words split once. */
const PROXY_MULTI = new Map<string, { name: string; parts: string[] }[]>();
for (const k of PROXY.keys()) {
  const parts = k.split(' ');
  if (!PROXY_MULTI.has(parts[0])) PROXY_MULTI.set(parts[0], []);
  PROXY_MULTI.get(parts[0])!.push({ name: k, parts });
}
for (const list of PROXY_MULTI.values()) list.sort((a, b) => b.parts.length - a.parts.length);

/** The longest proxy keyword matching the first words of a line (`http-check set-var(x)` matches `http-check set-var`). */
export function matchProxyKeyword(words: string[]): { name: string; info: KeywordInfo; width: number } | undefined {
  const cands = PROXY_MULTI.get(words[0]);
  if (!cands) return undefined;
  for (const c of cands) {
    let ok = true;
    for (let i = 1; i < c.parts.length && ok; i++) {
      const w = words[i];
      ok = w === c.parts[i] || (w !== undefined && w.startsWith(c.parts[i] + '('));
    }
    if (ok) return { name: c.name, info: PROXY.get(c.name)!, width: c.parts.length };
  }
  return undefined;
}

export function actionKey(name: string): string {
  return name.replace(/\(.*$/, '').replace(/\d+$/, '');
}

/** The target version to judge against: the user's, else the newest known. */
export function targetVersion(v: string | undefined): string {
  return v && /\d/.test(v) ? v : NEWEST;
}

export function isAvailable(info: Versioned, target: string): boolean {
  return availability(info, target) === 'ok';
}

/** "added in", "removed in" status of an entry at a target version. */
const cmpCache = new Map<string, number>();
function cmp(a: string, b: string): number {
  const key = `${a}|${b}`;
  let r = cmpCache.get(key);
  if (r === undefined) {
    r = compareVersions(a, b);
    if (cmpCache.size < 10_000) cmpCache.set(key, r);
  }
  return r;
}

/** Which table and name a Versioned entry is, for the probed facts (filled once, below the tables). */
type ProbedList = 'converters' | 'fetches' | 'bindOptions' | 'serverOptions' | 'actions';
const entryNames = new WeakMap<Versioned, ['global' | 'proxy' | ProbedList, string]>();
for (const [n, i] of GLOBAL) entryNames.set(i, ['global', n]);
for (const [n, i] of PROXY) entryNames.set(i, ['proxy', n]);
for (const [n, i] of CONVERTERS) entryNames.set(i, ['converters', n]);
for (const [n, i] of FETCHES) entryNames.set(i, ['fetches', n]);
for (const [n, i] of BIND_OPTIONS) entryNames.set(i, ['bindOptions', n]);
for (const [n, i] of SERVER_OPTIONS) entryNames.set(i, ['serverOptions', n]);
for (const [n, i] of ACTIONS) entryNames.set(i, ['actions', n]);
const probedSets = new Map<string, Set<string>>();
const probedSet = (what: ProbedList, v: string): Set<string> => {
  let set = probedSets.get(`${what} ${v}`);
  if (!set) probedSets.set(`${what} ${v}`, (set = new Set(probed[what]?.[v] ?? [])));
  return set;
};

/**
 * Whether the matrix binary of the target's branch (or, between two probed branches, either
 * neighbour) knows an entry the documentation dates later: a backport (`has_ctl` in 3.2.26).
 * Only ever makes an entry available; a target outside the probed branches is not judged.
 */
function probedKnows(info: Versioned, target: string): boolean {
  const e = entryNames.get(info);
  if (!e || !PROBED_VERSIONS.length) return false;
  const t = branchOf(target);
  if (compareVersions(t, branchOf(PROBED_VERSIONS[0])) < 0 || compareVersions(t, branchOf(PROBED_VERSIONS[PROBED_VERSIONS.length - 1])) > 0)
    return false;
  const same = PROBED_VERSIONS.find((v) => branchOf(v) === t);
  const i = PROBED_VERSIONS.findIndex((v) => compareVersions(branchOf(v), t) > 0);
  const asked = same ? [same] : [PROBED_VERSIONS[i - 1], PROBED_VERSIONS[i]];
  const [what, name] = e;
  if (what !== 'global' && what !== 'proxy') return asked.some((v) => probed[what]?.[v] !== undefined && probedSet(what, v).has(name));
  const known = probed[what]?.[name];
  return asked.some((v) => (known ? known.includes(v) : false));
}

export function availability(info: Versioned, target: string): 'ok' | 'newer' | 'removed' {
  if (info.since && cmp(target, info.since) < 0) return probedKnows(info, target) ? 'ok' : 'newer';
  if (info.until && cmp(target, info.until) >= 0) return 'removed';
  return 'ok';
}

/** The docs page version for a target: docs.haproxy.org has one page per release line. */
export function docVersion(target: string): string {
  const m = /^(\d+)\.(\d+)/.exec(target);
  const v = m ? `${m[1]}.${m[2]}` : NEWEST;
  // development versions have their docs under "dev"
  if (compareVersions(v, NEWEST) >= 0) return 'dev';
  return v;
}

export function docUrl(section: string | undefined, keyword: string | undefined, target: string): string {
  const base = `https://docs.haproxy.org/${docVersion(target)}/configuration.html`;
  if (!section) return base;
  return keyword ? `${base}#${section}-${keyword}` : `${base}#${section}`;
}

export function description(name: string): string | undefined {
  return DESCRIPTIONS[name];
}

export function removedInfo(name: string): (typeof REMOVED)[string] | undefined {
  return Object.prototype.hasOwnProperty.call(REMOVED, name) ? REMOVED[name] : undefined;
}

/** Answers per candidate list (lists that stay the same object: the tables, hoisted lists). */
const guesses = new WeakMap<object, Map<string, string | undefined>>();

/** The closest candidate, when close enough to be a likely typo. */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  let memo = guesses.get(candidates as object);
  const hit = memo?.get(word);
  if (hit !== undefined || memo?.has(word)) return hit;
  let best: string | undefined;
  let bestD = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const c of candidates) {
    const d = editDistance(word, c, bestD);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  if (!memo) guesses.set(candidates as object, (memo = new Map()));
  if (memo.size < 10_000) memo.set(word, best);
  return best;
}

/** Keywords whose arguments are log-format strings. */
export const LOG_FORMAT_KEYWORDS = new Set(['log-format', 'log-format-sd', 'error-log-format', 'unique-id-format']);
/** Rule actions whose arguments after the action (and a header name) are log-format strings. */
export const LOG_FORMAT_ACTIONS = new Set([
  'add-header',
  'set-header',
  'set-var-fmt',
  'redirect',
  'set-path',
  'set-pathq',
  'set-uri',
  'set-query',
  'early-hint',
  'set-map',
  'add-acl',
  'del-acl',
  'del-map',
  'return',
  'set-status',
]);

/** The `%alias` references of a log-format word (not `%%`, not `%[...]`), with offsets. */
export function logAliasesIn(raw: string, base: number): { name: string; start: number; end: number }[] {
  const out: { name: string; start: number; end: number }[] = [];
  for (let i = raw.indexOf('%'); i >= 0 && i < raw.length; i = raw.indexOf('%', i)) {
    let j = i + 1;
    if (raw[j] === '%') {
      i = j + 1;
      continue;
    }
    if (raw[j] === '{') {
      const close = raw.indexOf('}', j);
      if (close < 0) break;
      j = close + 1;
    }
    if (raw[j] === '[' || raw[j] === '(') {
      i = j + 1;
      continue;
    }
    let k = j;
    while (k < raw.length && /[A-Za-z]/.test(raw[k])) k++;
    if (k > j) out.push({ name: raw.slice(j, k), start: base + j, end: base + k });
    i = Math.max(k, i + 1);
  }
  return out;
}
