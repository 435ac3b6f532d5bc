// The language server's entry in a web worker (dist/browserServer.js; VS Code for the Web:
// vscode.dev, github.dev): a connection over the worker's messages and a host without a process
// or a disk. Files that are not open come from the editor's file system: the server asks the
// client (protocol/workspaceFs.ts), whose `workspace.fs` reads them wherever the workspace lives
// (a GitHub repository, a browser folder). The service reads files synchronously, so this host
// answers from a cache: a file not yet known reads as missing, its fetch starts, and when the
// answer comes the server hears of it as a changed file and validates again.
//
// The service knows files by path (file: URIs). A workspace of another scheme
// (`vscode-vfs://github/owner/repo/nginx.conf`) is mapped onto paths under /.uri/<scheme>/<authority>
// on the way in and back on the way out, so includes resolve relative to the file as on a disk.
import './browser/immediate';
import {
  BrowserMessageReader,
  BrowserMessageWriter,
  createConnection,
  type Message,
  type MessageReader,
  type MessageWriter,
} from 'vscode-languageserver/browser';
import type { BinaryCheckReport, FileSystem } from '../service/host';
import {
  READ_DIRECTORY_REQUEST,
  READ_FILE_REQUEST,
  STAT_REQUEST,
  type ReadDirectoryResult,
  type ReadFileResult,
  type StatResult,
} from '../../../protocol/workspaceFs';
import { startServer } from './server';

const ROOT = 'file:///.uri/';

/** `scheme://authority/path` → a file: URI under /.uri/ (file: URIs unchanged). */
export function toServerUri(uri: string): string {
  const m = /^([a-zA-Z][\w+.-]*):\/\/([^/]*)(.*)$/.exec(uri);
  if (!m || m[1] === 'file') return uri;
  return `${ROOT}${encodeURIComponent(m[1])}/${encodeURIComponent(m[2] || '-')}${m[3] || '/'}`;
}

/** The inverse of toServerUri. */
export function toClientUri(uri: string): string {
  if (!uri.startsWith(ROOT)) return uri;
  const m = /^([^/]*)\/([^/]*)(.*)$/.exec(uri.slice(ROOT.length));
  if (!m) return uri;
  const authority = decodeURIComponent(m[2]);
  return `${decodeURIComponent(m[1])}://${authority === '-' ? '' : authority}${m[3]}`;
}

const URI_KEY = /^(uri|target|[a-z]+Uri)$/;

/**
 * The URIs of a message, mapped: the values of `uri`, `targetUri`, `rootUri`... and a document
 * link's `target`, and the keys of a workspace edit's `changes`. Nothing else (a document's text
 * may start with `http://` too).
 */
function mapUris<T>(value: T, map: (uri: string) => string, key = ''): T {
  if (typeof value === 'string') return (URI_KEY.test(key) ? map(value) : value) as T;
  if (Array.isArray(value)) return value.map((v) => mapUris(v, map, key === 'changes' ? '' : key)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[key === 'changes' ? map(k) : k] = mapUris(v, map, key === 'changes' ? '' : k);
    return out as T;
  }
  return value;
}

/** A path of the service (`/.uri/vscode-vfs/github/...`) as the client's URI. */
function pathToClientUri(path: string): string {
  return toClientUri(`file://${path.split('/').map(encodeURIComponent).join('/')}`);
}

type Kind = 'file' | 'stat' | 'dir';

/** The editor's files, cached; a miss starts a fetch and reads as missing until it is answered. */
class ClientFileSystem implements FileSystem {
  private readonly cache = new Map<string, unknown>();
  private readonly pending = new Set<string>();
  private changed = new Set<string>();
  constructor(
    private readonly request: (method: string, uri: string) => Promise<unknown>,
    /** Tells the server that these paths have content now (a didChangeWatchedFiles of its own). */
    private readonly refresh: (paths: string[]) => void,
  ) {}

  private get<T>(kind: Kind, path: string): T | undefined {
    const key = `${kind}\0${path}`;
    if (this.cache.has(key)) return (this.cache.get(key) ?? undefined) as T | undefined;
    if (!this.pending.has(key)) {
      this.pending.add(key);
      const method = kind === 'file' ? READ_FILE_REQUEST : kind === 'stat' ? STAT_REQUEST : READ_DIRECTORY_REQUEST;
      void this.request(method, pathToClientUri(path))
        .then(
          (r) => r,
          () => null,
        )
        .then((r) => {
          this.pending.delete(key);
          this.cache.set(key, r);
          if (r !== null) this.changedSoon(path);
        });
    }
    return undefined;
  }

  private changedSoon(path: string): void {
    if (this.changed.size === 0)
      setTimeout(() => {
        const paths = [...this.changed];
        this.changed = new Set();
        this.refresh(paths);
      }, 0);
    this.changed.add(path);
  }

  /** The client says these files changed (or were created or deleted): read them and their folders again when next asked. */
  forget(paths: string[]): void {
    const stale = new Set(paths.flatMap((p) => [p, p.slice(0, Math.max(p.lastIndexOf('/'), 1))]));
    for (const key of [...this.cache.keys()]) if (stale.has(key.slice(key.indexOf('\0') + 1))) this.cache.delete(key);
  }

  readFile(path: string): string | undefined {
    return this.get<NonNullable<ReadFileResult>>('file', path)?.text;
  }

  stat(path: string) {
    return this.get<NonNullable<StatResult>>('stat', path);
  }

  readDir(path: string): string[] | undefined {
    return this.get<NonNullable<ReadDirectoryResult>>('dir', path);
  }
}

const DESKTOP_ONLY = 'needs VS Code on the desktop: the browser cannot start nginx or HAProxy.';

/** The worker's global scope (this layer has no DOM types): messages in and out, error events. */
const scope = globalThis as unknown as ConstructorParameters<typeof BrowserMessageReader>[0] & {
  addEventListener?(type: string, listener: (e: { error?: unknown; message?: string; reason?: unknown }) => void): void;
};
const innerReader = new BrowserMessageReader(scope);
const innerWriter = new BrowserMessageWriter(scope);
let deliver: ((m: Message) => void) | undefined;

function uriPath(uri: string): string {
  return decodeURIComponent(uri.replace(/^file:\/\//, ''));
}

const reader: MessageReader = {
  onError: innerReader.onError,
  onClose: innerReader.onClose,
  onPartialMessage: innerReader.onPartialMessage,
  listen(callback) {
    deliver = callback;
    return innerReader.listen((m) => {
      const mapped = mapUris(m, toServerUri);
      const changes = (mapped as { method?: string; params?: { changes?: { uri: string }[] } }).params?.changes;
      if ((mapped as { method?: string }).method === 'workspace/didChangeWatchedFiles' && changes)
        fs.forget(changes.map((c) => uriPath(c.uri)));
      callback(mapped);
    });
  },
  dispose: () => innerReader.dispose(),
};

const writer: MessageWriter = {
  onError: innerWriter.onError,
  onClose: innerWriter.onClose,
  write: (m) => innerWriter.write(mapUris(m, toClientUri)),
  end: () => innerWriter.end(),
  dispose: () => innerWriter.dispose(),
};

const connection = createConnection(reader, writer);
const fs = new ClientFileSystem(
  // the writer maps the uri back: send the server-side form
  (method, uri) => connection.sendRequest(method, { uri: toServerUri(uri) }),
  (paths) =>
    deliver?.({
      jsonrpc: '2.0',
      method: 'workspace/didChangeWatchedFiles',
      params: { changes: paths.map((p) => ({ uri: `file://${p.split('/').map(encodeURIComponent).join('/')}`, type: 2 })) },
    } as Message),
);

const server = startServer(connection, {
  fs,
  // no local binary: the newest known version of each, unless the settings name one
  probe: { version: () => undefined },
  checkWithBinary: async (request): Promise<BinaryCheckReport> => ({
    kind: request.kind ?? 'nginx',
    binary: '',
    version: '',
    // 'refused': the summary is this message (service/binaryCheck.ts summarize)
    status: 'refused',
    messages: [{ severity: 'information', message: `${request.kind === 'haproxy' ? 'haproxy -c' : 'nginx -t'} ${DESKTOP_ONLY}` }],
  }),
});

scope.addEventListener?.('error', (e: { error?: unknown; message?: string }) =>
  server.logError('uncaught exception', e.error ?? e.message),
);
scope.addEventListener?.('unhandledrejection', (e: { reason?: unknown }) => server.logError('unhandled rejection', e.reason));
