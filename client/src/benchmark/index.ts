// The benchmark panel's registration: commands, the panel serializer (restores the panel after
// a reload), the CodeLens, the "Apply fix and re-run benchmark" quick fix, and reactions to
// workspace trust. Called once from client/src/extension.ts.
import * as vscode from 'vscode';
import { BenchmarkFixProvider } from './codeActions';
import { BenchmarkCodeLensProvider } from './codeLens';
import { BenchmarkController } from './controller';
import type { FixData } from '../../../protocol/fix';
import { PANEL_VIEW_TYPE } from './panel';

const selector: vscode.DocumentSelector = ['file', 'untitled'].flatMap((scheme) => [
  { scheme, language: 'nginx' },
  { scheme, language: 'haproxy' },
]);

function isConfigDoc(doc: vscode.TextDocument | undefined): doc is vscode.TextDocument {
  return !!doc && (doc.languageId === 'nginx' || doc.languageId === 'haproxy');
}

async function docFor(uriArg: unknown): Promise<vscode.TextDocument | undefined> {
  if (typeof uriArg === 'string' || uriArg instanceof vscode.Uri) {
    const uri = typeof uriArg === 'string' ? vscode.Uri.parse(uriArg) : uriArg;
    return vscode.workspace.openTextDocument(uri);
  }
  const active = vscode.window.activeTextEditor?.document;
  if (isConfigDoc(active)) return active;
  void vscode.window.showInformationMessage('Open an nginx or HAProxy config to benchmark it.');
  return undefined;
}

export function registerBenchmarkPanel(context: vscode.ExtensionContext): vscode.Disposable[] {
  const controller = new BenchmarkController(context);
  const lenses = new BenchmarkCodeLensProvider(controller);
  const fixes = new BenchmarkFixProvider();
  return [
    controller,
    lenses,
    controller.onDidChange(() => lenses.refresh()),
    controller.store.onDidChange(() => lenses.refresh()),
    vscode.languages.registerCodeLensProvider(selector, lenses),
    vscode.languages.registerCodeActionsProvider(selector, fixes, { providedCodeActionKinds: BenchmarkFixProvider.kinds }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      lenses.refresh();
      controller.refreshPanel();
    }),
    vscode.workspace.onDidSaveTextDocument((doc) => controller.onSaved(doc)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('proxyTuner.benchmark')) lenses.refresh();
      controller.onConfigurationChanged(e);
    }),
    vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, {
      async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown) {
        const cfg = (state as { config?: { uri?: unknown } } | undefined)?.config?.uri;
        controller.adoptPanel(panel, typeof cfg === 'string' && cfg.length < 4096 ? cfg : null);
      },
    }),
    vscode.commands.registerCommand('proxyTuner.benchmark.open', async (uriArg?: unknown) => {
      const doc =
        typeof uriArg === 'string' || uriArg instanceof vscode.Uri ? await docFor(uriArg) : vscode.window.activeTextEditor?.document;
      controller.showPanel(isConfigDoc(doc) ? doc.uri.toString() : null);
    }),
    vscode.commands.registerCommand('proxyTuner.benchmark.run', async (uriArg?: unknown, routeKey?: unknown) => {
      const doc = await docFor(uriArg);
      if (doc) await controller.runRoute(doc, typeof routeKey === 'string' ? routeKey : undefined);
    }),
    vscode.commands.registerCommand('proxyTuner.benchmark.stop', () => controller.stop()),
    vscode.commands.registerCommand(
      'proxyTuner.benchmark.importResults',
      async (uriArg?: unknown, files?: { results?: unknown; scenario?: unknown }) => {
        const doc = await docFor(uriArg);
        const given =
          files && typeof files.results === 'string'
            ? { results: files.results, scenario: typeof files.scenario === 'string' ? files.scenario : undefined }
            : undefined;
        return doc ? controller.importResults(doc, given) : undefined;
      },
    ),
    vscode.commands.registerCommand('proxyTuner.benchmark.applyFixAndRerun', async (uriArg: unknown, fix: FixData) => {
      const doc = await docFor(uriArg);
      if (doc && fix && typeof fix.title === 'string' && Array.isArray(fix.edits)) await controller.applyFixAndRerun(doc, fix);
    }),
  ];
}
