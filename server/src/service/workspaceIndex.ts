// The workspace index: the files nginx or HAProxy reads together with an open document, and the
// navigation that needs them (cross-file definition, references, rename, unused/undefined
// names, include links, workspace symbols). Files not open in the editor are read through the
// injected `FileSystem` (service/host.ts; host/nodeHost.ts reads the disk), re-read when their
// mtime or size changes; open documents win over the disk.
//
// - nginx: a file belongs to the include tree of a main config (the nearest `nginx.conf` above
//   it, or an open document that includes it); each fragment gets the block context of the
//   `include` that reads it, so a file of `server {}` blocks is judged inside `http`.
// - HAProxy: `haproxy -f DIR` loads every `*.cfg` of a folder in name order, so the `.cfg`
//   files of one folder are one configuration (up to MAX_HAPROXY_GROUP files; a folder with more
//   is a collection of unrelated configs, and each file stands alone).
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type {
  Diagnostic,
  DocumentLink,
  DocumentSymbol,
  Location,
  Position,
  Range,
  SymbolInformation,
  TextEdit,
  WorkspaceEdit,
} from 'vscode-languageserver-types';
import type { LanguageId, LanguageModule, NavEntity, ServiceSettings } from '../core/types';
import type { Finding, RuleMeta, RuleRegistry } from '../core/rules';
import { NGINX_NAVIGATION_RULES, nginxRegistry, type NginxRuleId } from '../languages/nginx/rules';
import { HAPROXY_NAVIGATION_RULES, haproxyRegistry, type HaproxyRuleId } from '../languages/haproxy/rules';
import { childContext, type Directive, type NginxFile } from '../languages/nginx/ast';
import { directivesAt } from '../languages/nginx/data';
import { inferContext } from '../languages/nginx/inferContext';
import {
  confDirOf,
  dirname,
  hasGlob,
  includeSites,
  resolveInclude,
  resolvePath,
  type IncludeFs,
  type IncludeSite,
} from '../languages/nginx/includes';
import { soBaseName } from '../languages/nginx/modules';
import { isMainConfig } from '../languages/nginx/data';

import { LARGE_DOCUMENT_CHARS, isLargeText } from './largeDocument';
import { findProjectConfig, type ProjectConfig } from './projectConfig';
import type { FileSystem } from './host';

export const MAX_HAPROXY_GROUP = 16;
const MAX_UNIT_FILES = 400;
const MAX_SCAN_FILES = 2000;
const MAX_SCAN_DEPTH = 8;
/** Folder entries looked at by one scan (a workspace that is mostly other files stays cheap). */
const MAX_SCAN_ENTRIES = 20000;
/** Larger files are no configs (a log next to them): never read (the same bound as an open document's full analysis). */
const MAX_FILE_BYTES = LARGE_DOCUMENT_CHARS;
/** Files one include reads at most (a glob over the whole disk names thousands). */
export const MAX_INCLUDE_FILES = 100;
/** Bytes one include reads at most. */
export const MAX_INCLUDE_BYTES = 8 * 1024 * 1024;
/** Bytes one unit (a main config and its include tree) reads at most. */
export const MAX_UNIT_BYTES = 32 * 1024 * 1024;
/** Bytes the workspace scan (workspace symbols) reads at most. */
export const MAX_WORKSPACE_BYTES = 64 * 1024 * 1024;
/** Folder entries one include's glob may look at. */
const MAX_GLOB_ENTRIES = 20_000;
/** Kernel and device files: endless (/proc/self/*), huge or secret; an include never reads them. */
const FORBIDDEN_ROOTS = ['/proc', '/sys', '/dev'];

export function isForbiddenPath(p: string): boolean {
  return FORBIDDEN_ROOTS.some((r) => p === r || p.startsWith(r + '/'));
}
const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'out', '.vscode-test', '.hg', '.svn']);

export type { FileSystem } from './host';

export interface IndexedFile {
  uri: string;
  path: string;
  lang: LanguageId;
  doc: TextDocument;
  ast: unknown;
  /** True when the text comes from an open editor document. */
  open: boolean;
}

/** The files loaded together with one file. */
export interface Unit {
  lang: LanguageId;
  files: IndexedFile[];
  /** Whether the unit is a whole configuration (an nginx main file was found): only then are names reported missing or unused. */
  complete: boolean;
  /** nginx: the block context each file is read in, by real path. */
  contexts: Map<string, string>;
  /** nginx: folder relative includes are taken from. */
  mainDir?: string;
}

export interface WorkspaceIndexOptions {
  /** Language of a file (the facade's `languageOf`). */
  detect: (languageId: string | undefined, uri: string, text: string) => LanguageId;
  module: (lang: LanguageId) => LanguageModule<any>;
  /** The disk (host/nodeHost.ts nodeFileSystem) or an in-memory one: the index does no I/O of its own. */
  fs: FileSystem;
  /** Open editor documents by uri. */
  open?: { get(uri: string): TextDocument | undefined; all(): TextDocument[] };
  roots?: string[];
  /**
   * False for a one-shot judgement (the command line): an open document's entity walk keeps
   * nothing for a next version, since there is none (default true: the editor's documents change).
   */
  incremental?: boolean;
  /**
   * The conf folder of the nginx that runs these files (`nginx -V`: the folder of --conf-path, else
   * --prefix's conf; host/hostFacts.ts nginxConfDirOf). A file outside any folder holding an
   * nginx.conf (a vhost in a repository) has its relative includes read from there first, as nginx
   * would once it is installed. Asked when first needed; default DEFAULT_NGINX_CONF_DIR.
   */
  nginxConfDir?: () => string | undefined;
}

/** Where the packaged nginx (Debian, Ubuntu, Red Hat, Alpine, the official images) keeps its configuration. */
export const DEFAULT_NGINX_CONF_DIR = '/etc/nginx';

export function uriToPath(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

export function pathToUri(path: string): string {
  return pathToFileURL(path).href;
}

export class WorkspaceIndex {
  private readonly fs: FileSystem;
  private roots: string[];
  private readonly disk = new Map<string, { key: string; file: IndexedFile }>();
  private readonly openParses = new Map<string, { version: number; file: IndexedFile }>();
  private readonly entityCache = new WeakMap<object, NavEntity[]>();
  /** Per open document: what the language's entity walk keeps from one version to the next (unchanged blocks are not walked again). */
  private readonly entityMemos = new Map<string, Record<string, unknown>>();
  /** The include sites of a parse read in a context: a walk of the whole tree, asked for several times per validation. */
  private readonly sitesCache = new WeakMap<NginxFile, Map<string, IncludeSite[]>>();
  private scanned: string[] | undefined;
  private followSymlinks = false;
  /** The last workspace scan stopped at MAX_WORKSPACE_BYTES (workspace symbols are partial). */
  scanCapped = false;
  /** Includes cut short by a bound, by `file\0offset`: for the diagnostic. */
  private readonly capped = new Map<string, string>();

  constructor(private readonly opts: WorkspaceIndexOptions) {
    this.fs = opts.fs;
    this.roots = opts.roots ?? [];
  }

  setRoots(paths: string[]): void {
    this.roots = paths;
    this.scanned = undefined;
  }

  /** `proxyTuner.workspace.followSymlinks`: follow links that lead out of the workspace folders. */
  setFollowSymlinks(on: boolean): void {
    if (on === this.followSymlinks) return;
    this.followSymlinks = on;
    this.disk.clear();
    this.scanned = undefined;
  }

  /** Why an include was cut short (a bound was hit), if it was. */
  includeCap(path: string, offset: number): string | undefined {
    return this.capped.get(`${path}\0${offset}`);
  }

  private noteCap(path: string, offset: number, why: string): void {
    if (this.capped.size > 10_000) this.capped.clear();
    this.capped.set(`${path}\0${offset}`, why);
  }

  /**
   * A path inside a workspace folder whose real path lies outside every one (a symbolic link out
   * of the workspace): not read unless the setting allows. Paths outside the folders (an absolute
   * include of /etc/nginx/mime.types) are not links out of it.
   */
  /**
   * Why an existing path is never read, if it is not: under /proc, /sys or /dev once resolved, or
   * no regular file (a FIFO, a socket, a device). Undefined for a readable file or none at all.
   */
  refusal(path: string): string | undefined {
    if (this.forbidden(path)) return 'it resolves to a path under /proc, /sys or /dev';
    const st = this.fs.stat(path);
    if (st && !st.isFile && !st.isDirectory) return 'it is a FIFO, a socket or a device, not a regular file';
    return undefined;
  }

  /** Under /proc, /sys or /dev as spelled or once its links are resolved (a link to /dev/zero is /dev/zero). */
  private forbidden(path: string): boolean {
    return isForbiddenPath(path) || (!!this.fs.realpath && isForbiddenPath(this.fs.realpath(path)));
  }

  private linksOut(path: string): boolean {
    if (this.followSymlinks || this.roots.length === 0 || !this.fs.realpath) return false;
    const inside = (p: string) =>
      this.roots.some((r) => {
        const root = r.replace(/\/+$/, '') || '/';
        return root === '/' || p === root || p.startsWith(root + '/');
      });
    if (!inside(path)) return false;
    const real = this.fs.realpath(path);
    if (real === path) return false;
    const realRoots = this.roots.map((r) => this.fs.realpath!(r.replace(/\/+$/, '') || '/'));
    return !realRoots.some((root) => root === '/' || real === root || real.startsWith(root + '/'));
  }

  /** A watched file changed, appeared or went away: forget what was read of it. */
  invalidate(uri?: string): void {
    if (uri === undefined) this.disk.clear();
    else {
      const p = uriToPath(uri);
      if (p) this.disk.delete(p);
    }
    this.scanned = undefined;
    this.projectConfigs.clear();
  }

  /** The include resolver's view of files: open documents count as existing. */
  includeFs(): IncludeFs {
    // bounded per expansion: a glob over the whole disk looks at MAX_GLOB_ENTRIES entries at most
    let entries = 0;
    return {
      readDir: (d) => {
        if (this.forbidden(d) || entries > MAX_GLOB_ENTRIES || this.linksOut(d)) return undefined;
        const names = this.fs.readDir(d);
        entries += names?.length ?? 0;
        return names && entries > MAX_GLOB_ENTRIES ? names.slice(0, Math.max(0, names.length - (entries - MAX_GLOB_ENTRIES))) : names;
      },
      isFile: (p) => !this.forbidden(p) && (this.openByPath(p) !== undefined || (!this.linksOut(p) && this.fs.stat(p)?.isFile === true)),
    };
  }

  private openByPath(path: string): TextDocument | undefined {
    return this.opts.open?.get(pathToUri(path));
  }

  /** A file by uri: the open document when there is one, else the disk. */
  get(uri: string): IndexedFile | undefined {
    const doc = this.opts.open?.get(uri);
    if (doc) return this.fromOpen(doc);
    const path = uriToPath(uri);
    return path ? this.fromDisk(path) : undefined;
  }

  getPath(path: string): IndexedFile | undefined {
    return this.get(pathToUri(path));
  }

  private fromOpen(doc: TextDocument): IndexedFile {
    const hit = this.openParses.get(doc.uri);
    if (hit && hit.version === doc.version && hit.file.doc === doc) return hit.file;
    const text = doc.getText();
    const lang = this.opts.detect(doc.languageId, doc.uri, text);
    // an edit of the version parsed before: the module may reuse the part before the change
    const m = this.opts.module(lang);
    // a document over the bound is not analysed (syntax scan only, in the server): an empty tree
    // keeps it out of include trees and symbols instead of a parse that holds everything up
    const ast = isLargeText(text)
      ? m.parse('')
      : hit && hit.file.lang === lang && m.reparse
        ? m.reparse(hit.file.ast, text)
        : m.parse(text);
    const file: IndexedFile = { uri: doc.uri, path: uriToPath(doc.uri) ?? doc.uri, lang, doc, ast, open: true };
    this.openParses.set(doc.uri, { version: doc.version, file });
    return file;
  }

  /** Forget the parse of a closed document (the disk copy is read again when needed). */
  closed(uri: string): void {
    this.openParses.delete(uri);
    this.entityMemos.delete(uri);
  }

  private fromDisk(path: string): IndexedFile | undefined {
    if (this.forbidden(path) || this.linksOut(path)) return undefined;
    const st = this.fs.stat(path);
    if (!st || !st.isFile || st.size > MAX_FILE_BYTES) return undefined;
    const key = `${st.mtimeMs}:${st.size}`;
    const hit = this.disk.get(path);
    if (hit && hit.key === key) return hit.file;
    const text = this.fs.readFile(path);
    if (text === undefined) return undefined;
    const uri = pathToUri(path);
    const lang = this.opts.detect(undefined, uri, text);
    const file: IndexedFile = {
      uri,
      path,
      lang,
      doc: TextDocument.create(uri, lang, 0, text),
      ast: this.opts.module(lang).parse(isLargeText(text) ? '' : text),
      open: false,
    };
    this.disk.set(path, { key, file });
    return file;
  }

  moduleOf(lang: LanguageId): LanguageModule<any> {
    return this.opts.module(lang);
  }

  entities(file: IndexedFile): NavEntity[] {
    const ast = file.ast as object;
    let hit = this.entityCache.get(ast);
    if (!hit) {
      const m = this.opts.module(file.lang);
      try {
        let memo: Record<string, unknown> | undefined;
        if (file.open && this.opts.incremental !== false) {
          memo = this.entityMemos.get(file.uri);
          if (!memo) this.entityMemos.set(file.uri, (memo = {}));
        }
        hit = m.navEntities ? m.navEntities(file.doc, file.ast, memo) : [];
      } catch {
        hit = [];
      }
      this.entityCache.set(ast, hit);
    }
    return hit;
  }

  // -------------------------------------------------------------------------------------------
  // Units

  unitOf(uri: string): Unit {
    const file = this.get(uri);
    if (!file) return { lang: 'nginx', files: [], complete: false, contexts: new Map() };
    return file.lang === 'nginx' ? this.nginxUnit(file) : this.haproxyUnit(file);
  }

  private haproxyUnit(file: IndexedFile): Unit {
    const single: Unit = { lang: 'haproxy', files: [file], complete: true, contexts: new Map() };
    if (!file.path.startsWith('/')) return single;
    const group = this.haproxyGroupOf(file.path);
    if (group) {
      const files: IndexedFile[] = [];
      for (const p of group.slice(0, MAX_HAPROXY_GROUP)) {
        const f = p === file.path ? file : this.getPath(p);
        if (f && f.lang === 'haproxy') files.push(f);
      }
      if (!files.includes(file)) files.push(file);
      return { lang: 'haproxy', files, complete: true, contexts: new Map() };
    }
    if (!/\.cfg$/i.test(file.path)) return single;
    const dir = dirname(file.path);
    const names = (this.fs.readDir(dir) ?? []).filter((n) => /\.cfg$/i.test(n) && !n.startsWith('.')).sort();
    if (names.length < 2 || names.length > MAX_HAPROXY_GROUP) return single;
    const files: IndexedFile[] = [];
    for (const n of names) {
      const p = `${dir === '/' ? '' : dir}/${n}`;
      const f = p === file.path ? file : this.getPath(p);
      if (f && f.lang === 'haproxy') files.push(f);
    }
    if (!files.includes(file)) files.push(file);
    return { lang: 'haproxy', files, complete: true, contexts: new Map() };
  }

  /** Project configs by folder, read once until a watched file changes (invalidate). */
  private readonly projectConfigs = new Map<string, ProjectConfig | null>();

  /** The group of `.proxy-tuner.json`'s `haproxy.files` that lists `path` (files HAProxy loads together), if any. */
  private haproxyGroupOf(path: string): string[] | undefined {
    let cfg;
    try {
      cfg = findProjectConfig(path, (p) => this.fs.readFile(p), this.projectConfigs);
    } catch {
      return undefined; // a broken project config is reported where settings are read
    }
    const me = this.real(path);
    return cfg?.haproxy?.files?.find((g) => g.some((p) => p === path || this.real(p) === me));
  }

  /** The include closure of `root`, read in `context`; undefined when it grows past the limit. */
  private real(path: string): string {
    return this.fs.realpath ? this.fs.realpath(path) : path;
  }

  private closure(root: IndexedFile, mainDir: string): { files: IndexedFile[]; contexts: Map<string, string> } {
    // keyed by real path: `sites-enabled/x` is usually a link to the `sites-available/x` being edited
    const contexts = new Map<string, string>([[this.real(root.path), 'main']]);
    const files: IndexedFile[] = [root];
    const ifs = this.includeFs();
    let unitBytes = 0;
    for (let i = 0; i < files.length && files.length < MAX_UNIT_FILES; i++) {
      const f = files[i];
      if (f.lang !== 'nginx' || !f.path.startsWith('/')) continue; // an untitled buffer has no folder to include from
      for (const site of this.sitesOf(f.ast as NginxFile, contexts.get(this.real(f.path)) ?? 'main')) {
        const paths = resolveInclude(site.pattern, mainDir, dirname(f.path), ifs);
        let n = 0;
        let bytes = 0;
        for (const p of paths) {
          const rp = this.real(p);
          if (contexts.has(rp)) continue;
          if (n >= MAX_INCLUDE_FILES) {
            this.noteCap(f.path, site.start, `names ${paths.length} files: only the first ${MAX_INCLUDE_FILES} are read`);
            break;
          }
          const size = this.openByPath(p) ? 0 : (this.fs.stat(p)?.size ?? 0);
          if (bytes + size > MAX_INCLUDE_BYTES || unitBytes + size > MAX_UNIT_BYTES) {
            this.noteCap(
              f.path,
              site.start,
              bytes + size > MAX_INCLUDE_BYTES
                ? `reads more than ${MAX_INCLUDE_BYTES / 1048576} MB: the files after ${n} are not read`
                : `the include tree reads more than ${MAX_UNIT_BYTES / 1048576} MB: the files from here on are not read`,
            );
            break;
          }
          const g = this.getPath(p);
          if (!g) continue;
          n++;
          bytes += size;
          unitBytes += size;
          contexts.set(rp, site.context);
          files.push(g);
        }
      }
    }
    return { files, contexts };
  }

  private nginxUnit(file: IndexedFile): Unit {
    const candidates: IndexedFile[] = [];
    if (file.path.startsWith('/')) {
      const confDir = confDirOf(file.path, this.includeFs());
      if (confDir) {
        const main = this.getPath(`${confDir === '/' ? '' : confDir}/nginx.conf`);
        if (main && main.path !== file.path) candidates.push(main);
      }
    }
    for (const doc of this.opts.open?.all() ?? []) {
      if (doc.uri === file.uri) continue;
      const f = this.fromOpen(doc);
      if (f.lang === 'nginx' && isMainConfig((f.ast as NginxFile).directives) && !candidates.some((c) => c.uri === f.uri))
        candidates.push(f);
    }
    if (!isMainConfig((file.ast as NginxFile).directives)) {
      for (const root of candidates) {
        const mainDir = dirname(root.path);
        const c = this.closure(root, mainDir);
        const me = this.real(file.path);
        if (c.contexts.has(me)) {
          // the file itself, as the editor has it, rather than its copy under the include's path
          const files = c.files.map((f) => (this.real(f.path) === me ? file : f));
          return { lang: 'nginx', files, complete: true, contexts: c.contexts, mainDir };
        }
      }
    }
    // a main file run with -c reads relative includes from its own folder; a fragment once installed, from the conf folder
    const main = isMainConfig((file.ast as NginxFile).directives);
    const mainDir = file.path.startsWith('/')
      ? (confDirOf(file.path, this.includeFs()) ?? (main ? dirname(file.path) : this.installedConfDir(file.path)))
      : '/';
    const c = this.closure(file, mainDir);
    if (!main) c.contexts.delete(this.real(file.path)); // a fragment on its own: its context is inferred
    return { lang: 'nginx', files: c.files, complete: main, contexts: c.contexts, mainDir };
  }

  private systemConfDir: string | null | undefined = null;

  /**
   * Where nginx reads relative includes of a file outside any conf tree: the local nginx's conf
   * folder when it exists (`include fastcgi_params;`, `include snippets/fastcgi-php.conf;` name its
   * stock files), else the file's own folder (resolveInclude tries that one next either way).
   */
  private installedConfDir(path: string): string {
    if (this.systemConfDir === null) {
      let dir: string | undefined;
      try {
        dir = this.opts.nginxConfDir?.() ?? DEFAULT_NGINX_CONF_DIR;
      } catch {
        dir = DEFAULT_NGINX_CONF_DIR;
      }
      this.systemConfDir = dir && this.fs.stat(dir)?.isDirectory ? dir.replace(/\/+$/, '') || '/' : undefined;
    }
    return this.systemConfDir ?? dirname(path);
  }

  /** The context an nginx file is read in (undefined: let validation infer it). */
  contextOf(uri: string): string | undefined {
    const file = this.get(uri);
    if (!file || file.lang !== 'nginx') return undefined;
    return this.nginxUnit(file).contexts.get(this.real(file.path));
  }

  /**
   * The loadable nginx modules a unit's configuration loads: the `load_module` lines of its files
   * read in the main context (Debian's modules-enabled/*.conf among them, when the include reads
   * them here). Unknown (any may be loaded) for a fragment without its main file, or when an
   * `include` in the main context reads nothing here (a folder this machine lacks).
   */
  nginxModuleState(unit: Unit): { loaded: ReadonlySet<string>; unknown: boolean } {
    const loaded = new Set<string>();
    if (unit.lang !== 'nginx' || !unit.complete) return { loaded, unknown: true };
    let unknown = false;
    const inUnit = new Set(unit.files.map((f) => this.real(f.path)));
    const ifs = this.includeFs();
    for (const f of unit.files) {
      if (f.lang !== 'nginx' || this.contextIn(unit, f) !== 'main') continue;
      for (const d of (f.ast as NginxFile).directives) {
        if (d.entry || !d.args[0]) continue;
        if (d.name === 'load_module') loaded.add(soBaseName(d.args[0].value));
        else if (d.name === 'include') {
          const v = d.args[0].value;
          const paths =
            v.includes('$') || !f.path.startsWith('/') ? [] : resolveInclude(v, unit.mainDir ?? dirname(f.path), dirname(f.path), ifs);
          if (paths.length === 0 || paths.some((p) => !inUnit.has(this.real(p)))) unknown = true;
        }
      }
    }
    return { loaded, unknown };
  }

  /** The include sites of a parse read in `context` (kept with the parse: asked for several times per validation). */
  sitesOf(ast: NginxFile, context: string): readonly IncludeSite[] {
    // no `include` anywhere in the text (a generated or single-file config): nothing to walk for
    if (typeof ast.text === 'string' && ast.text.indexOf('include') < 0) return NO_SITES;
    let byContext = this.sitesCache.get(ast);
    if (!byContext) this.sitesCache.set(ast, (byContext = new Map()));
    let sites = byContext.get(context);
    if (!sites) byContext.set(context, (sites = includeSites(ast, context)));
    return sites;
  }

  /** The context of a file of a unit (contexts are keyed by real path). */
  contextIn(unit: Unit, file: IndexedFile): string | undefined {
    return unit.contexts.get(this.real(file.path));
  }

  // -------------------------------------------------------------------------------------------
  // Workspace files (for workspace symbols)

  /** Config files under the workspace roots (bounded scan), plus the open documents. */
  workspaceFiles(): IndexedFile[] {
    if (!this.scanned) {
      const found: string[] = [];
      let seen = 0;
      const visit = (dir: string, depth: number) => {
        if (found.length >= MAX_SCAN_FILES || depth > MAX_SCAN_DEPTH) return;
        for (const name of (this.fs.readDir(dir) ?? []).sort()) {
          if (++seen > MAX_SCAN_ENTRIES) return;
          if (name.startsWith('.') || SKIP_DIRS.has(name)) continue;
          const p = `${dir === '/' ? '' : dir}/${name}`;
          if (this.forbidden(p) || this.linksOut(p)) continue;
          const st = this.fs.stat(p);
          if (!st) continue;
          if (st.isDirectory) visit(p, depth + 1);
          else if (st.isFile && looksLikeConfig(p)) found.push(p);
          if (found.length >= MAX_SCAN_FILES) return;
        }
      };
      for (const r of this.roots) visit(r.replace(/\/+$/, '') || '/', 0);
      this.scanned = found;
    }
    const out = new Map<string, IndexedFile>();
    for (const doc of this.opts.open?.all() ?? []) out.set(doc.uri, this.fromOpen(doc));
    let bytes = 0;
    this.scanCapped = false;
    for (const p of this.scanned) {
      const uri = pathToUri(p);
      if (out.has(uri)) continue;
      const size = this.fs.stat(p)?.size ?? 0;
      if (bytes + size > MAX_WORKSPACE_BYTES) {
        this.scanCapped = true;
        break;
      }
      const f = this.fromDisk(p);
      if (!f) continue;
      bytes += size;
      out.set(uri, f);
    }
    return [...out.values()];
  }
}

const NO_SITES: readonly IncludeSite[] = [];

function looksLikeConfig(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (/\.(conf|cfg)$/i.test(base)) return true;
  return (
    /\/(sites-enabled|sites-available|conf\.d|nginx|haproxy)\/[^/]+$/i.test(path) &&
    !/\.(md|txt|json|ya?ml|sh|js|ts|html?|css|pem|crt|key|map|lua)$/i.test(base)
  );
}

// ---------------------------------------------------------------------------------------------
// Navigation over a unit

interface Located {
  file: IndexedFile;
  e: NavEntity;
}

function scopeKey(l: Located): string | undefined {
  return l.e.scope === undefined ? undefined : `${l.file.uri}#${l.e.scope}`;
}

function matches(a: Located, b: Located): boolean {
  return matchesIn(a.file, a.e, b.file, b.e);
}

/** `matches` for an entity `a` of file `fa` and `b` of `fb`. */
function matchesIn(fa: IndexedFile, a: NavEntity, fb: IndexedFile, b: NavEntity): boolean {
  if (a.kind !== b.kind || a.name !== b.name || a.dynamic || b.dynamic) return false;
  if (a.scope === undefined || b.scope === undefined) return true;
  // same file: the scope keys are equal exactly when the scopes are (no key strings to build)
  if (fa.uri === fb.uri) return a.scope === b.scope;
  return scopeKey({ file: fa, e: a }) === scopeKey({ file: fb, e: b });
}

const NO_ENTITIES: NavEntity[] = [];

function located(index: WorkspaceIndex, unit: Unit): Located[] {
  const out: Located[] = [];
  for (const f of unit.files) for (const e of index.entities(f)) out.push({ file: f, e });
  return out;
}

function toLocation(l: Located): Location {
  return { uri: l.file.uri, range: { start: l.file.doc.positionAt(l.e.start), end: l.file.doc.positionAt(l.e.end) } };
}

/** The named things under the cursor (several kinds may share a name's spot: a backend that holds a stick-table). */
function entitiesAt(index: WorkspaceIndex, file: IndexedFile, pos: Position): NavEntity[] {
  const offset = file.doc.offsetAt(pos);
  return index.entities(file).filter((e) => !e.dynamic && e.name && e.start <= offset && offset <= e.end);
}

/**
 * Everything that names the same thing as the entities at the cursor: matching definitions,
 * then every kind defined at those definitions' spots, then all definitions and references
 * of those kinds and names.
 */
function related(index: WorkspaceIndex, unit: Unit, file: IndexedFile, at: NavEntity[]): { all: Located[]; defs: Located[] } {
  const everything = located(index, unit);
  const targets: Located[] = at.map((e) => ({ file, e }));
  const defs = everything.filter((l) => l.e.role === 'def' && targets.some((t) => matches(t, l)));
  for (const d of defs) {
    for (const l of everything) {
      if (l.file === d.file && l.e.start === d.e.start && l.e.role === 'def' && !targets.some((t) => t.e === l.e)) targets.push(l);
    }
  }
  const seen = new Set<string>();
  const all: Located[] = [];
  for (const l of everything) {
    if (!targets.some((t) => t.e === l.e || matches(t, l))) continue;
    const key = `${l.file.uri}:${l.e.start}:${l.e.end}`;
    if (seen.has(key)) continue;
    seen.add(key);
    all.push(l);
  }
  return { all, defs: all.filter((l) => l.e.role === 'def') };
}

export function navDefinition(index: WorkspaceIndex, uri: string, pos: Position): Location[] | null {
  const file = index.get(uri);
  if (!file) return null;
  const unit = index.unitOf(uri);
  const at = entitiesAt(index, file, pos);
  if (at.length) {
    const everything = located(index, unit);
    const defs = everything.filter((l) => l.e.role === 'def' && at.some((e) => matches({ file, e }, l)));
    return defs.length ? defs.map(toLocation) : null;
  }
  // an include: the files it reads
  const links = includeTargets(index, unit, file).filter((l) => {
    const o = file.doc.offsetAt(pos);
    return l.start <= o && o <= l.end;
  });
  if (links.length && links[0].paths.length) {
    return links[0].paths.map((p) => ({ uri: pathToUri(p), range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } }));
  }
  return null;
}

export function navReferences(index: WorkspaceIndex, uri: string, pos: Position, includeDeclaration: boolean): Location[] {
  const file = index.get(uri);
  if (!file) return [];
  const at = entitiesAt(index, file, pos);
  if (!at.length) return [];
  const { all } = related(index, index.unitOf(uri), file, at);
  return all.filter((l) => includeDeclaration || l.e.role === 'ref').map(toLocation);
}

export type PrepareRenameResult = { range: Range; placeholder: string } | { error: string };

export function navPrepareRename(index: WorkspaceIndex, uri: string, pos: Position): PrepareRenameResult {
  const file = index.get(uri);
  if (!file) return { error: 'The document is not known to the server.' };
  const at = entitiesAt(index, file, pos);
  if (!at.length)
    return {
      error:
        'Only names a config defines can be renamed here: an upstream, a named location, a zone, a variable set by the config, a backend, an ACL, a userlist...',
    };
  const { defs } = related(index, index.unitOf(uri), file, at);
  const e = at[0];
  if (!defs.length) {
    return {
      error: `'${e.name}' is not defined in the files loaded with this one (${e.kind === 'variable' ? 'a built-in variable' : 'an external name'}): nothing to rename.`,
    };
  }
  return {
    range: { start: file.doc.positionAt(e.start), end: file.doc.positionAt(e.end) },
    placeholder: file.doc.getText().slice(e.start, e.end),
  };
}

const NAME_FORBIDDEN = /[\s;{}#"'`\\,()]/;

export function navRename(index: WorkspaceIndex, uri: string, pos: Position, newName: string): WorkspaceEdit | { error: string } {
  const prep = navPrepareRename(index, uri, pos);
  if ('error' in prep) return prep;
  const file = index.get(uri)!;
  const at = entitiesAt(index, file, pos);
  let name = newName;
  if (at[0].kind === 'variable') name = name.replace(/^\$/, '');
  if (at[0].kind === 'location') name = name.replace(/^@/, '');
  if (!name || NAME_FORBIDDEN.test(name) || name.includes('$')) return { error: `'${newName}' is not a valid name here.` };
  if (at[0].kind === 'variable' && !/^[A-Za-z0-9_]+$/.test(name))
    return { error: `'${newName}' is not a valid variable name (letters, digits, '_').` };
  const { all } = related(index, index.unitOf(uri), file, at);
  const changes: Record<string, TextEdit[]> = {};
  for (const l of all) {
    (changes[l.file.uri] ??= []).push({ range: toLocation(l).range, newText: name });
  }
  return { changes };
}

// ---------------------------------------------------------------------------------------------
// Diagnostics: names used but defined nowhere, definitions never used, includes of nothing.

// the rows of these codes are in each language's registry (languages/<lang>/rules.ts)
export const NAVIGATION_RULES: RuleMeta[] = [...NGINX_NAVIGATION_RULES, ...HAPROXY_NAVIGATION_RULES];

/** What the kinds are called in messages. */
const KIND_LABEL: Record<string, string> = {
  upstream: 'upstream',
  'stream:upstream': 'upstream',
  limit_req_zone: 'limit_req zone',
  limit_conn_zone: 'limit_conn zone',
  'stream:limit_conn_zone': 'limit_conn zone',
  proxy_cache: 'cache zone',
  fastcgi_cache: 'cache zone',
  uwsgi_cache: 'cache zone',
  scgi_cache: 'cache zone',
  variable: 'variable',
  location: 'named location',
  backend: 'backend',
  acl: 'ACL',
  userlist: 'userlist',
  resolvers: 'resolvers section',
  peers: 'peers section',
  mailers: 'mailers section',
  cache: 'cache section',
};

/** `unit`: the document's unit when the caller has it already (`validateInWorkspace` asks for it once for all its steps). */
export function navDiagnostics(index: WorkspaceIndex, uri: string, settings: ServiceSettings, unit?: Unit): Diagnostic[] {
  const file = index.get(uri);
  if (!file) return [];
  unit ??= index.unitOf(uri);
  const findings: Finding<NginxRuleId | HaproxyRuleId>[] = [];
  const lang = file.lang;
  const dynamicKinds = new Set<string>();
  // buckets by kind, then name (what `matches` compares first), so each lookup is not a scan of
  // the whole unit (a config of thousands of upstreams would make that quadratic), and no
  // `kind + name` key strings are built per entity and per lookup
  // the buckets hold the entities themselves: an entity's file is `file` unless `elsewhere` names
  // another (a unit of one file, the usual case, builds no wrapper per entity at each edit)
  const byKind = new Map<string, Map<string, NavEntity[]>>();
  const elsewhere = new Map<NavEntity, IndexedFile>();
  const defsAt = new Map<number, NavEntity[]>();
  for (const f of unit.files) {
    const entities = index.entities(f);
    for (let i = 0; i < entities.length; i++) {
      const e = entities[i];
      if (f !== file) elsewhere.set(e, f);
      if (e.dynamic) dynamicKinds.add(e.kind);
      let names = byKind.get(e.kind);
      if (!names) byKind.set(e.kind, (names = new Map()));
      const bucket = names.get(e.name);
      if (bucket) bucket.push(e);
      else names.set(e.name, [e]);
      if (f === file && e.role === 'def') {
        const at = defsAt.get(e.start);
        if (at) at.push(e);
        else defsAt.set(e.start, [e]);
      }
    }
  }
  const named = (e: NavEntity): NavEntity[] => byKind.get(e.kind)?.get(e.name) ?? NO_ENTITIES;
  /** Whether entity `e` of this file and `o` (of its file) name the same thing. */
  const sameThing = (e: NavEntity, o: NavEntity): boolean => matchesIn(file, e, elsewhere.get(o) ?? file, o);
  if (unit.complete) {
    // indexed: on a big file this runs once, mostly before the JIT has optimised it, where for-of
    // allocates an iterator result per step
    const own = index.entities(file);
    for (let i = 0; i < own.length; i++) {
      const e = own[i];
      if (e.role === 'ref' && e.missing && !e.dynamic) {
        // only nginx's entities carry `missing` (HAProxy's names are the validator's: unknown-backend...)
        if (lang === 'nginx' && !named(e).some((o) => o.role === 'def' && sameThing(e, o))) {
          findings.push({
            ruleId: 'nginx/undefined-reference',
            start: e.start,
            end: e.end,
            message: e.missing.message,
            severity: e.missing.severity,
          });
        }
      } else if (e.role === 'def' && e.reportUnused && !dynamicKinds.has(e.kind)) {
        const kinds = defsAt.get(e.start) ?? [];
        const used = kinds.some((k) => named(k).some((o) => o.role === 'ref' && sameThing(k, o)));
        if (!used) {
          findings.push({
            ruleId: `${lang}/unused-definition`,
            start: e.start,
            end: e.end,
            message: `${KIND_LABEL[e.kind] ?? e.kind} '${e.name}' is never used.`,
            unnecessary: true,
          });
        }
      }
    }
  }
  if (lang === 'nginx') {
    const targets = includeTargets(index, unit, file);
    if (targets.some((t) => t.paths.length)) duplicatesThroughIncludes(index, unit, file, targets, settings.nginxVersion, findings);
    for (const link of targets) {
      // relative paths only: they name files of the config tree the workspace holds, while an
      // absolute path names the server's disk, which this machine may not mirror
      const cap = index.includeCap(file.path, link.siteStart);
      const spelledKernel = isForbiddenPath(resolveAbs(link.pattern));
      if (cap || spelledKernel) {
        findings.push({
          ruleId: 'nginx/include-limit',
          start: link.start,
          end: link.end,
          message: cap
            ? `This include ${cap} (the editor's bound; nginx itself reads them all).`
            : 'Files under /proc, /sys and /dev are never read for the editor: they are endless, huge or secret.',
        });
      }
      const refused =
        link.paths.length === 0 && !hasGlob(link.pattern) && !cap && !spelledKernel
          ? index.refusal(resolvePath(unit.mainDir ?? dirname(file.path), link.pattern))
          : undefined;
      if (refused) {
        findings.push({
          ruleId: 'nginx/include-limit',
          start: link.start,
          end: link.end,
          message: `"${link.pattern}" is not read: ${refused} (such a file can be endless, block a reader or hold secrets).`,
        });
      } else if (link.paths.length === 0 && !hasGlob(link.pattern) && !link.pattern.startsWith('/')) {
        findings.push({
          ruleId: 'nginx/include-not-found',
          start: link.start,
          end: link.end,
          message: `No file "${link.pattern}" relative to ${unit.mainDir ?? dirname(file.path)}: nginx stops at an include of a missing file.`,
        });
      }
    }
  }
  const registry: RuleRegistry = lang === 'nginx' ? nginxRegistry : haproxyRegistry;
  return registry.toDiagnostics(file.doc, findings, settings, lang);
}

/**
 * Directives that may appear once per block, given twice once the includes are read in place
 * (nginx reads an include where it stands): a `try_files` next to `include snippets/fastcgi-php.conf;`
 * (Debian's snippet has one) is refused. The module reports duplicates within one file; this, the
 * ones an included file brings, at the include line.
 */
function duplicatesThroughIncludes(
  index: WorkspaceIndex,
  unit: Unit,
  file: IndexedFile,
  targets: IncludeTarget[],
  version: string | undefined,
  findings: Finding<NginxRuleId | HaproxyRuleId>[],
): void {
  const bySite = new Map(targets.map((t) => [t.siteStart, t]));
  const top = index.contextIn(unit, file) ?? inferContext(file.ast as NginxFile);
  const once = (name: string, ctx: string): boolean => !!directivesAt(name, version)?.some((v) => v.duplicate && v.contexts.includes(ctx));
  const visit = (list: readonly Directive[], ctx: string): void => {
    const seen = new Map<string, string>(); // name -> where it was first given ('' for this file)
    for (const d of list) {
      if (d.entry) continue;
      const t = d.name === 'include' ? bySite.get(d.start) : undefined;
      if (t) {
        for (const p of t.paths) {
          const inc = index.getPath(p);
          if (!inc || inc.lang !== 'nginx') continue;
          const rel = t.paths.length > 1 ? p : t.pattern;
          for (const x of (inc.ast as NginxFile).directives) {
            if (x.entry || x.block || !once(x.name, ctx)) continue;
            const first = seen.get(x.name);
            if (first !== undefined)
              findings.push({
                ruleId: 'nginx/duplicate',
                start: t.start,
                end: t.end,
                message: `"${x.name}" directive is duplicate: ${rel} gives it again (after ${first || 'this block'})`,
              });
            else seen.set(x.name, rel);
          }
        }
        continue;
      }
      if (!d.block && once(d.name, ctx)) {
        const first = seen.get(d.name);
        if (first)
          findings.push({
            ruleId: 'nginx/duplicate',
            start: d.nameStart,
            end: d.nameEnd,
            message: `"${d.name}" directive is duplicate (${first} gives it already)`,
          });
        else if (first === undefined) seen.set(d.name, '');
      }
      if (d.block && !d.rawBody) visit(d.block.children, childContext(ctx, d.name));
    }
  };
  visit((file.ast as NginxFile).directives, top);
}

/**
 * Drops the module's own reports that other files of the unit answer: an nginx variable set in
 * an including file, an HAProxy backend defined in another file of the folder.
 */
export function filterAnsweredElsewhere(index: WorkspaceIndex, uri: string, diagnostics: Diagnostic[], unit?: Unit): Diagnostic[] {
  const file = index.get(uri);
  if (!file) return diagnostics;
  unit ??= index.unitOf(uri);
  if (unit.files.length < 2) return diagnostics;
  // `kind\0name` of the other files' definitions, made when a report needs it (kinds hold no NUL)
  let others: Set<string> | undefined;
  const defined = (kind: string, name: string): boolean => {
    if (!others) {
      others = new Set();
      for (const f of unit!.files) {
        if (f === file) continue;
        for (const e of index.entities(f)) if (e.role === 'def') others.add(`${e.kind}\0${e.name}`);
      }
    }
    return others.has(`${kind}\0${name}`);
  };
  return diagnostics.filter((d) => {
    const code = d.code;
    if (code !== 'nginx/unknown-variable' && code !== 'haproxy/unknown-backend' && code !== 'haproxy/unknown-reference') return true;
    const text = file.doc.getText(d.range);
    if (code === 'nginx/unknown-variable') return !defined('variable', text.replace(/^\$\{?|\}$/g, '').toLowerCase());
    if (code === 'haproxy/unknown-backend') return !defined('backend', text.replace(/^["']|["']$/g, ''));
    if (code === 'haproxy/unknown-reference') {
      const section = /^No '(\w+)' section named '([^']+)'/.exec(d.message);
      if (section) return !defined(section[1], section[2]);
      const table = /^No stick table named '([^']+)'/.exec(d.message);
      if (table) return !defined('table', table[1]);
    }
    return true;
  });
}

interface IncludeTarget {
  start: number;
  end: number;
  /** The include directive's start (the key of its bound notes). */
  siteStart: number;
  pattern: string;
  paths: string[];
}

const resolveAbs = (p: string) => (p.startsWith('/') ? p.replace(/\/+/g, '/') : '');

function includeTargets(index: WorkspaceIndex, unit: Unit, file: IndexedFile): IncludeTarget[] {
  if (file.lang !== 'nginx' || !file.path.startsWith('/')) return [];
  const mainDir = unit.mainDir ?? dirname(file.path);
  return index.sitesOf(file.ast as NginxFile, index.contextIn(unit, file) ?? 'main').map((s) => ({
    start: s.word.start,
    end: s.word.end,
    siteStart: s.start,
    pattern: s.pattern,
    paths: resolveInclude(s.pattern, mainDir, dirname(file.path), index.includeFs()).slice(0, MAX_INCLUDE_FILES),
  }));
}

export function documentLinks(index: WorkspaceIndex, uri: string): DocumentLink[] {
  const file = index.get(uri);
  if (!file) return [];
  const unit = index.unitOf(uri);
  const out: DocumentLink[] = [];
  for (const t of includeTargets(index, unit, file)) {
    if (!t.paths.length) continue;
    const names = t.paths.map((p) => p.slice(p.lastIndexOf('/') + 1));
    out.push({
      range: { start: file.doc.positionAt(t.start), end: file.doc.positionAt(t.end) },
      target: pathToUri(t.paths[0]),
      tooltip: t.paths.length === 1 ? t.paths[0] : `${t.paths.length} files: ${names.join(', ')}`,
    });
  }
  return out;
}

/** Symbols of every workspace file whose name contains the query's characters in order (case-insensitive). */
export function workspaceSymbols(index: WorkspaceIndex, query: string, limit = 500): SymbolInformation[] {
  const q = query.toLowerCase().replace(/\s+/g, '');
  const fits = (name: string) => {
    const n = name.toLowerCase();
    let i = 0;
    for (const ch of n) if (ch === q[i]) i++;
    return i >= q.length;
  };
  const out: SymbolInformation[] = [];
  for (const f of index.workspaceFiles()) {
    const m = index.moduleOf(f.lang);
    let symbols: DocumentSymbol[] = [];
    try {
      symbols = m.symbols ? m.symbols(f.doc, f.ast) : [];
    } catch {
      symbols = [];
    }
    const visit = (list: DocumentSymbol[], container?: string) => {
      for (const s of list) {
        if (out.length >= limit) return;
        if (fits(s.name)) out.push({ name: s.name, kind: s.kind, location: { uri: f.uri, range: s.range }, containerName: container });
        if (s.children) visit(s.children, s.name);
      }
    };
    visit(symbols);
    if (out.length >= limit) break;
  }
  return out;
}
