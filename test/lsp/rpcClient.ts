// A minimal LSP client of our own for the adapter tests: spawns the bundled server over stdio
// and speaks framed JSON-RPC (`Content-Length` headers) by hand, so the test sees exactly the
// bytes a real client would send and can also send bytes no real client would.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';

export const REPO = join(__dirname, '..', '..');

export interface RpcMessage {
  jsonrpc: '2.0';
  id?: number | string | null;
  method?: string;
  params?: any;
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}

export class LspClient {
  readonly proc: ChildProcessWithoutNullStreams;
  readonly notifications: RpcMessage[] = [];
  readonly serverRequests: RpcMessage[] = [];
  stderr = '';
  /** Anything on stdout that is not a well-framed JSON-RPC message (must stay empty). */
  readonly protocolErrors: string[] = [];
  private buffer = Buffer.alloc(0);
  private chunks: Buffer[] = [];
  private chunkBytes = 0;
  /** Bytes still missing from the message being received (0: unknown, look at every chunk). */
  private needed = 0;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (m: RpcMessage) => void; reject: (e: Error) => void }>();
  private readonly waiters: { pred: (m: RpcMessage) => boolean; resolve: (m: RpcMessage) => void }[] = [];
  private exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exitWaiters: (() => void)[] = [];

  /**
   * Answers the server's own requests (workspace/configuration, client/registerCapability, ...);
   * a promise is answered when it settles (a client that is slow to answer).
   */
  onServerRequest: (m: RpcMessage) => unknown = (m) =>
    m.method === 'workspace/configuration' ? (m.params?.items ?? []).map(() => null) : null;

  /** `nodeArgs`: options for node itself, before the script (e.g. the VS Code client's execArgv);
   *  `script`/`cwd`: another entry of the server (an installed package's bin) and where it runs. */
  constructor(
    args: string[] = ['--stdio'],
    env: NodeJS.ProcessEnv = {},
    nodeArgs: string[] = [],
    script = join(REPO, 'dist', 'server.js'),
    cwd = REPO,
  ) {
    this.proc = spawn(process.execPath, [...nodeArgs, script, ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.proc.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    this.proc.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.proc.stdin.on('error', () => undefined); // the server may be gone; the test reports it
    this.proc.on('exit', (code, signal) => {
      this.exited = { code, signal };
      for (const p of this.pending.values()) p.reject(new Error(`server exited (code ${code}, signal ${signal})`));
      this.pending.clear();
      for (const w of this.exitWaiters.splice(0)) w();
    });
  }

  get hasExited(): boolean {
    return this.exited !== undefined;
  }

  get exitStatus() {
    return this.exited;
  }

  private onData(chunk: Buffer): void {
    // a large message arrives in many chunks: they are joined once it is whole, not at each one
    this.chunks.push(chunk);
    this.chunkBytes += chunk.length;
    if (this.chunkBytes < this.needed) return;
    this.buffer = Buffer.concat([this.buffer, ...this.chunks]);
    this.chunks = [];
    this.chunkBytes = 0;
    this.needed = 0;
    for (;;) {
      const headerEnd = this.buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const header = this.buffer.subarray(0, headerEnd).toString('ascii');
      const m = /Content-Length:\s*(\d+)/i.exec(header);
      if (!m) {
        this.protocolErrors.push(`frame without Content-Length: ${header.slice(0, 200)}`);
        this.buffer = this.buffer.subarray(headerEnd + 4);
        continue;
      }
      const length = Number(m[1]);
      if (this.buffer.length < headerEnd + 4 + length) {
        this.needed = headerEnd + 4 + length - this.buffer.length;
        return;
      }
      const body = this.buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8');
      this.buffer = this.buffer.subarray(headerEnd + 4 + length);
      let msg: RpcMessage;
      try {
        msg = JSON.parse(body) as RpcMessage;
      } catch {
        this.protocolErrors.push(`body is not JSON: ${body.slice(0, 200)}`);
        continue;
      }
      this.dispatch(msg);
    }
  }

  private dispatch(msg: RpcMessage): void {
    if (msg.method !== undefined && msg.id !== undefined) {
      this.serverRequests.push(msg);
      const answer = this.onServerRequest(msg);
      if (answer instanceof Promise) {
        void answer.then((result: unknown) => {
          if (!this.exited) this.send({ jsonrpc: '2.0', id: msg.id, result: result ?? null });
        });
      } else {
        this.send({ jsonrpc: '2.0', id: msg.id, result: answer ?? null });
      }
      return;
    }
    if (msg.method !== undefined) {
      this.notifications.push(msg);
      for (let i = this.waiters.length - 1; i >= 0; i--) {
        if (this.waiters[i].pred(msg)) this.waiters.splice(i, 1)[0].resolve(msg);
      }
      return;
    }
    const p = this.pending.get(Number(msg.id));
    if (p) {
      this.pending.delete(Number(msg.id));
      p.resolve(msg);
    }
  }

  /** Writes bytes as they are: a frame of our own making, or junk. */
  writeRaw(bytes: Buffer | string): void {
    this.proc.stdin.write(bytes);
  }

  /** Frames a body (any bytes, valid JSON or not) with a correct Content-Length. */
  writeFrame(body: Buffer | string): void {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    this.writeRaw(Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`, 'ascii'), bytes]));
  }

  send(msg: RpcMessage): void {
    this.writeFrame(JSON.stringify(msg));
  }

  notify(method: string, params?: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  /** Sends a request; resolves to the whole response (result or error). */
  requestRaw(method: string, params?: unknown, timeoutMs = 10_000): Promise<RpcMessage> {
    const id = this.nextId++;
    return new Promise<RpcMessage>((resolve, reject) => {
      if (this.exited) return reject(new Error(`server already exited (code ${this.exited.code})`));
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no answer to ${method} within ${timeoutMs} ms; stderr: ${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** Sends a request; resolves to its result, rejects on an error response. */
  async request<T = any>(method: string, params?: unknown, timeoutMs?: number): Promise<T> {
    const m = await this.requestRaw(method, params, timeoutMs);
    if (m.error) throw new Error(`${method} answered with error ${m.error.code}: ${m.error.message}`);
    return m.result as T;
  }

  /** The first notification (already received or coming) that matches. */
  waitForNotification(method: string, pred: (params: any) => boolean = () => true, timeoutMs = 10_000): Promise<RpcMessage> {
    const match = (m: RpcMessage) => m.method === method && pred(m.params);
    const seen = this.notifications.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise<RpcMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.waiters.findIndex((w) => w.resolve === done);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new Error(`no ${method} notification within ${timeoutMs} ms; stderr: ${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      const done = (m: RpcMessage) => {
        clearTimeout(timer);
        resolve(m);
      };
      this.waiters.push({ pred: match, resolve: done });
    });
  }

  /** The diagnostics published for a document version (the newest publication that matches). */
  async diagnosticsFor(uri: string, version?: number, timeoutMs?: number): Promise<any[]> {
    const m = await this.waitForNotification(
      'textDocument/publishDiagnostics',
      (p) => p?.uri === uri && (version === undefined || p.version === version),
      timeoutMs,
    );
    return m.params.diagnostics;
  }

  async initialize(initializationOptions?: unknown, capabilities: unknown = defaultCapabilities()): Promise<any> {
    const result = await this.request('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities,
      initializationOptions,
    });
    this.notify('initialized', {});
    return result;
  }

  /** Polite shutdown, then the exit notification; kills the process if it lingers. */
  async stop(): Promise<void> {
    if (this.exited) return;
    try {
      await this.request('shutdown', null, 3000);
      this.notify('exit');
    } catch {
      // already broken: the kill below ends it
    }
    await this.waitForExit(3000);
    if (!this.exited) {
      this.proc.kill('SIGKILL');
      await this.waitForExit(3000);
    }
  }

  waitForExit(timeoutMs: number): Promise<void> {
    if (this.exited) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.exitWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

export function defaultCapabilities() {
  return {
    workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true } },
    textDocument: {
      synchronization: { dynamicRegistration: false, didSave: false },
      completion: { completionItem: { snippetSupport: true, documentationFormat: ['markdown', 'plaintext'] } },
      hover: { contentFormat: ['markdown', 'plaintext'] },
      publishDiagnostics: { relatedInformation: true, versionSupport: true, codeDescriptionSupport: true, dataSupport: true },
      codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'source.fixAll'] } } },
    },
  };
}

/** Text of a hover result, whatever shape the server chose (MarkupContent, MarkedString[], string). */
export function hoverText(hover: any): string {
  if (!hover) return '';
  const c = hover.contents;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((x) => (typeof x === 'string' ? x : x.value)).join('\n');
  return c?.value ?? '';
}

/** Labels of a completion result (CompletionList or CompletionItem[]). */
export function completionLabels(result: any): string[] {
  const items = Array.isArray(result) ? result : (result?.items ?? []);
  return items.map((i: any) => i.label);
}
