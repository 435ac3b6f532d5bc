// The benchmark webview panel: one panel beside the editor, bound to one config file at a time.
// Strict CSP with a fresh nonce per render, scripts and styles only from dist/, every message
// from the webview validated before use; the webview keeps its own state (getState/setState)
// and the serializer below re-creates the panel after a reload.
import * as crypto from 'node:crypto';
import * as vscode from 'vscode';
import { validatePanelMessage, type HostToPanel, type PanelToHost } from '../../../protocol/panel';
import { PanelOutbox } from './outbox';

export const PANEL_VIEW_TYPE = 'proxyTuner.benchmark';

/** What the panel needs from the controller. */
export interface PanelHost {
  onPanelMessage(panel: BenchmarkPanel, msg: PanelToHost): void;
  onPanelDisposed(panel: BenchmarkPanel): void;
}

export function panelOptions(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return {
    enableScripts: true,
    enableCommandUris: false,
    enableForms: false,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist')],
  };
}

export class BenchmarkPanel {
  private readonly disposables: vscode.Disposable[] = [];
  /** The config this panel shows and runs (uri string). */
  configUri: string | null;
  /** Holds messages until the webview's script listens (outbox.ts). */
  private readonly outbox: PanelOutbox<HostToPanel>;

  static create(extensionUri: vscode.Uri, host: PanelHost, configUri: string | null, column?: vscode.ViewColumn): BenchmarkPanel {
    const panel = vscode.window.createWebviewPanel(
      PANEL_VIEW_TYPE,
      'Benchmark',
      { viewColumn: column ?? vscode.ViewColumn.Beside, preserveFocus: true },
      panelOptions(extensionUri),
    );
    return new BenchmarkPanel(panel, extensionUri, host, configUri);
  }

  constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly extensionUri: vscode.Uri,
    private readonly host: PanelHost,
    configUri: string | null,
  ) {
    this.configUri = configUri;
    this.outbox = new PanelOutbox((msg) => void panel.webview.postMessage(msg));
    panel.webview.options = panelOptions(extensionUri);
    this.render();
    panel.onDidDispose(() => this.dispose(), null, this.disposables);
    panel.webview.onDidReceiveMessage(
      (raw: unknown) => {
        const v = validatePanelMessage(raw);
        if (!v.ok) {
          console.warn(`[proxy-tuner] benchmark panel: rejected a message: ${v.error}`);
          return;
        }
        const msg = v.message;
        if (msg.type === 'ready') this.outbox.onReady(() => this.host.onPanelMessage(this, msg));
        else this.host.onPanelMessage(this, msg);
      },
      null,
      this.disposables,
    );
  }

  setTitle(name: string | undefined): void {
    this.panel.title = name ? `Benchmark: ${name}` : 'Benchmark';
  }

  /** (Re)writes the HTML: a fresh nonce each time. The webview then says `ready`. */
  render(): void {
    this.outbox.reset();
    const webview = this.panel.webview;
    const nonce = crypto
      .randomBytes(18)
      .toString('base64')
      .replace(/[^A-Za-z0-9]/g, '');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.css'));
    const csp = [
      "default-src 'none'",
      `img-src ${webview.cspSource} data:`,
      `font-src ${webview.cspSource}`,
      `style-src ${webview.cspSource} 'nonce-${nonce}'`,
      `script-src 'nonce-${nonce}'`,
      "connect-src 'none'",
      "form-action 'none'",
      "frame-src 'none'",
      "base-uri 'none'",
    ].join('; ');
    webview.html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" nonce="${nonce}" href="${style}">
<title>Benchmark</title>
</head>
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
  }

  /** Sends a message; held back until the webview has said `ready`. */
  post(msg: HostToPanel): void {
    this.outbox.post(msg);
  }

  reveal(): void {
    this.panel.reveal(undefined, true);
  }

  dispose(): void {
    while (this.disposables.length) this.disposables.pop()?.dispose();
    this.host.onPanelDisposed(this);
  }
}
