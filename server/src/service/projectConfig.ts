// The project config file, `.proxy-tuner.json`, found by walking up from a config file's folder
// (the first one found wins; nothing is merged across folders). Read by the command line for
// every file it checks or formats, and by the language server for every document, under the
// editor's own settings. Pure: the caller hands in a function that reads a file (or says there is
// none), so the service layer does no I/O.
//
//   {
//     "nginx":    { "version": "1.22.1" },
//     "haproxy":  { "version": "2.6" },
//     "rules":    { "nginx/access-log-unbuffered": "off", "haproxy/missing-timeout": "error" },
//     "ignore":   ["vendor/**", "*.bak"],
//     "contexts": { "conf.d/*.conf": "http", "snippets/*.conf": "server" },
//     "format":   { "indent": 4 }            (a number of spaces, or "tab")
//   }
//
// Globs are relative to the folder holding the file, with `/` as separator: `*` and `?` stay
// within a path segment, `**` spans segments, `{a,b}` is either. A glob without `/` matches the
// file name in any folder (`*.bak`), like a .gitignore line.
import { linearRegExp, type LinearRegExp } from '../languages/nginx/regex';
import type { RuleSeverity, ServiceSettings } from '../core/types';
import type { HostProbe } from './host';
import { mergeConfig, readLint, resolveSettings, type ProxyTunerConfig } from './settings';
import { NGINX_CONTEXTS } from '../languages/nginx/data';

export const PROJECT_CONFIG_NAME = '.proxy-tuner.json';

/** The nginx contexts a fragment can be read in (the values `contexts` may name). */
export const CONTEXT_NAMES: readonly string[] = NGINX_CONTEXTS;

const SEVERITIES = new Set<string>(['off', 'error', 'warning', 'information', 'hint']);

export interface ProjectConfig {
  /** The config file's own path. */
  file: string;
  /** The folder globs are relative to (`/`-separated, no trailing `/`). */
  dir: string;
  nginx?: { version?: string };
  /** `files`: groups of files HAProxy loads together (`-f global.cfg -f site.cfg`), absolute, in load order. */
  haproxy?: { version?: string; files?: string[][] };
  rules?: Record<string, RuleSeverity>;
  /** Rule selection (core/tiers.ts): `{select, extendSelect, ignore}`. */
  lint?: ProxyTunerConfig['lint'];
  ignore: string[];
  contexts: { glob: string; context: string }[];
  format?: { tabSize: number; insertSpaces: boolean };
  /** What was wrong in the file (each entry is left out, the rest is used). */
  problems: string[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const slash = (p: string) => p.replace(/\\/g, '/');

function parentDir(p: string): string {
  const s = slash(p).replace(/\/+$/, '');
  const i = s.lastIndexOf('/');
  if (i < 0) return '';
  if (i === 0) return '/';
  // `C:/x` -> `C:/`
  return /^[A-Za-z]:$/.test(s.slice(0, i)) ? `${s.slice(0, i)}/` : s.slice(0, i);
}

/**
 * Reads a project config's text. Throws an Error naming the file when the text is not a JSON
 * object (a broken config must not silently judge with defaults); a wrong entry inside it is
 * left out and listed in `problems`.
 */
export function parseProjectConfig(text: string, file: string): ProjectConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file}: not valid JSON (${(err as Error).message})`);
  }
  if (!isObject(raw)) throw new Error(`${file}: must hold a JSON object`);
  const problems: string[] = [];
  const dir = parentDir(file).replace(/\/+$/, '') || '/';
  const cfg: ProjectConfig = { file, dir, ignore: [], contexts: [], problems };
  const known = new Set(['$schema', 'nginx', 'haproxy', 'rules', 'lint', 'ignore', 'contexts', 'format']);
  for (const key of Object.keys(raw)) if (!known.has(key)) problems.push(`unknown key "${key}"`);
  for (const lang of ['nginx', 'haproxy'] as const) {
    const v = raw[lang];
    if (v === undefined) continue;
    if (!isObject(v)) {
      problems.push(`"${lang}" must be an object like {"version": "..."}`);
      continue;
    }
    if (v.version !== undefined) {
      if (typeof v.version === 'string' && /^\d+(\.\d+){0,2}$/.test(v.version.trim())) cfg[lang] = { version: v.version.trim() };
      else problems.push(`"${lang}.version" must be a version such as ${lang === 'nginx' ? '"1.22.1"' : '"2.6"'}`);
    }
    if (lang === 'haproxy' && v.files !== undefined) {
      // [["global.cfg", "site.cfg"], ...]: each group as `haproxy -f global.cfg -f site.cfg` loads it
      const groups: string[][] = [];
      const ok =
        Array.isArray(v.files) &&
        v.files.every((g) => Array.isArray(g) && g.length > 0 && g.every((f) => typeof f === 'string' && f.trim() !== ''));
      if (!ok) problems.push('"haproxy.files" must be an array of groups, each an array of paths HAProxy loads together');
      else
        for (const g of v.files as string[][])
          groups.push(
            g.map((f) =>
              slash(f.trim()).startsWith('/') ? slash(f.trim()) : `${dir === '/' ? '' : dir}/${slash(f.trim()).replace(/^\.\//, '')}`,
            ),
          );
      if (groups.length) cfg.haproxy = { ...cfg.haproxy, files: groups };
    }
  }
  if (raw.rules !== undefined) {
    if (!isObject(raw.rules)) problems.push('"rules" must be an object of rule id to severity');
    else {
      const rules: Record<string, RuleSeverity> = {};
      for (const [id, sev] of Object.entries(raw.rules)) {
        if (typeof sev === 'string' && SEVERITIES.has(sev)) rules[id] = sev as RuleSeverity;
        else problems.push(`"rules.${id}" must be one of off, error, warning, information, hint`);
      }
      cfg.rules = rules;
    }
  }
  if (raw.lint !== undefined) {
    if (!isObject(raw.lint))
      problems.push('"lint" must be an object with "select", "extendSelect" and "ignore" lists of rule ids or groups');
    else cfg.lint = readLint(raw.lint);
  }
  if (raw.ignore !== undefined) {
    if (!Array.isArray(raw.ignore)) problems.push('"ignore" must be an array of globs');
    else
      for (const g of raw.ignore)
        typeof g === 'string' && g.trim() ? cfg.ignore.push(g.trim()) : problems.push('"ignore" holds a non-string entry');
  }
  if (raw.contexts !== undefined) {
    if (!isObject(raw.contexts)) problems.push('"contexts" must be an object of glob to context');
    else {
      for (const [glob, ctx] of Object.entries(raw.contexts)) {
        if (typeof ctx === 'string' && CONTEXT_NAMES.includes(ctx)) cfg.contexts.push({ glob, context: ctx });
        else problems.push(`"contexts.${glob}" must be one of ${CONTEXT_NAMES.join(', ')}`);
      }
    }
  }
  if (raw.format !== undefined) {
    const indent = isObject(raw.format) ? raw.format.indent : undefined;
    if (indent === 'tab') cfg.format = { tabSize: 4, insertSpaces: false };
    else if (typeof indent === 'number' && Number.isInteger(indent) && indent >= 1 && indent <= 16)
      cfg.format = { tabSize: indent, insertSpaces: true };
    else problems.push('"format.indent" must be a number of spaces (1-16) or "tab"');
  }
  return cfg;
}

/** Reads a file's text, or undefined when there is none (the caller's I/O). */
export type ReadFile = (path: string) => string | undefined;

/**
 * The project config that applies to a file: `.proxy-tuner.json` in the file's folder, else in
 * the nearest folder above it. `cache` (by folder) spares re-reading for files of one tree.
 * Throws when the config found is not valid JSON (see parseProjectConfig).
 */
export function findProjectConfig(filePath: string, read: ReadFile, cache?: Map<string, ProjectConfig | null>): ProjectConfig | undefined {
  let dir = parentDir(slash(filePath));
  const visited: string[] = [];
  let found: ProjectConfig | null = null;
  for (let depth = 0; dir && depth < 64; depth++) {
    const hit = cache?.get(dir);
    if (hit !== undefined) {
      found = hit;
      break;
    }
    visited.push(dir);
    const file = `${dir.replace(/\/+$/, '')}/${PROJECT_CONFIG_NAME}`;
    const text = read(file);
    if (text !== undefined) {
      found = parseProjectConfig(text, file);
      break;
    }
    const up = parentDir(dir);
    if (up === dir) break;
    dir = up;
  }
  for (const d of visited) cache?.set(d, found);
  return found ?? undefined;
}

/**
 * A glob as a regular expression over `/`-separated relative paths. Made anew at each call (no
 * module-level cache in the service): a config has a few globs, and a settings resolution asks
 * each once (a few microseconds). Run in linear time (a glob of many `**` on a deep path is no hang).
 */
export function globToRegExp(glob: string): LinearRegExp {
  let g = slash(glob.trim()).replace(/^\.\//, '');
  const anywhere = !g.replace(/\/+$/, '').includes('/');
  const dirOnly = g.endsWith('/');
  g = g.replace(/^\/+/, '').replace(/\/+$/, '');
  let out = '';
  for (let i = 0; i < g.length; i++) {
    const c = g[i];
    if (c === '*') {
      if (g[i + 1] === '*') {
        // `**/` spans any number of folders (none too); a trailing `**` anything below
        if (g[i + 2] === '/') {
          out += '(?:[^/]*/)*';
          i += 2;
        } else {
          out += '.*';
          i += 1;
        }
      } else out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else if (c === '{') {
      const close = g.indexOf('}', i);
      if (close < 0) out += '\\{';
      else {
        out += `(?:${g
          .slice(i + 1, close)
          .split(',')
          .map((alt) =>
            alt
              .replace(/[.+^$()|[\]\\]/g, '\\$&')
              .replace(/\*/g, '[^/]*')
              .replace(/\?/g, '[^/]'),
          )
          .join('|')})`;
        i = close;
      }
    } else out += c.replace(/[.+^$()|[\]\\{}]/g, '\\$&');
  }
  // a folder pattern (`vendor/`, or any pattern matching a folder) covers what is below it
  const tail = dirOnly ? '/.*' : '(?:/.*)?';
  return linearRegExp(`^${anywhere ? '(?:.*/)?' : ''}${out}${tail}$`);
}

/** The path of `file` relative to the config's folder, or undefined when it is not below it. */
export function relativeToConfig(cfg: ProjectConfig, file: string): string | undefined {
  const f = slash(file);
  const base = cfg.dir === '/' ? '/' : `${cfg.dir}/`;
  return f.startsWith(base) ? f.slice(base.length) : undefined;
}

/** Whether the config's `ignore` globs leave `file` out. */
export function isIgnored(cfg: ProjectConfig | undefined, file: string): boolean {
  if (!cfg || cfg.ignore.length === 0) return false;
  const rel = relativeToConfig(cfg, file);
  return rel !== undefined && cfg.ignore.some((g) => globToRegExp(g).test(rel));
}

/** The context the config gives an nginx fragment at `file` (the first matching glob), if any. */
export function contextFor(cfg: ProjectConfig | undefined, file: string): string | undefined {
  if (!cfg) return undefined;
  const rel = relativeToConfig(cfg, file);
  if (rel === undefined) return undefined;
  return cfg.contexts.find((c) => globToRegExp(c.glob).test(rel))?.context;
}

/** The config's versions and rule severities as the settings' `ProxyTunerConfig` (what the editor's settings go over). */
export function projectSettings(cfg: ProjectConfig | undefined): ProxyTunerConfig {
  const out: ProxyTunerConfig = {};
  if (!cfg) return out;
  if (cfg.nginx?.version) out.nginx = { version: cfg.nginx.version };
  if (cfg.haproxy?.version) out.haproxy = { version: cfg.haproxy.version };
  if (cfg.rules && Object.keys(cfg.rules).length) out.rules = { ...cfg.rules };
  if (cfg.lint) out.lint = cfg.lint;
  return out;
}

/** A file's configuration: the project config's settings under the caller's own (the editor's settings, the command line's flags). */
export function fileConfig(cfg: ProjectConfig | undefined, over: ProxyTunerConfig): ProxyTunerConfig {
  return mergeConfig(projectSettings(cfg), over);
}

/**
 * A file's settings, resolved the one way the editor and `proxy-tuner check` share: its
 * configuration (fileConfig), the host's probes for what that leaves open (the local versions,
 * cores and somaxconn, the installed modules), and the nginx context the project config gives it.
 */
export function fileSettings(
  cfg: ProjectConfig | undefined,
  file: string | undefined,
  over: ProxyTunerConfig,
  probe: HostProbe,
): ServiceSettings {
  const settings = resolveSettings(fileConfig(cfg, over), probe.version, probe.hostFacts, probe.nginxModules);
  const context = file ? contextFor(cfg, file) : undefined;
  if (context) settings.nginxContext = context;
  return settings;
}
