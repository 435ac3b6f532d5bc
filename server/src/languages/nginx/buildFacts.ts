// What a build of nginx has (`nginx -V`: configure arguments `--with-X_module` built in,
// `--with-X_module=dynamic` / `--add-dynamic-module` built as loadable modules, `--without-X` left
// out; the `.so` files of its modules folder; the modules a Debian system enables for every config),
// and the information diagnostics of a parsed file against those facts: a directive whose module
// the build lacks, or has as a dynamic module the config does not load. Pure: the facts come in
// (server/src/host/binaryFacts.ts probes the local nginx).
import type { Diagnostic } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { childContext, type Directive, type NginxFile } from './ast';
import { DIRECTIVES } from './data';
import type { NginxRuleId } from './rules';

export interface NginxBuildFacts {
  version?: string;
  /** Modules compiled into the binary by a `--with-...` option (`ngx_http_ssl_module`). */
  builtIn: string[];
  /** Modules built as loadable `.so` files (`ngx_http_geoip_module`, `ngx_stream_module`). */
  dynamic: string[];
  /** `.so` files present in the modules folder (base names); undefined: not looked at (all of `dynamic` assumed there). */
  installed?: string[];
  /** Default modules left out (`--without-http_gzip_module` → `ngx_http_gzip_module`). */
  without: string[];
  /** Third-party module sources (`--add-module`, `--add-dynamic-module`) as given. */
  added: string[];
  modulesPath?: string;
  /** `.so` base names (without `.so`) loaded for every config by the system (Debian's modules-enabled). */
  enabled: string[];
}

/** Modules nginx builds only when asked (`--with-...`); every other standard module is built unless `--without-...`. */
const OPTIONAL_MODULES = new Set([
  'ngx_http_ssl_module',
  'ngx_http_v2_module',
  'ngx_http_v3_module',
  'ngx_http_realip_module',
  'ngx_http_addition_module',
  'ngx_http_xslt_module',
  'ngx_http_image_filter_module',
  'ngx_http_geoip_module',
  'ngx_http_sub_module',
  'ngx_http_dav_module',
  'ngx_http_flv_module',
  'ngx_http_mp4_module',
  'ngx_http_gunzip_module',
  'ngx_http_gzip_static_module',
  'ngx_http_auth_request_module',
  'ngx_http_random_index_module',
  'ngx_http_secure_link_module',
  'ngx_http_degradation_module',
  'ngx_http_slice_module',
  'ngx_http_stub_status_module',
  'ngx_http_perl_module',
  'ngx_google_perftools_module',
  'ngx_mail_ssl_module',
  'ngx_stream_ssl_module',
  'ngx_stream_realip_module',
  'ngx_stream_geoip_module',
  'ngx_stream_ssl_preread_module',
]);

/** `--with-stream`, `--with-mail`: the whole family, built in or dynamic. */
const FAMILY_FLAG: Record<string, string> = { stream: 'ngx_stream_module', mail: 'ngx_mail_module' };

export function parseNginxV(output: string): NginxBuildFacts {
  const facts: NginxBuildFacts = { builtIn: [], dynamic: [], without: [], added: [], enabled: [] };
  facts.version = /nginx version:\s*[\w.-]*\/(\d+\.\d+(?:\.\d+)?)/i.exec(output)?.[1];
  const args = /configure arguments:(.*)$/m.exec(output)?.[1] ?? '';
  for (const m of args.matchAll(/--(without|with|add-module|add-dynamic-module|modules-path)(?:-([\w-]+))?(?:=('[^']*'|\S+))?/g)) {
    const [, what, name, rawValue] = m;
    const value = rawValue?.replace(/^'|'$/g, '');
    if (what === 'modules-path') facts.modulesPath = value;
    else if (what === 'add-module' || what === 'add-dynamic-module') {
      if (value) facts.added.push(value);
    } else if (name) {
      const mod = FAMILY_FLAG[name] ?? (name.endsWith('_module') ? `ngx_${name}` : undefined);
      if (!mod) continue;
      if (what === 'without') facts.without.push(mod);
      else if (value === 'dynamic') facts.dynamic.push(mod);
      else if (value === undefined) facts.builtIn.push(mod);
    }
  }
  return facts;
}

/** `load_module` targets in a text (a config, or Debian's modules-enabled snippets): `.so` base names. */
export function loadedModules(text: string): string[] {
  const out: string[] = [];
  // most files load none: a search for the word is cheaper than the line pattern over a large file
  if (!text.includes('load_module')) return out;
  for (const m of text.matchAll(/^\s*load_module\s+["']?([^"';\s]+)["']?\s*;/gm)) {
    const base = m[1].split('/').pop() ?? '';
    out.push(base.replace(/\.so$/, ''));
  }
  return out;
}

export type ModuleStatus = 'present' | 'not-loaded' | 'not-installed' | 'not-built';

/**
 * Whether the local nginx has `module`, given the `.so` base names the config loads, and the
 * `.so` it would come in. Standard modules only: anything else (third-party, commercial) is
 * `present` here (other rules speak about those).
 */
export function moduleStatus(module: string, facts: NginxBuildFacts, loaded: readonly string[]): { status: ModuleStatus; so: string } {
  const installed = facts.installed ?? facts.dynamic;
  const soStatus = (so: string): ModuleStatus => {
    if (facts.builtIn.includes(so)) return 'present';
    if (installed.includes(so)) return loaded.includes(so) || facts.enabled.includes(so) ? 'present' : 'not-loaded';
    if (facts.dynamic.includes(so)) return 'not-installed';
    return 'not-built';
  };
  const family = module.startsWith('ngx_stream_') ? 'ngx_stream_module' : module.startsWith('ngx_mail_') ? 'ngx_mail_module' : undefined;
  if (family) {
    const fs = soStatus(family);
    if (fs !== 'present') return { status: fs, so: family };
  }
  if (OPTIONAL_MODULES.has(module)) return { status: soStatus(module), so: module };
  if (facts.without.includes(module)) return { status: 'not-built', so: module };
  return { status: 'present', so: module };
}

function prefixFor(context: string): string | undefined {
  if (context === 'main') return undefined;
  if (context.startsWith('stream')) return 'ngx_stream_';
  if (context.startsWith('mail')) return 'ngx_mail_';
  if (context.startsWith('block:') || context === 'events') return undefined;
  return 'ngx_http_';
}

export const MODULE_RULE = 'nginx/module-not-in-binary' satisfies NginxRuleId;

type Verdict = { module: string; status: ModuleStatus; so: string } | null;
/** The verdicts of the last call, per module family and directive name, for its build facts and loaded modules. */
let verdictCache: { facts: NginxBuildFacts; loaded: string; verdicts: Map<string | undefined, Map<string, Verdict>> } | undefined;

/**
 * Information diagnostics for directives whose module the local nginx does not have
 * (`"geoip_country" is in ngx_http_geoip_module, which your nginx 1.22.1 has as a dynamic module
 * that this config does not load`). Pure: the facts come from `localNginxBuild`.
 */
export function moduleDiagnostics(doc: TextDocument, file: NginxFile, facts: NginxBuildFacts, context = 'main'): Diagnostic[] {
  const out: Diagnostic[] = [];
  try {
    const loaded = loadedModules(file.text);
    const reported = new Set<string>();
    // the verdict depends only on the name, the context's module family, the build and the
    // modules loaded: once per pair and kept while the build and the loaded modules stay (the
    // language server runs this at every edit), not once per directive
    const loadedKey = loaded.join('\n');
    if (verdictCache?.facts !== facts || verdictCache.loaded !== loadedKey)
      verdictCache = { facts, loaded: loadedKey, verdicts: new Map() };
    const verdicts = verdictCache.verdicts;
    const check = (d: Directive, prefix: string | undefined, byName: Map<string, Verdict>): void => {
      let first = byName.get(d.name);
      if (first === undefined) {
        const variants = DIRECTIVES.get(d.name);
        if (!variants?.length) {
          byName.set(d.name, null);
          return;
        }
        const own = prefix ? variants.filter((v) => v.module.startsWith(prefix)) : variants;
        const list = own.length ? own : variants;
        const statuses = list.map((v) => ({ module: v.module, ...moduleStatus(v.module, facts, loaded) }));
        first = statuses.some((s) => s.status === 'present') ? null : statuses[0];
        byName.set(d.name, first);
      }
      if (first === null) return;
      if (reported.has(first.so)) return; // once per missing module and file
      reported.add(first.so);
      const nginx = `your nginx${facts.version ? ` ${facts.version}` : ''}`;
      const message =
        first.status === 'not-loaded'
          ? `"${d.name}" is in ${first.module}, which ${nginx} has as a dynamic module that this config does not load (add \`load_module modules/${first.so}.so;\` at the top of the main config)`
          : first.status === 'not-installed'
            ? `"${d.name}" is in ${first.module}: ${nginx} was built to load it as a dynamic module, but ${first.so}.so is not installed in ${facts.modulesPath ?? 'its modules folder'}`
            : `"${d.name}" is in ${first.module}, which is not built into ${nginx} (see \`nginx -V\`)`;
      out.push({
        range: { start: doc.positionAt(d.nameStart), end: doc.positionAt(d.nameEnd) },
        severity: 3,
        code: MODULE_RULE,
        source: 'nginx -V',
        message,
      });
    };
    // one walk; the context (and so the module family) is worked out once per block
    const visit = (list: Directive[], ctx: string): void => {
      const prefix = prefixFor(ctx);
      let byName = verdicts.get(prefix);
      if (!byName) verdicts.set(prefix, (byName = new Map()));
      for (let i = 0; i < list.length; i++) {
        const d = list[i];
        if (d.entry) continue;
        check(d, prefix, byName);
        if (d.block && d.block.children.length) visit(d.block.children, childContext(ctx, d.name));
      }
    };
    visit(file.directives, context);
  } catch {
    return out;
  }
  return out;
}
