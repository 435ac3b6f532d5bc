// "Benchmark" lenses: one at the top of each config and one on each route (nginx server and
// location, HAProxy frontend and listen); after a run, a second lens shows its result.
import * as vscode from 'vscode';
import { summaryLine } from '../../../protocol/shape';
import { configKind, type BenchmarkController } from './controller';
import { findRoutes } from './routes';

export class BenchmarkCodeLensProvider implements vscode.CodeLensProvider {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.emitter.event;

  constructor(private readonly controller: BenchmarkController) {}

  refresh(): void {
    this.emitter.fire();
  }

  dispose(): void {
    this.emitter.dispose();
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    if (!vscode.workspace.getConfiguration('proxyTuner', doc.uri).get<boolean>('benchmark.codeLens', true)) return [];
    const uri = doc.uri.toString();
    const top = new vscode.Range(0, 0, 0, 0);
    if (!vscode.workspace.isTrusted) {
      return [new vscode.CodeLens(top, { title: 'Benchmark: off in an untrusted workspace', command: 'workbench.trust.manage' })];
    }
    const running = this.controller.running;
    const lenses: vscode.CodeLens[] = [];
    const add = (range: vscode.Range, routeKey: string | undefined, title: string) => {
      lenses.push(
        new vscode.CodeLens(range, {
          title: running ? `${title} (a run is in progress)` : title,
          tooltip: 'Run the real binary on a sandboxed copy of this config on loopback and plot P99',
          command: 'proxyTuner.benchmark.run',
          arguments: [uri, routeKey],
        }),
      );
      const last = this.controller.store.lastFor(uri, routeKey ?? 'config');
      if (last) {
        lenses.push(
          new vscode.CodeLens(range, {
            title: summaryLine(last.result),
            tooltip: `${last.label} at ${last.finishedAt}: open the benchmark panel`,
            command: 'proxyTuner.benchmark.open',
            arguments: [uri],
          }),
        );
      }
    };
    add(top, undefined, 'Benchmark');
    for (const r of findRoutes(configKind(doc), doc.getText())) {
      const pos = doc.positionAt(r.offset);
      if (pos.line === 0) continue;
      add(new vscode.Range(pos, pos), r.key, `Benchmark ${r.label}`);
    }
    return lenses;
  }
}
