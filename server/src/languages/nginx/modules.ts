// Loadable nginx modules: Debian's third-party modules (libnginx-mod-*; their directives in the
// generated data/modules.json, read from each module's own command table) and the standard
// modules that exist only as `.so` files to load (njs). A variant of such a module carries
// `load` (its `.so` base name): nginx knows the directive only when a `load_module` line (in
// the configuration or a file it includes, such as Debian's modules-enabled/*.conf) loads it.
// Pure: which modules are loaded is worked out from parsed files; which are installed on this
// machine comes in as facts (ModuleHostFacts), never read here.
import modulesJson from './data/modules.json';
import type { Directive, NginxFile } from './ast';
import type { DirectiveVariant } from './directiveTypes';

export interface LoadableModule {
  /** `.so` base name (`ngx_http_headers_more_filter_module`). */
  so: string;
  /** Short name (`headers-more`). */
  name: string;
  title: string;
  /** The Debian package shipping it. */
  package: string;
  /** Debian suites that package it. */
  suites: string[];
  /** Modules that must be loaded before it (`.so` base names). */
  requires: string[];
  doc: string;
  source?: { repo: string; commit: string; files: string[] };
  /** Directives the build a Debian suite packages lacks (an older release than the source read), by suite. */
  missingIn?: Record<string, string[]>;
  /** Variables the module registers (its `ngx_http_variable_t` table). */
  variables?: { name: string; prefix: boolean }[];
}

interface RawModuleRow {
  so: string;
  contexts: string[];
  block: boolean;
  min: number;
  max: number;
  flag?: boolean;
  counts?: number[];
}

const raw = modulesJson as unknown as {
  modules: Record<string, Omit<LoadableModule, 'so'>>;
  directives: Record<string, RawModuleRow[]>;
};

export const LOADABLE_MODULES: ReadonlyMap<string, LoadableModule> = new Map(
  Object.entries(raw.modules).map(([so, m]) => [so, { so, ...m }]),
);

/**
 * Standard modules the core tables describe that nginx builds only as loadable modules (njs is
 * a separate project whose module every distribution ships as a `.so`): module -> `.so`.
 */
const LOADABLE_CORE_MODULES: Record<string, string> = {
  ngx_http_js_module: 'ngx_http_js_module',
  ngx_stream_js_module: 'ngx_stream_js_module',
};

/** The names loadable third-party modules define (data/modules.json), in its order. */
export const LOADABLE_DIRECTIVE_NAMES: readonly string[] = Object.keys(raw.directives).filter((n) => raw.directives[n].length > 0);

/**
 * Adds the loadable modules to one name's variants: marks its core variants of loadable standard
 * modules and adds a variant per third-party command-table row (a name the core tables already
 * give for the same module keeps the core row, which knows versions and values).
 */
export function addLoadableVariants(name: string, list: DirectiveVariant[]): void {
  for (const v of list) if (LOADABLE_CORE_MODULES[v.module]) v.load = LOADABLE_CORE_MODULES[v.module];
  const rows = Object.prototype.hasOwnProperty.call(raw.directives, name) ? raw.directives[name] : [];
  for (const r of rows) {
    const core = list.filter((v) => v.load === r.so && !v.thirdParty);
    if (core.length) {
      // argument counts are the command table's, which nginx checks with: the reference's syntax
      // line reads `js_fetch_protocols [TLSv1] ...` as 0-4 arguments (the table: 1 or more) and
      // `js_import module.js | export_name from module.js` as 1 (the table: 1 or 3)
      for (const v of core) {
        v.min = r.min;
        v.max = r.max;
      }
      continue;
    }
    // TAKE13-like tables (1 or 3 arguments, not 2): one variant per count
    const counts = r.counts ?? [undefined];
    for (const n of counts) {
      list.push({
        name,
        module: r.so,
        contexts: r.contexts,
        block: r.block,
        min: n ?? r.min,
        max: n ?? r.max,
        flag: r.flag,
        commercial: false,
        duplicate: false,
        load: r.so,
        thirdParty: true,
      });
    }
  }
}

const loadableVariables = new Map<string, { name: string; module: string; prefix: boolean }>();
const loadablePrefixes: { name: string; module: string; prefix: boolean }[] = [];
for (const m of LOADABLE_MODULES.values()) {
  for (const v of m.variables ?? []) {
    const row = { name: v.name, module: m.so, prefix: v.prefix };
    if (v.prefix) loadablePrefixes.push(row);
    else loadableVariables.set(v.name, row);
  }
}

/** A variable a third-party module registers (`$srcache_expire`, `$echo_timer_elapsed`), by exact name or prefix. */
export function loadableVariable(lower: string): { name: string; module: string; prefix: boolean } | undefined {
  const exact = loadableVariables.get(lower);
  if (exact) return exact;
  for (const p of loadablePrefixes) if (lower.startsWith(p.name)) return p;
  return undefined;
}

/** The module's own documentation for a variant of a loadable third-party module. */
export function loadableDocUrl(v: Pick<DirectiveVariant, 'load' | 'thirdParty' | 'name'>): string | undefined {
  if (!v.thirdParty || !v.load) return undefined;
  return LOADABLE_MODULES.get(v.load)?.doc;
}

/** What this machine's nginx has of the loadable modules (from the host probe; see binaryFacts.ts). */
export interface ModuleHostFacts {
  /** `.so` base names in the local nginx's modules folder. */
  installed: readonly string[];
  /** `.so` base names the system loads for every config (Debian's modules-enabled). */
  enabled?: readonly string[];
  /** Module sources compiled into the binary (`nginx -V`'s `--add-module=` paths: OpenResty builds lua in). */
  added?: readonly string[];
}

/** The loadable modules a binary has compiled in, from its `--add-module=` paths (`../ngx_lua-0.10.26`, `../headers-more-nginx-module-0.37`). */
export function builtInModules(added: readonly string[] | undefined): string[] {
  if (!added?.length) return [];
  const out: string[] = [];
  for (const m of LOADABLE_MODULES.values()) {
    const repo = m.source?.repo.split('/').pop()?.toLowerCase();
    const short = `ngx_${m.name.replace(/-/g, '_')}`;
    const hit = added.some((p) => {
      const parts = p.toLowerCase().split('/').filter(Boolean);
      const base = parts[parts.length - 1] === 'nginx' ? (parts[parts.length - 2] ?? '') : (parts[parts.length - 1] ?? '');
      if (m.name === 'njs' || m.name === 'njs-stream') return base === 'njs' || base.startsWith('njs-');
      return (repo !== undefined && base.startsWith(repo)) || base === short || base.startsWith(`${short}-`);
    });
    if (hit) out.push(m.so);
  }
  return out;
}

/** Which loadable modules a configuration loads. */
export interface ModuleLoadState {
  /** `.so` base names named by `load_module` lines read in the main context. */
  loaded: ReadonlySet<string>;
  /**
   * True when the configuration may load modules this state cannot see (a fragment whose main
   * file is not known, an `include` in the main context whose files are not read): then every
   * module counts as possibly loaded.
   */
  unknown: boolean;
}

export const UNKNOWN_LOAD_STATE: ModuleLoadState = { loaded: new Set(), unknown: true };

/** `modules/ngx_x_module.so` -> `ngx_x_module`. */
export function soBaseName(path: string): string {
  const base = path.split('/').pop() ?? '';
  return base.replace(/\.so$/, '');
}

/** The `load_module` directives and the `include`s read in the main context of a file. */
export function mainLoadSites(file: NginxFile): { loads: Directive[]; includes: Directive[] } {
  const loads: Directive[] = [];
  const includes: Directive[] = [];
  for (const d of file.directives) {
    if (d.entry) continue;
    if (d.name === 'load_module' && d.args[0]) loads.push(d);
    else if (d.name === 'include' && d.args[0]) includes.push(d);
  }
  return { loads, includes };
}

/**
 * The load state of files read together: `files` with the context each is read in (only files
 * read in `main` can load modules); `unresolvedIncludes` says whether some `include` in the main
 * context has files this list lacks (then any module may be loaded). A file standing alone: its
 * own lines, and unknown when it is a fragment or includes anything in the main context.
 */
export function loadStateOf(
  files: readonly { ast: NginxFile; context: string | undefined }[],
  unresolvedIncludes: boolean,
): ModuleLoadState {
  const loaded = new Set<string>();
  let unknown = unresolvedIncludes;
  let anyMain = false;
  for (const f of files) {
    if (f.context !== 'main') continue;
    anyMain = true;
    for (const d of mainLoadSites(f.ast).loads) loaded.add(soBaseName(d.args[0].value));
  }
  if (!anyMain) unknown = true;
  return { loaded, unknown };
}

/** A file judged on its own in `context`. */
export function standaloneLoadState(file: NginxFile, context: string): ModuleLoadState {
  if (context !== 'main') return UNKNOWN_LOAD_STATE;
  const { includes } = mainLoadSites(file);
  return loadStateOf([{ ast: file, context }], includes.length > 0);
}

/** A stable key of a load state (the validation's per-state tables). */
export function loadStateKey(s: ModuleLoadState | undefined): string {
  if (!s || s.unknown) return '*';
  return [...s.loaded].sort().join(',');
}

/** Whether a variant can be used under a load state. */
export function variantLoaded(v: Pick<DirectiveVariant, 'load'>, s: ModuleLoadState | undefined): boolean {
  return !v.load || !s || s.unknown || s.loaded.has(v.load);
}

/** The modules to load for `so`, dependencies first, leaving out those already loaded. */
export function modulesToLoad(so: string, s: ModuleLoadState): string[] {
  const out: string[] = [];
  const visit = (x: string, depth: number): void => {
    if (depth > 4 || out.includes(x) || s.loaded.has(x)) return;
    for (const r of LOADABLE_MODULES.get(x)?.requires ?? []) visit(r, depth + 1);
    out.push(x);
  };
  visit(so, 0);
  return out;
}

/** Where `load_module` lines go in a main file: after its last `load_module` (or modules include), else before its first directive. */
export function loadInsertOffset(file: NginxFile): { offset: number; before: boolean } {
  let last: Directive | undefined;
  for (const d of file.directives) {
    if (d.entry) continue;
    if (d.name === 'load_module' || (d.name === 'include' && /modules/.test(d.args[0]?.value ?? ''))) last = d;
  }
  if (last) return { offset: last.end, before: false };
  const first = file.directives.find((d) => !d.entry);
  if (!first) return { offset: 0, before: true };
  // the start of the first directive's line
  const text = file.text;
  let o = first.start;
  while (o > 0 && text[o - 1] !== '\n') o--;
  return { offset: o, before: true };
}

/** A human description of a loadable module for messages: `the third-party headers-more module (ngx_http_headers_more_filter_module.so)`. */
export function describeModule(so: string): string {
  const m = LOADABLE_MODULES.get(so);
  if (!m) return `${so}.so`;
  const third = m.name.startsWith('njs') ? 'the njs' : `the third-party ${m.name}`;
  return `${third} module (${so}.so)`;
}

/** Hover facts of a loadable module's directive: the module, how to load it, where it is packaged. */
export function loadableFacts(v: Pick<DirectiveVariant, 'load' | 'thirdParty' | 'min' | 'max' | 'name'>): string[] {
  if (!v.load) return [];
  const m = LOADABLE_MODULES.get(v.load);
  const out: string[] = [];
  if (m && v.thirdParty) out.push(`**Third-party module:** [${m.title}](${m.doc})`);
  if (v.thirdParty) out.push(`**Arguments:** ${v.max < 0 ? `${v.min} or more` : v.min === v.max ? `${v.min}` : `${v.min} to ${v.max}`}`);
  out.push(
    `**Load with:** \`load_module modules/${v.load}.so;\`${m ? ` (Debian: \`${m.package}\`, which enables it in modules-enabled)` : ''}`,
  );
  const missing = Object.entries(m?.missingIn ?? {})
    .filter(([, names]) => names.includes(v.name))
    .map(([suite]) => suite);
  if (missing.length) out.push(`**Not in Debian's package for:** ${missing.join(', ')} (an older release of the module)`);
  return out;
}

let standardModules: Set<string> | undefined;

/**
 * Whether every module a load state loads is one whose directives the tables hold (a third-party
 * module of modules.json, or a standard module): then a name none of them defines is unknown to
 * nginx. A `.so` of some other module (built by hand) may define anything.
 */
export function allLoadedKnown(s: ModuleLoadState, coreModules: () => Iterable<string> = () => []): boolean {
  for (const so of s.loaded) {
    if (LOADABLE_MODULES.has(so)) continue;
    if (!standardModules) {
      standardModules = new Set(['ngx_stream_module', 'ngx_mail_module', 'ngx_http_xslt_filter_module', 'ngx_http_image_filter_module']);
      for (const m of coreModules()) standardModules.add(m);
    }
    if (!standardModules.has(so)) return false;
  }
  return true;
}

/**
 * A `load_module` line whose module needs another (`requires`) not loaded before it: nginx's
 * dlopen() fails there. Before it means an earlier `load_module` of the same list, or, when the
 * requirement is not loaded in this list at all, anywhere in the configuration (the load state:
 * Debian's modules-enabled files are read in name order, ndk's `10-` before lua's `50-`).
 */
export function loadOrderFinding(
  d: Directive,
  list: readonly Directive[],
  index: number,
  s: ModuleLoadState,
):
  | {
      ruleId: 'nginx/module-order';
      start: number;
      end: number;
      message: string;
      fixes?: { title: string; edits: { start: number; end: number; newText: string }[]; safe: boolean }[];
    }
  | undefined {
  const so = soBaseName(d.args[0].value);
  const m = LOADABLE_MODULES.get(so);
  if (!m || !m.requires.length) return undefined;
  const before = new Set<string>();
  const after = new Set<string>();
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x.entry || x.name !== 'load_module' || !x.args[0]) continue;
    if (i < index) before.add(soBaseName(x.args[0].value));
    else if (i > index) after.add(soBaseName(x.args[0].value));
  }
  const missing = m.requires.filter((r) => !before.has(r) && (after.has(r) || (!s.unknown && !s.loaded.has(r))));
  if (!missing.length) return undefined;
  const dir = d.args[0].value.includes('/') ? d.args[0].value.slice(0, d.args[0].value.lastIndexOf('/') + 1) : '';
  const lines = missing.map((r) => `load_module ${dir}${r}.so;\n`).join('');
  return {
    ruleId: 'nginx/module-order',
    start: d.nameStart,
    end: d.args[0].end,
    message: `${so}.so needs ${missing.map((r) => `${r}.so`).join(' and ')} loaded before it (nginx's dlopen() fails: undefined symbol)`,
    fixes:
      after.size && missing.every((r) => after.has(r))
        ? undefined
        : [{ title: `Load ${missing.join(', ')} first`, edits: [{ start: d.start, end: d.start, newText: lines }], safe: false }],
  };
}

/** A syntax line for a third-party directive from its command table's shape (`brotli on | off;`, `more_set_headers value ...;`, `content_by_lua_block { ... }`). */
export function loadableSyntax(v: Pick<DirectiveVariant, 'name' | 'thirdParty' | 'flag' | 'block' | 'min' | 'max'>): string | undefined {
  if (!v.thirdParty) return undefined;
  if (v.flag) return `${v.name} on | off;`;
  const words: string[] = [];
  for (let i = 0; i < v.min; i++) words.push('value');
  if (v.max < 0) words.push(v.min ? '...' : '[value ...]');
  else for (let i = v.min; i < v.max; i++) words.push('[value]');
  const head = [v.name, ...words].join(' ');
  return v.block ? `${head} { ... }` : `${head};`;
}
