// What the server's parts share: the connection, the machine (ServerHost), the open documents,
// the parse cache and the workspace index; and `guard`, which every handler runs inside. The
// server must outlive anything it is fed: `guard` turns an exception into a logged error (on the
// LSP log channel, never stdout: stdout is the wire) and an empty answer.
import type { Connection } from 'vscode-languageserver/node';
import * as service from '../service/languageService';
import type { BinaryCheckRunner, FileSystem, HostProbe } from '../service/host';
import type { OpenDocuments } from './documents';
import type { Clock } from './schedule';

/** What the server needs from the machine; main.ts passes Node's (host/nodeHost.ts), tests a fake. */
export interface ServerHost {
  /** Files not open in the editor (include trees, `.cfg` folders, project configs, the lines a binary names). */
  fs: FileSystem;
  /** The host's facts (local versions, machine limits, `nginx -V`), for the settings and the module notes. */
  probe: HostProbe;
  /** "Validate with nginx -t / haproxy -c" on a sandboxed copy. */
  checkWithBinary: BinaryCheckRunner;
  /** Time and timers of the validation schedule (default: the system's). */
  clock?: Clock;
}

/** What the server's parts share. */
export interface ServerContext {
  connection: Connection;
  host: ServerHost;
  docs: OpenDocuments;
  parses: service.ParseCache;
  /** The files loaded together with each open document (include trees, `.cfg` folders), read from disk when not open. */
  wsIndex: service.WorkspaceIndex;
  logError(where: string, err: unknown): void;
}

/** Logs an error on the connection's log channel. */
export function errorLogger(connection: Connection): (where: string, err: unknown) => void {
  return (where, err) => {
    const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
    try {
      connection.console.error(`[proxy-tuner] ${where} failed: ${text}`);
    } catch {
      // the connection itself is gone: nothing left to tell
    }
  };
}

/** Runs a handler; an exception is logged and answered with `fallback`, as is a request about a large document. */
export function guard<P extends unknown[], R>(ctx: ServerContext, name: string, fallback: R, fn: (...args: P) => R): (...args: P) => R {
  return (...args: P) => {
    if (ctx.docs.asksLargeDocument(args[0])) return fallback;
    try {
      return fn(...args);
    } catch (err) {
      ctx.logError(name, err);
      return fallback;
    }
  };
}

/** The same for handlers that await (settings come from the client). */
export function guardAsync<P extends unknown[], R>(
  ctx: ServerContext,
  name: string,
  fallback: R,
  fn: (...args: P) => Promise<R>,
): (...args: P) => Promise<R> {
  return async (...args: P) => {
    if (ctx.docs.asksLargeDocument(args[0])) return fallback;
    try {
      return await fn(...args);
    } catch (err) {
      ctx.logError(name, err);
      return fallback;
    }
  };
}
