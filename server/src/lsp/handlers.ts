// The handlers' bodies that are more than a call into the service: the capabilities, the
// dynamic registrations, configuration and file changes, the document events and code actions;
// and `onDoc`/`onDocWithSettings`, which find a request's document (and its settings) so that
// server.ts's table stays one call per request.
import {
  CodeActionKind,
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  TextDocumentSyncKind,
  type CodeActionParams,
  type DidChangeWatchedFilesParams,
  type InitializeParams,
  type InitializeResult,
  type ServerCapabilities,
} from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
// The service speaks the types package the project pins; the protocol package may nest a newer one.
import type { CodeAction, Diagnostic } from 'vscode-languageserver-types';
import * as service from '../service/languageService';
import { PROJECT_CONFIG_NAME } from '../service/projectConfig';
import type { LanguageId, ServiceSettings } from '../core/types';
import { guard, guardAsync, type ServerContext } from './context';
import type { Publisher } from './publish';
import type { ClientSettings } from './settings';

const FIX_ALL_TITLE = 'Apply every safe Proxy Tuner fix';

/** The server's parts, as the handlers see them. */
export interface Parts {
  ctx: ServerContext;
  settings: ClientSettings;
  publisher: Publisher;
  /** What initialize learnt of the client. */
  client: { canWatchFiles: boolean; inlayHintsRefresh: boolean };
}

type DocParams = { textDocument: { uri: string } };

/** A request about an open document: `fallback` when it is not open. */
export function onDoc<P extends DocParams, R>(
  ctx: ServerContext,
  name: string,
  fallback: R,
  fn: (doc: TextDocument, lang: LanguageId, params: P) => R,
): (params: P) => R {
  return guard(ctx, name, fallback, (params: P) => {
    const doc = ctx.docs.get(params.textDocument.uri);
    return doc ? fn(doc, ctx.docs.languageOf(doc), params) : fallback;
  });
}

/** The same for requests that need the document's settings. */
export function onDocWithSettings<P extends DocParams, R>(
  parts: Parts,
  name: string,
  fallback: R,
  fn: (doc: TextDocument, lang: LanguageId, settings: ServiceSettings, params: P) => R,
): (params: P) => Promise<R> {
  const { ctx } = parts;
  return guardAsync(ctx, name, fallback, async (params: P) => {
    const doc = ctx.docs.get(params.textDocument.uri);
    if (!doc) return fallback;
    const settings = await parts.settings.settingsFor(doc.uri);
    return fn(doc, ctx.docs.languageOf(doc), settings, params);
  });
}

export function initialize(parts: Parts, params: InitializeParams): InitializeResult {
  const { ctx } = parts;
  parts.settings.initialize(params);
  const workspace = params.capabilities?.workspace;
  parts.client.canWatchFiles = workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
  parts.client.inlayHintsRefresh = workspace?.inlayHint?.refreshSupport === true;
  const folders = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
  ctx.wsIndex.setRoots(folders.map((u) => service.uriToPath(u)).filter((p): p is string => !!p));
  return { capabilities: capabilities(), serverInfo: { name: 'proxy-tuner' } };
}

function capabilities(): ServerCapabilities {
  const caps: ServerCapabilities = {
    textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
    completionProvider: { triggerCharacters: ['$', ' ', '%', '[', '(', ',', ':'], resolveProvider: false },
    hoverProvider: true,
    codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, CodeActionKind.SourceFixAll] },
  };
  // Features a language module may add later: declared only when some module implements them.
  if (service.anySupports('symbols')) caps.documentSymbolProvider = true;
  if (service.anySupports('folding')) caps.foldingRangeProvider = true;
  if (service.anySupports('selectionRanges')) caps.selectionRangeProvider = true;
  if (service.anySupports('format')) {
    caps.documentFormattingProvider = true;
    caps.documentRangeFormattingProvider = true;
  }
  if (service.anySupports('definition')) caps.definitionProvider = true;
  if (service.anySupports('signatureHelp')) caps.signatureHelpProvider = { triggerCharacters: [' '], retriggerCharacters: [' ', '\t'] };
  if (service.anySupports('inlayHints')) caps.inlayHintProvider = { resolveProvider: false };
  // Navigation over the files loaded together (workspaceIndex.ts).
  caps.referencesProvider = true;
  caps.renameProvider = { prepareProvider: true };
  caps.documentLinkProvider = { resolveProvider: false };
  caps.workspaceSymbolProvider = true;
  return caps;
}

/** After initialize: the notifications the client registers on our request. */
export function initialized(parts: Parts): void {
  const { connection, logError } = parts.ctx;
  if (parts.settings.canRegisterChange) {
    void connection.client
      .register(DidChangeConfigurationNotification.type, { section: 'proxyTuner' })
      .catch((err: unknown) => logError('register didChangeConfiguration', err));
  }
  if (parts.client.canWatchFiles) {
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
}

/** Push-model clients send the values; pull-model clients only say "something changed". */
export function configurationChanged(parts: Parts, raw: unknown): void {
  const { connection, logError } = parts.ctx;
  parts.settings.changed(raw);
  parts.publisher.revalidateAll();
  // the target version or the hints setting may have changed
  if (parts.client.inlayHintsRefresh)
    void connection.languages.inlayHint.refresh().catch((err: unknown) => logError('inlayHint refresh', err));
}

export function watchedFilesChanged(parts: Parts, params: DidChangeWatchedFilesParams): void {
  for (const change of params.changes) parts.ctx.wsIndex.invalidate(change.uri);
  // a project config changed: every document's settings are read again
  if (params.changes.some((c) => c.uri.endsWith(`/${PROJECT_CONFIG_NAME}`))) {
    parts.settings.projectConfigChanged();
    parts.publisher.revalidateAll();
    return;
  }
  parts.publisher.revalidateOthers('', 0);
}

export function opened(parts: Parts, uri: string): void {
  parts.ctx.docs.stateOf(uri).justOpened = true;
  parts.publisher.request(uri, 0);
  parts.publisher.revalidateOthers(uri);
}

export function changed(parts: Parts, uri: string): void {
  const st = parts.ctx.docs.stateOf(uri);
  if (st.justOpened) {
    st.justOpened = false;
    return;
  }
  parts.publisher.forgetBinary(uri);
  parts.publisher.request(uri, parts.publisher.editDelay(uri), true);
  parts.publisher.revalidateOthers(uri);
}

export function closed(parts: Parts, uri: string): void {
  const { ctx } = parts;
  const st = ctx.docs.peek(uri);
  if (st) parts.publisher.cancel(st.schedule);
  ctx.docs.drop(uri);
  ctx.parses.delete(uri);
  ctx.wsIndex.closed(uri);
  void ctx.connection.sendDiagnostics({ uri, diagnostics: [] }).catch((err: unknown) => ctx.logError('clear diagnostics', err));
}

export function codeActions(
  parts: Parts,
  doc: TextDocument,
  lang: LanguageId,
  settings: ServiceSettings,
  params: CodeActionParams,
): CodeAction[] {
  const only = params.context?.only;
  const wants = (kind: string) => !only || only.some((k) => kind === k || kind.startsWith(`${k}.`));
  const actions: CodeAction[] = [];
  if (wants(CodeActionKind.QuickFix)) {
    // Clients may drop `data` from the diagnostics they send back: use ours when they match.
    const own = parts.publisher.diagnosticsOf(doc, settings);
    const sent = (params.context?.diagnostics ?? []) as unknown as Diagnostic[];
    const asked = sent.map((d) => sameDiagnostic(own, d) ?? d);
    actions.push(...service.codeActions(doc, lang, params.range, asked, settings, parts.ctx.parses));
  }
  if (wants(CodeActionKind.SourceFixAll)) {
    const edits = service.safeFixEdits(parts.publisher.diagnosticsOf(doc, settings));
    if (edits.length) actions.push({ title: FIX_ALL_TITLE, kind: CodeActionKind.SourceFixAll, edit: { changes: { [doc.uri]: edits } } });
  }
  return actions;
}

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
