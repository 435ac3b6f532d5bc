// The nginx knowledge tables: generated JSON (directives.json, variables.json) with the hand
// kept overrides.json applied, indexed once at load time.
import directivesJson from './data/directives.json';
import variablesJson from './data/variables.json';
import overridesJson from './data/overrides.json';
import { compareVersions } from '../service/version';
import { addLoadableModules, loadableDocUrl, loadableVariable } from './modules';

export type ValueType = 'size' | 'time' | 'number';

export interface ArgType {
  types: ValueType[];
  /** Literal values accepted besides the typed ones (e.g. `auto`, `off`). */
  values: string[];
}

/** One module's definition of a directive (a name can have several: http, stream, mail...). */
export interface DirectiveVariant {
  name: string;
  module: string;
  /** Our context names (see blockContext in ast.ts); `*` is anywhere. */
  contexts: string[];
  block: boolean;
  min: number;
  /** -1: no upper bound. */
  max: number;
  flag?: boolean;
  /** Every argument must be one of these (flag and enum directives). */
  values?: string[];
  /** Per position; null: not checked. */
  argTypes?: (ArgType | null)[];
  default?: string;
  /** Version the directive (or its module) appeared in; undefined: long ago. */
  since?: string;
  /** First version without it. */
  until?: string;
  /** Obsolete from this version on (nginx warns), with the replacement the docs name. */
  deprecated?: { since: string; use?: string };
  /** Only in the commercial subscription. */
  commercial: boolean;
  /** Keyword parameters (`ssl`, `backlog=`) with the version they appeared in ('' = long ago). */
  params?: Record<string, string>;
  /** nginx rejects a second one in the same block ("is duplicate"). */
  duplicate?: boolean;
  /** A binary of this version was seen to accept it despite `since` (a distribution backport). */
  knownIn?: string;
  /** The `.so` (base name) nginx must load for it: a loadable module's directive (see modules.ts). */
  load?: string;
  /** From a third-party module's command table (data/modules.json) rather than nginx's reference. */
  thirdParty?: boolean;
}

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
  deprecated: Record<string, { since: string; use?: string }>;
  thirdPartyVariablePrefixes: string[];
  noDuplicateCheck: string[];
  duplicateCheck: string[];
};

const commercialModules = new Set(overrides.commercialModules);
const commercialDirectives = new Set(overrides.commercialDirectives);

function later(a: string | undefined, b: string | undefined): string | undefined {
  if (!a) return b;
  if (!b) return a;
  return compareVersions(a, b) >= 0 ? a : b;
}

/** name -> variants */
export const DIRECTIVES: ReadonlyMap<string, DirectiveVariant[]> = (() => {
  const map = new Map<string, DirectiveVariant[]>();
  const json = directivesJson as unknown as {
    directives: Record<string, RawRow[]>;
    probe?: {
      version?: string;
      extraContexts: Record<string, string[]>;
      knownDespiteVersion: string[];
      duplicateInBlock?: { http: string[]; stream: string[] };
    };
  };
  const raw: Record<string, RawRow[]> = { ...json.directives, ...overrides.extraDirectives };
  for (const [name, rows] of Object.entries(raw)) {
    const list: DirectiveVariant[] = [];
    for (const r of rows) {
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
      const probe = json.probe;
      const dup = probe?.duplicateInBlock;
      if (dup) {
        const list = v.module.startsWith('ngx_stream_') ? dup.stream : v.module.startsWith('ngx_http_') ? dup.http : [];
        v.duplicate = list.includes(name) || overrides.duplicateCheck.includes(name);
      } else v.duplicate = overrides.duplicateCheck.includes(name) || (!!v.flag && v.max === 1);
      if (probe && v.module.startsWith('ngx_http_')) {
        const extra = probe.extraContexts[name];
        if (extra) v.contexts = [...new Set([...v.contexts, ...extra])];
        if (probe.version && probe.knownDespiteVersion.includes(name)) v.knownIn = probe.version;
      }
      list.push(v);
    }
    map.set(name, list);
  }
  addLoadableModules(map);
  return map;
})();

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
  const dir = v.module.startsWith('ngx_stream_') ? 'stream/' : v.module.startsWith('ngx_mail_') ? 'mail/' : v.module.startsWith('ngx_http_') ? 'http/' : '';
  return `https://nginx.org/en/docs/${dir}${v.module}.html#${v.name}`;
}
