// The service facade: one entry per LSP feature, dispatching to the language module.
// Pure functions over a TextDocument; the LSP adapter (server.ts) and the command line
// (cli/) both call these, so the editor and `proxy-tuner check` can never disagree.
import type {
  CodeAction,
  CompletionItem,
  CompletionList,
  Diagnostic,
  DocumentSymbol,
  FoldingRange,
  Hover,
  InlayHint,
  Location,
  LocationLink,
  Position,
  Range,
  SelectionRange,
  SignatureHelp,
  TextEdit,
} from 'vscode-languageserver-types';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { LanguageId, LanguageModule, ServiceSettings } from '../core/types';
import { nginxModule } from '../languages/nginx';
import { haproxyModule } from '../languages/haproxy';
import {
  applyEdits,
  finalizeDiagnostics,
  quickFixes,
  safeFixEdits,
  selectedFixEdits,
  type FixSelection,
  type RuleRegistry,
} from '../core/rules';
import { nginxRegistry } from '../languages/nginx/rules';
import { haproxyRegistry } from '../languages/haproxy/rules';
import { detectLanguage } from '../languages/detect';
import { moduleDiagnostics, type NginxBuildFacts } from '../languages/nginx/buildFacts';
import type { NginxFile } from '../languages/nginx/ast';
import { largeDocumentDiagnostics } from './largeDocument';
import { haproxyTuning, nginxTuning } from './tuning';
import { capDiagnostics } from './diagnosticCap';

export { DEFAULT_MAX_DIAGNOSTICS } from './diagnosticCap';
import type { DocumentLink, SymbolInformation, WorkspaceEdit } from 'vscode-languageserver-types';
import {
  WorkspaceIndex,
  documentLinks as navDocumentLinks,
  filterAnsweredElsewhere,
  navDefinition,
  navDiagnostics,
  navPrepareRename,
  navReferences,
  navRename,
  workspaceSymbols as navWorkspaceSymbols,
  type PrepareRenameResult,
  type WorkspaceIndexOptions,
} from './workspaceIndex';

export { safeFixEdits };

const modules: Record<LanguageId, LanguageModule<any>> = {
  nginx: nginxModule,
  haproxy: haproxyModule,
};

export function getModule(lang: LanguageId): LanguageModule<any> {
  return modules[lang];
}

/** The optional features a module may implement; the adapter registers those some module has. */
export type OptionalFeature = 'symbols' | 'folding' | 'selectionRanges' | 'format' | 'definition' | 'signatureHelp' | 'inlayHints';

export function supports(lang: LanguageId, feature: OptionalFeature): boolean {
  return typeof modules[lang][feature] === 'function';
}

export function anySupports(feature: OptionalFeature): boolean {
  return (Object.keys(modules) as LanguageId[]).some((l) => supports(l, feature));
}

/**
 * Language of an open document: the client's languageId when it is one of ours, else guessed
 * from the uri and the text (Neovim, for one, sends its filetype, often `conf`).
 */
export function languageOf(languageId: string | undefined, uri: string, text = ''): LanguageId {
  if (languageId === 'nginx' || languageId === 'haproxy') return languageId;
  let path = uri;
  try {
    path = decodeURIComponent(uri.replace(/^file:\/\//, ''));
  } catch {
    // a malformed escape: the raw uri still carries the file name
  }
  return detectLanguage(path, text);
}

export { detectLanguage, languageFromContent } from '../languages/detect';

/** A parse cache keyed by uri and version, so each feature request reuses one parse. */
export class ParseCache {
  private readonly entries = new Map<string, { version: number; lang: LanguageId; ast: unknown }>();

  get(doc: TextDocument, lang: LanguageId): unknown {
    const hit = this.entries.get(doc.uri);
    if (hit && hit.version === doc.version && hit.lang === lang) return hit.ast;
    const m = modules[lang];
    // an earlier version of the same document: the module may reuse the part before the change
    const ast = hit && hit.lang === lang && m.reparse ? m.reparse(hit.ast, doc.getText()) : m.parse(doc.getText());
    this.entries.set(doc.uri, { version: doc.version, lang, ast });
    return ast;
  }

  private readonly memos = new Map<string, Record<string, unknown>>();

  /**
   * What the validation passes keep of a document from one run to the next (UnitFacts.memo): an
   * open document's blocks whose text and environment did not change are not judged again.
   */
  memoOf(uri: string): Record<string, unknown> {
    let m = this.memos.get(uri);
    if (!m) this.memos.set(uri, (m = {}));
    return m;
  }

  /** Keeps a parse made elsewhere (the workspace index) for this version of the document. */
  remember(doc: TextDocument, lang: LanguageId, ast: unknown): void {
    this.entries.set(doc.uri, { version: doc.version, lang, ast });
  }

  delete(uri: string): void {
    this.entries.delete(uri);
    this.memos.delete(uri);
  }
}

export function validate(doc: TextDocument, lang: LanguageId, settings: ServiceSettings, cache?: ParseCache): Diagnostic[] {
  const ast = cache ? cache.get(doc, lang) : modules[lang].parse(doc.getText());
  const memo = cache?.memoOf(doc.uri);
  const own = modules[lang].validate(doc, ast, settings, memo);
  const tuning = lang === 'nginx' ? nginxTuning(doc, ast, settings, memo) : haproxyTuning(doc, ast, settings, memo);
  return finalizeDiagnostics(doc, lang, [...own, ...tuning], settings);
}

/**
 * Diagnostics made outside the service's own passes (the `nginx -V` module notes, the messages of
 * a real `nginx -t` / `haproxy -c` run, a very large document's syntax check): the language's
 * registry applies what it applies to every finding (severity settings, `off`, suppression
 * comments, the documentation link).
 */
export function applyRules(
  doc: TextDocument,
  lang: LanguageId,
  diagnostics: readonly Diagnostic[],
  settings: ServiceSettings,
): Diagnostic[] {
  const registry: RuleRegistry = lang === 'nginx' ? nginxRegistry : haproxyRegistry;
  return registry.applyTo(doc, diagnostics, settings);
}

export function codeActions(
  doc: TextDocument,
  lang: LanguageId,
  range: Range,
  diagnostics: Diagnostic[],
  settings: ServiceSettings,
  cache?: ParseCache,
): CodeAction[] {
  const ast = cache ? cache.get(doc, lang) : modules[lang].parse(doc.getText());
  const own = quickFixes(doc, diagnostics);
  const extra = modules[lang].codeActions?.(doc, ast, range, diagnostics, settings) ?? [];
  return [...own, ...extra];
}

/** `source.fixAll` and `check --fix`: the text with every safe fix applied, repeated to a fixed point. */
export function fixAll(
  doc: TextDocument,
  lang: LanguageId,
  settings: ServiceSettings,
  maxRounds = 5,
  /** How each round finds the problems: plain `validate`, or the workspace-aware one (check). */
  diagnose: (d: TextDocument) => Diagnostic[] = (d) => validate(d, lang, settings),
  /** Which fixes (`check --fix --unsafe-fixes`, `--fix-rule ID`); the safe ones by default. */
  select?: FixSelection,
): string {
  let current = doc;
  for (let round = 0; round < maxRounds; round++) {
    const edits = selectedFixEdits(diagnose(current), select);
    if (edits.length === 0) break;
    const next = applyEdits(current, edits);
    if (next === current.getText()) break;
    current = TextDocument.create(current.uri, lang, current.version + 1, next);
  }
  return current.getText();
}

/** The edits of `source.fixAll`: every safe fix of the current diagnostics, without overlaps. */
export function fixAllEdits(doc: TextDocument, lang: LanguageId, settings: ServiceSettings, cache?: ParseCache): TextEdit[] {
  return safeFixEdits(validate(doc, lang, settings, cache));
}

function astOf(doc: TextDocument, lang: LanguageId, cache?: ParseCache): unknown {
  return cache ? cache.get(doc, lang) : modules[lang].parse(doc.getText());
}

export function complete(
  doc: TextDocument,
  lang: LanguageId,
  pos: Position,
  settings: ServiceSettings,
  cache?: ParseCache,
): CompletionList {
  const list = modules[lang].complete(doc, astOf(doc, lang, cache), pos, settings);
  return list.items.length > MAX_COMPLETION_ITEMS ? capCompletion(list, doc, pos) : list;
}

/** Items one completion answer holds at most (30,000 backends made a 5 MB answer that took seconds to send). */
export const MAX_COMPLETION_ITEMS = 1000;

/**
 * The items that still fit what is typed (its characters in order, as editors filter), first by
 * sort text, up to MAX_COMPLETION_ITEMS; marked incomplete, so the editor asks again as the user
 * types and every item stays reachable.
 */
function capCompletion(list: CompletionList, doc: TextDocument, pos: Position): CompletionList {
  const before = doc.getText({ start: { line: pos.line, character: Math.max(0, pos.character - 256) }, end: pos });
  const word = (/[^\s;{}"'(),]*$/.exec(before)?.[0] ?? '').toLowerCase();
  const typedFor = (item: CompletionItem): string => {
    const edit = item.textEdit;
    const range = edit && ('range' in edit ? edit.range : edit.insert);
    if (!range || range.start.line !== pos.line || range.start.character > pos.character) return word;
    return doc.getText({ start: range.start, end: pos }).toLowerCase();
  };
  const fits = (typed: string, text: string): boolean => {
    let k = 0;
    for (let i = 0; i < text.length && k < typed.length; i++) if (text[i] === typed[k]) k++;
    return k === typed.length;
  };
  const kept = list.items
    .filter((item) => fits(typedFor(item), (item.filterText ?? item.label).toLowerCase()))
    .sort((a, b) => {
      const x = a.sortText ?? a.label;
      const y = b.sortText ?? b.label;
      return x < y ? -1 : x > y ? 1 : 0;
    })
    .slice(0, MAX_COMPLETION_ITEMS);
  return { isIncomplete: true, items: kept };
}

/**
 * Builds the tables `complete` reads for `lang` at the settings' target version, which the first
 * request would otherwise build: called by the server's warm-up after a document opens (and by
 * bench:lsp as the server does). Results never depend on it.
 */
export function prepareCompletion(lang: LanguageId, settings: ServiceSettings): void {
  modules[lang].prepareCompletion?.(settings);
}

export function hover(doc: TextDocument, lang: LanguageId, pos: Position, settings: ServiceSettings, cache?: ParseCache): Hover | null {
  return modules[lang].hover(doc, astOf(doc, lang, cache), pos, settings);
}

/** Signature help at a position: the syntax strings of the directive or keyword there, the argument being typed highlighted. */
export function signatureHelp(
  doc: TextDocument,
  lang: LanguageId,
  pos: Position,
  settings: ServiceSettings,
  cache?: ParseCache,
): SignatureHelp | null {
  const m = modules[lang];
  return m.signatureHelp ? m.signatureHelp(doc, astOf(doc, lang, cache), pos, settings) : null;
}

/** Inlay hints in a range: effective defaults at the target version (none when `inlayHintsDefaults` is false). */
export function inlayHints(doc: TextDocument, lang: LanguageId, range: Range, settings: ServiceSettings, cache?: ParseCache): InlayHint[] {
  const m = modules[lang];
  if (settings.inlayHintsDefaults === false || !m.inlayHints) return [];
  return m.inlayHints(doc, astOf(doc, lang, cache), range, settings);
}

export function symbols(doc: TextDocument, lang: LanguageId, cache?: ParseCache): DocumentSymbol[] {
  const m = modules[lang];
  return m.symbols ? m.symbols(doc, astOf(doc, lang, cache)) : [];
}

export function folding(doc: TextDocument, lang: LanguageId, cache?: ParseCache): FoldingRange[] {
  const m = modules[lang];
  return m.folding ? m.folding(doc, astOf(doc, lang, cache)) : [];
}

export function selectionRanges(doc: TextDocument, lang: LanguageId, positions: Position[], cache?: ParseCache): SelectionRange[] {
  const m = modules[lang];
  return m.selectionRanges ? m.selectionRanges(doc, astOf(doc, lang, cache), positions) : [];
}

export function format(
  doc: TextDocument,
  lang: LanguageId,
  range: Range | undefined,
  options: { tabSize: number; insertSpaces: boolean },
  cache?: ParseCache,
): TextEdit[] {
  const m = modules[lang];
  return m.format ? m.format(doc, astOf(doc, lang, cache), range, options) : [];
}

/**
 * A whole text formatted (`proxy-tuner format`): the module's document formatting applied, or
 * the reason it was left alone: a text with syntax errors, in either language, is refused (its
 * tokens do not say what the author meant).
 */
export function formatText(
  text: string,
  lang: LanguageId,
  options: { tabSize: number; insertSpaces: boolean },
): { text: string } | { error: string; line: number; character: number } {
  const m = modules[lang];
  const doc = TextDocument.create('file:///format', lang, 1, text);
  const ast = m.parse(text) as { errors?: { start: number; message: string }[] };
  if (ast.errors?.length) {
    const e = ast.errors[0];
    const p = doc.positionAt(e.start);
    return { error: e.message, line: p.line, character: p.character };
  }
  const edits = m.format ? m.format(doc, ast, undefined, options) : [];
  return { text: applyEdits(doc, edits) };
}

export function definition(
  doc: TextDocument,
  lang: LanguageId,
  pos: Position,
  settings: ServiceSettings,
  cache?: ParseCache,
): Location | Location[] | LocationLink[] | null {
  const m = modules[lang];
  return m.definition ? m.definition(doc, astOf(doc, lang, cache), pos, settings) : null;
}

// ---------------------------------------------------------------------------------------------
// Workspace features: the files loaded together with a document (nginx include trees, HAProxy
// `.cfg` folders). The index reads files that are not open through the `fs` it is given (see workspaceIndex.ts).

export type { PrepareRenameResult } from './workspaceIndex';
export { WorkspaceIndex, NAVIGATION_RULES, uriToPath } from './workspaceIndex';
export type { FileSystem, HostProbe, BinaryCheckRunner, BinaryCheckReport } from './host';

/** A workspace index over the open documents (`open`) and a file system (`fs`: the disk or an in-memory one), detecting languages as the facade does. */
export function createWorkspaceIndex(options: Omit<WorkspaceIndexOptions, 'detect' | 'module'>): WorkspaceIndex {
  return new WorkspaceIndex({ ...options, detect: languageOf, module: getModule });
}

/**
 * `validate` with the files loaded together: an nginx fragment judged in the context of the
 * include that reads it, names defined in other files no longer reported unknown, and the
 * unused/undefined-name and include diagnostics. `step` is called after each step (the command
 * line's PROXY_TUNER_TRACE times them; the service has no clock).
 */
export function validateInWorkspace(
  doc: TextDocument,
  lang: LanguageId,
  settings: ServiceSettings,
  ws: WorkspaceIndex,
  cache?: ParseCache,
  step?: (done: ValidationStep) => void,
): Diagnostic[] {
  const m = modules[lang];
  // the index parses the open document anyway (for the unit): reuse that parse, not a second one
  const indexed = ws.get(doc.uri);
  const ast = indexed && indexed.doc === doc && indexed.lang === lang ? indexed.ast : astOf(doc, lang, cache);
  if (cache && ast === indexed?.ast) cache.remember(doc, lang, ast);
  step?.('parse');
  // the unit (the include closure, the folder's files) once for the context, the navigation
  // diagnostics and the filter, not once per step
  const unit = indexed ? ws.unitOf(doc.uri) : undefined;
  const context = indexed && unit && indexed.lang === 'nginx' ? ws.contextIn(unit, indexed) : undefined;
  // nginx: the modules the whole configuration loads (load_module lines in the main file or the files it includes)
  const memo = cache?.memoOf(doc.uri);
  const unitFacts = unit && context && indexed?.lang === 'nginx' ? { nginxModules: ws.nginxModuleState(unit), memo } : undefined;
  const own =
    context && m.validateInContext ? m.validateInContext(doc, ast, settings, context, unitFacts) : m.validate(doc, ast, settings, memo);
  step?.('validation');
  const tuning = lang === 'nginx' ? nginxTuning(doc, ast, settings, memo) : haproxyTuning(doc, ast, settings, memo);
  step?.('tuning');
  const nav = navDiagnostics(ws, doc.uri, settings, unit);
  step?.('navigation');
  const kept = filterAnsweredElsewhere(ws, doc.uri, own, unit);
  const all = kept.concat(tuning, nav);
  const finalized = finalizeDiagnostics(doc, lang, all, settings);
  const out = settings.maxDiagnostics === undefined ? finalized : capDiagnostics(finalized, lang, settings.maxDiagnostics);
  step?.('final');
  return out;
}

/** What diagnose() is told beside the document: how the caller holds it, and the host's facts. */
export interface DiagnoseOptions {
  /** The project config ignores the file: it gets no diagnostics. */
  ignored?: boolean;
  /** A very large open document (the editor's LARGE_DOCUMENT_CHARS): the syntax scan only. */
  large?: boolean;
  cache?: ParseCache;
  step?: (done: ValidationStep) => void;
  /** The local nginx's build (`nginx -V`, from the host's probe): directives whose module it lacks get a note. */
  nginxBuild?: NginxBuildFacts;
}

/**
 * A document's diagnostics, the one way they are made: the language server, `proxy-tuner check`,
 * the server's warm-up and the scripts call this, so the editor and the command line agree by
 * construction. Every pass's findings, then the host's notes, each through the rule registry.
 */
export function diagnose(
  doc: TextDocument,
  lang: LanguageId,
  settings: ServiceSettings,
  ws: WorkspaceIndex,
  o: DiagnoseOptions = {},
): Diagnostic[] {
  if (o.ignored) return [];
  const own = o.large
    ? applyRules(doc, lang, largeDocumentDiagnostics(doc.getText(), lang), settings)
    : validateInWorkspace(doc, lang, settings, ws, o.cache, o.step);
  if (!o.nginxBuild || lang !== 'nginx' || o.large) return own;
  const indexed = ws.get(doc.uri);
  const ast = (indexed && indexed.doc === doc && indexed.lang === lang ? indexed.ast : astOf(doc, lang, o.cache)) as NginxFile;
  const notes = moduleDiagnostics(doc, ast, o.nginxBuild, ws.contextOf(doc.uri) ?? 'main');
  return notes.length ? own.concat(applyRules(doc, lang, notes, settings)) : own;
}

/** The steps of validateInWorkspace, in the order they run. */
export type ValidationStep = 'parse' | 'validation' | 'tuning' | 'navigation' | 'final';

/** Go to definition across the loaded files (an upstream in an included file, a backend in another `.cfg`, an include's targets). */
export function definitionInWorkspace(doc: TextDocument, pos: Position, ws: WorkspaceIndex): Location[] | null {
  return navDefinition(ws, doc.uri, pos);
}

export function references(doc: TextDocument, pos: Position, includeDeclaration: boolean, ws: WorkspaceIndex): Location[] {
  return navReferences(ws, doc.uri, pos, includeDeclaration);
}

export function prepareRename(doc: TextDocument, pos: Position, ws: WorkspaceIndex): PrepareRenameResult {
  return navPrepareRename(ws, doc.uri, pos);
}

export function rename(doc: TextDocument, pos: Position, newName: string, ws: WorkspaceIndex): WorkspaceEdit | { error: string } {
  return navRename(ws, doc.uri, pos, newName);
}

export function documentLinks(doc: TextDocument, ws: WorkspaceIndex): DocumentLink[] {
  return navDocumentLinks(ws, doc.uri);
}

export function workspaceSymbols(query: string, ws: WorkspaceIndex): SymbolInformation[] {
  return navWorkspaceSymbols(ws, query);
}
