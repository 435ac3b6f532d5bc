// Activation in VS Code for the Web (vscode.dev, github.dev; package.json "browser"): the language
// server runs in a web worker (dist/browserServer.js) and reads the files it is not sent through
// this client, which answers with `workspace.fs` (protocol/workspaceFs.ts), so includes resolve
// in a repository opened in the browser. The benchmark and the binary checks start nginx or
// HAProxy: their commands say they need the desktop.
import * as vscode from 'vscode';
import { LanguageClient, type LanguageClientOptions } from 'vscode-languageclient/browser';
import {
  READ_DIRECTORY_REQUEST,
  READ_FILE_REQUEST,
  STAT_REQUEST,
  type FsParams,
  type ReadDirectoryResult,
  type ReadFileResult,
  type StatResult,
} from '../../protocol/workspaceFs';
import { registerWalkthrough } from './walkthrough';

/** Commands of the desktop extension that start a binary or pick one. */
const DESKTOP_COMMANDS: [string, string][] = [
  ['proxyTuner.benchmark.open', 'The benchmark'],
  ['proxyTuner.benchmark.run', 'The benchmark'],
  ['proxyTuner.benchmark.stop', 'The benchmark'],
  ['proxyTuner.benchmark.importResults', 'The benchmark panel'],
  ['proxyTuner.benchmark.applyFixAndRerun', 'The benchmark'],
  ['proxyTuner.validateWithBinary', 'Validating with nginx -t / haproxy -c'],
  ['proxyTuner.pickTargetVersion', 'Picking a local binary'],
];

let client: LanguageClient | undefined;

async function readFile(params: FsParams): Promise<ReadFileResult> {
  try {
    return { text: new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.parse(params.uri))) };
  } catch {
    return null;
  }
}

async function stat(params: FsParams): Promise<StatResult> {
  try {
    const s = await vscode.workspace.fs.stat(vscode.Uri.parse(params.uri));
    return {
      isFile: (s.type & vscode.FileType.File) !== 0,
      isDirectory: (s.type & vscode.FileType.Directory) !== 0,
      size: s.size,
      mtimeMs: s.mtime,
    };
  } catch {
    return null;
  }
}

async function readDirectory(params: FsParams): Promise<ReadDirectoryResult> {
  try {
    return (await vscode.workspace.fs.readDirectory(vscode.Uri.parse(params.uri))).map(([name]) => name);
  } catch {
    return null;
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  for (const [id, what] of DESKTOP_COMMANDS)
    context.subscriptions.push(
      vscode.commands.registerCommand(id, () =>
        vscode.window.showInformationMessage(`${what} needs VS Code on the desktop: the browser cannot start nginx or HAProxy.`),
      ),
    );
  context.subscriptions.push(...registerWalkthrough(context));
  const clientOptions: LanguageClientOptions = {
    // any scheme: vscode-vfs (github.dev, vscode.dev), file (a local folder opened in the browser), untitled
    documentSelector: [{ language: 'nginx' }, { language: 'haproxy' }],
    synchronize: {
      configurationSection: 'proxyTuner',
      fileEvents: vscode.workspace.createFileSystemWatcher('**/*.{conf,cfg,nginx}'),
    },
    initializationOptions: { extensionVersion: String(context.extension.packageJSON.version ?? ''), contributesSnippets: true },
  };
  // the web worker API of the browser (the client layer has no DOM types)
  const { Worker } = globalThis as unknown as { Worker: new (url: string) => ConstructorParameters<typeof LanguageClient>[3] };
  const worker = new Worker(vscode.Uri.joinPath(context.extensionUri, 'dist', 'browserServer.js').toString(true));
  client = new LanguageClient('proxyTuner', 'Proxy Tuner', clientOptions, worker);
  context.subscriptions.push(
    client.onRequest(READ_FILE_REQUEST, readFile),
    client.onRequest(STAT_REQUEST, stat),
    client.onRequest(READ_DIRECTORY_REQUEST, readDirectory),
  );
  await client.start();
}

export async function deactivate(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) await c.dispose();
}
