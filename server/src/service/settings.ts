// User settings (`proxyTuner.*` in package.json) to ServiceSettings. Plain data in, plain data
// out: the LSP adapter feeds it what `workspace/configuration` or `initializationOptions` gave,
// the command line feeds it its flags. Anything malformed is ignored rather than trusted.
import type { RuleSeverity, ServiceSettings } from '../core/types';
import type { HostFactsProbe, NginxModulesProbe, VersionProbe } from './host';

export type { VersionProbe } from './host';

/** The `proxyTuner` section as a client sends it (every field optional, any field may be junk). */
export interface ProxyTunerConfig {
  nginx?: { version?: string; path?: string };
  haproxy?: { version?: string; path?: string };
  rules?: Record<string, RuleSeverity>;
  /** Rule selection as ruff spells it (core/tiers.ts): `select` (default `["default"]`), `extendSelect`, `ignore`. */
  lint?: { select?: string[]; extendSelect?: string[]; ignore?: string[] };
  /**
   * `delay`: ms a document must rest after an edit before it is validated (the language server's);
   * `maxPerDocument`: most diagnostics published for one document.
   */
  diagnostics?: { delay?: number; maxPerDocument?: number };
  /** `defaults`: inlay hints for the effective defaults of what a config leaves out (default on). */
  inlayHints?: { defaults?: boolean };

  /** `followSymlinks`: the workspace index follows symbolic links that lead out of the workspace folders. */
  workspace?: { followSymlinks?: boolean };
}

/** The largest `diagnostics.delay` taken; more is read as this. */
export const MAX_DIAGNOSTICS_DELAY_MS = 10_000;
/** The bounds of `diagnostics.maxPerDocument`. */
export const MAX_DIAGNOSTICS_PER_DOCUMENT = 100_000;

const SEVERITIES = new Set<RuleSeverity>(['off', 'error', 'warning', 'information', 'hint']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/**
 * Reads the `proxyTuner` section from what a client sent: the section itself
 * (`{nginx: {version}}`), an object holding it (`{proxyTuner: {...}}`), or flat dotted keys
 * (`{"proxyTuner.nginx.version": "1.22"}`), which some clients send in `initializationOptions`.
 */
export function readConfig(raw: unknown): ProxyTunerConfig {
  if (!isObject(raw)) return {};
  let section: Record<string, unknown> = isObject(raw.proxyTuner) ? raw.proxyTuner : raw;
  const flat = Object.keys(raw).filter((k) => k.startsWith('proxyTuner.'));
  if (flat.length) {
    section = { ...section };
    for (const key of flat) {
      const path = key.split('.').slice(1);
      let node: Record<string, unknown> = section;
      for (const part of path.slice(0, -1)) {
        node[part] = isObject(node[part]) ? { ...(node[part] as Record<string, unknown>) } : {};
        node = node[part] as Record<string, unknown>;
      }
      node[path[path.length - 1]] = raw[key];
    }
  }
  const out: ProxyTunerConfig = {};
  for (const lang of ['nginx', 'haproxy'] as const) {
    const v = section[lang];
    if (isObject(v)) out[lang] = { version: str(v.version), path: str(v.path) };
  }
  if (isObject(section.rules)) {
    const rules: Record<string, RuleSeverity> = {};
    for (const [id, sev] of Object.entries(section.rules)) {
      if (typeof sev === 'string' && SEVERITIES.has(sev as RuleSeverity)) rules[id] = sev as RuleSeverity;
    }
    out.rules = rules;
  }
  if (isObject(section.lint)) {
    const lint = readLint(section.lint);
    if (lint) out.lint = lint;
  }
  const delay = isObject(section.diagnostics) ? section.diagnostics.delay : undefined;
  if (typeof delay === 'number' && Number.isFinite(delay) && delay >= 0)
    out.diagnostics = { delay: Math.min(delay, MAX_DIAGNOSTICS_DELAY_MS) };
  const max = isObject(section.diagnostics) ? section.diagnostics.maxPerDocument : undefined;
  if (typeof max === 'number' && Number.isFinite(max) && max >= 1)
    out.diagnostics = { ...out.diagnostics, maxPerDocument: Math.min(Math.floor(max), MAX_DIAGNOSTICS_PER_DOCUMENT) };
  const hints = isObject(section.inlayHints) ? section.inlayHints.defaults : undefined;
  if (typeof hints === 'boolean') out.inlayHints = { defaults: hints };

  const follow = isObject(section.workspace) ? section.workspace.followSymlinks : undefined;
  if (typeof follow === 'boolean') out.workspace = { followSymlinks: follow };
  return out;
}

const selectors = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim()) : undefined;

/** `{select, extendSelect | extend-select, ignore}`: lists of selectors; anything else is dropped. */
export function readLint(raw: Record<string, unknown>): ProxyTunerConfig['lint'] {
  const out: NonNullable<ProxyTunerConfig['lint']> = {};
  const select = selectors(raw.select);
  const extend = selectors(raw.extendSelect ?? raw['extend-select']);
  const ignore = selectors(raw.ignore);
  if (select) out.select = select;
  if (extend) out.extendSelect = extend;
  if (ignore) out.ignore = ignore;
  return Object.keys(out).length ? out : undefined;
}

/** `over` wins field by field; what it leaves out comes from `base` (e.g. initializationOptions). */
export function mergeConfig(base: ProxyTunerConfig, over: ProxyTunerConfig): ProxyTunerConfig {
  const out: ProxyTunerConfig = {};
  for (const lang of ['nginx', 'haproxy'] as const) {
    const version = over[lang]?.version ?? base[lang]?.version;
    const path = over[lang]?.path ?? base[lang]?.path;
    if (version !== undefined || path !== undefined) out[lang] = { version, path };
  }
  if (base.rules || over.rules) out.rules = { ...base.rules, ...over.rules };
  if (base.lint || over.lint) {
    // `select` replaces; the extensions and ignores of both apply
    const select = over.lint?.select ?? base.lint?.select;
    const extendSelect = [...(base.lint?.extendSelect ?? []), ...(over.lint?.extendSelect ?? [])];
    const ignore = [...(base.lint?.ignore ?? []), ...(over.lint?.ignore ?? [])];
    out.lint = { ...(select ? { select } : {}), ...(extendSelect.length ? { extendSelect } : {}), ...(ignore.length ? { ignore } : {}) };
  }
  const delay = over.diagnostics?.delay ?? base.diagnostics?.delay;
  if (delay !== undefined) out.diagnostics = { delay };
  const max = over.diagnostics?.maxPerDocument ?? base.diagnostics?.maxPerDocument;
  if (max !== undefined) out.diagnostics = { ...out.diagnostics, maxPerDocument: max };
  const hints = over.inlayHints?.defaults ?? base.inlayHints?.defaults;
  if (hints !== undefined) out.inlayHints = { defaults: hints };

  const follow = over.workspace?.followSymlinks ?? base.workspace?.followSymlinks;
  if (follow !== undefined) out.workspace = { followSymlinks: follow };
  return out;
}

/** No local binary: the newest known version. */
const NO_VERSION: VersionProbe = () => undefined;

/** Defines `key` on `target` as computed on first read, then a plain value. */
function lazyValue<T extends object, K extends keyof T>(target: T, key: K, compute: () => T[K]): void {
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get() {
      const value = compute();
      Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
      return value;
    },
    set(value: T[K]) {
      Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
    },
  });
}

/**
 * The settings the service judges with. An empty version setting falls back to the local
 * binary's version (`nginx -v` / `haproxy -v`), and to undefined (the newest known) without one.
 * The binary is asked when the version is first read: checking nginx files never runs
 * `haproxy -v`, and the other way round. The probes come from the caller (host/nodeHost.ts
 * `nodeHostProbe` asks the local binaries and machine; none: no local facts at all).
 */
export function resolveSettings(
  config: ProxyTunerConfig,
  probe: VersionProbe = NO_VERSION,
  hostProbe?: HostFactsProbe,
  modulesProbe?: NginxModulesProbe,
): ServiceSettings {
  const settings = {} as ServiceSettings;
  lazyValue(settings, 'nginxVersion', () => config.nginx?.version ?? probe('nginx', config.nginx?.path));
  lazyValue(settings, 'haproxyVersion', () => config.haproxy?.version ?? probe('haproxy', config.haproxy?.path));
  if (config.rules && Object.keys(config.rules).length) settings.rules = { ...config.rules };
  // the user's rule selection: the default set unless told otherwise (core/tiers.ts)
  settings.lint = {
    select: config.lint?.select ?? ['default'],
    ...(config.lint?.extendSelect ? { extendSelect: config.lint.extendSelect } : {}),
    ...(config.lint?.ignore ? { ignore: config.lint.ignore } : {}),
  };
  if (config.inlayHints?.defaults === false) settings.inlayHintsDefaults = false;
  if (config.diagnostics?.maxPerDocument !== undefined) settings.maxDiagnostics = config.diagnostics.maxPerDocument;
  // host-aware rules (backlog vs somaxconn, nbthread vs cores): facts of the local machine
  const host = hostProbe?.();
  if (host) settings.host = host;
  // the local nginx's loadable modules, for the load_module quick fix: `nginx -V` runs only when a
  // directive of a module the config does not load is met
  if (modulesProbe) lazyValue(settings, 'nginxModules', () => modulesProbe(config.nginx?.path));
  return settings;
}
