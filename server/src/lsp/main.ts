// The language server's entry (dist/server.js): a connection over the transport argv names
// (`--stdio` for any LSP client, Node IPC for the VS Code client) and the Node host.
import { createConnection, type Connection } from 'vscode-languageserver/node';
import { setFlagsFromString } from 'node:v8';
import { format } from 'node:util';
import { checkWithBinary } from '../host/binaryCheck';
import { localNginxBuild } from '../host/binaryFacts';
import { prefetchLocalVersion } from '../host/localVersions';
import { nodeFileSystem, nodeSettingsProbes } from '../host/nodeHost';
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
// as well. In the editing sessions of bench:lsp every one of a session's slowest bursts held a
// full collection: with the helper, the start of marking paused the main thread for up to 8 ms,
// the end for 2-11 ms, and the burst's last edit was applied 10-24 ms after it was sent (0.3 ms in
// a median burst). On this 2-core machine the helper also competed with the main thread for a
// core: the server used 0.3-0.5 s more CPU per session with it. Without it the start pause is
// gone (at most 0.3 ms) and the end pause stays. Measured with 10,000-edit sessions on the
// 5,000-line files, six nginx sessions and three HAProxy sessions per setting, alternated in the
// same minutes (docs/benchmarks.md, ninth session): nginx p99 23.1-26.7 ms became 18.8-22.2 ms,
// server CPU 2.1 s became 1.6-1.8 s; HAProxy p99 17.2-19.9 ms became 17.0-17.9 ms. V8 reads the
// flag each time marking starts, so setting it here is enough. It is set here rather than in the
// client's options so that every LSP client that starts dist/server.js gets it.
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
  probes: nodeSettingsProbes,
  prefetchVersion: prefetchLocalVersion,
  nginxBuild: () => localNginxBuild(),
  checkWithBinary,
});

process.on('uncaughtException', (err) => server.logError('uncaught exception', err));
process.on('unhandledRejection', (err) => server.logError('unhandled rejection', err));
