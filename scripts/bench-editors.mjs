// `npm run bench:editors [-- --runs N]`: cold start to first diagnostics in real editors, from the
// client starting the language server to the first publishDiagnostics of the opened file.
// Neovim (test/lsp/nvim/lsp-client.lua) and Emacs with eglot (test/editors/emacs-client.el with
// docs/editors.md's setup), each a fresh editor and server per run, and the web worker build in
// headless Chromium (test/editors/browserWorker.ts: from `new Worker` to the first diagnostics, a
// fresh browser per run), on the nginx and HAProxy files of test/lsp/fixtures.ts. The numbers go into docs/benchmarks.md.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIXTURES } from '../test/lsp/fixtures.ts';
import { emacsSetupFromDocs } from '../test/editors/docsSetup.ts';
import { openWorkerPage } from '../test/editors/browserWorker.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 7;

// --production: the bundles as the packages ship them (minified, no source maps)
spawnSync(process.execPath, ['esbuild.mjs', ...(process.argv.includes('--production') ? ['--production'] : [])], {
  cwd: REPO,
  stdio: 'inherit',
});
const dir = mkdtempSync(join(tmpdir(), 'proxy-tuner-bench-editors-'));
const bin = join(dir, 'bin');
mkdirSync(bin);
symlinkSync(join(REPO, 'bin', 'proxy-tuner-language-server.js'), join(bin, 'proxy-tuner-language-server'));
const setup = join(dir, 'setup.el');
writeFileSync(setup, emacsSetupFromDocs());

function once(editor, f, i) {
  const caseDir = join(dir, `${editor}-${f.language}-${i}`);
  const file = join(caseDir, f.language === 'nginx' ? join('nginx', 'site.conf') : join('lb', 'edge.cfg'));
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, f.text);
  const out = join(caseDir, 'result.json');
  const env = {
    ...process.env,
    HOME: caseDir,
    XDG_CONFIG_HOME: join(caseDir, 'config'),
    XDG_DATA_HOME: join(caseDir, 'data'),
    XDG_STATE_HOME: join(caseDir, 'state'),
    PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    PROXY_TUNER_NO_LOCAL_VERSION: '1',
    PT_OUT: out,
    PT_FILE: file,
    PT_SERVER: join(REPO, 'dist', 'server.js'),
    PT_NODE: process.execPath,
    PT_TIMEOUT_MS: '20000',
    PT_COMPLETION_LINE: String(f.completion.position.line),
    PT_COMPLETION_CHAR: String(f.completion.position.character),
    PT_HOVER_LINE: String(f.hover.position.line),
    PT_HOVER_CHAR: String(f.hover.position.character),
    PT_SIG_LINE: String(f.hover.position.line),
    PT_SIG_CHAR: String(f.hover.position.character),
    PT_EDIT_LINE: String(f.fix.line),
    PT_EDIT_TEXT: f.fix.text,
    PT_ACTION_CODE: f.diagnostic.code,
  };
  const args =
    editor === 'nvim'
      ? [
          '--headless',
          '--clean',
          '-u',
          'NONE',
          '-n',
          '-i',
          'NONE',
          '-c',
          `luafile ${join(REPO, 'test', 'lsp', 'nvim', 'lsp-client.lua')}`,
          file,
        ]
      : ['--batch', '-l', setup, '-l', join(REPO, 'test', 'editors', 'emacs-client.el')];
  spawnSync(editor, args, { cwd: caseDir, env, timeout: 90_000, killSignal: 'SIGKILL', stdio: 'ignore' });
  const ms = JSON.parse(readFileSync(out, 'utf8')).first_diagnostics_ms;
  if (typeof ms !== 'number') throw new Error(`${editor} ${f.language}: no diagnostics`);
  return ms;
}

async function inWorker(f) {
  const s = await openWorkerPage();
  try {
    await s.page.evaluate(() => window.lsp.start());
    await s.page.evaluate(() => window.lsp.request('initialize', { processId: null, rootUri: null, capabilities: {} }));
    await s.page.evaluate(
      ([language, text]) => {
        window.lsp.notify('initialized', {});
        window.lsp.notify('textDocument/didOpen', {
          textDocument: { uri: `file:///w/${language}.conf`, languageId: language, version: 1, text },
        });
      },
      [f.language, f.text],
    );
    await s.page.waitForFunction(() => window.lsp.firstDiagnosticsMs !== undefined, undefined, { timeout: 30_000 });
    return await s.page.evaluate(() => window.lsp.firstDiagnosticsMs);
  } finally {
    await s.close();
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  console.log(`cold start to first diagnostics, ${RUNS} runs each, ${cpus().length} cores, node ${process.version}`);
  for (const editor of process.argv.includes('--worker-only') ? [] : ['nvim', 'emacs'])
    for (const f of FIXTURES) {
      once(editor, f, 'warm-up'); // the OS's file cache, not the server's (each run is a new process)
      const ms = Array.from({ length: RUNS }, (_, i) => once(editor, f, i));
      console.log(
        `${editor.padEnd(6)} ${f.language.padEnd(8)} median ${median(ms).toFixed(0)} ms, min ${Math.min(...ms).toFixed(0)}, max ${Math.max(...ms).toFixed(0)}`,
      );
    }
  for (const f of FIXTURES) {
    await inWorker(f);
    const ms = [];
    for (let i = 0; i < RUNS; i++) ms.push(await inWorker(f));
    console.log(
      `${'worker'.padEnd(6)} ${f.language.padEnd(8)} median ${median(ms).toFixed(0)} ms, min ${Math.min(...ms).toFixed(0)}, max ${Math.max(...ms).toFixed(0)}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
