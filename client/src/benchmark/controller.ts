// The benchmark panel's host: runs the engine on the config of an editor (a temporary copy when
// the editor has unsaved changes; the user's file is only ever read), streams progress to the
// panel, a progress notification and a status bar item, keeps finished runs per config, and
// turns failures into a message in the panel plus a diagnostic on the line they name.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { BenchResult, ProxyKind } from '../../../protocol/bench';
import type { FixData } from '../../../protocol/fix';
import {
  DEFAULT_RUN_OPTIONS,
  LIMITS,
  isRunOptions,
  type HostToPanel,
  type PanelRunOptions,
  type PanelToHost,
  type RunRecord,
} from '../../../protocol/panel';
import { runBenchmark } from '../../../bench/src/index';
import { scenarioFacts } from '../../../protocol/scenarios';
import { detectLanguage } from '../../../server/src/service/published';
import { importResults } from '../../../bench/src/importResults';
import { readScenarioLine } from '../../../bench/src/export';
import { runsToMarkdown, runToCsv, runToJson, summaryLine } from '../../../protocol/shape';
import { mapBenchError } from './errors';
import { BenchmarkPanel, type PanelHost } from './panel';
import { findRoutes, type Route } from './routes';
import { RunStore } from './runStore';
import { toBenchOptions } from './options';
import { binarySettingsChanged, findInstalledBinaries, readBinarySettings } from '../versions/index';
import { discoverInputKey, type FoundBinary } from '../versions/binaries';

export const UNTRUSTED_REASON =
  'Benchmarks are off in an untrusted workspace: a run starts the nginx or HAProxy binary on a copy of this config. ' +
  'Trust the workspace (Workspaces: Manage Workspace Trust) to run them.';

interface RunMeta {
  route?: Route;
  note?: string;
}

interface CurrentRun {
  id: string;
  configUri: string;
  abort: AbortController;
  /** The private copy of an unsaved editor's text, removed when the run ends. */
  tmpDir?: string;
}

export function configKind(doc: { languageId: string; fileName: string; getText?: () => string }): ProxyKind {
  if (doc.languageId === 'haproxy' || doc.languageId === 'nginx') return doc.languageId;
  // the language server's own detector (name, then content), so the panel and the diagnostics agree
  return detectLanguage(doc.fileName, doc.getText?.() ?? '');
}

function readTextOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

export class BenchmarkController implements PanelHost {
  readonly store: RunStore;
  readonly diagnostics = vscode.languages.createDiagnosticCollection('proxy-tuner-bench');
  /** Per config URI: the line a failed run's diagnostic points at, and its text as that run read it. */
  private readonly failedLines = new Map<string, { line: number; text: string }>();
  private readonly status = vscode.window.createStatusBarItem('proxyTuner.benchmark', vscode.StatusBarAlignment.Left, 50);
  private panel: BenchmarkPanel | undefined;
  private current: CurrentRun | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when runs or the running state change (the CodeLens listens). */
  readonly onDidChange = this.changed.event;

  /** The installed binaries (PATH, the path settings, proxyTuner.binaries): the panel's binary picker. */
  private binaries: FoundBinary[] = [];
  /** The settings the last discovery read (binarySettingsKey), and its number (the newest one wins). */
  private lookedFor: string | undefined;
  private discoveries = 0;

  constructor(private readonly context: vscode.ExtensionContext) {
    this.store = new RunStore(context.workspaceState, () => this.setting<number>(undefined, 'benchmark.keepRuns', 20));
    this.status.name = 'Proxy Tuner benchmark';
    this.status.command = 'proxyTuner.benchmark.stop';
    void this.refreshBinaries();
  }

  /**
   * Looks for the installed binaries again (with the settings' values now) and re-sends the
   * panel's state when they changed. When discoveries overlap, the one started last wins.
   */
  async refreshBinaries(): Promise<void> {
    const n = ++this.discoveries;
    const input = readBinarySettings();
    this.lookedFor = discoverInputKey(input);
    const found = await findInstalledBinaries(input).catch(() => [] as FoundBinary[]);
    if (n !== this.discoveries) return;
    const key = (l: FoundBinary[]) => l.map((b) => `${b.path}\0${b.version}`).join('\n');
    if (key(found) === key(this.binaries)) return;
    this.binaries = found;
    this.refreshPanel();
  }

  /**
   * A saved config: a failed run's diagnostic names a line of the text that run read; once the
   * saved text of that line differs (fixed, moved, removed), the diagnostic no longer describes
   * the file and goes (the next run, or validate-on-save, says whether a problem is left).
   */
  onSaved(doc: vscode.TextDocument): void {
    const was = this.failedLines.get(doc.uri.toString());
    if (!was) return;
    if (was.line < doc.lineCount && doc.lineAt(was.line).text === was.text) return;
    this.failedLines.delete(doc.uri.toString());
    this.diagnostics.delete(doc.uri);
  }

  /** Any configuration change: discovery again when the binary settings' values changed (named in the event or not). */
  onConfigurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (binarySettingsChanged(e, this.lookedFor)) void this.refreshBinaries();
  }

  private panelBinaries(kind: ProxyKind) {
    return this.binaries.filter((b) => b.kind === kind).map((b) => ({ path: b.path, version: b.version, source: b.source }));
  }

  dispose(): void {
    // The extension is going away (reload, shutdown): stop the run and remove the private copy
    // now, since the run's own clean-up may not get to run before the extension host exits.
    this.current?.abort.abort();
    if (this.current?.tmpDir) rmSync(this.current.tmpDir, { recursive: true, force: true });
    this.panel?.panel.dispose();
    this.diagnostics.dispose();
    this.status.dispose();
    this.changed.dispose();
  }

  get running(): boolean {
    return this.current !== undefined;
  }

  private setting<T>(uri: vscode.Uri | undefined, key: string, fallback: T): T {
    return vscode.workspace.getConfiguration('proxyTuner', uri).get<T>(key, fallback);
  }

  /** Defaults for a new run: the settings, then what the route says. */
  defaultOptions(doc: vscode.TextDocument, route?: Route): PanelRunOptions {
    const base = this.store.last(doc.uri.toString())?.options ?? {
      ...DEFAULT_RUN_OPTIONS,
      durationS: this.setting(doc.uri, 'benchmark.durationSeconds', DEFAULT_RUN_OPTIONS.durationS),
      warmupS: this.setting(doc.uri, 'benchmark.warmupSeconds', DEFAULT_RUN_OPTIONS.warmupS),
      connections: this.setting(doc.uri, 'benchmark.connections', DEFAULT_RUN_OPTIONS.connections),
    };
    const o: PanelRunOptions = { ...base };
    if (route) {
      o.path = route.path;
      o.host = route.host;
      if (route.scenario) o.scenario = route.scenario;
      else if (scenarioFacts(o.scenario)?.listener === 'stream') o.scenario = 'http1-keepalive'; // an HTTP route: not an L4 scenario
    }
    return isRunOptions(o) ? o : { ...DEFAULT_RUN_OPTIONS };
  }

  // ---- the panel --------------------------------------------------------------------------

  /** Shows the panel for a config (creating it beside the editor if needed). */
  showPanel(configUri: string | null): BenchmarkPanel {
    if (!this.panel) {
      this.panel = BenchmarkPanel.create(this.context.extensionUri, this, configUri);
    } else if (configUri && this.panel.configUri !== configUri) {
      this.panel.configUri = configUri;
      this.panel.post(this.initMessage(configUri));
    }
    this.panel.setTitle(configUri ? path.basename(vscode.Uri.parse(configUri).path) : undefined);
    this.panel.reveal();
    return this.panel;
  }

  /** Takes over a panel restored after a reload. */
  adoptPanel(webviewPanel: vscode.WebviewPanel, configUri: string | null): void {
    this.panel?.panel.dispose();
    this.panel = new BenchmarkPanel(webviewPanel, this.context.extensionUri, this, configUri);
    this.panel.setTitle(configUri ? path.basename(vscode.Uri.parse(configUri).path) : undefined);
  }

  onPanelDisposed(panel: BenchmarkPanel): void {
    if (this.panel === panel) this.panel = undefined;
  }

  private post(configUri: string, msg: HostToPanel): void {
    if (this.panel && this.panel.configUri === configUri) this.panel.post(msg);
  }

  private initMessage(configUri: string | null): HostToPanel {
    const trusted = vscode.workspace.isTrusted;
    if (!configUri) {
      return {
        type: 'init',
        config: null,
        enabled: trusted,
        disabledReason: trusted ? '' : UNTRUSTED_REASON,
        options: { ...DEFAULT_RUN_OPTIONS },
        runs: [],
        compare: { a: null, b: null },
        running: false,
      };
    }
    const uri = vscode.Uri.parse(configUri);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === configUri);
    // a config not open in an editor: its text from disk, so the detector sees its content too
    const kind = configKind(doc ?? { languageId: '', fileName: uri.path, getText: () => readTextOrEmpty(uri.fsPath) });
    return {
      type: 'init',
      config: { uri: configUri, name: path.basename(uri.path), kind },
      enabled: trusted,
      disabledReason: trusted ? '' : UNTRUSTED_REASON,
      options: doc ? this.defaultOptions(doc) : (this.store.last(configUri)?.options ?? { ...DEFAULT_RUN_OPTIONS }),
      runs: this.store.runs(configUri),
      compare: this.store.compare(configUri),
      running: this.current?.configUri === configUri,
      binaries: this.panelBinaries(kind),
    };
  }

  /** Re-sends the state (after a trust change). */
  refreshPanel(): void {
    if (this.panel) this.panel.post(this.initMessage(this.panel.configUri));
  }

  onPanelMessage(panel: BenchmarkPanel, msg: PanelToHost): void {
    const configUri = panel.configUri;
    switch (msg.type) {
      case 'ready':
        // The webview (new, restored after a reload, or re-rendered) listens now: the state as
        // known, then the binaries looked for again (a binary that was slow to answer `-v`, a
        // setting changed meanwhile), with a second `init` if that list differs.
        panel.post(this.initMessage(configUri));
        void this.refreshBinaries();
        return;
      case 'run':
        if (!configUri) return;
        void this.openDocument(configUri).then((doc) => doc && this.run(doc, msg.options));
        return;
      case 'stop':
        this.stop();
        return;
      case 'compare':
        if (configUri) void this.store.setCompare(configUri, msg.a, msg.b);
        return;
      case 'export':
        if (configUri) void this.exportRun(configUri, msg.runId, msg.format);
        return;
      case 'copyMarkdown': {
        if (!configUri) return;
        const runs = msg.runIds.map((id) => this.store.get(configUri, id)).filter((r): r is RunRecord => !!r);
        if (runs.length === msg.runIds.length) {
          void vscode.env.clipboard
            .writeText(runsToMarkdown(runs))
            .then(() => vscode.window.setStatusBarMessage('Benchmark table copied as markdown', 3000));
        }
        return;
      }
      case 'deleteRun':
        if (!configUri) return;
        void this.store.delete(configUri, msg.runId).then(() => {
          this.post(configUri, { type: 'runs', runs: this.store.runs(configUri) });
          this.changed.fire();
        });
        return;
      case 'revealLine':
        if (configUri) void this.revealLine(configUri, msg.line);
        return;
      case 'applyFix':
        if (configUri) void this.applyFix(configUri, msg.runId, msg.finding);
        return;
    }
  }

  private async openDocument(configUri: string): Promise<vscode.TextDocument | undefined> {
    try {
      return await vscode.workspace.openTextDocument(vscode.Uri.parse(configUri));
    } catch (err) {
      void vscode.window.showErrorMessage(`Cannot open ${configUri}: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  private async revealLine(configUri: string, line: number): Promise<void> {
    const doc = await this.openDocument(configUri);
    if (!doc) return;
    const pos = new vscode.Position(Math.min(line, doc.lineCount - 1), 0);
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, selection: new vscode.Range(pos, pos) });
  }

  /**
   * Applies a finding's fix from the stored run (never text from the webview) to the open config,
   * as an unsaved edit the user can undo; only edits of the config file itself are applied.
   */
  private async applyFix(configUri: string, runId: string, index: number): Promise<void> {
    const fix = this.store.get(configUri, runId)?.result.diagnosis?.findings[index]?.fix;
    if (!fix) return;
    const doc = await this.openDocument(configUri);
    if (!doc) return;
    const edits = fix.edits.filter((e) => doc.uri.scheme === 'file' && path.resolve(e.file) === path.resolve(doc.uri.fsPath));
    if (edits.length !== fix.edits.length) {
      void vscode.window.showWarningMessage(`${fix.title}: the fix edits another file; open it to apply it by hand.`);
      return;
    }
    const we = new vscode.WorkspaceEdit();
    for (const e of edits) {
      if (e.line < 1 || e.line > doc.lineCount) return;
      const line = doc.lineAt(e.line - 1);
      if (e.replaceLine !== undefined) we.replace(doc.uri, line.range, e.replaceLine);
      else if (e.insertAfter) we.insert(doc.uri, line.range.end, e.insertAfter.map((l) => `\n${l}`).join(''));
    }
    if (await vscode.workspace.applyEdit(we)) {
      const pos = new vscode.Position(edits[0].line - 1, 0);
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, selection: new vscode.Range(pos, pos) });
    }
  }

  private async exportRun(configUri: string, runId: string, format: 'json' | 'csv'): Promise<void> {
    const run = this.store.get(configUri, runId);
    if (!run) return;
    const cfg = vscode.Uri.parse(configUri);
    const base = `${path.basename(cfg.path).replace(/\.[^.]*$/, '')}-bench-${run.label.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}.${format}`;
    const dir = cfg.scheme === 'file' ? vscode.Uri.file(path.dirname(cfg.fsPath)) : vscode.workspace.workspaceFolders?.[0]?.uri;
    const target = await vscode.window.showSaveDialog({
      defaultUri: dir ? vscode.Uri.joinPath(dir, base) : undefined,
      filters: format === 'json' ? { JSON: ['json'] } : { CSV: ['csv'] },
      saveLabel: `Export ${format.toUpperCase()}`,
    });
    if (!target) return;
    if (target.toString() === configUri) {
      void vscode.window.showErrorMessage('Not overwriting the config itself: choose another file.');
      return;
    }
    const text = format === 'json' ? runToJson(run) : runToCsv(run);
    await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(text));
    vscode.window.setStatusBarMessage(`Benchmark run exported to ${path.basename(target.path)}`, 4000);
  }

  // ---- running ----------------------------------------------------------------------------

  stop(): void {
    this.current?.abort.abort();
  }

  /**
   * Runs one benchmark of a config; resolves with the kept run, or undefined when it failed,
   * was stopped or could not start (another run, untrusted workspace).
   */
  async run(doc: vscode.TextDocument, options: PanelRunOptions, meta: RunMeta = {}): Promise<RunRecord | undefined> {
    if (!options.binaryB) return this.runOne(doc, options, meta, options);
    // A/B: the same config on two installed binaries, one after the other, then compared
    const { binaryB, ...single } = options;
    const a = await this.runOne(doc, single, { ...meta, note: meta.note ?? 'A/B: A' }, options);
    if (!a) return undefined;
    const b = await this.runOne(
      doc,
      { ...single, binary: binaryB },
      { ...meta, note: `A/B: B, against ${a.result.proxy.kind} ${a.result.proxy.version}` },
      options,
    );
    if (!b) return a;
    const configUri = doc.uri.toString();
    await this.store.setCompare(configUri, a.id, b.id);
    this.post(configUri, { type: 'compare', a: a.id, b: b.id });
    vscode.window.setStatusBarMessage(
      `A/B ${a.result.proxy.version} → ${b.result.proxy.version}: ${a.result.rps} → ${b.result.rps} req/s, P99 ${a.result.latencyMs.p99.toFixed(2)} → ${b.result.latencyMs.p99.toFixed(2)} ms`,
      10000,
    );
    return b;
  }

  /** A listed binary of the config's kind (the webview names one; only listed ones run). */
  private listedBinary(kind: ProxyKind, p: string): FoundBinary | undefined {
    return this.binaries.find((b) => b.kind === kind && b.path === p);
  }

  private async runOne(
    doc: vscode.TextDocument,
    options: PanelRunOptions,
    meta: RunMeta,
    shown: PanelRunOptions,
  ): Promise<RunRecord | undefined> {
    const configUri = doc.uri.toString();
    if (!vscode.workspace.isTrusted) {
      this.showPanel(configUri);
      void vscode.window.showWarningMessage(UNTRUSTED_REASON);
      return undefined;
    }
    if (this.current) {
      void vscode.window.showWarningMessage('A benchmark is already running: stop it first.');
      return undefined;
    }
    if (!isRunOptions(options)) return undefined;
    const kind = configKind(doc);
    let picked: FoundBinary | undefined;
    if (options.binary) {
      if (!this.listedBinary(kind, options.binary)) await this.refreshBinaries();
      picked = this.listedBinary(kind, options.binary);
      if (!picked) {
        void vscode.window.showErrorMessage(
          `Benchmark: ${options.binary} is not one of the ${kind} binaries found (PATH, proxyTuner.${kind}.path, proxyTuner.binaries).`,
        );
        return undefined;
      }
    }
    const id = `r${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
    const label = [
      `#${this.store.nextNumber(configUri)}`,
      options.scenario,
      options.path !== '/' ? options.path : '',
      meta.route && !meta.route.path.startsWith('/') ? meta.route.label : '',
      picked ? `${kind} ${picked.version}` : '',
    ]
      .filter(Boolean)
      .join(' ');
    const abort = new AbortController();
    this.current = { id, configUri, abort };
    this.changed.fire();
    this.diagnostics.delete(doc.uri);
    this.showPanel(configUri);
    this.post(configUri, { type: 'runStarted', runId: id, label, options: shown });

    // The engine reads a file: the saved one, or a private copy of the editor's text.
    let tmpDir: string | undefined;
    let configPath = doc.uri.fsPath;
    if (doc.isDirty || doc.isUntitled || doc.uri.scheme !== 'file') {
      try {
        tmpDir = mkdtempSync(path.join(os.tmpdir(), 'proxy-tuner-panel-'));
        this.current.tmpDir = tmpDir;
        const name = doc.isUntitled ? (kind === 'haproxy' ? 'haproxy.cfg' : 'nginx.conf') : path.basename(doc.uri.path);
        configPath = path.join(tmpDir, name);
        writeFileSync(configPath, doc.getText(), { mode: 0o600 });
      } catch (err) {
        if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
        this.current = undefined;
        this.changed.fire();
        this.failed(doc, err, [doc.uri.fsPath], id);
        return undefined;
      }
    }
    const binary = picked?.path ?? this.setting<string>(undefined, `${kind}.path`, '');
    // A route's own block (lines of the editor's text, which the private copy keeps).
    const listenerLine = meta.route ? doc.positionAt(meta.route.blockOffset).line + 1 : undefined;
    const totalS = options.warmupS + options.durationS;
    const name = path.basename(doc.uri.path);
    this.status.text = `$(loading~spin) Benchmark ${name}`;
    this.status.tooltip = 'Proxy Tuner benchmark running: click to stop';
    this.status.show();

    try {
      return await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Benchmark ${name}`, cancellable: true },
        async (progress, token) => {
          token.onCancellationRequested(() => abort.abort());
          let seen = 0;
          let result: BenchResult;
          try {
            result = await runBenchmark(toBenchOptions(options, configPath, kind, binary, listenerLine), {
              signal: abort.signal,
              onProgress: (sample) => {
                this.post(configUri, { type: 'progress', runId: id, sample });
                const done = sample.phase === 'warmup' ? sample.t : options.warmupS + sample.t;
                const text = `${sample.phase === 'warmup' ? 'warm-up' : 'measuring'} ${done}/${totalS} s · P99 ${sample.p99.toFixed(2)} ms · ${Math.round(sample.rps)} req/s`;
                progress.report({ message: text, increment: totalS > 0 ? ((done - seen) / totalS) * 100 : undefined });
                seen = done;
                this.status.text = `$(loading~spin) ${name}: P99 ${sample.p99.toFixed(2)} ms · ${done}/${totalS} s`;
              },
            });
          } catch (err) {
            this.failed(doc, err, [doc.uri.fsPath, configPath], id);
            return undefined;
          }
          const record: RunRecord = {
            id,
            label,
            finishedAt: new Date().toISOString(),
            configUri,
            route: meta.route?.key ?? 'config',
            note: meta.note,
            options,
            result,
          };
          await this.store.add(record);
          this.post(configUri, { type: 'runDone', run: record });
          vscode.window.setStatusBarMessage(`Benchmark ${name}: ${summaryLine(result)}`, 8000);
          return record;
        },
      );
    } finally {
      if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
      this.status.hide();
      this.current = undefined;
      this.changed.fire();
    }
  }

  /**
   * "Import Benchmark Results": a k6 --summary-export JSON or a Locust --csv stats file becomes a
   * run of this config in the panel's store, comparable A/B with local runs. The exported script
   * (optional) gives the run its options.
   */
  async importResults(doc: vscode.TextDocument, files?: { results: string; scenario?: string }): Promise<RunRecord | undefined> {
    const configUri = doc.uri.toString();
    let pick = files;
    if (!pick) {
      const res = await vscode.window.showOpenDialog({
        title: 'Import results of a k6 or Locust run',
        canSelectMany: false,
        filters: { 'k6 summary (JSON) or Locust stats (CSV)': ['json', 'csv'] },
      });
      if (!res?.[0]) return undefined;
      const sc = await vscode.window.showOpenDialog({
        title: 'The script written by Proxy Tuner for this run (optional: labels the run with its options)',
        canSelectMany: false,
        filters: { 'k6 script or locustfile': ['js', 'py'] },
      });
      pick = { results: res[0].fsPath, scenario: sc?.[0]?.fsPath };
    }
    let result: BenchResult;
    try {
      result = importResults(pick.results, pick.scenario);
    } catch (err) {
      void vscode.window.showErrorMessage(`Import failed: ${(err as Error).message}`);
      return undefined;
    }
    const sc = pick.scenario ? readScenarioLine(readFileSync(pick.scenario, 'utf8')) : null;
    const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, Math.round(x)));
    const first = sc?.requests[0];
    const options: PanelRunOptions = {
      ...DEFAULT_RUN_OPTIONS,
      scenario: result.scenario,
      model: result.model,
      connections: clamp(result.connections || DEFAULT_RUN_OPTIONS.connections, ...LIMITS.connections),
      rate: result.model === 'open' ? clamp(result.rate ?? 1, 1, LIMITS.rate[1]) : 0,
      durationS: clamp(result.durationS || 1, ...LIMITS.durationS),
      warmupS: clamp(sc?.warmupS ?? 0, ...LIMITS.warmupS),
      path: first?.path && /^\/[\x21-\x7e]*$/.test(first.path) ? first.path : '/',
      method: (first && sc?.requests.length === 1 ? first.method : 'GET') as PanelRunOptions['method'],
      body: '',
    };
    if (!isRunOptions(options)) {
      void vscode.window.showErrorMessage("Import failed: the run's options are out of the panel's range");
      return undefined;
    }
    const engine = result.imported?.engine ?? 'import';
    const record: RunRecord = {
      id: `i${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`,
      label: `#${this.store.nextNumber(configUri)} ${engine} ${result.scenario}`,
      finishedAt: new Date().toISOString(),
      configUri,
      route: 'config',
      note: `imported from ${path.basename(pick.results)}`,
      options,
      result,
    };
    await this.store.add(record);
    this.showPanel(configUri);
    this.post(configUri, { type: 'runDone', run: record });
    return record;
  }

  private failed(doc: vscode.TextDocument, err: unknown, paths: string[], runId: string): void {
    const m = mapBenchError(err, paths);
    const configUri = doc.uri.toString();
    this.post(configUri, {
      type: 'runError',
      runId,
      message: m.message,
      location: m.line === null ? null : { uri: configUri, line: m.line },
      stopped: m.aborted,
    });
    if (m.aborted) return;
    if (m.line !== null && m.line < doc.lineCount) {
      const line = doc.lineAt(m.line);
      const range = new vscode.Range(m.line, line.firstNonWhitespaceCharacterIndex, m.line, line.text.length);
      const d = new vscode.Diagnostic(range, `Benchmark: ${m.message}`, vscode.DiagnosticSeverity.Error);
      d.source = 'proxy-tuner-bench';
      d.code = `bench/${m.kind}`;
      this.failedLines.set(configUri, { line: m.line, text: line.text });
      this.diagnostics.set(doc.uri, [d]);
    }
    void vscode.window.showErrorMessage(`Benchmark failed: ${m.message}`);
  }

  // ---- commands ---------------------------------------------------------------------------

  /** Runs a config (or one of its routes) with the panel's last options for it. */
  async runRoute(doc: vscode.TextDocument, routeKey?: string): Promise<RunRecord | undefined> {
    const routes = findRoutes(configKind(doc), doc.getText());
    const route = routeKey ? routes.find((r) => r.key === routeKey) : undefined;
    return this.run(doc, this.defaultOptions(doc, route), { route });
  }

  /**
   * Applies a quick fix through a normal editor edit and benchmarks the changed config with the
   * scenario of the last run (benchmarking the unchanged config first when there is none), then
   * shows both runs compared in the panel.
   */
  async applyFixAndRerun(doc: vscode.TextDocument, fix: FixData): Promise<void> {
    const configUri = doc.uri.toString();
    let before = this.store.last(configUri);
    if (!before) {
      before = await this.run(doc, this.defaultOptions(doc), { note: `before: ${fix.title}` });
      if (!before) return;
    }
    const edit = new vscode.WorkspaceEdit();
    for (const e of fix.edits) {
      edit.replace(
        doc.uri,
        new vscode.Range(e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character),
        e.newText,
      );
    }
    if (!(await vscode.workspace.applyEdit(edit))) {
      void vscode.window.showErrorMessage(`Could not apply "${fix.title}".`);
      return;
    }
    // the route found in the changed text: the fix may have moved its block's line
    const routeKey = before.route;
    const route =
      routeKey && routeKey !== 'config' ? findRoutes(configKind(doc), doc.getText()).find((r) => r.key === routeKey) : undefined;
    const after = await this.run(doc, before.options, { note: `after: ${fix.title}`, route });
    if (!after) return;
    await this.store.setCompare(configUri, before.id, after.id);
    this.post(configUri, { type: 'compare', a: before.id, b: after.id });
  }
}
