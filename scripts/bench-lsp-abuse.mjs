// The language server's hostile-input cases (issue 33), timed: each case opens one document in a
// fresh server process over stdio, waits for its diagnostics, then sends every request the
// server answers on it. Prints, per case, the time to the diagnostics, the slowest request, the
// number of diagnostics and the server's peak memory (VmHWM). Run: npm run bench:lsp-abuse
// [-- --only NAME] [-- --server OLD/server.js] (a copy of another build's dist/, to compare). The numbers go to docs/benchmarks.md; test/abuse/hostile.test.ts asserts
// the same cases with generous bounds.
import { readFileSync } from 'node:fs';
import { LspClient } from '../test/lsp/rpcClient.ts';
import { ensureBuilt } from '../test/cli/build.ts';
import { hostileCases } from '../test/abuse/hostileCases.ts';

const flag = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const only = flag('--only');
const serverJs = flag('--server');

function peakMb(pid) {
  const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

ensureBuilt();
for (const c of hostileCases()) {
  if (only && c.name !== only) continue;
  // node runs `--server`'s script when given (dist/server.js is then only an unused argument)
  const server = new LspClient(['--stdio'], {}, serverJs ? [serverJs] : []);
  try {
    await server.initialize();
    const t0 = performance.now();
    server.notify('textDocument/didOpen', { textDocument: { uri: c.uri, languageId: c.lang, version: 1, text: c.text } });
    const diagnostics = await server.diagnosticsFor(c.uri, 1, 600_000);
    const diagMs = performance.now() - t0;
    let slowest = { method: '', ms: 0 };
    let hoverMs = 0;
    for (const [method, params] of c.requests) {
      const s = performance.now();
      const answer = await server.requestRaw(method, params, 600_000);
      const ms = performance.now() - s;
      // an error answer is the handler's own (prepareRename off a name); a stall would be a timeout
      if (answer.error && answer.error.code === -32603) console.log(`  ${method}: internal error ${answer.error.message}`);
      if (ms > slowest.ms) slowest = { method, ms };
      if (method === 'textDocument/hover') hoverMs = ms;
    }
    console.log(
      `${c.name.padEnd(24)} diagnostics ${diagMs.toFixed(0).padStart(6)} ms (${diagnostics.length})  hover ${hoverMs.toFixed(0).padStart(5)} ms  slowest request ${slowest.ms
        .toFixed(0)
        .padStart(6)} ms (${slowest.method})  peak ${peakMb(server.proc.pid).toFixed(0)} MB`,
    );
  } finally {
    await server.stop();
  }
}
