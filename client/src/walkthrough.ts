// The getting-started walkthrough's one command (package.json contributes.walkthroughs):
// "Open the example" writes media/walkthrough/nginx.conf into the extension's own storage, fresh
// each time, and opens it. A file rather than an untitled document, so the benchmark can run it;
// the user's files are never written. Works on the desktop and in the browser (workspace.fs).
import * as vscode from 'vscode';

export const OPEN_EXAMPLE_COMMAND = 'proxyTuner.walkthrough.openExample';

export function registerWalkthrough(context: vscode.ExtensionContext): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(OPEN_EXAMPLE_COMMAND, async () => {
      const source = vscode.Uri.joinPath(context.extensionUri, 'media', 'walkthrough', 'nginx.conf');
      const dir = vscode.Uri.joinPath(context.globalStorageUri, 'walkthrough');
      const target = vscode.Uri.joinPath(dir, 'nginx.conf');
      await vscode.workspace.fs.createDirectory(dir);
      await vscode.workspace.fs.writeFile(target, await vscode.workspace.fs.readFile(source));
      const doc = await vscode.workspace.openTextDocument(target);
      await vscode.window.showTextDocument(doc);
    }),
  ];
}
