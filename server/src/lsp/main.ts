// The language server's entry (dist/server.js): a connection over the transport argv names
// (`--stdio` for any LSP client, Node IPC for the VS Code client) and the Node host.
import { createConnection, type Connection } from 'vscode-languageserver/node';
import { setFlagsFromString } from 'node:v8';
import { format } from 'node:util';
import { checkWithBinary } from '../host/binaryCheck';
import { nodeFileSystem, nodeHostProbe } from '../host/nodeHost';
import { FrameFilter } from './framing';
import { startServer } from './server';

// Memory: each validation allocates about a file's worth of tokens, nodes and diagnostics, and
// the newest ones stay alive until the next edit, so they reach the old generation; there they
// are garbage one edit later. V8 by default lets the old generation grow to up to 4 x its live
// size before a full collection, which on a 5,000-line file took the server from ~95 MB after
// opening to 150-170 MB while typing (live heap after a full GC: ~17 MB at both ends, no leak).
// 10% headroom keeps it near its size after opening; full collections become more frequent but
// mark concurrently on a ~20 MB heap. Measured (npm run bench:lsp --parts 5, six runs of three
// sessions each, alternated): growth over a session at most 3.1-8.4% per run with 10%, 5.2-12.5%
// with 30%; the median session's p99 35-46 ms with both. V8 reads this flag at each collection,
// so setting it at start-up is enough; an unknown flag (a future V8) is ignored, which only gives
// back the default.
setFlagsFromString('--heap-growing-percent=10');
// Marking on the main thread, in small steps between the edits, rather than on a helper thread
// as well: the helper's start of marking paused the main thread for up to 8 ms in the middle of
// a burst of edits, and on a 2-core machine it competed with the main thread for a core. Without
// it the start pause is gone and the server uses less CPU per editing session; the p99 of an
// edit's diagnostics drops for nginx and stays for HAProxy (npm run bench:lsp; the numbers are in
// docs/benchmarks.md). V8 reads the flag each time marking starts, so setting it here is enough,
// and every LSP client that starts dist/server.js gets it.
setFlagsFromString('--no-concurrent-marking');

/**
 * Over stdio the input goes through FrameFilter (framing.ts), so that a malformed header costs
 * one message, not the connection; console output goes to the LSP log, since stdout is the wire.
 * Other transports (Node IPC, sockets, pipes) are as vscode-languageserver sets them up.
 */
function connect(): Connection {
  if (!process.argv.includes('--stdio')) return createConnection();
  let log: ((message: string) => void) | undefined;
  const filter = new FrameFilter((message) => log?.(`[proxy-tuner] stdio: ${message}`));
  process.stdin.pipe(filter);
  // given streams, the library ends the process when the input ends, as over its own stdio
  const connection = createConnection(filter, process.stdout);
  log = (message) => connection.console.warn(message);
  const to =
    (send: (message: string) => void) =>
    (...args: unknown[]) =>
      send(format(...args));
  /* eslint-disable no-console -- the console is redirected, not used */
  console.log = console.info = console.debug = to((m) => connection.console.log(m));
  console.warn = to((m) => connection.console.warn(m));
  console.error = to((m) => connection.console.error(m));
  /* eslint-enable no-console */
  return connection;
}

const server = startServer(connect(), {
  fs: nodeFileSystem,
  probe: nodeHostProbe,
  checkWithBinary,
});

process.on('uncaughtException', (err) => server.logError('uncaught exception', err));
process.on('unhandledRejection', (err) => server.logError('unhandled rejection', err));
