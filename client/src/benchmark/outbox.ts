// The host's side of the panel handshake, without vscode (unit-tested): a message posted before
// the webview's script listens would be lost, so everything waits until the webview says `ready`.
// Every (re)load of the webview's HTML (a new panel, one restored after a window reload, a
// re-render) ends with that `ready`; the host answers it with a fresh `init` (the whole state:
// runs, options, the binaries found by then), and the messages held back follow, minus the older
// `init`s that the fresh one replaces.

export class PanelOutbox<M extends { type: string }> {
  private isReady = false;
  private held: M[] = [];

  /** `send` hands a message to the live webview. */
  constructor(private readonly send: (msg: M) => void) {}

  get ready(): boolean {
    return this.isReady;
  }

  /** The webview's HTML was (re)written: hold messages until its script says `ready`. */
  reset(): void {
    this.isReady = false;
  }

  /** Sends now when the webview listens, else holds the message (a held `init` supersedes what was held before it). */
  post(msg: M): void {
    if (this.isReady) {
      this.send(msg);
      return;
    }
    if (msg.type === 'init') this.held = [];
    this.held.push(msg);
  }

  /**
   * The webview said `ready`: `answer` posts the fresh state (it may call post(), which now sends
   * at once), then the held messages follow in order, without the held `init`s.
   */
  onReady(answer: () => void): void {
    this.isReady = true;
    const held = this.held.filter((m) => m.type !== 'init');
    this.held = [];
    answer();
    for (const m of held) this.send(m);
  }

  /** Messages waiting for `ready` (for tests and diagnostics). */
  get pending(): readonly M[] {
    return this.held;
  }
}
