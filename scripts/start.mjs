// `npm start`: build, then open an editor on examples/ with the extension loaded from this repo
// (development mode, no install).
//  - VS Code, when `code` is on PATH: `code --extensionDevelopmentPath=<repo> examples/`.
//  - Otherwise code-server on 127.0.0.1 (installed into .e2e/code-server on first use), with a
//    fresh state folder; it prints the URL and runs until Ctrl+C, then ends code-server's
//    process group and deletes the state folder.
// Env: PROXY_TUNER_PORT picks the code-server port (default: a free one).
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { repoRoot, startCodeServer } from './e2e-codeserver.mjs';

const examples = join(repoRoot, 'examples');

function onPath(cmd) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, cmd), constants.X_OK);
      return join(dir, cmd);
    } catch {
      // not here
    }
  }
  return undefined;
}

const build = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: repoRoot, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const code = process.env.PROXY_TUNER_NO_VSCODE ? undefined : onPath('code');
if (code) {
  console.log(`Opening VS Code on ${examples} with the extension in development mode.`);
  const child = spawn(code, [`--extensionDevelopmentPath=${repoRoot}`, examples], { stdio: 'inherit' });
  child.on('exit', (status) => process.exit(status ?? 0));
} else {
  const port = process.env.PROXY_TUNER_PORT ? Number(process.env.PROXY_TUNER_PORT) : undefined;
  console.log('VS Code (`code`) is not on PATH: starting code-server on loopback instead.');
  const server = await startCodeServer({ devPath: repoRoot, port });
  let stopping = false;
  const stop = async (why) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${why}: stopping code-server (process group ${server.pgid}).`);
    await server.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('Ctrl+C'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGHUP', () => void stop('SIGHUP'));
  console.log(`\nProxy Tuner is loaded in code-server. Open this URL in a browser on this machine:\n\n  ${server.openUrl(examples)}\n`);
  console.log(`(code-server log: ${server.logFile}; press Ctrl+C to stop)`);
  // Notice when code-server dies on its own.
  const watch = setInterval(() => {
    try {
      process.kill(-server.pgid, 0);
    } catch {
      clearInterval(watch);
      console.error('code-server exited.');
      void server.stop().then(() => process.exit(1));
    }
  }, 1000);
}
