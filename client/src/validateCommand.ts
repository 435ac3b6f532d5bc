// "Proxy Tuner: Validate with nginx -t / haproxy -c": asks the language server to run the real
// binary on a sandboxed copy of the saved file (see protocol/binaryCheck.ts); the server
// publishes the binary's messages as diagnostics on the files and lines they name. With
// `proxyTuner.validateOnSave`, the same runs after each save (quietly when the config passes).
// Both only in a trusted workspace: they start a binary.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { VALIDATE_WITH_BINARY_REQUEST, type ValidateWithBinaryParams, type ValidateWithBinaryResult } from '../../protocol/binaryCheck';

const LANGS = new Set(['nginx', 'haproxy']);

export function registerValidateCommand(_context: vscode.ExtensionContext, client: LanguageClient): vscode.Disposable[] {
  const running = new Set<string>();

  const run = async (doc: vscode.TextDocument, quiet: boolean): Promise<ValidateWithBinaryResult | null> => {
    const key = doc.uri.toString();
    if (running.has(key)) return null;
    running.add(key);
    try {
      const params: ValidateWithBinaryParams = { uri: key };
      const tool = doc.languageId === 'nginx' ? 'nginx -t' : 'haproxy -c';
      const res = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: `Proxy Tuner: running ${tool}` },
        () => client.sendRequest<ValidateWithBinaryResult | null>(VALIDATE_WITH_BINARY_REQUEST, params),
      );
      if (!res) return null;
      if (res.status === 'error') void vscode.window.showWarningMessage(res.summary);
      else if (!quiet || res.status === 'missing') void vscode.window.showInformationMessage(res.summary);
      return res;
    } finally {
      running.delete(key);
    }
  };

  const command = vscode.commands.registerCommand('proxyTuner.validateWithBinary', async (uri?: vscode.Uri) => {
    const doc = uri ? await vscode.workspace.openTextDocument(uri) : vscode.window.activeTextEditor?.document;
    if (!doc || !LANGS.has(doc.languageId)) {
      void vscode.window.showInformationMessage('Proxy Tuner: open an nginx or HAProxy config to validate it with its binary.');
      return null;
    }
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showInformationMessage(
        'Proxy Tuner: validating with the binary runs nginx/haproxy, which needs a trusted workspace.',
      );
      return null;
    }
    if (doc.isDirty)
      void vscode.window.showInformationMessage('Proxy Tuner: the binary checks the file as saved; unsaved edits are not included.');
    return run(doc, false);
  });

  const onSave = vscode.workspace.onDidSaveTextDocument((doc) => {
    if (!LANGS.has(doc.languageId) || doc.uri.scheme !== 'file' || !vscode.workspace.isTrusted) return;
    if (!vscode.workspace.getConfiguration('proxyTuner', doc.uri).get<boolean>('validateOnSave', false)) return;
    void run(doc, true);
  });

  return [command, onSave];
}
