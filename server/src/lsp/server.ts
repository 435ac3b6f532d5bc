// The LSP adapter: with its entries (main.ts, browserMain.ts) the only code that knows the
// protocol. `startServer(connection, host)` wires a connection to the service: a table of
// handlers, each one call. The parts it wires:
//   documents.ts  the open documents and the state kept per document (large-document bound);
//   settings.ts   the client's settings and the project config, resolved by the service;
//   publish.ts    validation (schedule.ts decides when), publishing, the binary check's messages;
//   requests.ts   the custom requests ("Validate with nginx -t / haproxy -c");
//   handlers.ts   the lifecycle, document events and code actions;
//   context.ts    what they share, and `guard`: no handler's exception reaches the connection.
// The machine comes in as a `ServerHost` (the disk, the local binaries, the binary-check
// runner): main.ts passes the Node one and a stdio/IPC connection, a test an in-memory pair.
import { LSPErrorCodes, ResponseError, type Connection, type InitializeResult } from 'vscode-languageserver/node';
import type { CodeAction } from 'vscode-languageserver-types';
import * as service from '../service/languageService';
import { VALIDATE_WITH_BINARY_REQUEST, type ValidateWithBinaryResult } from '../../../protocol/binaryCheck';
import { errorLogger, guard, guardAsync, type ServerContext, type ServerHost } from './context';
import { OpenDocuments } from './documents';
import { ClientSettings } from './settings';
import { Publisher } from './publish';
import { validateWithBinary } from './requests';
import * as h from './handlers';

export type { ServerHost } from './context';

/** What a started server offers its process. */
export interface StartedServer {
  /** Logs an error on the connection's log channel (main.ts sends uncaught exceptions there). */
  logError(where: string, err: unknown): void;
}

/** Starts a language server on `connection` (listening on it), with the machine seen through `host`. */
export function startServer(connection: Connection, host: ServerHost): StartedServer {
  const docs = new OpenDocuments();
  const wsIndex = service.createWorkspaceIndex({ open: docs.documents, fs: host.fs, nginxConfDir: host.probe.nginxConfDir });
  const ctx: ServerContext = { connection, host, docs, parses: new service.ParseCache(), wsIndex, logError: errorLogger(connection) };
  const settings = new ClientSettings(ctx);
  const parts: h.Parts = {
    ctx,
    settings,
    publisher: new Publisher(ctx, settings),
    client: { canWatchFiles: false, inlayHintsRefresh: false },
  };
  const { parses } = ctx;
  /** A rename the service refuses: a request error, which clients show. */
  const rejected = <T extends object>(answer: T | { error: string }): T | ResponseError =>
    'error' in answer ? new ResponseError(LSPErrorCodes.RequestFailed, String(answer.error)) : answer;

  // Documents.
  docs.documents.onDidOpen(guard(ctx, 'didOpen', undefined, (e) => h.opened(parts, e.document.uri)));
  docs.documents.onDidChangeContent(guard(ctx, 'didChange', undefined, (e) => h.changed(parts, e.document.uri)));
  docs.documents.onDidClose(guard(ctx, 'didClose', undefined, (e) => h.closed(parts, e.document.uri)));

  // Lifecycle and workspace.
  connection.onInitialize(guard(ctx, 'initialize', { capabilities: {} } as InitializeResult, (params) => h.initialize(parts, params)));
  connection.onInitialized(guard(ctx, 'initialized', undefined, () => h.initialized(parts)));
  connection.onDidChangeConfiguration(
    guard(ctx, 'didChangeConfiguration', undefined, (change) => h.configurationChanged(parts, change?.settings)),
  );
  connection.onDidChangeWatchedFiles(guard(ctx, 'didChangeWatchedFiles', undefined, (params) => h.watchedFilesChanged(parts, params)));

  // Features: each one call into the service facade.
  connection.onCompletion(
    h.onDocWithSettings(parts, 'completion', null, (doc, lang, s, p) => service.complete(doc, lang, p.position, s, parses)),
  );
  connection.onHover(h.onDocWithSettings(parts, 'hover', null, (doc, lang, s, p) => service.hover(doc, lang, p.position, s, parses)));
  connection.onSignatureHelp(
    h.onDocWithSettings(parts, 'signatureHelp', null, (doc, lang, s, p) => service.signatureHelp(doc, lang, p.position, s, parses)),
  );
  connection.languages.inlayHint.on(
    h.onDocWithSettings(parts, 'inlayHint', [], (doc, lang, s, p) => service.inlayHints(doc, lang, p.range, s, parses)),
  );
  connection.onCodeAction(
    h.onDocWithSettings(parts, 'codeAction', [] as CodeAction[], (doc, lang, s, p) => h.codeActions(parts, doc, lang, s, p)),
  );
  // Optional features: always installed; the client sends them only when initialize declared them.
  connection.onDocumentSymbol(h.onDoc(ctx, 'documentSymbol', [], (doc, lang) => service.symbols(doc, lang, parses)));
  connection.onFoldingRanges(h.onDoc(ctx, 'foldingRange', [], (doc, lang) => service.folding(doc, lang, parses)));
  connection.onSelectionRanges(
    h.onDoc(ctx, 'selectionRange', [], (doc, lang, p) => service.selectionRanges(doc, lang, p.positions, parses)),
  );
  connection.onDocumentFormatting(
    h.onDoc(ctx, 'formatting', [], (doc, lang, p) => service.format(doc, lang, undefined, p.options, parses)),
  );
  connection.onDocumentRangeFormatting(
    h.onDoc(ctx, 'rangeFormatting', [], (doc, lang, p) => service.format(doc, lang, p.range, p.options, parses)),
  );
  connection.onDefinition(
    h.onDocWithSettings(
      parts,
      'definition',
      null,
      (doc, lang, s, p) => service.definitionInWorkspace(doc, p.position, wsIndex) ?? service.definition(doc, lang, p.position, s, parses),
    ),
  );
  // Navigation over the files loaded together (workspaceIndex.ts).
  connection.onReferences(
    h.onDoc(ctx, 'references', [], (doc, _, p) => service.references(doc, p.position, p.context?.includeDeclaration !== false, wsIndex)),
  );
  connection.onPrepareRename(h.onDoc(ctx, 'prepareRename', null, (doc, _, p) => rejected(service.prepareRename(doc, p.position, wsIndex))));
  connection.onRenameRequest(h.onDoc(ctx, 'rename', null, (doc, _, p) => rejected(service.rename(doc, p.position, p.newName, wsIndex))));
  connection.onDocumentLinks(h.onDoc(ctx, 'documentLink', [], (doc) => service.documentLinks(doc, wsIndex)));
  connection.onWorkspaceSymbol(guard(ctx, 'workspaceSymbol', [], (params) => service.workspaceSymbols(params.query ?? '', wsIndex)));

  // Custom requests.
  connection.onRequest(
    VALIDATE_WITH_BINARY_REQUEST,
    guardAsync(ctx, 'validateWithBinary', null as ValidateWithBinaryResult | null, (params) =>
      validateWithBinary(ctx, settings, parts.publisher, params),
    ),
  );

  docs.documents.listen(connection);
  connection.listen();
  return { logError: ctx.logError };
}
