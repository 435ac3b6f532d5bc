// The LSP adapter: the only file that knows the protocol. It owns the connection, the open
// documents, a parse cache, the validation schedule and the settings; every feature handler is a
// few lines calling the service facade. Runs over stdio (`node dist/server.js --stdio`, any LSP
// client) or Node IPC (the VS Code client); `createConnection()` reads the transport from argv.
//
// The server must outlive anything it is fed: every handler runs inside `guard`, which turns an
// exception into a logged error (on the LSP log channel, never stdout: stdout is the wire) and
// an empty answer.
import {
  CodeActionKind,
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  LSPErrorCodes,
  ResponseError,
  TextDocumentSyncKind,
  TextDocuments,
  createConnection,
  type InitializeParams,
  type InitializeResult,
  type ServerCapabilities,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
// The service speaks the types package the project pins; the protocol package may nest a newer one.
import type { CodeAction, Diagnostic } from 'vscode-languageserver-types';
import * as service from '../service/languageService';
import { mergeConfig, readConfig, resolveSettings, type ProxyTunerConfig } from '../service/settings';
import { prefetchLocalVersion } from '../host/localVersions';
import { contextFor, findProjectConfig, isIgnored, projectSettings, PROJECT_CONFIG_NAME, type ProjectConfig } from '../service/projectConfig';
import type { LanguageId, ServiceSettings } from '../core/types';
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { checkWithBinary } from '../host/binaryCheck';
import { binaryDiagnostics, pathToUri, summarize, toolName } from '../service/binaryCheck';
import { localNginxBuild, moduleDiagnostics } from '../host/binaryFacts';
import type { NginxFile } from '../languages/nginx/ast';
import { lineDocuments } from '../core/lineDocument';
import { LARGE_DOCUMENT_CHARS, largeDocumentDiagnostics } from '../service/largeDocument';
import { VALIDATE_WITH_BINARY_REQUEST, type ValidateWithBinaryParams, type ValidateWithBinaryResult } from '../../../protocol/binaryCheck';

/**
 * How long a document rests after an edit before it is validated, by default (setting
 * `proxyTuner.diagnostics.delay`): long enough that the edits of a burst already on the wire are
 * applied first, short enough that diagnostics follow typing.
 */
const DEFAULT_DIAGNOSTICS_DELAY_MS = 3;
/**
 * Validations up to this long run as soon as the document rests: well under a gap between
 * keystrokes, one per key costs little. Each ms a document's validation takes beyond this adds
 * one ms of waiting, up to MAX_ADAPTIVE_DELAY_MS: a slow document waits for a pause in typing
 * (gaps between keys are ~100-250 ms) rather than blocking the server after every key, and one
 * only a little over the line is not made to wait as long again as it computes.
 */
const SLOW_VALIDATION_MS = 50;
const MAX_ADAPTIVE_DELAY_MS = 250;
/**
 * Warm-up after open. The first validations of a session run code V8 has not compiled yet and
 * take several times longer than later ones (a 5,000-line file: ~100 ms, then ~10 ms), so the
 * first keystrokes after opening a file would wait for that. While a freshly opened document
 * rests after its first publication, the server validates a copy of it in the background, up to
 * WARM_UP_RUNS times per language per process, one every WARM_UP_GAP_MS; nothing is published.
 * Any edit, and any validation due, stops it. A document whose first validation took longer
 * than WARM_UP_MAX_MS is not warmed up (too long to repeat in the background).
 */
const WARM_UP_RUNS = 6;
const WARM_UP_GAP_MS = 20;
const WARM_UP_MAX_MS = 400;
/** Other open documents, which an edit may affect through includes, are revalidated after this. */
const OTHERS_DELAY_MS = 500;
/** A client that never answers `workspace/configuration` must not stall validation. */
const CONFIGURATION_TIMEOUT_MS = 3000;
const FIX_ALL_TITLE = 'Apply every safe Proxy Tuner fix';

// Memory: each validation allocates about a file's worth of tokens, nodes and diagnostics, and
// the newest ones stay alive until the next edit, so they reach the old generation; there they
// are garbage one edit later. V8 by default lets the old generation grow to up to 4 x its live
// size before a full collection, which on a 5,000-line file took the server from ~95 MB after
// opening to 150-170 MB while typing (live heap after a full GC: ~17 MB at both ends, no leak).
// 10% headroom keeps it near its size after opening; full collections become more frequent but
// mark concurrently on a ~20 MB heap. Measured (npm run bench:lsp --parts 5, six runs of three
// sessions each, alternated): growth over a session at most 3.1-8.4% per run with 10%, 5.2-12.5%
// with 30%; the median session's p99 35-46 ms with both. V8 reads this flag at each collection,
// so setting it at start-up is enough; an unknown flag (a future V8) is ignored, which only gives
// back the default.
setFlagsFromString('--heap-growing-percent=10');

const connection = createConnection();
/** Open documents as line arrays: an edit costs its own lines, not a copy of the file (lineDocument.ts). */
const documents = new TextDocuments(lineDocuments);
const parses = new service.ParseCache();
/** The files loaded together with each open document (include trees, `.cfg` folders), read from disk when not open. */
const wsIndex = service.createWorkspaceIndex({ open: documents });
let canWatchFiles = false;
let inlayHintsRefresh = false;

/** Runs a handler; an exception is logged and answered with `fallback`. */
function guard<P extends unknown[], R>(name: string, fallback: R, fn: (...args: P) => R): (...args: P) => R {
  return (...args: P) => {
    if (asksLargeDocument(args[0])) return fallback;
    try {
      return fn(...args);
    } catch (err) {
      logError(name, err);
      return fallback;
    }
  };
}

/** The same for handlers that await (settings come from the client). */
function guardAsync<P extends unknown[], R>(name: string, fallback: R, fn: (...args: P) => Promise<R>): (...args: P) => Promise<R> {
  return async (...args: P) => {
    if (asksLargeDocument(args[0])) return fallback;
    try {
      return await fn(...args);
    } catch (err) {
      logError(name, err);
      return fallback;
    }
  };
}

/** Open documents over LARGE_DOCUMENT_CHARS (by uri: the version measured): syntax check only, no feature requests. */
const largeDocs = new Map<string, { version: number; large: boolean }>();

function isLarge(doc: TextDocument): boolean {
  const hit = largeDocs.get(doc.uri);
  if (hit && hit.version === doc.version) return hit.large;
  const large = doc.getText().length > LARGE_DOCUMENT_CHARS;
  largeDocs.set(doc.uri, { version: doc.version, large });
  return large;
}

/** A request about a large open document: answered with its handler's empty answer at once. */
function asksLargeDocument(params: unknown): boolean {
  const uri = (params as { textDocument?: { uri?: unknown } } | undefined)?.textDocument?.uri;
  if (typeof uri !== 'string') return false;
  const doc = documents.get(uri);
  return !!doc && isLarge(doc);
}

function logError(where: string, err: unknown): void {
  const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
  try {
    connection.console.error(`[proxy-tuner] ${where} failed: ${text}`);
  } catch {
    // the connection itself is gone: nothing left to tell
  }
}

process.on('uncaughtException', (err) => logError('uncaught exception', err));
process.on('unhandledRejection', (err) => logError('unhandled rejection', err));

// ---------------------------------------------------------------------------------------------
// Settings: pulled per document through `workspace/configuration` when the client can answer
// it, else taken from `initializationOptions` and later `didChangeConfiguration` pushes.

let canPullConfiguration = false;
/** The client inserts the snippets of snippets/*.json itself (the VS Code extension contributes them), or cannot insert snippets: completion leaves them out. */
let clientHasSnippets = false;
let canRegisterConfigurationChange = false;
let pushedConfig: ProxyTunerConfig = {};
const settingsByUri = new Map<string, Promise<ServiceSettings>>();
/** `diagnostics.delay` per document, once its settings are known (the schedule cannot wait for them). */
const delayByUri = new Map<string, number>();

/** The client's answer for one document, over what initializationOptions or pushes gave. */
async function pullConfig(uri: string): Promise<ProxyTunerConfig> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CONFIGURATION_TIMEOUT_MS} ms`)), CONFIGURATION_TIMEOUT_MS);
  });
  try {
    const raw: unknown = await Promise.race([connection.workspace.getConfiguration({ scopeUri: uri, section: 'proxyTuner' }), timeout]);
    return mergeConfig(pushedConfig, readConfig(raw));
  } catch (err) {
    logError('workspace/configuration', err);
    return pushedConfig;
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the -v probes the settings will need in the background; resolves when they answered. */
function probeVersions(config: ProxyTunerConfig): Promise<unknown> {
  return Promise.all((['nginx', 'haproxy'] as const).filter((lang) => !config[lang]?.version).map((lang) => prefetchLocalVersion(lang, config[lang]?.path)));
}

let lastTargets = '';

/** Says once in the log which versions configs are judged against, and again when that changes. */
function announce(settings: ServiceSettings): ServiceSettings {
  const targets = `nginx ${settings.nginxVersion ?? 'newest'}, HAProxy ${settings.haproxyVersion ?? 'newest'}`;
  if (targets !== lastTargets) {
    lastTargets = targets;
    connection.console.info(`[proxy-tuner] judging configs against ${targets}`);
  }
  return settings;
}

// The project config (.proxy-tuner.json, found by walking up from the document's folder): read
// here, handed to the service as settings; the editor's own settings win over it.
const projectConfigs = new Map<string, ProjectConfig | null>();
/** Documents a project config's `ignore` leaves out: they get no diagnostics. */
const ignoredUris = new Set<string>();
const toldBadConfig = new Set<string>();

function projectConfigOf(uri: string): { config: ProjectConfig | undefined; path: string | undefined } {
  const path = service.uriToPath(uri);
  if (!path) return { config: undefined, path };
  try {
    const config = findProjectConfig(path, readProjectFile, projectConfigs);
    if (config?.problems.length && !toldBadConfig.has(config.file)) {
      toldBadConfig.add(config.file);
      connection.console.warn(`[proxy-tuner] ${config.file}: ${config.problems.join('; ')} (ignored)`);
    }
    return { config, path };
  } catch (err) {
    const message = (err as Error).message;
    if (!toldBadConfig.has(message)) {
      toldBadConfig.add(message);
      connection.console.error(`[proxy-tuner] ${message}; judging without it`);
    }
    return { config: undefined, path };
  }
}

function readProjectFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function settingsFor(uri: string): Promise<ServiceSettings> {
  let pending = settingsByUri.get(uri);
  if (!pending) {
    pending = (canPullConfiguration ? pullConfig(uri) : Promise.resolve(pushedConfig)).then(async (editorConfig) => {
      const project = projectConfigOf(uri);
      const config = mergeConfig(projectSettings(project.config), editorConfig);
      if (settingsByUri.get(uri) === pending) delayByUri.set(uri, config.diagnostics?.delay ?? DEFAULT_DIAGNOSTICS_DELAY_MS);
      wsIndex.setFollowSymlinks(config.workspace?.followSymlinks === true);
      // the local binaries' versions (`nginx -v`, `haproxy -v`) without blocking the server
      await probeVersions(config);
      const settings = resolveSettings(config);
      const context = project.path ? contextFor(project.config, project.path) : undefined;
      if (context) settings.nginxContext = context;
      if (project.path && isIgnored(project.config, project.path)) ignoredUris.add(uri);
      else ignoredUris.delete(uri);
      settings.completionSnippets = !clientHasSnippets;
      return announce(settings);
    });
    settingsByUri.set(uri, pending);
  }
  return pending;
}

// ---------------------------------------------------------------------------------------------
// Documents and validation.

function languageOf(doc: TextDocument): LanguageId {
  return service.languageOf(doc.languageId, doc.uri, doc.getText());
}

/** The last diagnostics computed per document, so code actions need no second validation. */
const lastDiagnostics = new Map<string, { version: number; settings: ServiceSettings; diagnostics: Diagnostic[] }>();

/** The diagnostics of a document's current version, and whether they had to be computed. */
function computeDiagnostics(doc: TextDocument, settings: ServiceSettings): { diagnostics: Diagnostic[]; computed: boolean } {
  const hit = lastDiagnostics.get(doc.uri);
  if (hit && hit.version === doc.version && hit.settings === settings) return { diagnostics: hit.diagnostics, computed: false };
  // a file the project config ignores gets none; a very large one only a syntax scan
  const diagnostics = ignoredUris.has(doc.uri)
    ? []
    : isLarge(doc)
      ? service.applyRules(doc, languageOf(doc), largeDocumentDiagnostics(doc.getText(), languageOf(doc)), settings)
      : service.validateInWorkspace(doc, languageOf(doc), settings, wsIndex, parses);
  lastDiagnostics.set(doc.uri, { version: doc.version, settings, diagnostics });
  return { diagnostics, computed: true };
}

function diagnosticsOf(doc: TextDocument, settings: ServiceSettings): Diagnostic[] {
  return computeDiagnostics(doc, settings).diagnostics;
}

// The validation schedule, per open document:
// - after an edit, validate once the document has rested for a short delay (the edits of a
//   burst already sent are applied first: the timer restarts with each one);
// - a document whose validations are slow (the least of its last three) waits longer: 1 ms per
//   ms beyond 50, up to 250 ms, so that it is validated once per pause in typing instead of
//   after every key;
// - one validation of a document at a time: edits that arrive while one runs (it may wait for
//   the client's settings) make one follow-up run of the newest version when it ends;
// - a publication is never older than the one before it, and nothing is published for a
//   document closed meanwhile (its state is dropped on close; a run holding it stops).

interface Schedule {
  timer?: ReturnType<typeof setTimeout>;
  /** When the timer fires (performance.now()). */
  due: number;
  running: boolean;
  /** Something asked for a validation while one ran. */
  rerun: boolean;
  /** The version last published. */
  published: number;
  /** Validations computed so far. */
  runs: number;
  /** The last few validation times of this document, ms (not the first: one-time warm-up). */
  costs: number[];
}

const schedules = new Map<string, Schedule>();
/**
 * A document's validation time is the least of its last three: a collection or a busy machine
 * makes one run slow now and then, and the first validation of a document (at open) pays for
 * compiling the code and building tables once, so it is not counted.
 */
const COSTS_KEPT = 3;

function scheduleOf(uri: string): Schedule {
  let s = schedules.get(uri);
  if (!s) {
    s = { due: 0, running: false, rerun: false, published: -Infinity, runs: 0, costs: [] };
    schedules.set(uri, s);
  }
  return s;
}

/** The rest after an edit: the setting, or more for a document whose validations are slow. */
function editDelay(uri: string): number {
  const floor = delayByUri.get(uri) ?? pushedConfig.diagnostics?.delay ?? DEFAULT_DIAGNOSTICS_DELAY_MS;
  const costs = schedules.get(uri)?.costs ?? [];
  if (!costs.length) return floor;
  const typical = Math.min(...costs);
  return Math.max(floor, Math.min(typical - SLOW_VALIDATION_MS, MAX_ADAPTIVE_DELAY_MS));
}

/**
 * Asks for a validation of `uri`. `debounce` (edits): the timer restarts, `delay` from now.
 * Otherwise the run happens `delay` from now or earlier if one is already due sooner.
 */
function scheduleValidation(uri: string, delay: number, debounce = false): void {
  const s = scheduleOf(uri);
  if (s.running) {
    s.rerun = true;
    return;
  }
  const due = performance.now() + delay;
  if (s.timer) {
    if (!debounce && s.due <= due) return;
    clearTimeout(s.timer);
  }
  s.due = due;
  s.timer = setTimeout(() => {
    s.timer = undefined;
    // One more turn of the event loop first: the JSON-RPC reader hands over the messages it has
    // read one per turn, so when the timer fires late (the process was descheduled, or a
    // collection ran) the rest of a burst may be read but not yet applied. An edit among them
    // sets a new timer, and this run gives way to it rather than validate a version half-typed.
    setImmediate(() => {
      if (!s.timer && !s.running && schedules.get(uri) === s) void validate(uri, s);
    });
  }, delay);
}

async function validate(uri: string, s: Schedule): Promise<void> {
  s.running = true;
  try {
    const doc = documents.get(uri);
    if (!doc) return;
    const version = doc.version;
    const settings = await settingsFor(uri);
    // closed meanwhile (maybe reopened: a new schedule), or edited: the follow-up run takes it
    if (schedules.get(uri) !== s || documents.get(uri) !== doc || doc.version !== version) return;
    const started = performance.now();
    const { diagnostics, computed } = computeDiagnostics(doc, settings);
    const all = [...diagnostics, ...service.applyRules(doc, languageOf(doc), hostDiagnostics(doc), settings)];
    if (computed && s.runs++ > 0) {
      s.costs.push(performance.now() - started);
      if (s.costs.length > COSTS_KEPT) s.costs.shift();
    }
    if (doc.version < s.published) return;
    s.published = doc.version;
    void connection.sendDiagnostics({ uri, version: doc.version, diagnostics: all }).catch((err: unknown) => logError('publish diagnostics', err));
    if (computed && s.runs === 1 && performance.now() - started <= WARM_UP_MAX_MS) warmUp(uri, s, doc, settings);
  } catch (err) {
    logError('validation', err);
  } finally {
    s.running = false;
    if (s.rerun && schedules.get(uri) === s) {
      s.rerun = false;
      scheduleValidation(uri, editDelay(uri), true);
    }
  }
}

const warmUpsDone: Partial<Record<LanguageId, number>> = {};

/** Background validations of a copy of a freshly opened document (see WARM_UP_RUNS). */
function warmUp(uri: string, s: Schedule, doc: TextDocument, settings: ServiceSettings): void {
  if (isLarge(doc)) return;
  const lang = languageOf(doc);
  if ((warmUpsDone[lang] ?? 0) >= WARM_UP_RUNS) return;
  const version = doc.version;
  setTimeout(() => {
    // only while the document rests: no edit, no validation running or due, still open
    if (schedules.get(uri) !== s || s.running || s.timer || documents.get(uri) !== doc || doc.version !== version) return;
    if ((warmUpsDone[lang] ?? 0) >= WARM_UP_RUNS) return;
    warmUpsDone[lang] = (warmUpsDone[lang] ?? 0) + 1;
    try {
      // a copy, with an index of its own: the parse and everything after it run again (the
      // server's caches would answer from this version's results); an edit typed into the copy
      // and taken out again, and the module diagnostics, as a real edit's validation has them
      const copy = lineDocuments.create(doc.uri, doc.languageId, doc.version, doc.getText());
      const at = { line: 0, character: 0 };
      lineDocuments.update(copy, [{ range: { start: at, end: at }, text: '#' }], copy.version + 1);
      lineDocuments.update(copy, [{ range: { start: at, end: { line: 0, character: 1 } }, text: '' }], copy.version + 1);
      const index = service.createWorkspaceIndex({ open: { get: (u) => (u === copy.uri ? copy : undefined), all: () => [copy] } });
      service.validateInWorkspace(copy, lang, settings, index);
      if (lang === 'nginx') nginxModuleDiagnostics(copy, index.get(copy.uri)?.ast as NginxFile, index.contextOf(copy.uri));
    } catch (err) {
      logError('warm-up validation', err);
    }
    warmUp(uri, s, doc, settings);
  }, WARM_UP_GAP_MS);
}

function revalidateAll(): void {
  for (const doc of documents.all()) scheduleValidation(doc.uri, 0);
}

/**
 * An edit in one file can change another's diagnostics (an include, an upstream used elsewhere).
 * Their timers restart with each edit: validated once the typing elsewhere pauses, not every
 * 500 ms while it goes on.
 */
function revalidateOthers(uri: string, delay = OTHERS_DELAY_MS): void {
  for (const doc of documents.all()) {
    if (doc.uri === uri) continue;
    lastDiagnostics.delete(doc.uri);
    scheduleValidation(doc.uri, delay, true);
  }
}

/** Documents whose didOpen is being handled: TextDocuments reports it as a content change too. */
const justOpened = new Set<string>();

documents.onDidOpen(
  guard('didOpen', undefined, (e) => {
    justOpened.add(e.document.uri);
    scheduleValidation(e.document.uri, 0);
    revalidateOthers(e.document.uri);
  }),
);
documents.onDidChangeContent(
  guard('didChange', undefined, (e) => {
    if (justOpened.delete(e.document.uri)) return;
    binaryByUri.delete(e.document.uri); // the binary's lines no longer match the text
    scheduleValidation(e.document.uri, editDelay(e.document.uri), true);
    revalidateOthers(e.document.uri);
  }),
);
documents.onDidClose(
  guard('didClose', undefined, (e) => {
    const uri = e.document.uri;
    const s = schedules.get(uri);
    if (s?.timer) clearTimeout(s.timer);
    schedules.delete(uri);
    justOpened.delete(uri);
    largeDocs.delete(uri);
    parses.delete(uri);
    wsIndex.closed(uri);
    lastDiagnostics.delete(uri);
    settingsByUri.delete(uri);
    delayByUri.delete(uri);
    void connection.sendDiagnostics({ uri, diagnostics: [] }).catch((err: unknown) => logError('clear diagnostics', err));
  }),
);

// ---------------------------------------------------------------------------------------------
// Lifecycle.

connection.onInitialize(
  guard('initialize', { capabilities: {} } as InitializeResult, (params: InitializeParams): InitializeResult => {
    const workspace = params.capabilities?.workspace;
    canPullConfiguration = workspace?.configuration === true;
    canRegisterConfigurationChange = workspace?.didChangeConfiguration?.dynamicRegistration === true;
    pushedConfig = readConfig(params.initializationOptions);
    // snippets as completion items: for clients that can insert them and do not bring their own
    clientHasSnippets =
      (params.initializationOptions as { contributesSnippets?: unknown } | undefined)?.contributesSnippets === true ||
      params.capabilities?.textDocument?.completion?.completionItem?.snippetSupport !== true;
    void probeVersions(pushedConfig); // while the client sends the documents and its settings
    canWatchFiles = workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    inlayHintsRefresh = workspace?.inlayHint?.refreshSupport === true;
    const folders = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
    wsIndex.setRoots(folders.map((u) => service.uriToPath(u)).filter((p): p is string => !!p));

    const capabilities: ServerCapabilities = {
      textDocumentSync: {
        openClose: true,
        change: TextDocumentSyncKind.Incremental,
      },
      completionProvider: { triggerCharacters: ['$', ' ', '%', '[', '(', ',', ':'], resolveProvider: false },
      hoverProvider: true,
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, CodeActionKind.SourceFixAll] },
    };
    // Features a language module may add later: declared only when some module implements them.
    if (service.anySupports('symbols')) capabilities.documentSymbolProvider = true;
    if (service.anySupports('folding')) capabilities.foldingRangeProvider = true;
    if (service.anySupports('selectionRanges')) capabilities.selectionRangeProvider = true;
    if (service.anySupports('format')) {
      capabilities.documentFormattingProvider = true;
      capabilities.documentRangeFormattingProvider = true;
    }
    if (service.anySupports('definition')) capabilities.definitionProvider = true;
    if (service.anySupports('signatureHelp')) capabilities.signatureHelpProvider = { triggerCharacters: [' '], retriggerCharacters: [' ', '\t'] };
    if (service.anySupports('inlayHints')) capabilities.inlayHintProvider = { resolveProvider: false };
    // Navigation over the files loaded together (workspaceIndex.ts).
    capabilities.referencesProvider = true;
    capabilities.renameProvider = { prepareProvider: true };
    capabilities.documentLinkProvider = { resolveProvider: false };
    capabilities.workspaceSymbolProvider = true;
    return { capabilities, serverInfo: { name: 'proxy-tuner' } };
  }),
);

connection.onInitialized(
  guard('initialized', undefined, () => {
    if (canRegisterConfigurationChange) {
      void connection.client
        .register(DidChangeConfigurationNotification.type, { section: 'proxyTuner' })
        .catch((err: unknown) => logError('register didChangeConfiguration', err));
    }
    if (canWatchFiles) {
      void connection.client
        .register(DidChangeWatchedFilesNotification.type, {
          watchers: [{ globPattern: '**/*.{conf,cfg}' }, { globPattern: '**/{sites-enabled,sites-available,conf.d,snippets}/**' }, { globPattern: `**/${PROJECT_CONFIG_NAME}` }],
        })
        .catch((err: unknown) => logError('register didChangeWatchedFiles', err));
    }
  }),
);

connection.onDidChangeConfiguration(
  guard('didChangeConfiguration', undefined, (change) => {
    // Push-model clients send the values; pull-model clients only say "something changed".
    const raw: unknown = change?.settings;
    if (raw && typeof raw === 'object' && Object.keys(raw).length) pushedConfig = readConfig(raw);
    projectConfigs.clear();
    settingsByUri.clear();
    revalidateAll();
    // the target version or the hints setting may have changed
    if (inlayHintsRefresh) void connection.languages.inlayHint.refresh().catch((err: unknown) => logError('inlayHint refresh', err));
  }),
);

// ---------------------------------------------------------------------------------------------
// Features: each a few lines over the facade.

connection.onCompletion(
  guardAsync('completion', null, async (params) => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return null;
    const settings = await settingsFor(doc.uri);
    return service.complete(doc, languageOf(doc), params.position, settings, parses);
  }),
);

connection.onHover(
  guardAsync('hover', null, async (params) => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return null;
    const settings = await settingsFor(doc.uri);
    return service.hover(doc, languageOf(doc), params.position, settings, parses);
  }),
);

connection.onSignatureHelp(
  guardAsync('signatureHelp', null, async (params) => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return null;
    const settings = await settingsFor(doc.uri);
    return service.signatureHelp(doc, languageOf(doc), params.position, settings, parses);
  }),
);

connection.languages.inlayHint.on(
  guardAsync('inlayHint', [], async (params) => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    const settings = await settingsFor(doc.uri);
    return service.inlayHints(doc, languageOf(doc), params.range, settings, parses);
  }),
);

connection.onCodeAction(
  guardAsync('codeAction', [] as CodeAction[], async (params) => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return [];
    const lang = languageOf(doc);
    const settings = await settingsFor(doc.uri);
    const only = params.context?.only;
    const wants = (kind: string) => !only || only.some((k) => kind === k || kind.startsWith(`${k}.`));
    const actions: CodeAction[] = [];
    if (wants(CodeActionKind.QuickFix)) {
      // Clients may drop `data` from the diagnostics they send back: use ours when they match.
      const own = diagnosticsOf(doc, settings);
      const sent = (params.context?.diagnostics ?? []) as unknown as Diagnostic[];
      const asked = sent.map((d) => sameDiagnostic(own, d) ?? d);
      actions.push(...service.codeActions(doc, lang, params.range, asked, settings, parses));
    }
    if (wants(CodeActionKind.SourceFixAll)) {
      const edits = service.safeFixEdits(diagnosticsOf(doc, settings));
      if (edits.length) actions.push({ title: FIX_ALL_TITLE, kind: CodeActionKind.SourceFixAll, edit: { changes: { [doc.uri]: edits } } });
    }
    return actions;
  }),
);

function sameDiagnostic(own: Diagnostic[], d: Diagnostic): Diagnostic | undefined {
  const r = d?.range;
  if (!r) return undefined;
  return own.find(
    (o) =>
      o.code === d.code &&
      o.range.start.line === r.start?.line &&
      o.range.start.character === r.start?.character &&
      o.range.end.line === r.end?.line &&
      o.range.end.character === r.end?.character,
  );
}

// Optional features: the handlers are always installed, but the client only sends these
// requests when initialize declared them (some module implements the feature).

connection.onDocumentSymbol(
  guard('documentSymbol', [], (params) => {
    const doc = documents.get(params.textDocument.uri);
    return doc ? service.symbols(doc, languageOf(doc), parses) : [];
  }),
);

connection.onFoldingRanges(
  guard('foldingRange', [], (params) => {
    const doc = documents.get(params.textDocument.uri);
    return doc ? service.folding(doc, languageOf(doc), parses) : [];
  }),
);

connection.onSelectionRanges(
  guard('selectionRange', [], (params) => {
    const doc = documents.get(params.textDocument.uri);
    return doc ? service.selectionRanges(doc, languageOf(doc), params.positions, parses) : [];
  }),
);

connection.onDocumentFormatting(
  guard('formatting', [], (params) => {
    const doc = documents.get(params.textDocument.uri);
    return doc ? service.format(doc, languageOf(doc), undefined, params.options, parses) : [];
  }),
);

connection.onDocumentRangeFormatting(
  guard('rangeFormatting', [], (params) => {
    const doc = documents.get(params.textDocument.uri);
    return doc ? service.format(doc, languageOf(doc), params.range, params.options, parses) : [];
  }),
);

connection.onDefinition(
  guardAsync('definition', null, async (params) => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return null;
    const settings = await settingsFor(doc.uri);
    return service.definitionInWorkspace(doc, params.position, wsIndex) ?? service.definition(doc, languageOf(doc), params.position, settings, parses);
  }),
);

connection.onReferences(
  guard('references', [], (params) => {
    const doc = documents.get(params.textDocument.uri);
    return doc ? service.references(doc, params.position, params.context?.includeDeclaration !== false, wsIndex) : [];
  }),
);

connection.onPrepareRename(
  guard('prepareRename', null, (params) => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return null;
    const answer = service.prepareRename(doc, params.position, wsIndex);
    return 'error' in answer ? new ResponseError(LSPErrorCodes.RequestFailed, answer.error) : answer;
  }),
);

connection.onRenameRequest(
  guard('rename', null, (params) => {
    const doc = documents.get(params.textDocument.uri);
    if (!doc) return null;
    const answer = service.rename(doc, params.position, params.newName, wsIndex);
    return 'error' in answer ? new ResponseError(LSPErrorCodes.RequestFailed, answer.error as string) : answer;
  }),
);

connection.onDocumentLinks(
  guard('documentLink', [], (params) => {
    const doc = documents.get(params.textDocument.uri);
    return doc ? service.documentLinks(doc, wsIndex) : [];
  }),
);

connection.onWorkspaceSymbol(guard('workspaceSymbol', [], (params) => service.workspaceSymbols(params.query ?? '', wsIndex)));

connection.onDidChangeWatchedFiles(
  guard('didChangeWatchedFiles', undefined, (params) => {
    for (const change of params.changes) wsIndex.invalidate(change.uri);
    // a project config changed: every document's settings are read again
    if (params.changes.some((c) => c.uri.endsWith(`/${PROJECT_CONFIG_NAME}`))) {
      projectConfigs.clear();
      toldBadConfig.clear();
      settingsByUri.clear();
      revalidateAll();
      return;
    }
    revalidateOthers('', 0);
  }),
);

// ---------------------------------------------------------------------------------------------
// The local binaries: modules the local nginx lacks (`nginx -V`, information diagnostics, only
// when a binary is there), and "Validate with nginx -t / haproxy -c" on a sandboxed copy
// (host/binaryCheck.ts), whose messages are kept per file until the next run or an edit.

/** Diagnostics of the last binary check, per uri (included files too, open or not). */
const binaryByUri = new Map<string, Diagnostic[]>();
/** Which uris each checked document's last run gave diagnostics to. */
const binaryRuns = new Map<string, string[]>();

/** Directives whose module the local nginx lacks (`nginx -V`); none without a local nginx. */
function nginxModuleDiagnostics(doc: TextDocument, ast: NginxFile | undefined, context: string | undefined): Diagnostic[] {
  const facts = localNginxBuild();
  return facts && ast ? moduleDiagnostics(doc, ast, facts, context ?? 'main') : [];
}

function hostDiagnostics(doc: TextDocument): Diagnostic[] {
  const out = [...(binaryByUri.get(doc.uri) ?? [])];
  try {
    if (languageOf(doc) === 'nginx') out.push(...nginxModuleDiagnostics(doc, parses.get(doc, 'nginx') as NginxFile, wsIndex.contextOf(doc.uri)));
  } catch (err) {
    logError('module diagnostics', err);
  }
  return out;
}

function lineTextOf(file: string, line: number): string | undefined {
  const doc = documents.get(pathToUri(file)) ?? documents.all().find((d) => service.uriToPath(d.uri) === file);
  try {
    const text = doc ? doc.getText() : readFileSync(file, 'utf8');
    return text.split('\n')[line]?.replace(/\r$/, '');
  } catch {
    return undefined;
  }
}

function republish(uri: string): void {
  if (documents.get(uri)) {
    lastDiagnostics.delete(uri);
    scheduleValidation(uri, 0);
  } else {
    void connection.sendDiagnostics({ uri, diagnostics: binaryByUri.get(uri) ?? [] }).catch((err: unknown) => logError('binary diagnostics', err));
  }
}

connection.onRequest(
  VALIDATE_WITH_BINARY_REQUEST,
  guardAsync('validateWithBinary', null as ValidateWithBinaryResult | null, async (params: ValidateWithBinaryParams): Promise<ValidateWithBinaryResult | null> => {
    const file = service.uriToPath(params.uri);
    const doc = documents.get(params.uri);
    let text = doc?.getText();
    if (text === undefined && file) {
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        text = '';
      }
    }
    const lang = doc ? languageOf(doc) : service.languageOf(undefined, params.uri, text ?? '');
    if (!file) {
      return { status: 'unsupported', tool: toolName(lang), summary: `${toolName(lang)} checks files on disk: save the document first`, errors: 0, warnings: 0, files: [] };
    }
    const config = canPullConfiguration ? await pullConfig(params.uri) : pushedConfig;
    const result = await checkWithBinary({ configPath: file, kind: lang, binary: config[lang]?.path || undefined });
    const byFile = binaryDiagnostics(result, file, lineTextOf);
    const previous = binaryRuns.get(params.uri) ?? [];
    for (const u of previous) binaryByUri.delete(u);
    const uris: string[] = [];
    const settings = await settingsFor(params.uri);
    for (const [f, diags] of byFile) {
      const u = f === file ? params.uri : (documents.all().find((d) => service.uriToPath(d.uri) === f)?.uri ?? pathToUri(f));
      // severity settings and suppression comments, read in the file the message is on (open documents are applied again when published)
      const fileDoc = documents.get(u) ?? TextDocument.create(u, lang, 0, u === params.uri && text !== undefined ? text : (readProjectFile(f) ?? ''));
      binaryByUri.set(u, [...(binaryByUri.get(u) ?? []), ...service.applyRules(fileDoc, lang, diags, settings)]);
      uris.push(u);
    }
    binaryRuns.set(params.uri, uris);
    for (const u of new Set([...previous, ...uris, params.uri])) republish(u);
    return summarize(result, [...byFile.keys()]);
  }),
);

documents.listen(connection);
connection.listen();
