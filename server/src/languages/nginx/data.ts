// The nginx knowledge tables: generated JSON (directives.json, variables.json) with the hand
// kept overrides.json applied, indexed once at load time.
import directivesJson from './data/directives.json';
import variablesJson from './data/variables.json';
import overridesJson from './data/overrides.json';
import versionsJson from './data/versions.json';
import groupsJson from './data/groups.json';
import { compareVersions } from '../../core/version';
import type { ArgType, DirectiveVariant } from './directiveTypes';
import { addLoadableVariants, LOADABLE_DIRECTIVE_NAMES, loadableDocUrl, loadableVariable } from './modules';

/** The nginx contexts a block of directives can stand in (a fragment's context, a misplaced directive's candidates), outermost first. */
export const NGINX_CONTEXTS: readonly string[] = [
  'main',
  'http',
  'server',
  'location',
  'stream',
  'stream/server',
  'upstream',
  'stream/upstream',
  'mail',
  'mail/server',
];

export type { ArgType, DirectiveVariant, ValueType } from './directiveTypes';

export interface VariableInfo {
  name: string;
  module: string;
  since?: string;
  /** True for a prefix such as `http_` (the row stands for `$http_<name>`). */
  prefix: boolean;
}

interface RawRow {
  module: string;
  contexts: string[];
  block: boolean;
  min: number;
  max: number;
  flag?: boolean;
  values?: string[];
  argTypes?: (ArgType | null)[];
  default?: string;
  since?: string;
  params?: Record<string, string>;
  deprecated?: string;
  until?: string;
  use?: string;
}

const overrides = overridesJson as unknown as {
  directives: Record<string, Partial<RawRow> & Record<string, unknown>>;
  extraDirectives: Record<string, RawRow[]>;
  moduleSince: Record<string, string>;
  commercialModules: string[];
  commercialDirectives: string[];
  thirdParty: Record<string, { names?: string[]; patterns?: string[] }>;
  paramSince: Record<string, Record<string, string>>;
  upstreamServerParams: Record<string, string[]>;
  deprecated: Record<string, { since: string; use?: string }>;
  thirdPartyVariablePrefixes: string[];
  noDuplicateCheck: string[];
  duplicateCheck: string[];
};

const commercialModules = new Set(overrides.commercialModules);
/** The parameters an upstream `server` line may take in some version, by context (`upstream`, `stream/upstream`). */
export const UPSTREAM_SERVER_PARAMS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  ['upstream', 'stream/upstream'].map((ctx) => [ctx, new Set(overrides.upstreamServerParams[ctx])]),
);
const commercialDirectives = new Set(overrides.commercialDirectives);

function later(a: string | undefined, b: string | undefined): string | undefined {
  if (!a) return b;
  if (!b) return a;
  return compareVersions(a, b) >= 0 ? a : b;
}

// the probed facts (versions.json) are read before the tables are built: see relaxForEveryVersion
interface VersionFacts {
  /** Versions whose binary knows the name (absent: all of them). */
  known?: string[];
  contexts?: Record<string, string[]>;
  /** version -> [min, max (-1: no bound), context probed in] */
  arity?: Record<string, [number, number, string]>;
  refuses?: Record<string, string[]>;
  /** context -> version -> refused parameter keys (`resolve`, `weight=`) */
  params?: Record<string, Record<string, string[]>>;
  /** Versions in which a second one in the same block "is duplicate". */
  duplicate?: string[];
}

const versionFacts = versionsJson as unknown as {
  versions: string[];
  directives: Record<string, VersionFacts>;
  entries: Record<string, Record<string, string[]>>;
};

/** The matrix versions whose binaries were probed, oldest first. */
export const PROBED_VERSIONS: readonly string[] = [...versionFacts.versions].sort(compareVersions);

const branch = (v: string): string => v.split('.').slice(0, 2).join('.');
const familyOf = (ctx: string): string =>
  ctx.startsWith('stream') ? 'stream' : ctx.startsWith('mail') ? 'mail' : ctx === 'main' || ctx === 'events' ? 'core' : 'http';
const variantFamily = (v: DirectiveVariant): string =>
  v.module.startsWith('ngx_stream_')
    ? 'stream'
    : v.module.startsWith('ngx_mail_')
      ? 'mail'
      : v.module.startsWith('ngx_http_') || v.module === 'ngx_otel_module'
        ? 'http'
        : 'core';

const directiveJson = directivesJson as unknown as {
  directives: Record<string, RawRow[]>;
  probe?: {
    version?: string;
    extraContexts: Record<string, string[]>;
    knownDespiteVersion: string[];
    duplicateInBlock?: { http: string[]; stream: string[] };
  };
};
const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
/** A name's rows in the documented tables: overrides.json's extra rows replace directives.json's. */
const rawRows = (name: string): RawRow[] | undefined =>
  own(overrides.extraDirectives, name)
    ? overrides.extraDirectives[name]
    : own(directiveJson.directives, name)
      ? directiveJson.directives[name]
      : undefined;

// sets, not the lists' includes(): looked up for every variant built
const probe = directiveJson.probe;
const dupHttp = new Set(probe?.duplicateInBlock?.http);
const dupStream = new Set(probe?.duplicateInBlock?.stream);
const dupChecked = new Set(overrides.duplicateCheck);
const knownDespite = new Set(probe?.knownDespiteVersion);

/** One name's variants: its documented rows with the overrides and the probed facts, then its loadable modules' rows. */
function buildVariants(name: string): DirectiveVariant[] {
  const list: DirectiveVariant[] = [];
  const rows = rawRows(name);
  for (const r of rows ?? []) {
    const o = overrides.directives[name] ?? {};
    const v: DirectiveVariant = {
      name,
      module: r.module,
      contexts: r.contexts,
      block: r.block,
      min: r.min,
      max: r.max,
      flag: r.flag,
      values: r.values,
      argTypes: r.argTypes,
      params: r.params ? { ...r.params, ...overrides.paramSince[name] } : undefined,
      default: r.default,
      since: later(r.since, overrides.moduleSince[r.module]),
      until: r.until,
      deprecated: r.deprecated ? { since: r.deprecated, use: r.use } : undefined,
      commercial: commercialModules.has(r.module) || commercialDirectives.has(name),
    };
    for (const [k, val] of Object.entries(o)) {
      (v as unknown as Record<string, unknown>)[k] = val === null ? undefined : val;
    }
    if (probe?.duplicateInBlock) {
      const set = v.module.startsWith('ngx_stream_') ? dupStream : v.module.startsWith('ngx_http_') ? dupHttp : undefined;
      v.duplicate = set?.has(name) === true || dupChecked.has(name);
    } else v.duplicate = dupChecked.has(name) || (!!v.flag && v.max === 1);
    if (probe && v.module.startsWith('ngx_http_')) {
      const extra = probe.extraContexts[name];
      if (extra) v.contexts = [...new Set([...v.contexts, ...extra])];
      if (probe.version && knownDespite.has(name)) v.knownIn = probe.version;
    }
    list.push(v);
  }
  if (rows) relaxForEveryVersion(name, list);
  addLoadableVariants(name, list);
  return list;
}

/** The directive table's read side: a `ReadonlyMap` of name -> variants, as far as its users need one. */
export interface DirectiveTable extends Iterable<[string, DirectiveVariant[]]> {
  readonly size: number;
  has(name: string): boolean;
  get(name: string): DirectiveVariant[] | undefined;
  keys(): IterableIterator<string>;
  values(): IterableIterator<DirectiveVariant[]>;
  entries(): IterableIterator<[string, DirectiveVariant[]]>;
}

/**
 * name -> variants, each name's built when first asked for: building all ~1,400 took ~9 ms at
 * every start of `proxy-tuner check`, which asks for a few dozen names (docs/benchmarks.md).
 * Iterating builds every name, in the order the tables give them.
 */
export const DIRECTIVES: DirectiveTable = (() => {
  const names: string[] = [];
  const known = new Set<string>();
  const add = (n: string): void => {
    if (known.has(n)) return;
    known.add(n);
    names.push(n);
  };
  for (const n of Object.keys(directiveJson.directives)) add(n);
  for (const n of Object.keys(overrides.extraDirectives)) add(n);
  for (const n of LOADABLE_DIRECTIVE_NAMES) add(n);
  const built = new Map<string, DirectiveVariant[]>();
  const get = (name: string): DirectiveVariant[] | undefined => {
    const list = built.get(name);
    if (list || !known.has(name)) return list;
    const made = buildVariants(name);
    built.set(name, made);
    return made;
  };
  function* entries(): IterableIterator<[string, DirectiveVariant[]]> {
    for (const n of names) yield [n, get(n)!];
  }
  function* values(): IterableIterator<DirectiveVariant[]> {
    for (const n of names) yield get(n)!;
  }
  return {
    size: names.length,
    has: (name) => known.has(name),
    get,
    keys: () => names[Symbol.iterator](),
    values,
    entries,
    [Symbol.iterator]: entries,
  };
})();

/**
 * The modules the documented tables name (each variant's `module`), without building the variants.
 * A loadable module's rows are named by their `.so`, which LOADABLE_MODULES holds.
 */
export function documentedModules(): Iterable<string> {
  const out = new Set<string>();
  for (const n of DIRECTIVES.keys()) {
    const o = overrides.directives[n]?.module;
    for (const r of rawRows(n) ?? []) out.add(typeof o === 'string' ? o : r.module);
  }
  return out;
}

export const DIRECTIVE_NAMES: readonly string[] = [...DIRECTIVES.keys()].sort();

export const VARIABLES: ReadonlyMap<string, VariableInfo> = (() => {
  const m = new Map<string, VariableInfo>();
  const raw = variablesJson as unknown as {
    variables: Record<string, { module: string; since?: string }>;
    prefixes: Record<string, { module: string; since?: string }>;
  };
  for (const [name, r] of Object.entries(raw.variables)) m.set(name, { name, module: r.module, since: r.since, prefix: false });
  return m;
})();

export const VARIABLE_PREFIXES: readonly VariableInfo[] = (() => {
  const raw = variablesJson as unknown as { prefixes: Record<string, { module: string; since?: string }> };
  const out: VariableInfo[] = Object.entries(raw.prefixes).map(([name, r]) => ({ name, module: r.module, since: r.since, prefix: true }));
  for (const p of overrides.thirdPartyVariablePrefixes) out.push({ name: p, module: 'third-party', prefix: true });
  return out;
})();

/** A built-in variable (exact or by prefix), or undefined. */
export function lookupVariable(name: string): VariableInfo | undefined {
  const lower = name.toLowerCase();
  const exact = VARIABLES.get(lower);
  if (exact) return exact;
  for (const p of VARIABLE_PREFIXES) if (lower.startsWith(p.name)) return p;
  return loadableVariable(lower);
}

const thirdPartyNames = new Map<string, string>();
const thirdPartyPatterns: { re: RegExp; module: string }[] = [];
for (const [module, spec] of Object.entries(overrides.thirdParty)) {
  for (const n of spec.names ?? []) thirdPartyNames.set(n, module);
  for (const p of spec.patterns ?? []) thirdPartyPatterns.push({ re: new RegExp(p), module });
}

/** The third-party module (as packaged by distributions) a directive belongs to, if known. */
export function thirdPartyModule(name: string): string | undefined {
  const m = thirdPartyNames.get(name);
  if (m) return m;
  for (const p of thirdPartyPatterns) if (p.re.test(name)) return p.module;
  return undefined;
}

/** Whether a variant exists at a target version (undefined target: the newest). */
export function variantInVersion(v: DirectiveVariant, target: string | undefined): 'yes' | 'newer' | 'removed' {
  if (!target) return 'yes';
  if (v.since && compareVersions(target, v.since) < 0 && !(v.knownIn && compareVersions(target, v.knownIn) === 0)) return 'newer';
  if (v.until && compareVersions(target, v.until) >= 0) return 'removed';
  return 'yes';
}

/** Deprecation of a directive variant (or `listen <param>`) at a target version: since when, and the replacement. */
export function deprecation(key: string, target: string | undefined, v?: DirectiveVariant): { since: string; use?: string } | undefined {
  const d = overrides.deprecated[key] ?? v?.deprecated;
  if (!d) return undefined;
  if (target && compareVersions(target, d.since) < 0) return undefined;
  return d;
}

export function docUrl(v: Pick<DirectiveVariant, 'module' | 'name' | 'load' | 'thirdParty'>): string {
  const own = loadableDocUrl(v);
  if (own) return own;
  if (v.module === 'Core functionality') return `https://nginx.org/en/docs/ngx_core_module.html#${v.name}`;
  const dir = v.module.startsWith('ngx_stream_')
    ? 'stream/'
    : v.module.startsWith('ngx_mail_')
      ? 'mail/'
      : v.module.startsWith('ngx_http_')
        ? 'http/'
        : '';
  return `https://nginx.org/en/docs/${dir}${v.module}.html#${v.name}`;
}

// ---------- facts per version, probed from the matrix binaries (versions.json) ----------

/**
 * Which probed binaries speak for a target version: its own branch's (1.26.x -> 1.26.3), the
 * oldest one for older targets, both neighbours for a target between two probed branches (then
 * only what both refuse is refused); none for a target newer than every probed binary or no
 * target at all (the documented tables are the newest syntax).
 */
export function probedFor(target: string | undefined): string[] {
  if (!target || !PROBED_VERSIONS.length) return [];
  const t = branch(target);
  const same = PROBED_VERSIONS.find((v) => branch(v) === t);
  if (same) return [same];
  if (compareVersions(t, branch(PROBED_VERSIONS[0])) < 0) return [PROBED_VERSIONS[0]];
  if (compareVersions(t, branch(PROBED_VERSIONS[PROBED_VERSIONS.length - 1])) > 0) return [];
  const i = PROBED_VERSIONS.findIndex((v) => compareVersions(branch(v), t) > 0);
  return [PROBED_VERSIONS[i - 1], PROBED_VERSIONS[i]];
}

/** Relaxations every probed binary agrees on apply at every target: contexts, counts, "is duplicate". */
function relaxForEveryVersion(name: string, list: DirectiveVariant[]): void {
  const f = versionFacts.directives[name];
  if (!f || !PROBED_VERSIONS.length) return;
  const knownBy = f.known ?? PROBED_VERSIONS;
  if (knownBy.length !== PROBED_VERSIONS.length) return;
  if (f.contexts) {
    const every = PROBED_VERSIONS.map((v) => f.contexts![v] ?? []).reduce((a, b) => a.filter((x) => b.includes(x)));
    addContexts(list, every);
  }
  if (f.arity && list.length === 1) {
    const all = PROBED_VERSIONS.map((v) => f.arity![v]).filter(Boolean);
    if (all.length === PROBED_VERSIONS.length) {
      const min = Math.max(...all.map((a) => a[0]));
      const max = all.some((a) => a[1] < 0) && all.every((a) => a[1] < 0) ? -1 : Math.min(...all.map((a) => (a[1] < 0 ? Infinity : a[1])));
      const v = list[0];
      if (min < v.min) v.min = min;
      if (v.max >= 0 && (max < 0 || max > v.max)) v.max = max;
    }
  }
  if (!overrides.duplicateCheck.includes(name) && !(f.duplicate ?? []).length) for (const v of list) v.duplicate = false;
}

function addContexts(list: DirectiveVariant[], contexts: string[]): void {
  for (const ctx of contexts) {
    if (list.some((v) => v.contexts.includes(ctx))) continue;
    const fam = familyOf(ctx);
    const v = list.find((x) => variantFamily(x) === fam) ?? list.find((x) => variantFamily(x) === 'core') ?? list[0];
    if (v) v.contexts = [...v.contexts, ctx];
  }
}

const atVersionCache = new Map<string, Map<string, DirectiveVariant[] | undefined>>();

/**
 * A directive's variants as the target version's binaries know them (versions.json): contexts,
 * argument counts, refused values and parameters, duplicates, and whether it exists at all.
 * Without probed facts for the target, the documented variants.
 */
export function directivesAt(name: string, target: string | undefined): DirectiveVariant[] | undefined {
  const base = DIRECTIVES.get(name);
  const f = versionFacts.directives[name];
  if (!base || !f || !target) return base;
  const probed = probedFor(target);
  if (!probed.length) return base;
  const key = probed.join(' ');
  let m = atVersionCache.get(key);
  if (!m) atVersionCache.set(key, (m = new Map()));
  if (m.has(name)) return m.get(name);
  const r = adjust(base, f, probed, target);
  m.set(name, r);
  return r;
}

function adjust(base: DirectiveVariant[], f: VersionFacts, probed: string[], target: string): DirectiveVariant[] {
  const knownBy = f.known ?? PROBED_VERSIONS;
  const knows = probed.filter((v) => knownBy.includes(v));
  if (!knows.length) {
    // not in the target's binaries: newer when a later binary has it, else removed
    const later = knownBy.filter((v) => compareVersions(v, probed[probed.length - 1]) > 0);
    if (later.length)
      return base.map((v) => ({
        ...v,
        since: v.since && compareVersions(v.since, target) > 0 ? v.since : later[0],
        firstSeenIn: later[0],
        knownIn: undefined,
      }));
    return base.map((v) => ({ ...v, until: v.until && compareVersions(v.until, target) <= 0 ? v.until : probed[0] }));
  }
  // known by the target's own branch's binary: present whatever the documented version says (a
  // backport), and not commercial-only; a target between two probed branches (or older than all)
  // keeps the documented bounds, which are finer than the probed versions
  const exact = probed.length === 1 && branch(probed[0]) === branch(target);
  const out = base.map((v) => ({ ...v, contexts: [...v.contexts] }));
  for (const v of out) {
    if (exact) {
      v.since = undefined;
      v.until = undefined;
      v.knownIn = undefined;
    }
    v.commercial = false;
  }
  if (f.contexts) {
    const allowed = new Set(knows.flatMap((v) => f.contexts![v] ?? []));
    for (const v of out) v.contexts = v.contexts.filter((c) => c === '*' || allowed.has(c) || !(c in CONTEXT_PROBED));
    addContexts(out, [...allowed]);
  }
  if (f.arity) {
    const ar = knows.map((v) => f.arity![v]).filter(Boolean);
    if (ar.length) {
      const ctx = ar[0][2];
      const v = out.find((x) => x.contexts.includes(ctx)) ?? (out.length === 1 ? out[0] : undefined);
      if (v) {
        v.min = Math.min(...ar.map((a) => a[0]));
        v.max = ar.some((a) => a[1] < 0) ? -1 : Math.max(...ar.map((a) => a[1]));
      }
    }
  }
  if (f.refuses) {
    const refused = knows.map((v) => f.refuses![v] ?? []).reduce((a, b) => a.filter((x) => b.includes(x)));
    if (refused.length) for (const v of out) v.refusedValues = refused;
  }
  if (f.params) {
    for (const [ctx, byVersion] of Object.entries(f.params)) {
      const refused = knows.map((v) => byVersion[v] ?? []).reduce((a, b) => a.filter((x) => b.includes(x)));
      if (!refused.length) continue;
      const v = out.find((x) => x.contexts.includes(ctx));
      if (!v) continue;
      v.refusedParams = {};
      for (const p of refused)
        v.refusedParams[p] = PROBED_VERSIONS.find((pv) => compareVersions(pv, target) > 0 && !(byVersion[pv] ?? []).includes(p));
    }
  }
  const dupIn = f.duplicate ?? [];
  const dup = knows.every((v) => dupIn.includes(v));
  const probedFamily = familyOf(f.arity?.[knows[0]]?.[2] ?? 'http');
  const forced = overrides.duplicateCheck.includes(out[0]?.name ?? '');
  for (const v of out) if (out.length === 1 || variantFamily(v) === probedFamily) v.duplicate = dup || forced;
  return out;
}

/** The contexts the probe asks about (others, like `types` or `block:...`, are kept from the docs). */
const CONTEXT_PROBED: Record<string, true> = Object.fromEntries(
  [
    'main',
    'events',
    'http',
    'server',
    'location',
    'if in server',
    'if in location',
    'limit_except',
    'upstream',
    'stream',
    'stream/server',
    'stream/upstream',
    'mail',
    'mail/server',
  ].map((c) => [c, true]),
);

/**
 * A `geo` / `map` block keyword (`volatile`, `ranges`...) the target's binaries do not know,
 * with the oldest probed binary that knows it; undefined when known (or not probed).
 */
export function entryKeywordMissing(block: string, keyword: string, target: string | undefined): { firstSeenIn?: string } | undefined {
  const known = versionFacts.entries[block]?.[keyword];
  if (!known || !target) return undefined;
  const probed = probedFor(target);
  if (!probed.length || probed.some((v) => known.includes(v))) return undefined;
  return { firstSeenIn: known.find((v) => compareVersions(v, target) > 0) };
}

// ---------------------------------------------------------------------------------------------
// Hand-kept groups of directive names (data/groups.json: what each group means is written there)

const groups = groupsJson as unknown as {
  mainMarkers: string[];
  mainBlocks: string[];
  pass: Record<string, { forwardsRequest: boolean }>;
  listenSocketOptions: string[];
  variableSetters: Record<string, number>;
  cachePaths: Record<string, string>;
  tempPaths: string[];
  storePaths: string[];
  keyLogs: string[];
  literalArgs: Record<string, true | number[]>;
};

/** Directives that mark a file as a main configuration file when found at its top level. */
export const MAIN_MARKERS: ReadonlySet<string> = new Set(groups.mainMarkers);
/** Blocks only a whole configuration opens at its top level (`events`, `http`, `stream`, `mail`). */
export const MAIN_BLOCKS: ReadonlySet<string> = new Set(groups.mainBlocks);

/** A whole nginx configuration rather than a fragment: it opens one of MAIN_BLOCKS at its top level. */
export function isMainConfig(top: readonly { name: string; block?: unknown; entry?: boolean }[]): boolean {
  return top.some((d) => !d.entry && !!d.block && MAIN_BLOCKS.has(d.name));
}
/** Directives that hand a request to an upstream group or an address (`proxy_pass`, `memcached_pass`...). */
export const PASS_DIRECTIVES: ReadonlySet<string> = new Set(Object.keys(groups.pass));
/** The pass directives that forward the client's request itself (all but `memcached_pass`), in table order. */
export const REQUEST_PASS_DIRECTIVES: readonly string[] = Object.keys(groups.pass).filter((n) => groups.pass[n].forwardsRequest);
/** `listen` parameters that are socket options; a trailing `=` takes a value. */
export const LISTEN_SOCKET_OPTIONS: readonly string[] = groups.listenSocketOptions;
/** Directive -> the argument that names the variable it defines (-1: the last). */
export const VARIABLE_SETTERS: ReadonlyMap<string, number> = new Map(Object.entries(groups.variableSetters));
/** `*_cache_path` -> the directive naming its keys zone. */
export const CACHE_PATHS: ReadonlyMap<string, string> = new Map(Object.entries(groups.cachePaths));
/** Directives naming a folder for buffered bodies (`proxy_temp_path`...), in table order. */
export const TEMP_PATH_DIRECTIVES: readonly string[] = groups.tempPaths;
/** Directives that save responses as files (`proxy_store`...). */
export const STORE_DIRECTIVES: ReadonlySet<string> = new Set(groups.storePaths);
/** Directives naming a TLS key log file. */
export const KEYLOG_DIRECTIVES: ReadonlySet<string> = new Set(groups.keyLogs);
const literalArgs: ReadonlyMap<string, true | number[]> = new Map(Object.entries(groups.literalArgs));

/** Whether argument `i` of a `name` directive is written literally (not an nginx script): regexes, code, names. */
export function isLiteralArg(name: string, i: number): boolean {
  const l = literalArgs.get(name);
  return l === true || (l !== undefined && l.includes(i));
}
