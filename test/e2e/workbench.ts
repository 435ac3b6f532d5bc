// Drives the VS Code workbench (as served by code-server) through the keyboard, the way a user
// does, and reads its state from the DOM. Every wait polls for a state; nothing sleeps for a
// fixed time.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

export interface PollOptions {
  timeout?: number;
  interval?: number;
  /**
   * Asks again before the first probe and then every `retryEvery` probes (default 20): the first
   * request can come before the language server is ready.
   */
  retry?: () => Promise<void>;
  retryEvery?: number;
}

/** Calls `probe` until it returns a value that is not undefined/false, or throws after `timeout`. */
export async function poll<T>(what: string, probe: () => Promise<T | undefined | false>, opts: PollOptions = {}): Promise<T> {
  const timeout = opts.timeout ?? 60_000;
  const interval = opts.interval ?? 150;
  const deadline = Date.now() + timeout;
  let lastError: unknown;
  for (let attempt = 0; ; attempt++) {
    try {
      if (opts.retry && attempt % (opts.retryEvery ?? 20) === 0) await opts.retry();
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message.split('\n')[0]})` : '';
      throw new Error(`timed out after ${timeout} ms waiting for ${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}

export class Workbench {
  private shot = 0;

  constructor(
    readonly page: Page,
    private readonly shotsDir: string,
  ) {
    mkdirSync(shotsDir, { recursive: true });
  }

  async screenshot(name: string): Promise<string> {
    const file = join(this.shotsDir, `${String(++this.shot).padStart(2, '0')}-${name.replace(/[^a-z0-9-]+/gi, '-')}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  /** Waits for the workbench and its file explorer to be up. */
  async ready(): Promise<void> {
    await this.page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 120_000 });
    await poll(
      'the explorer to list the workspace',
      async () => (await this.page.locator('.explorer-folders-view .monaco-list-row').count()) > 0,
      {
        timeout: 120_000,
      },
    );
  }

  /** Quick Open (Ctrl+P) a file by name; waits until its editor is the active one. */
  async openFile(name: string): Promise<void> {
    const { page } = this;
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(name);
    await poll(`"${name}" in Quick Open`, async () => {
      const rows = await page.locator('.quick-input-widget .monaco-list-row').allInnerTexts();
      return rows.some((r) => r.includes(name));
    });
    await page.keyboard.press('Enter');
    await poll(`the editor of "${name}" to be active`, async () => {
      const tab = (
        await page
          .locator('.tabs-container .tab.active')
          .innerText()
          .catch(() => '')
      ).trim();
      return tab.startsWith(name) && (await page.locator('.editor-instance .monaco-editor .view-lines').count()) > 0;
    });
    await page.locator('.editor-instance .monaco-editor .view-lines').first().waitFor({ state: 'visible' });
  }

  /** Runs a command from the command palette by its title. */
  async command(title: string): Promise<void> {
    const { page } = this;
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(`>${title}`);
    await poll(`command "${title}" in the palette`, async () => {
      const rows = await page.locator('.quick-input-widget .monaco-list-row').allInnerTexts();
      return rows.some((r) => r.split('\n')[0].trim() === title);
    });
    await page.keyboard.press('Enter');
    await poll(`the palette to close after "${title}"`, async () => !(await input.isVisible()));
  }

  /** The language mode shown in the status bar for the active editor. */
  async languageMode(): Promise<string> {
    return (await this.page.locator('#status\\.editor\\.mode').innerText()).trim();
  }

  /** Moves the cursor (1-based line and column) with Go to Line. */
  async goto(line: number, column: number): Promise<void> {
    const { page } = this;
    await page.keyboard.press('Control+G');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(`:${line}:${column}`);
    await page.keyboard.press('Enter');
    await poll(`cursor at ${line}:${column}`, async () => {
      const text = await page
        .locator('#status\\.editor\\.selection')
        .innerText()
        .catch(() => '');
      return new RegExp(`Ln ${line}, Col ${column}\\b`).test(text);
    });
  }

  /** Number of squiggles of a kind in the active editor. */
  async squiggles(kind: 'error' | 'warning' | 'info' = 'error'): Promise<number> {
    return this.page.locator(`.editor-instance .monaco-editor .squiggly-${kind}`).count();
  }

  /** Opens the Problems panel and returns its rows' text once `expect` accepts it. */
  async problems(expect: (rows: string[]) => boolean, what: string): Promise<string[]> {
    const { page } = this;
    if (
      !(await page
        .locator('.markers-panel')
        .isVisible()
        .catch(() => false))
    ) {
      await this.command('View: Focus Problems (Errors, Warnings, Infos)').catch(async () => {
        await page.keyboard.press('Control+Shift+M');
      });
    }
    return poll(what, async () => {
      const rows = await page
        .locator('.markers-panel .monaco-list-row')
        .evaluateAll((els) =>
          els.map((e) => `${(e as HTMLElement).innerText.replace(/\s+/g, ' ')} | ${e.getAttribute('aria-label') ?? ''}`),
        );
      return expect(rows) ? rows : false;
    });
  }

  /** Hover at a position (keyboard: Show or Focus Hover); returns the hover's text. */
  async hoverAt(line: number, column: number, expect: (text: string) => boolean, what: string): Promise<string> {
    const { page } = this;
    await this.focusEditor();
    await this.goto(line, column);
    return poll(
      what,
      async () => {
        const hover = page.locator('.editor-instance .monaco-hover:not(.hidden) .monaco-hover-content');
        if ((await hover.count()) === 0) return false;
        const text = (await hover.allInnerTexts()).join('\n');
        return expect(text) ? text : false;
      },
      {
        timeout: 60_000,
        retry: async () => {
          await page.keyboard.press('Escape');
          await page.keyboard.press('Control+K');
          await page.keyboard.press('Control+I');
        },
      },
    );
  }

  /**
   * Types `prefix` at a position, triggers completion and waits for the suggestion list to settle
   * (rows shown, or "No suggestions."); returns the labels once `accept` takes them. The typed text
   * stays in the (unsaved) buffer.
   */
  async completeAt(line: number, column: number, prefix: string, accept: (labels: string[]) => boolean, what: string): Promise<string[]> {
    const { page } = this;
    await this.focusEditor();
    await this.goto(line, column);
    await page.keyboard.type(prefix);
    return poll(
      what,
      async () => {
        const widget = page.locator('.editor-instance .suggest-widget.visible');
        if ((await widget.count()) === 0) return false;
        const message = (
          await widget
            .locator('.message')
            .innerText()
            .catch(() => '')
        ).trim();
        const names = (await widget.locator('.monaco-list-row .label-name').allInnerTexts()).map((s) => s.trim());
        if (names.length === 0 && !/no suggestions/i.test(message)) return false; // still loading
        return accept(names) ? names : false;
      },
      {
        timeout: 60_000,
        retry: async () => {
          await page.keyboard.press('Escape');
          await page.keyboard.press('Control+Space');
        },
      },
    );
  }

  /** Empties a line (1-based), e.g. after a completion probe, so later steps see the fixture text. */
  async clearLine(line: number): Promise<void> {
    await this.page.keyboard.press('Escape');
    await this.goto(line, 1);
    await this.page.keyboard.press('Shift+End');
    await this.page.keyboard.press('Backspace');
  }

  async escape(): Promise<void> {
    await this.page.keyboard.press('Escape');
  }

  async focusEditor(): Promise<void> {
    // View: Focus First Editor Group (a click could land on a widget that covers the text).
    await this.page.keyboard.press('Control+1');
    await poll(
      'the editor to have focus',
      async () =>
        this.page
          .locator('.editor-instance .monaco-editor.focused')
          .count()
          .then((n) => n > 0),
      {
        timeout: 5000,
      },
    );
  }
}
