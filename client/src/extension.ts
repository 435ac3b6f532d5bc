// Activation only: start the bundled language server (dist/server.js) over Node IPC, show its
// state in the language status area, and stop it on deactivation. Every language feature lives
// in the server; client-side features (the benchmark panel, CodeLens) register through
// `clientFeatures` below so this file stays a list of wiring, not logic.
import * as vscode from 'vscode';
import { LanguageClient, State, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { registerBenchmarkPanel } from './benchmark/index';
import { SERVER_EXEC_ARGV, serverEnv } from './serverLaunch';
import { registerValidateCommand } from './validateCommand';
import { registerLanguageCorrection } from './languageCorrection';
import { registerVersionFeatures } from './versions/index';
import { registerWalkthrough } from './walkthrough';

/** A client-side feature: gets the context and the running client, returns what to dispose. */
export type ClientFeature = (context: vscode.ExtensionContext, client: LanguageClient) => vscode.Disposable[];

/**
 * Client-side features, registered after the server has started. The benchmark panel goes here
 * (its code lives in `client/src/benchmark/`, e.g. `registerBenchmarkPanel`).
 */
const clientFeatures: ClientFeature[] = [registerBenchmarkPanel, registerValidateCommand];

export const documentSelector = [
  { scheme: 'file', language: 'nginx' },
  { scheme: 'untitled', language: 'nginx' },
  { scheme: 'file', language: 'haproxy' },
  { scheme: 'untitled', language: 'haproxy' },
];

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const serverModule = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: [...SERVER_EXEC_ARGV], env: serverEnv() } },
    debug: {
      module: serverModule,
      transport: TransportKind.ipc,
      options: { execArgv: [...SERVER_EXEC_ARGV, '--nolazy', '--inspect=127.0.0.1:6009'], env: serverEnv() },
    },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector,
    synchronize: { configurationSection: 'proxyTuner' },
    // contributesSnippets: package.json contributes snippets/*.json, so the server need not offer them too
    initializationOptions: { extensionVersion: String(context.extension.packageJSON.version ?? ''), contributesSnippets: true },
  };

  // before the server starts: a document switched to the detector's language is opened once, in it
  context.subscriptions.push(registerLanguageCorrection());
  context.subscriptions.push(...registerWalkthrough(context));
  client = new LanguageClient('proxyTuner', 'Proxy Tuner', serverOptions, clientOptions);
  const status = createStatus(client);
  context.subscriptions.push(status.item, status.listener);
  context.subscriptions.push(vscode.commands.registerCommand('proxyTuner.showServerOutput', () => client?.outputChannel.show(true)));

  try {
    await client.start();
  } catch (err) {
    status.item.severity = vscode.LanguageStatusSeverity.Error;
    status.item.text = 'Proxy Tuner: server failed to start';
    status.item.detail = err instanceof Error ? err.message : String(err);
    return;
  }
  for (const feature of clientFeatures) context.subscriptions.push(...feature(context, client));
  context.subscriptions.push(...registerVersionFeatures());
}

export async function deactivate(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) await c.dispose();
}

function createStatus(c: LanguageClient): { item: vscode.LanguageStatusItem; listener: vscode.Disposable } {
  const item = vscode.languages.createLanguageStatusItem('proxyTuner.server', documentSelector);
  item.name = 'Proxy Tuner';
  item.command = { title: 'Show Output', command: 'proxyTuner.showServerOutput' };
  const show = (state: State) => {
    item.busy = state === State.Starting;
    item.severity = state === State.Stopped ? vscode.LanguageStatusSeverity.Warning : vscode.LanguageStatusSeverity.Information;
    item.text = state === State.Running ? 'Proxy Tuner' : state === State.Starting ? 'Proxy Tuner: starting' : 'Proxy Tuner: stopped';
    item.detail = state === State.Running ? 'language server running' : undefined;
  };
  show(c.state);
  const listener = c.onDidChangeState((e) => show(e.newState));
  return { item, listener };
}
