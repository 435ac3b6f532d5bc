// The LSP adapter: the only file that knows the protocol (with its entry, main.ts, and the
// protocol-free schedule.ts). `startServer(connection, host)` wires a connection to the service:
// it owns the open documents (one state object per document), a parse cache, the validation
// schedule and the settings; every feature handler is a few lines calling the service facade.
// The machine comes in as a `ServerHost` (the disk, the local binaries, the binary-check
// runner): main.ts passes the Node one and a stdio/IPC connection, a test an in-memory pair.
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
  type Connection,
  type InitializeParams,
  type InitializeResult,
  type ServerCapabilities,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
// The service speaks the types package the project pins; the protocol package may nest a newer one.
import type { CodeAction, Diagnostic, Position } from 'vscode-languageserver-types';
import * as service from '../service/languageService';
import { mergeConfig, readConfig, type ProxyTunerConfig } from '../service/settings';
import { fileConfig, fileSettings, findProjectConfig, isIgnored, PROJECT_CONFIG_NAME, type ProjectConfig } from '../service/projectConfig';
import type { LanguageId, ServiceSettings } from '../core/types';
import type { BinaryCheckRunner, FileSystem, SettingsProbes } from '../service/host';
import { binaryDiagnostics, pathToUri, summarize, toolName } from '../service/binaryCheck';
import type { NginxBuildFacts } from '../host/binaryFacts';
import { lineDocuments } from '../core/lineDocument';
import { isLargeText, LARGE_DOCUMENT_CHARS } from '../service/largeDocument';
import { VALIDATE_WITH_BINARY_REQUEST, type ValidateWithBinaryParams, type ValidateWithBinaryResult } from '../../../protocol/binaryCheck';
import { DocSchedule, OTHERS_DELAY_MS, ValidationSchedule, systemClock, type Clock, type ValidationJob } from './schedule';

/**
 * How long a document rests after an edit before it is validated, by default (setting
 * `proxyTuner.diagnostics.delay`): long enough that the edits of a burst already on the wire are
 * applied first, short enough that diagnostics follow typing.
 */
const DEFAULT_DIAGNOSTICS_DELAY_MS = 3;
/** A client that never answers `workspace/configuration` must not stall validation. */
const CONFIGURATION_TIMEOUT_MS = 3000;
const FIX_ALL_TITLE = 'Apply every safe Proxy Tuner fix';

/** What the server needs from the machine; main.ts passes Node's (host/nodeHost.ts), tests a fake. */
export interface ServerHost {
  /** Files not open in the editor (include trees, `.cfg` folders, project configs, the lines a binary names). */
  fs: FileSystem;
  /** The local binaries' versions and this machine's facts, for the settings. */
  probes: SettingsProbes;
  /** Asks a local binary its version in the background; resolves once `probes.version` knows the answer. Never rejects. */
  prefetchVersion(lang: LanguageId, binaryPath?: string): Promise<unknown>;
  /** The local nginx's build (`nginx -V`), for the modules it lacks; undefined without one. */
  nginxBuild(): NginxBuildFacts | undefined;
  /** "Validate with nginx -t / haproxy -c" on a sandboxed copy. */
  checkWithBinary: BinaryCheckRunner;
  /** Time and timers of the validation schedule (default: the system's). */
  clock?: Clock;
}

/** What a started server offers its process. */
export interface StartedServer {
  /** Logs an error on the connection's log channel (main.ts sends uncaught exceptions there). */
  logError(where: string, err: unknown): void;
}

/** Everything the server keeps about one open document; dropped on close. */
interface DocState {
  schedule: DocSchedule;
  /** The version measured, and whether it is over the large-document bounds (syntax check only, no feature requests). */
  large?: { version: number; large: boolean };
  /** Its settings, pulled from the client once (until a configuration change). */
  settings?: Promise<ServiceSettings>;
  /** `diagnostics.delay`, once its settings are known (the schedule cannot wait for them). */
  delay?: number;
  /** A project config's `ignore` leaves it out: it gets no diagnostics. */
  ignored: boolean;
  /** The last diagnostics computed, so code actions need no second validation. */
  last?: { version: number; settings: ServiceSettings; diagnostics: Diagnostic[] };
  /** Its didOpen is being handled: TextDocuments reports it as a content change too. */
  justOpened: boolean;
}

/** Starts a language server on `connection` (listening on it), with the machine seen through `host`. */
export function startServer(connection: Connection, host: ServerHost): StartedServer {
  /** Open documents as line arrays: an edit costs its own lines, not a copy of the file (lineDocument.ts). */
  const documents = new TextDocuments(lineDocuments);
  const parses = new service.ParseCache();
  /** The files loaded together with each open document (include trees, `.cfg` folders), read from disk when not open. */
  const wsIndex = service.createWorkspaceIndex({ open: documents, fs: host.fs });
  const clock = host.clock ?? systemClock;
  /** The open documents' state, by uri. */
  const docs = new Map<string, DocState>();

  function stateOf(uri: string): DocState {
    let st = docs.get(uri);
    if (!st) {
      st = { schedule: new DocSchedule(), ignored: false, justOpened: false };
      docs.set(uri, st);
    }
    return st;
  }
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

  /** Open documents over the large-document bounds (the version measured is kept): syntax check only, no feature requests. */
  function isLarge(doc: TextDocument): boolean {
    const st = stateOf(doc.uri);
    const hit = st.large;
    if (hit && hit.version === doc.version) return hit.large;
    const large = isLargeText(doc.getText());
    st.large = { version: doc.version, large };
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

  // ---------------------------------------------------------------------------------------------
  // Settings: pulled per document through `workspace/configuration` when the client can answer
  // it, else taken from `initializationOptions` and later `didChangeConfiguration` pushes.

  let canPullConfiguration = false;
  /** The client inserts the snippets of snippets/*.json itself (the VS Code extension contributes them), or cannot insert snippets: completion leaves them out. */
  let clientHasSnippets = false;
  let canRegisterConfigurationChange = false;
  let pushedConfig: ProxyTunerConfig = {};

  /** Every open document's settings are asked for again (a configuration or project config changed). */
  function forgetSettings(): void {
    for (const st of docs.values()) st.settings = undefined;
  }

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
    return Promise.all(
      (['nginx', 'haproxy'] as const)
        .filter((lang) => !config[lang]?.version)
        .map((lang) => host.prefetchVersion(lang, config[lang]?.path)),
    );
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
    return host.fs.readFile(path);
  }

  function settingsFor(uri: string): Promise<ServiceSettings> {
    const st = stateOf(uri);
    let pending = st.settings;
    if (!pending) {
      pending = (canPullConfiguration ? pullConfig(uri) : Promise.resolve(pushedConfig)).then(async (editorConfig) => {
        const project = projectConfigOf(uri);
        const config = fileConfig(project.config, editorConfig);
        if (st.settings === pending) st.delay = config.diagnostics?.delay ?? DEFAULT_DIAGNOSTICS_DELAY_MS;
        wsIndex.setFollowSymlinks(config.workspace?.followSymlinks === true);
        // the local binaries' versions (`nginx -v`, `haproxy -v`) without blocking the server
        await probeVersions(config);
        const settings = fileSettings(project.config, project.path, editorConfig, host.probes);
        st.ignored = !!project.path && isIgnored(project.config, project.path);
        settings.completionSnippets = !clientHasSnippets;
        settings.maxDiagnostics ??= service.DEFAULT_MAX_DIAGNOSTICS;
        return announce(settings);
      });
      st.settings = pending;
    }
    return pending;
  }

  // ---------------------------------------------------------------------------------------------
  // Documents and validation.

  function languageOf(doc: TextDocument): LanguageId {
    return service.languageOf(doc.languageId, doc.uri, doc.getText());
  }

  /** The diagnostics of a document's current version, and whether they had to be computed. */
  function computeDiagnostics(doc: TextDocument, settings: ServiceSettings): { diagnostics: Diagnostic[]; computed: boolean } {
    const st = stateOf(doc.uri);
    const hit = st.last;
    if (hit && hit.version === doc.version && hit.settings === settings) return { diagnostics: hit.diagnostics, computed: false };
    // a file the project config ignores gets none; a very large one only a syntax scan
    const diagnostics = service.diagnose(doc, languageOf(doc), settings, wsIndex, {
      ignored: st.ignored,
      large: isLarge(doc),
      cache: parses,
      nginxBuild: nginxBuild(),
    });
    st.last = { version: doc.version, settings, diagnostics };
    return { diagnostics, computed: true };
  }

  function diagnosticsOf(doc: TextDocument, settings: ServiceSettings): Diagnostic[] {
    return computeDiagnostics(doc, settings).diagnostics;
  }

  // The validation schedule (schedule.ts: when to validate, one run at a time, adaptive delay,
  // warm-up); what a run does is here.
  const schedule = new ValidationSchedule(
    {
      scheduleOf: (uri) => stateOf(uri).schedule,
      isCurrent: (uri, s) => docs.get(uri)?.schedule === s,
      delayFloor: (uri) => docs.get(uri)?.delay ?? pushedConfig.diagnostics?.delay ?? DEFAULT_DIAGNOSTICS_DELAY_MS,
      prepare: prepareValidation,
      onError: logError,
    },
    clock,
  );

  /** Asks for a validation of `uri` (schedule.ts `request`). */
  function scheduleValidation(uri: string, delay: number, debounce = false): void {
    schedule.request(uri, delay, debounce);
  }

  async function prepareValidation(uri: string, s: DocSchedule): Promise<ValidationJob | undefined> {
    const doc = documents.get(uri);
    if (!doc) return undefined;
    const version = doc.version;
    const settings = await settingsFor(uri);
    // closed meanwhile (maybe reopened: a new schedule), or edited: the follow-up run takes it
    if (docs.get(uri)?.schedule !== s || documents.get(uri) !== doc || doc.version !== version) return undefined;
    let all: Diagnostic[] = [];
    return {
      version,
      compute: () => {
        const { diagnostics, computed } = computeDiagnostics(doc, settings);
        all = [...diagnostics, ...service.applyRules(doc, languageOf(doc), hostDiagnostics(doc), settings)];
        return { computed };
      },
      publish: () => {
        void connection
          .sendDiagnostics({ uri, version: doc.version, diagnostics: all })
          .catch((err: unknown) => logError('publish diagnostics', err));
      },
      warmUp: () =>
        isLarge(doc)
          ? undefined
          : {
              key: languageOf(doc),
              resting: () => documents.get(uri) === doc && doc.version === version,
              run: warmUpRuns(doc, settings),
              prepare: () => service.prepareCompletion(languageOf(doc), settings),
            },
    };
  }

  /**
   * The background validations of a copy of a freshly opened document (schedule.ts WARM_UP_RUNS),
   * one per call. The first validates the copy whole, with an index and a parse cache of its own
   * (the server's own would answer from this version's results). Each later one types one
   * character of a statement on a new line in the middle of the copy, or erases one, and
   * validates through that index and cache, as a keystroke's validation runs: the re-parse from
   * the previous tree, the per-block memos, the findings moved with their blocks, the typo
   * suggestions of a half-typed name. Those are the paths typing takes; a whole-file validation
   * alone left them cold, and the first 15 bursts of an editing session took twice the later
   * ones (docs/benchmarks.md). The module diagnostics run too, as they do per edit.
   */
  function warmUpRuns(doc: TextDocument, settings: ServiceSettings): () => void {
    const lang = languageOf(doc);
    const word = lang === 'nginx' ? 'proxy_read_timeout 30s;' : 'timeout server 30s';
    const cache = new service.ParseCache();
    let copy: ReturnType<typeof lineDocuments.create> | undefined;
    let index: ReturnType<typeof service.createWorkspaceIndex> | undefined;
    /** Where the statement is typed: the start of the new line, and how much of the word it holds. */
    let at: Position | undefined;
    let typed = 0;
    let typing = true;
    return () => {
      if (!copy || !index) {
        const c = (copy = lineDocuments.create(doc.uri, doc.languageId, doc.version, doc.getText()));
        index = service.createWorkspaceIndex({ open: { get: (u) => (u === c.uri ? c : undefined), all: () => [c] }, fs: host.fs });
      } else if (!at) {
        // a new line after the middle one
        const end = copy.positionAt(copy.offsetAt({ line: Math.floor(copy.lineCount / 2), character: Number.MAX_SAFE_INTEGER }));
        lineDocuments.update(copy, [{ range: { start: end, end }, text: '\n' }], copy.version + 1);
        at = { line: end.line + 1, character: 0 };
      } else {
        const col = { line: at.line, character: typed };
        if (typing) lineDocuments.update(copy, [{ range: { start: col, end: col }, text: word[typed++] }], copy.version + 1);
        else
          lineDocuments.update(copy, [{ range: { start: { line: at.line, character: --typed }, end: col }, text: '' }], copy.version + 1);
        if (typed === word.length) typing = false;
        else if (typed === 0) typing = true;
      }
      service.diagnose(copy, lang, settings, index, { cache, nginxBuild: nginxBuild() });
    };
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
      stateOf(doc.uri).last = undefined;
      scheduleValidation(doc.uri, delay, true);
    }
  }

  documents.onDidOpen(
    guard('didOpen', undefined, (e) => {
      stateOf(e.document.uri).justOpened = true;
      scheduleValidation(e.document.uri, 0);
      revalidateOthers(e.document.uri);
    }),
  );
  documents.onDidChangeContent(
    guard('didChange', undefined, (e) => {
      const st = stateOf(e.document.uri);
      if (st.justOpened) {
        st.justOpened = false;
        return;
      }
      binaryByUri.delete(e.document.uri); // the binary's lines no longer match the text
      scheduleValidation(e.document.uri, schedule.editDelay(e.document.uri), true);
      revalidateOthers(e.document.uri);
    }),
  );
  documents.onDidClose(
    guard('didClose', undefined, (e) => {
      const uri = e.document.uri;
      const st = docs.get(uri);
      if (st) schedule.cancel(st.schedule);
      docs.delete(uri);
      parses.delete(uri);
      wsIndex.closed(uri);
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
      if (service.anySupports('signatureHelp'))
        capabilities.signatureHelpProvider = { triggerCharacters: [' '], retriggerCharacters: [' ', '\t'] };
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
            watchers: [
              { globPattern: '**/*.{conf,cfg}' },
              { globPattern: '**/{sites-enabled,sites-available,conf.d,snippets}/**' },
              { globPattern: `**/${PROJECT_CONFIG_NAME}` },
            ],
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
      forgetSettings();
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
        if (edits.length)
          actions.push({ title: FIX_ALL_TITLE, kind: CodeActionKind.SourceFixAll, edit: { changes: { [doc.uri]: edits } } });
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
      return (
        service.definitionInWorkspace(doc, params.position, wsIndex) ??
        service.definition(doc, languageOf(doc), params.position, settings, parses)
      );
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
        forgetSettings();
        revalidateAll();
        return;
      }
      revalidateOthers('', 0);
    }),
  );

  // ---------------------------------------------------------------------------------------------
  // The local binaries: modules the local nginx lacks (`nginx -V`, information diagnostics, only
  // when a binary is there), and "Validate with nginx -t / haproxy -c" on a sandboxed copy
  // (bench/src/check.ts), whose messages are kept per file until the next run or an edit.

  /** Diagnostics of the last binary check, per uri (included files too, open or not). */
  const binaryByUri = new Map<string, Diagnostic[]>();
  /** Which uris each checked document's last run gave diagnostics to. */
  const binaryRuns = new Map<string, string[]>();

  /** The local nginx's build (`nginx -V`), for the module notes diagnose() adds; undefined without a local nginx. */
  function nginxBuild(): NginxBuildFacts | undefined {
    try {
      return host.nginxBuild();
    } catch (err) {
      logError('nginx -V', err);
      return undefined;
    }
  }

  function hostDiagnostics(doc: TextDocument): Diagnostic[] {
    return binaryByUri.get(doc.uri) ?? [];
  }

  function lineTextOf(file: string, line: number): string | undefined {
    const doc = documents.get(pathToUri(file)) ?? documents.all().find((d) => service.uriToPath(d.uri) === file);
    try {
      const text = doc ? doc.getText() : host.fs.readFile(file);
      return text?.split('\n')[line]?.replace(/\r$/, '');
    } catch {
      return undefined;
    }
  }

  function republish(uri: string): void {
    if (documents.get(uri)) {
      stateOf(uri).last = undefined;
      scheduleValidation(uri, 0);
    } else {
      void connection
        .sendDiagnostics({ uri, diagnostics: binaryByUri.get(uri) ?? [] })
        .catch((err: unknown) => logError('binary diagnostics', err));
    }
  }

  connection.onRequest(
    VALIDATE_WITH_BINARY_REQUEST,
    guardAsync(
      'validateWithBinary',
      null as ValidateWithBinaryResult | null,
      async (params: ValidateWithBinaryParams): Promise<ValidateWithBinaryResult | null> => {
        const file = service.uriToPath(params.uri);
        const doc = documents.get(params.uri);
        let text = doc?.getText();
        if (text === undefined && file) {
          text = host.fs.readFile(file) ?? '';
        }
        const lang = doc ? languageOf(doc) : service.languageOf(undefined, params.uri, text ?? '');
        if (!file) {
          return {
            status: 'unsupported',
            tool: toolName(lang),
            summary: `${toolName(lang)} checks files on disk: save the document first`,
            errors: 0,
            warnings: 0,
            files: [],
          };
        }
        const config = canPullConfiguration ? await pullConfig(params.uri) : pushedConfig;
        const result = await host.checkWithBinary({ configPath: file, kind: lang, binary: config[lang]?.path || undefined });
        const byFile = binaryDiagnostics(result, file, lineTextOf);
        const previous = binaryRuns.get(params.uri) ?? [];
        for (const u of previous) binaryByUri.delete(u);
        const uris: string[] = [];
        const settings = await settingsFor(params.uri);
        for (const [f, diags] of byFile) {
          const u = f === file ? params.uri : (documents.all().find((d) => service.uriToPath(d.uri) === f)?.uri ?? pathToUri(f));
          // severity settings and suppression comments, read in the file the message is on (open documents are applied again when published)
          const fileDoc =
            documents.get(u) ?? TextDocument.create(u, lang, 0, u === params.uri && text !== undefined ? text : (readProjectFile(f) ?? ''));
          binaryByUri.set(u, [...(binaryByUri.get(u) ?? []), ...service.applyRules(fileDoc, lang, diags, settings)]);
          uris.push(u);
        }
        binaryRuns.set(params.uri, uris);
        for (const u of new Set([...previous, ...uris, params.uri])) republish(u);
        return summarize(result, [...byFile.keys()]);
      },
    ),
  );

  documents.listen(connection);
  connection.listen();
  return { logError };
}
