// nginx validation: judges a parsed file the way `nginx -t` would (syntax, unknown
// directives, contexts, argument counts, values, duplicates, variables), version-aware.
// Produces Findings against the rule rows of rules.ts; the rule engine makes diagnostics of them.
import type { Diagnostic } from 'vscode-languageserver-types';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { nginxRegistry as nginxRules, type NginxFinding as Finding, type NginxRuleId } from './rules';
import { compareVersions } from '../../core/version';
import { shiftFinding } from '../../core/rules';
import { editDistance } from '../../core/editDistance';
import type { Directive, NginxFile, Word } from './ast';
import { childContext, variablesIn } from './ast';
import { createBlockMemoTable, findMemoBlock, type BlockMemoTable } from './blockMemo';
import {
  DIRECTIVES,
  documentedModules,
  directivesAt,
  entryKeywordMissing,
  deprecation,
  DIRECTIVE_NAMES,
  lookupVariable,
  thirdPartyModule,
  variantInVersion,
  isLiteralArg,
  LISTEN_SOCKET_OPTIONS,
  VARIABLE_SETTERS,
  UPSTREAM_SERVER_PARAMS,
  type DirectiveVariant,
  type ValueType,
} from './data';
import { allowedVariant, memo2 } from './inferContext';
import {
  allLoadedKnown,
  builtInModules,
  describeModule,
  loadOrderFinding,
  loadInsertOffset,
  loadStateKey,
  modulesToLoad,
  standaloneLoadState,
  variantLoaded,
  type ModuleHostFacts,
  type ModuleLoadState,
} from './modules';

export interface ValidateOptions {
  /** Target version (undefined: newest). */
  version?: string;
  /** Context the file is included in; `main` for a whole configuration. */
  context?: string;
  /**
   * Which loadable modules (third-party, njs) the configuration loads; without it, the file's own
   * `load_module` lines (a fragment, or a main file with an `include` in the main context: any).
   */
  modules?: ModuleLoadState;
  /** This machine's nginx modules, asked only for a directive whose module is not loaded (the load_module fix). */
  hostModules?: () => ModuleHostFacts | undefined;
  /**
   * The open document's memo (kept by the caller from one edit to the next): the findings of
   * each block reused when neither its text nor what it depends on changed (see BlockMemo).
   */
  memo?: ValidationMemo;
}

/**
 * One block (a top-level block or a block directly inside one: an http-level `server`,
 * `upstream`, `map`) of the previous validation of the same document. Its findings are a
 * function of the block's own text, the context it is in and a few facts of the file (`env`):
 * the target version, the load state of modules, the file's context, the variables the file
 * defines and the modules already noted; the variables it defines and what a server tells its
 * http block (listen sockets, certificates) are functions of its text alone. A block is found
 * again by identity (the re-parse hands over every statement that ends before the change) or by
 * its distance from the end of the text and its text (a block after the change, read anew at
 * shifted offsets): what it holds is kept relative to its start or shifted.
 */
interface BlockMemo {
  /** Where the block is in the memo's `text`. */
  start: number;
  end: number;
  /** The variables the block's body defines, in the order the definitions walk adds them; `captures`: the flag they were collected with. */
  defs: string[];
  captures: boolean;
  /** The body's findings at `start` and their environment, when they could be kept. */
  env?: string;
  findings?: Finding[];
  /** For a server: its listen sockets and TLS facts, offsets relative to `start`. */
  server?: ServerSummary;
}

/** Per document: the blocks of the last validation, by node and by distance from the end of the text; replaced at every run (blockMemo.ts). */
export type ValidationMemo = BlockMemoTable<BlockMemo>;

export function createValidationMemo(): ValidationMemo {
  return createBlockMemoTable<BlockMemo>();
}

/** Blocks this deep (0: top level) or less are memoized; deeper ones are walked with their block. */
const MEMO_DEPTH = 1;

const SIZE_RE = /^\d+[kKmMgG]?$/;
const TIME_RE = /^(\d+(ms|s|m|h|d|w|M|y)?)+$/;
const NUMBER_RE = /^\d+$/;

function checkType(t: ValueType, v: string): boolean {
  switch (t) {
    case 'size':
      return SIZE_RE.test(v);
    case 'time':
      return TIME_RE.test(v.replace(/ /g, ''));
    case 'number':
      return NUMBER_RE.test(v);
  }
}

const suggestions = new Map<string, string | undefined>();

export function suggestDirective(name: string, context?: string): string | undefined {
  const key = `${context ?? ''}\0${name}`;
  if (suggestions.has(key)) return suggestions.get(key);
  const s = computeSuggestion(name, context);
  if (suggestions.size > 5000) suggestions.clear();
  suggestions.set(key, s);
  return s;
}

function computeSuggestion(name: string, context?: string): string | undefined {
  const limit = name.length <= 4 ? 1 : name.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestD = limit + 1;
  for (const n of DIRECTIVE_NAMES) {
    const d = editDistance(name, n, limit);
    if (d < bestD || (d === bestD && best && context && allowedIn(n, context) && !allowedIn(best, context))) {
      best = n;
      bestD = d;
    }
  }
  return bestD <= limit ? best : undefined;
}

function allowedIn(name: string, ctx: string): boolean {
  return (DIRECTIVES.get(name) ?? []).some((v) => v.contexts.includes(ctx) || v.contexts.includes('*'));
}

/** Variables the file defines: set, map, geo, split_clients, js_set, perl_set, regex captures... */
/** Per parse: completion and hover ask again at every keystroke (a walk of the whole file each time). */
const definedVariables = new WeakMap<NginxFile, ReadonlySet<string>>();

export function collectDefinedVariables(file: NginxFile): ReadonlySet<string> {
  let known = definedVariables.get(file);
  if (!known) definedVariables.set(file, (known = walkDefinedVariables(file)));
  return known;
}

const DEFINED_WORD = /^\$([A-Za-z0-9_]+)$/;
const NAMED_CAPTURE = /\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>/g;
const NAMED_CAPTURE_QUOTED = /\(\?P?'([A-Za-z_][A-Za-z0-9_]*)'/g;

function addDefinedWord(out: Set<string>, w: Word | undefined): void {
  if (!w) return;
  const m = DEFINED_WORD.exec(w.value);
  if (m) out.add(m[1].toLowerCase());
}

function addCaptures(out: Set<string>, w: Word | undefined): void {
  if (!w) return;
  for (const m of w.value.matchAll(NAMED_CAPTURE)) out.add(m[1].toLowerCase());
  for (const m of w.value.matchAll(NAMED_CAPTURE_QUOTED)) out.add(m[1].toLowerCase());
}

function walkDefinedVariables(file: NginxFile): Set<string> {
  const out = new Set<string>();
  visitDefinitions(out, file.directives, undefined, mayHoldCaptures(file));
  return out;
}

/**
 * A value holds `(?` only when the text does (no escape makes either character), so a file
 * without it has no named captures to look for in any word.
 */
function mayHoldCaptures(file: NginxFile): boolean {
  return typeof file.text !== 'string' || file.text.indexOf('(?') >= 0;
}

/**
 * How a directive defines a variable: 0 none, 1 its first argument, 2 its second, 3 its last.
 * The known setters are groups.json's variableSetters; a third-party module's `set_*`, `*_set` and
 * `geoip2*` directives set their first argument.
 */
function definitionKind(n: string): number {
  const at = VARIABLE_SETTERS.get(n);
  if (at !== undefined) return at === -1 ? 3 : at + 1;
  if (n.startsWith('set_') || n.endsWith('_set') || n.startsWith('geoip2')) return 1;
  return 0;
}

/** The variables one directive (not its block) defines, in the order the walk has always added them. */
function addDefinitions(out: Set<string>, d: Directive, parent: Directive | undefined, captures: boolean, kind: number): void {
  if (d.entry) {
    if (captures) addCaptures(out, d.nameWord);
    if (parent && parent.name === 'geoip2') addDefinedWord(out, d.nameWord);
    return;
  }
  const args = d.args;
  if (captures) {
    for (let j = 0; j < args.length; j++) if (args[j].value.includes('(?')) addCaptures(out, args[j]);
    if (d.nameWord.value.includes('(?')) addCaptures(out, d.nameWord);
  }
  if (kind === 1) addDefinedWord(out, args[0]);
  else if (kind === 2) addDefinedWord(out, args[1]);
  else if (kind === 3) addDefinedWord(out, args[args.length - 1]);
  if (captures && d.name === 'server_name') for (let j = 0; j < args.length; j++) addCaptures(out, args[j]);
}

function visitDefinitions(out: Set<string>, list: Directive[], parent: Directive | undefined, captures: boolean): void {
  for (let i = 0; i < list.length; i++) {
    const d = list[i];
    addDefinitions(out, d, parent, captures, d.entry ? 0 : definitionKind(d.name));
    if (d.block && !d.rawBody) visitDefinitions(out, d.block.children, d, captures);
  }
}

/** A validation's use of the memo: the previous run's blocks, this run's, what each block matched, the file's facts. */
interface RunMemo {
  prev: ValidationMemo;
  next: ValidationMemo;
  env: string;
  /** Each memoized block of this run: the previous run's entry it matched (by node or text), else null. */
  found: Map<Directive, BlockMemo | null>;
  /** Each memoized block's own definitions, as collected before the walk. */
  defs: Map<Directive, string[]>;
  /** The summaries of the servers walked this run (kept with their entries). */
  servers: Map<Directive, ServerSummary>;
}

interface Ctx {
  findings: Finding[];
  version?: string;
  /** The file's variables; complete only after the walk when `collecting`. */
  defined: ReadonlySet<string>;
  /**
   * The walk fills `defined` itself (no separate walk first): variable checks wait in
   * `pendingWords`, each with the number of findings before it, and are judged at the end.
   */
  collecting?: Set<string>;
  captures: boolean;
  pendingAt: number[];
  pendingWords: Word[];
  isFragment: boolean;
  isMain: boolean;
  /** What each directive name means in each context at this version (see `Resolved`). */
  tables: Map<string, Map<string, Resolved>>;
  /** Raw words with variables already found to need no report in this run (`$host` is everywhere). */
  cleanWords: Set<string>;
  file: NginxFile;
  modules: ModuleLoadState;
  hostModules?: () => ModuleHostFacts | undefined;
  /** Loadable modules already noted as maybe not loaded in this run (once per module and file). */
  notedModules?: Set<string>;
  /** With a memo: the previous run's blocks, the blocks of this run, and the file's facts they depend on. */
  memo?: RunMemo;
  /** Set when `hostModules` was asked (a block that asked it is not memoized: the host may change). */
  askedHost: boolean;
}

function fmtTarget(v: string | undefined): string {
  return v ?? 'newest';
}

/**
 * What checkDirective needs of a known directive name in one context at one target version,
 * worked out once rather than for every occurrence (a generated config repeats each name
 * thousands of times).
 */
interface Resolved {
  /** The variants allowed here and present at the version; empty when the directive is refused. */
  inVersion: DirectiveVariant[];
  /** Why it is refused here (not allowed / needs newer / removed), when it is. */
  refusalRule?: NginxRuleId;
  refusalMessage?: string;
  /** A refused directive's words are still checked for variables (not allowed here only). */
  refusalChecksWords: boolean;
  commercialMessage?: string;
  deprecatedMessage?: string;
  wantsBlock: boolean;
  wantsPlain: boolean;
  /** See definitionKind. */
  defines: number;
  /** The name is known only to loadable modules this configuration does not load: their `.so` names. */
  notLoaded?: string[];
  /** Every usable variant here is of a loadable module that may or may not be loaded (the load state is unknown). */
  maybeLoaded?: string;
}

const NO_VARIANTS: DirectiveVariant[] = [];

/** version and load state -> context -> name -> Resolved; pure functions of the data, shared by every run. */
const resolvedByVersion = new Map<string, Map<string, Map<string, Resolved>>>();

function tablesFor(version: string | undefined, modules: ModuleLoadState): Map<string, Map<string, Resolved>> {
  // the loadable modules a configuration loads change what a name means: one table per load state
  const key = `${version ?? ''}\0${loadStateKey(modules)}`;
  let t = resolvedByVersion.get(key);
  if (!t) {
    if (resolvedByVersion.size >= 16) resolvedByVersion.clear();
    resolvedByVersion.set(key, (t = new Map()));
  }
  return t;
}

function tableFor(c: Ctx, ctx: string): Map<string, Resolved> {
  let t = c.tables.get(ctx);
  if (!t) {
    if (c.tables.size >= 64) c.tables.clear(); // contexts named by `# context:` comments
    c.tables.set(ctx, (t = new Map()));
  }
  return t;
}

/** resolveDirective under a load state: variants of modules not loaded do not exist for nginx. */
function resolveLoaded(
  variants: DirectiveVariant[],
  name: string,
  ctx: string,
  version: string | undefined,
  modules: ModuleLoadState,
): Resolved {
  let all = variants;
  if (variants.some((v) => v.load)) {
    all = variants.filter((v) => variantLoaded(v, modules));
    if (all.length === 0) {
      const so = [...new Set(variants.map((v) => v.load!))];
      return {
        inVersion: NO_VARIANTS,
        refusalChecksWords: false,
        wantsBlock: false,
        wantsPlain: false,
        defines: definitionKind(name),
        notLoaded: so,
      };
    }
  }
  const r = resolveDirective(all, name, ctx, version);
  if (modules.unknown && r.inVersion.length && r.inVersion.every((v) => v.load)) r.maybeLoaded = r.inVersion[0].load;
  return r;
}

function resolveDirective(all: DirectiveVariant[], name: string, ctx: string, version: string | undefined): Resolved {
  const here = all.filter((v) => allowedVariant(v, ctx));
  if (here.length === 0) {
    // a third-party module may reuse a name in its own context
    return {
      inVersion: NO_VARIANTS,
      refusalRule: 'nginx/not-allowed-here',
      refusalMessage: `"${name}" directive is not allowed here (${ctx})`,
      refusalChecksWords: true,
      wantsBlock: false,
      wantsPlain: false,
      defines: definitionKind(name),
    };
  }
  const inVersion = here.filter((v) => variantInVersion(v, version) === 'yes');
  if (inVersion.length === 0) {
    const newer = here.filter((v) => variantInVersion(v, version) === 'newer');
    let refusalRule: NginxRuleId;
    let refusalMessage: string;
    // the documented version when it is later than the target, else what the probe saw
    const seen = newer.find((v) => v.firstSeenIn && v.since === v.firstSeenIn)?.firstSeenIn;
    if (newer.length && seen) {
      // probed: the target's binary does not know it, a newer one of the matrix does
      refusalRule = 'nginx/needs-newer-version';
      refusalMessage = `"${name}" is unknown to nginx ${fmtTarget(version)}; nginx ${seen} knows it`;
    } else if (newer.length) {
      const since = newer.map((v) => v.since!).sort()[0];
      refusalRule = 'nginx/needs-newer-version';
      refusalMessage = `"${name}" needs nginx >= ${since} (target is ${fmtTarget(version)})`;
    } else {
      const until = here.map((v) => v.until!).sort()[0];
      refusalRule = 'nginx/removed-in-version';
      refusalMessage = `"${name}" was removed in nginx ${until} (target is ${fmtTarget(version)})`;
    }
    return {
      inVersion: NO_VARIANTS,
      refusalRule,
      refusalMessage,
      refusalChecksWords: false,
      wantsBlock: false,
      wantsPlain: false,
      defines: definitionKind(name),
    };
  }
  const dep = deprecation(name, version, inVersion[0]);
  return {
    inVersion,
    refusalChecksWords: false,
    commercialMessage: inVersion.every((v) => v.commercial)
      ? `"${name}" is available only in the commercial subscription build of nginx`
      : undefined,
    deprecatedMessage: dep
      ? `the "${name}" directive is deprecated since nginx ${dep.since}${dep.use ? `, use "${dep.use}" instead` : ''}`
      : undefined,
    wantsBlock: inVersion.some((x) => x.block),
    wantsPlain: inVersion.some((x) => !x.block),
    defines: definitionKind(name),
  };
}

/** Whether `target` is an older version than `since` (the data names few versions). */
const olderThan = memo2(16, (target, since) => compareVersions(target, since) < 0);

export function validateFile(file: NginxFile, opts: ValidateOptions = {}): Finding[] {
  const findings: Finding[] = [];
  for (const e of file.errors) findings.push({ ruleId: 'nginx/syntax', start: e.start, end: Math.max(e.end, e.start), message: e.message });
  const context = opts.context ?? 'main';
  let modules = opts.modules ?? standaloneLoadState(file, context);
  // a .so we know nothing of (a module built by hand, a renamed one) may define any name
  if (!modules.unknown && !allLoadedKnown(modules, documentedModules)) modules = { loaded: modules.loaded, unknown: true };
  // with a memo the file's variables are known before the walk (a block's findings depend on them):
  // collected with each unchanged block's own list
  let run: RunMemo | undefined;
  if (opts.memo) run = { prev: opts.memo, next: createValidationMemo(), env: '', found: new Map(), defs: new Map(), servers: new Map() };
  const known = run ? memoDefinitions(run, file) : definedVariables.get(file);
  const collecting = known ? undefined : new Set<string>();
  const c: Ctx = {
    findings,
    version: opts.version,
    defined: known ?? collecting!,
    collecting,
    captures: mayHoldCaptures(file),
    pendingAt: [],
    pendingWords: [],
    isFragment: context !== 'main',
    isMain: context === 'main',
    tables: tablesFor(opts.version, modules),
    cleanWords: new Set(),
    file,
    modules,
    hostModules: opts.hostModules,
    askedHost: false,
  };
  if (opts.hostModules) {
    const ask = opts.hostModules;
    c.hostModules = () => {
      c.askedHost = true;
      return ask();
    };
  }
  if (run) {
    run.env = `${context}\0${opts.version ?? ''}\0${loadStateKey(modules)}\0${[...known!].sort().join(' ')}`;
    c.memo = run;
  }
  visitList(c, file.directives, context, undefined, 0);
  if (run) {
    // the caller's memo object now holds this run's blocks
    const { next } = run;
    run.prev.text = file.text;
    run.prev.byNode = next.byNode;
    run.prev.byEnd = next.byEnd;
    run.prev.reused = next.reused;
    run.prev.walked = next.walked;
  }
  if (collecting) {
    if (!definedVariables.has(file)) definedVariables.set(file, collecting);
    c.collecting = undefined;
    judgePending(c);
  }
  if (context === 'main') {
    checkLogFormats(c, file);
    const top = file.directives;
    const hasHttp = top.find((d) => d.name === 'http' || d.name === 'stream' || d.name === 'mail');
    if (hasHttp && !top.some((d) => d.name === 'events') && !top.some((d) => d.name === 'include')) {
      findings.push({
        ruleId: 'nginx/missing-events',
        start: hasHttp.nameStart,
        end: hasHttp.nameEnd,
        message: 'no "events" section in configuration',
      });
    }
  }
  return findings;
}

function visitList(c: Ctx, list: Directive[], ctx: string, parent: Directive | undefined, depth: number): void {
  // made on first use: most blocks have no duplicate-checked directive, location or upstream;
  // the first two duplicate-checked names are kept in variables (a location's proxy_pass and
  // proxy_http_version), a set only from the third: a set per block was 1.9 MB of allocation
  // on the 4,000-server file
  let seen1: string | undefined;
  let seen2: string | undefined;
  let seen: Set<string> | undefined;
  let locations: Set<string> | undefined;
  let upstreams: Set<string> | undefined;
  const listens = ctx === 'http' ? new ListenTable() : undefined;
  // TLS sockets of a whole config's http block, or of a file of servers (a vhost) without includes
  const tls =
    ctx === 'http' && ((c.isMain && parent) || (!parent && c.isFragment && !c.file.directives.some((x) => x.name === 'include')))
      ? new TlsSockets()
      : undefined;
  const table = tableFor(c, ctx);
  const parentName = parent?.name;
  const collecting = c.collecting;
  for (let i = 0; i < list.length; i++) {
    const d = list[i];
    if (d.entry) {
      if (collecting) {
        addDefinitions(collecting, d, parent, c.captures, 0);
        if (d.block && !d.rawBody) visitDefinitions(collecting, d.block.children, d, c.captures);
      }
      if (parentName === 'map') {
        const args = d.args;
        for (let j = 0; j < args.length; j++) checkVariables(c, args[j]);
      }
      if ((parentName === 'geo' || parentName === 'map') && c.version)
        checkEntryKeyword(c, d, ctx === 'stream' ? `stream/${parentName}` : parentName);
      if (parentName === 'geo' || parentName === 'map') checkMapGeoEntry(c, d, parentName, list, i);
      continue;
    }
    const name = d.name;
    let r = table.get(name);
    if (r === undefined) {
      const all = directivesAt(name, c.version);
      if (all) table.set(name, (r = resolveLoaded(all, name, ctx, c.version, c.modules)));
    }
    if (collecting) addDefinitions(collecting, d, parent, c.captures, r ? r.defines : definitionKind(name));
    const variant = checkDirective(c, d, ctx, r);
    if (variant !== undefined) {
      if (variant.duplicate) {
        let dup = false;
        if (seen1 === undefined) seen1 = name;
        else if (seen1 === name || seen2 === name) dup = true;
        else if (seen2 === undefined) seen2 = name;
        else if (seen === undefined) (seen = new Set()).add(name);
        else if (seen.has(name)) dup = true;
        else seen.add(name);
        if (dup)
          c.findings.push({ ruleId: 'nginx/duplicate', start: d.nameStart, end: d.nameEnd, message: `"${name}" directive is duplicate` });
      }
      switch (name) {
        case 'location':
          if (d.args.length) {
            const loc = locationInfo(d);
            const key = loc.kind === 'exact' ? `=${loc.name}` : loc.kind === 'prefix' ? `p:${loc.name}` : undefined;
            if (key !== undefined) {
              if (locations === undefined) locations = new Set();
              if (locations.has(key))
                c.findings.push({
                  ruleId: 'nginx/duplicate',
                  start: d.nameStart,
                  end: d.args[d.args.length - 1].end,
                  message: `duplicate location "${loc.name}"`,
                });
              else locations.add(key);
            }
            if (parentName === 'location') checkNestedLocation(c, d, loc, locationInfo(parent!));
          }
          break;
        case 'upstream':
          if (d.block) {
            if (d.args.length === 1 && (ctx === 'http' || ctx === 'stream')) {
              const key = d.args[0].value.toLowerCase();
              if (upstreams === undefined) upstreams = new Set();
              if (upstreams.has(key))
                c.findings.push({
                  ruleId: 'nginx/duplicate',
                  start: d.nameStart,
                  end: d.args[0].end,
                  message: `duplicate upstream "${d.args[0].value}"`,
                });
              else upstreams.add(key);
            }
            if (!hasUpstreamServer(d.block.children)) {
              c.findings.push({
                ruleId: 'nginx/empty-upstream',
                start: d.nameStart,
                end: d.args[0]?.end ?? d.nameEnd,
                message: 'no servers are inside upstream',
              });
            }
          }
          break;
        case 'return':
          if (ctx === 'server' || ctx === 'location' || ctx.startsWith('if in')) checkReturn(c, d);
          break;
        case 'listen':
          if (!variant.module.startsWith('ngx_mail_')) checkListenParams(c, d, variant);
          break;
        case 'server':
          if (ctx === 'upstream' || ctx === 'stream/upstream') checkUpstreamServerParams(c, d, ctx);
          break;
        case 'error_page':
          checkErrorPage(c, d);
          break;
        case 'load_module':
          if (ctx === 'main' && d.args[0]) {
            const f = loadOrderFinding(d, list, i, c.modules);
            if (f) c.findings.push(f);
          }
          break;
      }
    }
    if (name === 'server' && d.block) {
      if (listens) {
        const summary = serverSummaryOf(c, d);
        if (c.isMain && parent) checkCertificates(c, d, parent, summary);
        listens.addServer(c, d, summary);
        tls?.addServer(d, summary);
      }
    }
    // a block of a module not loaded: nginx stops at its name, its content is not judged (its variables still count)
    if (d.block && !d.rawBody && r?.notLoaded !== undefined) {
      if (collecting) visitDefinitions(collecting, d.block.children, d, c.captures);
      continue;
    }
    if (d.block && !d.rawBody) {
      const inner = childContext(ctx, name);
      if (inner.startsWith('block:')) {
        // unknown block: its content is not ours to judge (its variables still count)
        if (collecting) visitDefinitions(collecting, d.block.children, d, c.captures);
        continue;
      }
      if (c.memo !== undefined && depth <= MEMO_DEPTH) visitMemoized(c, d, inner, depth);
      else visitList(c, d.block.children, inner, d, depth + 1);
    }
  }
  tls?.report(c, parent);
}

/** Whether every offset of the findings lies in [from, to] (a block's findings that point elsewhere are not memoized). */
function findingsWithin(list: Finding[], k: number, from: number, to: number): boolean {
  for (let i = k; i < list.length; i++) {
    const f = list[i];
    if (f.start < from || f.end > to) return false;
    if (f.fixes) for (const fx of f.fixes) for (const e of fx.edits) if (e.start < from || e.end > to) return false;
  }
  return true;
}

/**
 * The file's variables (as walkDefinedVariables collects them, in the same order), with the
 * definitions of each memoized block that reads as before taken from the previous run. Also
 * looks every memoized block up once for the walk (`run.found`).
 */
function memoDefinitions(run: RunMemo, file: NginxFile): Set<string> {
  const out = new Set<string>();
  memoDefinitionsIn(run, file, out, file.directives, undefined, mayHoldCaptures(file), 0);
  return out;
}

function memoDefinitionsIn(
  run: RunMemo,
  file: NginxFile,
  out: Set<string>,
  list: Directive[],
  parent: Directive | undefined,
  captures: boolean,
  depth: number,
): void {
  for (let i = 0; i < list.length; i++) {
    const d = list[i];
    addDefinitions(out, d, parent, captures, d.entry ? 0 : definitionKind(d.name));
    if (!d.block || d.rawBody) continue;
    if (depth > MEMO_DEPTH) {
      visitDefinitions(out, d.block.children, d, captures);
      continue;
    }
    const hit = findMemoBlock(run.prev, d, file.text) ?? null;
    run.found.set(d, hit);
    let defs: string[];
    if (hit !== null && hit.captures === captures) defs = hit.defs;
    else if (depth < MEMO_DEPTH) {
      // an enclosing block that changed: its own blocks may still read as before
      const sub = new Set<string>();
      memoDefinitionsIn(run, file, sub, d.block.children, d, captures, depth + 1);
      defs = [...sub];
    } else {
      const sub = new Set<string>();
      visitDefinitions(sub, d.block.children, d, captures);
      defs = [...sub];
    }
    run.defs.set(d, defs);
    // a name already defined keeps its place: the same order as one walk into `out`
    for (let j = 0; j < defs.length; j++) out.add(defs[j]);
  }
}

/**
 * The body of block directive `d` in context `inner`: the previous run's findings when the block
 * reads the same (by node, or by text at shifted offsets) in the same environment, else walked.
 */
function visitMemoized(c: Ctx, d: Directive, inner: string, depth: number): void {
  const m = c.memo!;
  const noted = c.notedModules;
  const env = noted !== undefined && noted.size ? `${inner}\0${m.env}\0${[...noted].join(' ')}` : `${inner}\0${m.env}`;
  const start = d.start;
  const hit = m.found.has(d) ? m.found.get(d)! : (findMemoBlock(m.prev, d, c.file.text) ?? null);
  const captures = c.captures;
  let defs = m.defs.get(d);
  if (defs === undefined) {
    // a block inside a top-level block the definitions pass took over whole
    const sub = new Set<string>();
    visitDefinitions(sub, d.block!.children, d, captures);
    defs = [...sub];
  }
  if (hit !== null && hit.env === env && hit.findings !== undefined) {
    const delta = start - hit.start;
    const out = c.findings;
    let entry = hit;
    if (delta !== 0 || hit.defs !== defs) {
      let moved = hit.findings;
      if (delta !== 0) {
        moved = [];
        for (let i = 0; i < hit.findings.length; i++) moved.push(shiftFinding(hit.findings[i], delta));
      }
      entry = { start, end: d.end, defs, captures, env, findings: moved, server: hit.server };
    }
    const found = entry.findings!;
    for (let i = 0; i < found.length; i++) out.push(found[i]);
    keepBlock(c.file.text, m.next, d, entry);
    m.next.reused++;
    return;
  }
  const k = c.findings.length;
  const modules = c.modules;
  const notedBefore = noted?.size ?? 0;
  const asked = c.askedHost;
  c.askedHost = false;
  visitList(c, d.block!.children, inner, d, depth + 1);
  m.next.walked++;
  const cacheable =
    !c.askedHost && c.modules === modules && (c.notedModules?.size ?? 0) === notedBefore && findingsWithin(c.findings, k, start, d.end);
  c.askedHost ||= asked;
  const entry: BlockMemo = {
    start,
    end: d.end,
    defs,
    captures,
    server: m.servers.get(d) ?? hit?.server,
  };
  if (cacheable) {
    entry.env = env;
    entry.findings = c.findings.slice(k);
  }
  keepBlock(c.file.text, m.next, d, entry);
}

function keepBlock(text: string, next: ValidationMemo, d: Directive, entry: BlockMemo): void {
  next.byNode.set(d, entry);
  next.byEnd.set(text.length - entry.start, entry);
}

/** A `geo`/`map` keyword line (`volatile;`, `ranges;`) the target version does not know yet (probed). */
function checkEntryKeyword(c: Ctx, d: Directive, block: string): void {
  const kw = d.nameWord.value;
  const missing = entryKeywordMissing(block, kw, c.version);
  if (!missing) return;
  const where = block.replace('stream/', '');
  c.findings.push({
    ruleId: 'nginx/needs-newer-version',
    start: d.nameStart,
    end: d.nameEnd,
    message: `"${kw}" in a "${where}" block is unknown to nginx ${c.version}${missing.firstSeenIn ? `; nginx ${missing.firstSeenIn} knows it` : ''}`,
  });
}

function hasUpstreamServer(children: Directive[]): boolean {
  for (let i = 0; i < children.length; i++) {
    const n = children[i].name;
    if (n === 'server' || n === 'include' || !DIRECTIVES.has(n)) return true;
  }
  return false;
}

/** What a server inherits from its http block, computed once per http block (not once per server). */
interface HttpTlsFacts {
  include: boolean;
  certs: Directive[];
  keys: Directive[];
  rejects: boolean;
}

const httpTlsFacts = new WeakMap<Directive, HttpTlsFacts>();
const NO_DIRECTIVES: Directive[] = [];

function tlsFactsOf(list: Directive[]): HttpTlsFacts {
  let include = false;
  let certs = NO_DIRECTIVES;
  let keys = NO_DIRECTIVES;
  let rejects = false;
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    switch (x.name) {
      case 'include':
        include = true;
        break;
      case 'ssl_certificate':
        if (!x.entry) certs = certs === NO_DIRECTIVES ? [x] : (certs.push(x), certs);
        break;
      case 'ssl_certificate_key':
        if (!x.entry) keys = keys === NO_DIRECTIVES ? [x] : (keys.push(x), keys);
        break;
      case 'ssl_reject_handshake':
        if (x.args[0]?.value === 'on') rejects = true;
        break;
    }
  }
  return { include, certs, keys, rejects };
}

function isSslListen(x: Directive): boolean {
  if (x.name !== 'listen') return false;
  const args = x.args;
  for (let i = 1; i < args.length; i++) if (args[i].value === 'ssl') return true;
  return false;
}

/** `listen ... ssl` needs a certificate; each certificate needs a key (judged only on whole configurations). */
/**
 * What a server tells its http block's checks (certificates, listen sockets), from its own
 * children alone, offsets relative to the server's start: made once per server text (the memo
 * keeps it with the server's block).
 */
interface ServerSummary {
  include: boolean;
  rejects: boolean;
  /** `ssl_certificate` lines: name start, end, first argument. */
  certs: { start: number; end: number; arg: string }[];
  keys: number;
  /** The first `listen ... ssl`. */
  sslListen: { start: number; end: number } | undefined;
  /** Every TCP listen line by socket key (the address, or the raw text when it cannot be known): whether it says `ssl` or `default_server`. */
  sockets: { key: string; ssl: boolean; isDefault: boolean; start: number; end: number }[];
  /** Listen lines with a static address, in order; `dup`: the server listens on it already. */
  listens: { tcpAddr: string; addr: string; start: number; end: number; dup: boolean; isDefault: boolean; options: boolean }[];
}

function summarizeServer(server: Directive): ServerSummary {
  const base = server.start;
  const children = server.block!.children;
  const own = tlsFactsOf(children);
  let sslListen: ServerSummary['sslListen'];
  for (let i = 0; i < children.length && !sslListen; i++)
    if (isSslListen(children[i])) sslListen = { start: children[i].nameStart - base, end: children[i].end - base };
  const listens: ServerSummary['listens'] = [];
  const sockets: ServerSummary['sockets'] = [];
  let seen: Set<string> | undefined;
  for (let i = 0; i < children.length; i++) {
    const d = children[i];
    if (d.name !== 'listen' || d.entry || !d.args.length) continue;
    const args = d.args;
    let ssl = false;
    let quicOrDefault = 0;
    for (let j = 1; j < args.length; j++) {
      const p = args[j].value;
      if (p === 'ssl') ssl = true;
      else if (p === 'quic') quicOrDefault |= 1;
      else if (p === 'default_server' || p === 'default') quicOrDefault |= 2;
    }
    if (!(quicOrDefault & 1))
      sockets.push({
        key: listenAddress(args[0].value) ?? `raw:${args[0].value}`,
        ssl,
        isDefault: (quicOrDefault & 2) !== 0,
        start: d.nameStart - base,
        end: args[args.length - 1].end - base,
      });
    const tcpAddr = listenAddress(args[0].value);
    if (!tcpAddr) continue;
    // `quic` listens on UDP: beside `listen ... ssl` on the same address it is another socket
    let quic = false;
    for (let j = 1; j < args.length && !quic; j++) if (args[j].value === 'quic') quic = true;
    const addr = quic ? `${tcpAddr}/udp` : tcpAddr;
    if (seen === undefined) seen = new Set();
    const dup = seen.has(addr);
    seen.add(addr);
    let isDefault = false;
    let options = false;
    for (let j = 1; j < args.length && !dup; j++) {
      const p = args[j].value;
      if (p === 'default_server' || p === 'default') isDefault = true;
      if (!options && isSocketOption(p)) options = true;
    }
    listens.push({ tcpAddr, addr, start: d.nameStart - base, end: args[args.length - 1].end - base, dup, isDefault, options });
  }
  return {
    include: own.include,
    rejects: own.rejects,
    certs: own.certs.map((x) => ({ start: x.nameStart - base, end: x.end - base, arg: x.args[0]?.value ?? '' })),
    keys: own.keys.length,
    sslListen,
    listens,
    sockets,
  };
}

/** A server's summary: the memo's, for a server that reads as in the previous run, else made now (and kept). */
function serverSummaryOf(c: Ctx, server: Directive): ServerSummary {
  const m = c.memo;
  if (m === undefined) return summarizeServer(server);
  const kept = m.found.get(server)?.server;
  if (kept !== undefined) return kept;
  let s = m.servers.get(server);
  if (s === undefined) m.servers.set(server, (s = summarizeServer(server)));
  return s;
}

/**
 * The default server of each TLS socket of an http block (or a file of servers): nginx needs a
 * certificate on that one only (a named server without one is accepted, its handshakes get the
 * default's). The default is the `default_server` listen, else the first server on the socket;
 * the socket is TLS when any of its listen lines says `ssl`.
 */
class TlsSockets {
  private readonly byKey = new Map<string, { server: Directive; own: ServerSummary; at: number; explicit: boolean; ssl: boolean }>();

  addServer(server: Directive, own: ServerSummary): void {
    for (let i = 0; i < own.sockets.length; i++) {
      const s = own.sockets[i];
      const prev = this.byKey.get(s.key);
      if (!prev) this.byKey.set(s.key, { server, own, at: i, explicit: s.isDefault, ssl: s.ssl });
      else {
        prev.ssl ||= s.ssl;
        if (s.isDefault && !prev.explicit) Object.assign(prev, { server, own, at: i, explicit: true });
      }
    }
  }

  /** Reports each default server of a TLS socket that has no certificate (own or from `http`). */
  report(c: Ctx, http: Directive | undefined): void {
    let up: HttpTlsFacts | undefined;
    if (http) {
      up = httpTlsFacts.get(http);
      if (!up) httpTlsFacts.set(http, (up = tlsFactsOf(http.block!.children)));
      if (up.include) return;
    }
    const reported = new Set<Directive>();
    for (const e of this.byKey.values()) {
      if (!e.ssl || reported.has(e.server)) continue;
      const own = e.own;
      if (own.include || own.rejects || up?.rejects || own.certs.length || up?.certs.length) continue;
      reported.add(e.server);
      const sock = own.sockets[e.at];
      c.findings.push({
        ruleId: 'nginx/missing-certificate',
        start: e.server.start + sock.start,
        end: e.server.start + sock.end,
        message: http
          ? 'no "ssl_certificate" is defined for the "listen ... ssl" directive'
          : 'no "ssl_certificate" is defined for the "listen ... ssl" directive of the default server of this socket: nginx refuses the config unless the including http block sets one',
        // a file of servers: the http block that includes it may set the certificate
        severity: http ? undefined : 'warning',
      });
    }
  }
}

/** Each certificate needs a key (judged only on whole configurations; the certificate itself: TlsSockets). */
function checkCertificates(c: Ctx, server: Directive, http: Directive, own: ServerSummary): void {
  let up = httpTlsFacts.get(http);
  if (!up) httpTlsFacts.set(http, (up = tlsFactsOf(http.block!.children)));
  if (own.include || up.include) return;
  const base = server.start;
  const certCount = own.certs.length ? own.certs.length : up.certs.length;
  const keyCount = own.keys ? own.keys : up.keys.length;
  if (certCount > keyCount) {
    const mine = own.certs.length ? own.certs[keyCount] : undefined;
    const theirs = mine ? undefined : up.certs[keyCount];
    const start = mine ? base + mine.start : theirs!.nameStart;
    const end = mine ? base + mine.end : theirs!.end;
    const arg = mine ? mine.arg : (theirs!.args[0]?.value ?? '');
    c.findings.push({
      ruleId: 'nginx/missing-certificate',
      start,
      end,
      message: `no "ssl_certificate_key" is defined for certificate "${arg}"`,
    });
  }
}

interface LocationInfo {
  kind: 'exact' | 'prefix' | 'regex' | 'named';
  /** As nginx prints it: the uri, the regex, or `@name`. */
  name: string;
}

function locationInfo(d: Directive): LocationInfo {
  const a = d.args;
  if (a.length >= 2) {
    const m = a[0].value;
    const name = a[1].value;
    if (m === '=') return { kind: 'exact', name };
    if (m === '~' || m === '~*') return { kind: 'regex', name };
    return { kind: 'prefix', name };
  }
  const v = a[0]?.value ?? '';
  if (v.startsWith('=')) return { kind: 'exact', name: v.slice(1) };
  if (v.startsWith('~*')) return { kind: 'regex', name: v.slice(2) };
  if (v.startsWith('~')) return { kind: 'regex', name: v.slice(1) };
  if (v.startsWith('^~')) return { kind: 'prefix', name: v.slice(2) };
  if (v.startsWith('@')) return { kind: 'named', name: v };
  return { kind: 'prefix', name: v };
}

/** nginx's rules for a location inside a location (ngx_http_core_location). */
function checkNestedLocation(c: Ctx, d: Directive, loc: LocationInfo, outer: LocationInfo): void {
  const at = (message: string): void => {
    c.findings.push({ ruleId: 'nginx/not-allowed-here', start: d.nameStart, end: d.args[d.args.length - 1].end, message });
  };
  if (outer.kind === 'exact') return at(`location "${loc.name}" cannot be inside the exact location "${outer.name}"`);
  if (outer.kind === 'named') return at(`location "${loc.name}" cannot be inside the named location "${outer.name}"`);
  if (loc.kind === 'named') return at(`named location "${loc.name}" can be on the server level only`);
  // a nested prefix location must start with the outer one's name (even when that one is a regex)
  if (loc.kind !== 'regex' && !loc.name.startsWith(outer.name)) at(`location "${loc.name}" is outside location "${outer.name}"`);
}

/** Keywords of a `map` / `geo` block that stand alone (`hostnames;`, `ranges;`). */
const ENTRY_ALONE: Record<'map' | 'geo', ReadonlySet<string>> = {
  map: new Set(['hostnames', 'volatile']),
  geo: new Set(['ranges', 'proxy_recursive', 'volatile']),
};
const GEO_KEYWORDS = new Set(['default', 'include', 'proxy', 'delete', 'ranges', 'proxy_recursive', 'volatile']);

/** A `map` / `geo` entry as nginx reads it: a key and a value, no block; `ranges` take ranges, not CIDRs. */
function checkMapGeoEntry(c: Ctx, d: Directive, kind: 'map' | 'geo', list: Directive[], i: number): void {
  if (d.block) {
    c.findings.push({ ruleId: 'nginx/syntax', start: d.nameStart, end: d.nameEnd, message: 'unexpected "{"' });
    return;
  }
  const words = 1 + d.args.length;
  if ((words === 1 && !ENTRY_ALONE[kind].has(d.name)) || words > 2) {
    c.findings.push({
      ruleId: 'nginx/arg-count',
      start: d.nameStart,
      end: d.args.length ? d.args[d.args.length - 1].end : d.nameEnd,
      message: `invalid number of the ${kind} parameters`,
    });
    return;
  }
  if (kind !== 'geo' || GEO_KEYWORDS.has(d.name) || d.name.indexOf('/') < 0) return;
  for (let j = 0; j < i; j++) {
    if (list[j].entry && list[j].name === 'ranges' && !list[j].args.length) {
      c.findings.push({ ruleId: 'nginx/invalid-value', start: d.nameStart, end: d.nameEnd, message: `invalid range "${d.name}"` });
      return;
    }
  }
}

/** `server` parameters no version of nginx takes on that line (the version-bound ones: checkRefusedParams). */
function checkUpstreamServerParams(c: Ctx, d: Directive, ctx: string): void {
  const known = UPSTREAM_SERVER_PARAMS.get(ctx);
  if (!known) return;
  const args = d.args;
  for (let i = 1; i < args.length; i++) {
    const w = args[i];
    if (w.raw.includes('$')) continue;
    const eq = w.value.indexOf('=');
    if (!known.has(eq >= 0 ? w.value.slice(0, eq + 1) : w.value))
      c.findings.push({ ruleId: 'nginx/invalid-value', start: w.start, end: w.end, message: `invalid parameter "${w.value}"` });
  }
}

const ERROR_PAGE_CODE = /^\d+$/;
const ERROR_PAGE_OVERWRITE = /^=(\d*)$/;

/** `error_page code ... [=[response]] uri` (ngx_http_core_error_page). */
function checkErrorPage(c: Ctx, d: Directive): void {
  const args = d.args;
  if (args.length < 2) return; // the argument count check says it
  const last = args.length - 1;
  for (let i = 0; i < last; i++) {
    const w = args[i];
    if (w.raw.includes('$')) continue;
    const v = w.value;
    if (i === last - 1 && v.startsWith('=')) {
      if (!ERROR_PAGE_OVERWRITE.test(v))
        c.findings.push({ ruleId: 'nginx/invalid-value', start: w.start, end: w.end, message: `invalid value "${v}"` });
      continue;
    }
    if (!ERROR_PAGE_CODE.test(v)) {
      c.findings.push({ ruleId: 'nginx/invalid-value', start: w.start, end: w.end, message: `invalid value "${v}"` });
      continue;
    }
    const n = Number(v);
    if (n < 300 || n > 599)
      c.findings.push({ ruleId: 'nginx/invalid-value', start: w.start, end: w.end, message: `value "${v}" must be between 300 and 599` });
  }
}

/**
 * `access_log path format`: a format no `log_format` of its block defines (`combined` is built in
 * for http). Judged on whole configurations without includes, where every format is in sight.
 */
function checkLogFormats(c: Ctx, file: NginxFile): void {
  const anyInclude = (list: Directive[]): boolean =>
    list.some((d) => !d.entry && (d.name === 'include' || (!!d.block && !d.rawBody && anyInclude(d.block.children))));
  if (anyInclude(file.directives)) return;
  for (const top of file.directives) {
    if ((top.name !== 'http' && top.name !== 'stream') || !top.block) continue;
    const formats = new Set<string>(top.name === 'http' ? ['combined'] : []);
    const uses: Word[] = [];
    const walk = (list: Directive[]): void => {
      for (const d of list) {
        if (d.entry) continue;
        if (d.name === 'log_format' && d.args[0]) formats.add(d.args[0].value);
        else if (d.name === 'access_log' && d.args[1] && d.args[0].value !== 'off') uses.push(d.args[1]);
        if (d.block && !d.rawBody) walk(d.block.children);
      }
    };
    walk(top.block.children);
    for (const w of uses) {
      if (w.raw.includes('$') || w.value.includes('=') || formats.has(w.value)) continue;
      c.findings.push({ ruleId: 'nginx/undefined-reference', start: w.start, end: w.end, message: `unknown log format "${w.value}"` });
    }
  }
}

const RETURN_CODE = /^\d+$/;
const RETURN_URL = /^(https?:\/\/|\$scheme)/;

function checkReturn(c: Ctx, d: Directive): void {
  const a = d.args[0];
  if (!a) return;
  if (RETURN_CODE.test(a.value)) {
    if (Number(a.value) > 999)
      c.findings.push({ ruleId: 'nginx/invalid-value', start: a.start, end: a.end, message: `invalid return code "${a.value}"` });
    return;
  }
  if (d.args.length === 1 && RETURN_URL.test(a.value)) return;
  c.findings.push({ ruleId: 'nginx/invalid-value', start: a.start, end: a.end, message: `invalid return code "${a.value}"` });
}

/** `listen` parameters known to the syntax (name or `name=`). */
function checkListenParams(c: Ctx, d: Directive, v: DirectiveVariant): void {
  if (!v.params) return;
  const args = d.args;
  for (let i = 1; i < args.length; i++) {
    const w = args[i];
    if (w.raw.includes('$')) continue;
    const eq = w.value.indexOf('=');
    const key = eq >= 0 ? w.value.slice(0, eq + 1) : w.value;
    const p = v.params[key];
    const dep = p !== undefined && d.name === 'listen' ? deprecation(`listen ${key}`, c.version) : undefined;
    if (dep) {
      c.findings.push({
        ruleId: 'nginx/deprecated',
        start: w.start,
        end: w.end,
        message: `"listen ... ${key}" is deprecated since nginx ${dep.since}${dep.use ? `, use the "${dep.use}" directive instead` : ''}`,
        deprecated: true,
      });
    }
    if (p === undefined) {
      c.findings.push({ ruleId: 'nginx/invalid-value', start: w.start, end: w.end, message: `invalid parameter "${w.value}"` });
    } else if (p && c.version && olderThan(c.version, p)) {
      c.findings.push({
        ruleId: 'nginx/needs-newer-version',
        start: w.start,
        end: w.end,
        message: `"listen ... ${key.replace(/=$/, '')}" needs nginx >= ${p} (target is ${c.version})`,
      });
    }
  }
}

const PORT_ONLY = /^\d+$/;
const LISTEN_V6 = /^\[([0-9a-fA-F:.]+)\](?::(\d+))?$/;
const LISTEN_V4 = /^(\*|\d{1,3}(?:\.\d{1,3}){3})(?::(\d+))?$/;

/** Normalized `addr:port` of a listen address, or undefined when it cannot be known statically. */
export function listenAddress(raw: string): string | undefined {
  if (raw.includes('$')) return undefined;
  if (raw.startsWith('unix:')) return raw;
  if (PORT_ONLY.test(raw)) return `0.0.0.0:${raw}`;
  const v6 = LISTEN_V6.exec(raw);
  if (v6) return `[${v6[1].toLowerCase()}]:${v6[2] ?? '80'}`;
  const m = LISTEN_V4.exec(raw);
  if (!m) return undefined; // host names may resolve to several addresses
  return `${m[1] === '*' ? '0.0.0.0' : m[1]}:${m[2] ?? '80'}`;
}

function isSocketOption(p: string): boolean {
  for (let i = 0; i < LISTEN_SOCKET_OPTIONS.length; i++) {
    const o = LISTEN_SOCKET_OPTIONS[i];
    if (o.endsWith('=') ? p.startsWith(o) : p === o) return true;
  }
  return false;
}

/** The listen sockets of an http block: nginx's duplicate listen / default server / options checks. */
class ListenTable {
  private readonly byAddr = new Map<string, { defaultServer: boolean; options: boolean }>();

  addServer(c: Ctx, server: Directive, summary: ServerSummary): void {
    const base = server.start;
    const listens = summary.listens;
    for (let i = 0; i < listens.length; i++) {
      const l = listens[i];
      const tcpAddr = l.tcpAddr;
      const start = base + l.start;
      const end = base + l.end;
      if (l.dup) {
        c.findings.push({ ruleId: 'nginx/duplicate', start, end, message: `a duplicate listen ${tcpAddr}` });
        continue;
      }
      const { isDefault, options } = l;
      const prev = this.byAddr.get(l.addr);
      if (!prev) {
        this.byAddr.set(l.addr, { defaultServer: isDefault, options });
        continue;
      }
      if (isDefault && prev.defaultServer)
        c.findings.push({ ruleId: 'nginx/duplicate', start, end, message: `a duplicate default server for ${tcpAddr}` });
      else if (options && prev.options)
        c.findings.push({ ruleId: 'nginx/duplicate', start, end, message: `duplicate listen options for ${tcpAddr}` });
      prev.defaultServer ||= isDefault;
      prev.options ||= options;
    }
  }
}

function unknownDirective(c: Ctx, d: Directive, ctx: string): void {
  // with every load_module line seen and each naming a module we know, nothing else can define it
  const tp = c.modules.unknown ? thirdPartyModule(d.name) : undefined;
  if (tp) {
    c.findings.push({
      ruleId: 'nginx/third-party-directive',
      start: d.nameStart,
      end: d.nameEnd,
      message: `"${d.name}" comes from the third-party ${tp} module; it works only when that module is loaded`,
    });
    return;
  }
  const s = suggestDirective(d.name, ctx);
  const f: Finding = {
    ruleId: 'nginx/unknown-directive',
    start: d.nameStart,
    end: d.nameEnd,
    message: `unknown directive "${d.name}"${s ? `; did you mean "${s}"?` : ''}`,
  };
  if (s) f.fixes = [{ title: `Change to "${s}"`, edits: [{ start: d.nameStart, end: d.nameEnd, newText: s }], safe: false }];
  c.findings.push(f);
}

/**
 * A directive only modules this configuration does not load define: nginx stops with "unknown
 * directive" there. When the module is installed on this machine, the fix adds its `load_module`
 * line (and those of the modules it needs) to the main file, when this file is it.
 */
function notLoadedDirective(c: Ctx, d: Directive, sos: string[]): void {
  const so = sos[0];
  const f: Finding = {
    ruleId: 'nginx/unknown-directive',
    start: d.nameStart,
    end: d.nameEnd,
    message: `unknown directive "${d.name}": it is in ${describeModule(so)}, which this configuration does not load`,
  };
  if (c.isMain) {
    // only the host knows what is installed; asked once a directive needs it
    const installed = c.hostModules?.()?.installed;
    const need = modulesToLoad(so, c.modules);
    if (installed && need.length && need.every((x) => installed.includes(x))) {
      const at = loadInsertOffset(c.file);
      const lines = need.map((x) => `load_module modules/${x}.so;`);
      const newText = at.before ? `${lines.join('\n')}\n` : `\n${lines.join('\n')}`;
      // offered, not applied by fix-all: loading a module is a change of the server, not a repair of the text
      f.fixes = [{ title: `Load the module: ${lines.join(' ')}`, edits: [{ start: at.offset, end: at.offset, newText }], safe: false }];
    }
  }
  c.findings.push(f);
}

/** `r`: the name's resolution in this context (undefined: no such directive). */
function checkDirective(c: Ctx, d: Directive, ctx: string, r: Resolved | undefined): DirectiveVariant | undefined {
  const name = d.name;
  if (r === undefined) {
    unknownDirective(c, d, ctx);
    return undefined;
  }
  if (r.notLoaded !== undefined) {
    // a binary with the module compiled in (OpenResty's lua) needs no load_module: asked only here
    const builtIn = builtInModules(c.hostModules?.()?.added);
    if (builtIn.some((so) => r.notLoaded!.includes(so))) {
      if (!builtIn.every((so) => c.modules.loaded.has(so))) {
        c.modules = { loaded: new Set([...c.modules.loaded, ...builtIn]), unknown: c.modules.unknown };
        c.tables = tablesFor(c.version, c.modules);
      }
      return checkDirective(c, d, ctx, resolveLoaded(DIRECTIVES.get(name)!, name, ctx, c.version, c.modules));
    }
    notLoadedDirective(c, d, r.notLoaded);
    return undefined;
  }
  if (r.maybeLoaded !== undefined && !(c.notedModules ??= new Set()).has(r.maybeLoaded)) {
    c.notedModules.add(r.maybeLoaded);
    c.findings.push({
      ruleId: 'nginx/third-party-directive',
      start: d.nameStart,
      end: d.nameEnd,
      message: `"${name}" is in ${describeModule(r.maybeLoaded)}; it works only when that module is loaded (\`load_module\` in the main configuration)`,
    });
  }
  const words = d.args;
  const n = words.length;
  if (r.refusalRule !== undefined) {
    c.findings.push({ ruleId: r.refusalRule, start: d.nameStart, end: d.nameEnd, message: r.refusalMessage! });
    if (r.refusalChecksWords) for (let i = 0; i < n; i++) checkVariables(c, words[i]);
    return undefined;
  }
  if (r.commercialMessage !== undefined) {
    c.findings.push({ ruleId: 'nginx/commercial-directive', start: d.nameStart, end: d.nameEnd, message: r.commercialMessage });
  }
  if (r.deprecatedMessage !== undefined) {
    c.findings.push({ ruleId: 'nginx/deprecated', start: d.nameStart, end: d.nameEnd, message: r.deprecatedMessage, deprecated: true });
  }
  // block or not
  if (d.block) {
    if (!d.rawBody && !r.wantsBlock)
      c.findings.push({
        ruleId: 'nginx/syntax',
        start: d.nameStart,
        end: d.nameEnd,
        message: `directive "${name}" is not terminated by ";"`,
      });
  } else if (d.terminated && !r.wantsPlain) {
    c.findings.push({ ruleId: 'nginx/syntax', start: d.nameStart, end: d.nameEnd, message: `directive "${name}" has no opening "{"` });
  }
  // arguments
  const inVersion = r.inVersion;
  let fit: DirectiveVariant | undefined;
  for (let i = 0; i < inVersion.length; i++) {
    const x = inVersion[i];
    if (n >= x.min && (x.max < 0 || n <= x.max)) {
      fit = x;
      break;
    }
  }
  if (fit === undefined) {
    const end = n ? words[n - 1].end : d.nameEnd;
    c.findings.push({ ruleId: 'nginx/arg-count', start: d.nameStart, end, message: `invalid number of arguments in "${name}" directive` });
  } else {
    checkValues(c, d, fit);
  }
  if (name === 'if') checkIf(c, d);
  for (let i = 0; i < n; i++) {
    const w = words[i];
    if (w.raw.indexOf('$') >= 0 && isScriptArg(d, i)) checkVariables(c, w);
  }
  return fit ?? inVersion[0];
}

/** Whether argument i is compiled as an nginx script (regexes and embedded code are not). */
function isScriptArg(d: Directive, i: number): boolean {
  if (d.name === 'if') {
    // the operand after a regex operator is a regex
    const prev = d.args[i - 1]?.value;
    return !(prev === '~' || prev === '~*' || prev === '!~' || prev === '!~*');
  }
  return !isLiteralArg(d.name, i);
}

function hasVariable(w: Word): boolean {
  return w.raw.includes('$');
}

function checkValues(c: Ctx, d: Directive, v: DirectiveVariant): void {
  const words = d.args;
  if (v.refusedValues && words[0] && v.refusedValues.includes(words[0].value)) {
    const w = words[0];
    c.findings.push({
      ruleId: 'nginx/invalid-value',
      start: w.start,
      end: w.end,
      message: `invalid value "${w.value}" in "${d.name}" directive for nginx ${c.version} (newer versions accept it)`,
    });
    return;
  }
  if (v.refusedParams) checkRefusedParams(c, d, v);
  if (v.flag) {
    const w = words[0];
    if (w && !hasVariable(w)) {
      const val = w.value.toLowerCase();
      if (val !== 'on' && val !== 'off') {
        c.findings.push({
          ruleId: 'nginx/invalid-value',
          start: w.start,
          end: w.end,
          message: `invalid value "${w.value}" in "${d.name}" directive, it must be "on" or "off"`,
          fixes: [
            { title: 'Use "on"', edits: [{ start: w.start, end: w.end, newText: 'on' }], safe: false },
            { title: 'Use "off"', edits: [{ start: w.start, end: w.end, newText: 'off' }], safe: false },
          ],
        });
      }
    }
    return;
  }
  if (v.values) {
    for (let i = 0; i < words.length; i++) {
      const w = words[i];
      if (hasVariable(w)) continue;
      if (!v.values.includes(w.value)) {
        c.findings.push({
          ruleId: 'nginx/invalid-value',
          start: w.start,
          end: w.end,
          message: `invalid value "${w.value}" in "${d.name}" directive, it must be one of ${v.values.map((x) => `"${x}"`).join(', ')}`,
        });
      }
    }
    return;
  }
  const argTypes = v.argTypes;
  if (argTypes) {
    for (let i = 0; i < argTypes.length; i++) {
      const t = argTypes[i];
      const w = words[i];
      if (!t || !w || hasVariable(w)) continue;
      if (t.values.includes(w.value)) continue;
      if (fitsSomeType(t.types, w.value)) continue;
      const what = t.types.join(' or ');
      c.findings.push({
        ruleId: 'nginx/invalid-value',
        start: w.start,
        end: w.end,
        message: `"${d.name}" directive invalid value "${w.value}": expected a ${what}${t.values.length ? ` or ${t.values.map((x) => `"${x}"`).join(', ')}` : ''}`,
      });
    }
  }
}

/** Parameters (`resolve`, `weight=`) the target version's binary refuses (probed). */
function checkRefusedParams(c: Ctx, d: Directive, v: DirectiveVariant): void {
  const refused = v.refusedParams!;
  const args = d.args;
  for (let i = 1; i < args.length; i++) {
    const w = args[i];
    const eq = w.value.indexOf('=');
    const key = eq >= 0 ? w.value.slice(0, eq + 1) : w.value;
    if (!(key in refused)) continue;
    const since = v.params?.[key];
    if (since && c.version && olderThan(c.version, since)) continue; // checkListenParams says it
    const seen = refused[key];
    c.findings.push({
      ruleId: 'nginx/needs-newer-version',
      start: w.start,
      end: w.end,
      message: `"${d.name} ... ${key.replace(/=$/, '')}" is unknown to nginx ${c.version}${seen ? `; nginx ${seen} accepts it` : ''}`,
    });
  }
}

function fitsSomeType(types: ValueType[], value: string): boolean {
  for (let i = 0; i < types.length; i++) if (checkType(types[i], value)) return true;
  return false;
}

/** nginx's own checks of `if (...)` (ngx_http_rewrite_if_condition), as far as they are static. */
function checkIf(c: Ctx, d: Directive): void {
  const a = d.args.map((w) => ({ w, v: w.value }));
  if (a.length === 0) return;
  const bad = (w: Word, text: string): void => {
    c.findings.push({ ruleId: 'nginx/invalid-value', start: w.start, end: w.end, message: `invalid condition "${text}"` });
  };
  if (!a[0].v.startsWith('(')) return bad(a[0].w, a[0].v);
  let cur = 0;
  if (a[0].v.length === 1) cur = 1;
  else a[0] = { w: a[0].w, v: a[0].v.slice(1) };
  let last = a.length - 1;
  if (!a[last].v.endsWith(')')) return bad(a[last].w, a[last].v);
  if (a[last].v.length === 1) last--;
  else a[last] = { w: a[last].w, v: a[last].v.slice(0, -1) };
  if (cur > last || !a[cur]) return bad(d.args[d.args.length - 1], ')');
  const p = a[cur].v;
  if (p.length > 1 && p[0] === '$') {
    if (cur !== last && cur + 2 !== last) return bad(a[cur].w, p);
    if (cur + 2 === last) {
      const op = a[cur + 1].v;
      if (!['=', '!=', '~', '~*', '!~', '!~*'].includes(op))
        c.findings.push({
          ruleId: 'nginx/invalid-value',
          start: a[cur + 1].w.start,
          end: a[cur + 1].w.end,
          message: `unexpected "${op}" in condition`,
        });
    }
    return;
  }
  if ((p.length === 2 && p[0] === '-') || (p.length === 3 && p[0] === '!' && p[1] === '-')) {
    if (cur + 1 !== last) return bad(a[cur].w, p);
    if (!/^!?-[fdex]$/.test(p)) return bad(a[cur].w, p);
    return;
  }
  return bad(a[cur].w, p);
}

const CAPTURE_NAME = /^\d+$/;

function checkVariables(c: Ctx, w: Word): void {
  const raw = w.raw;
  if (raw.indexOf('$') < 0) return;
  if (c.collecting) {
    // the file's variables are not all known yet: judged by judgePending after the walk
    c.pendingAt.push(c.findings.length);
    c.pendingWords.push(w);
    return;
  }
  // whether a word needs a report depends only on its text (offsets aside): judge each text once
  if (c.cleanWords.has(raw)) return;
  let reported = false;
  const refs = variablesIn(w);
  for (let i = 0; i < refs.length; i++) {
    const r = refs[i];
    const name = r.name.toLowerCase();
    if (CAPTURE_NAME.test(name)) continue; // regex captures
    if (c.defined.has(name)) continue;
    const info = lookupVariable(name);
    if (info) {
      if (info.since && c.version && !info.prefix && olderThan(c.version, info.since)) {
        reported = true;
        c.findings.push({
          ruleId: 'nginx/needs-newer-version',
          start: r.start,
          end: r.end,
          message: `"$${r.name}" needs nginx >= ${info.since} (target is ${c.version})`,
        });
      }
      continue;
    }
    reported = true;
    c.findings.push({
      ruleId: 'nginx/unknown-variable',
      start: r.start,
      end: r.end,
      message: `unknown "${r.name}" variable`,
      severity: c.isFragment ? 'warning' : undefined,
    });
  }
  if (!reported) c.cleanWords.add(raw);
}

/** The variable checks the walk put off, judged now, their findings put where they would have been. */
function judgePending(c: Ctx): void {
  const at = c.pendingAt;
  const words = c.pendingWords;
  if (words.length === 0) return;
  const walked = c.findings;
  const late: Finding[] = [];
  const lateAt: number[] = [];
  c.findings = late;
  for (let p = 0; p < words.length; p++) {
    const before = late.length;
    checkVariables(c, words[p]);
    for (let k = before; k < late.length; k++) lateAt.push(at[p]);
  }
  c.findings = walked;
  if (late.length === 0) return;
  // merge: a late finding goes before the walked findings made after its word was met
  const merged: Finding[] = [];
  let k = 0;
  for (let j = 0; j < late.length; j++) {
    while (k < lateAt[j]) merged.push(walked[k++]);
    merged.push(late[j]);
  }
  while (k < walked.length) merged.push(walked[k++]);
  walked.length = 0;
  for (let j = 0; j < merged.length; j++) walked.push(merged[j]);
}
