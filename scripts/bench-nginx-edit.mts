// The compute of one nginx edit, in-process: `validateInWorkspace` as the server calls it (one
// workspace index and one ParseCache over the open document, so the re-parse and the per-block
// memo apply) against the same call without the cache's memo (every block judged again), in
// alternated rounds on the 5,000-line generated file, typing and erasing a directive in the
// middle server as bench:lsp does. Per edit: wall ms, CPU ms (user+system of the process) and the
// bytes allocated (heap growth across the call, with a young generation large enough that no
// collection runs inside it: samples a collection interrupted are dropped).
//   node --max-semi-space-size=64 --min-semi-space-size=64 --import tsx scripts/bench-nginx-edit.mts [--edits 400] [--rounds 6] [--phases]
// Prints a table; writes nothing.
const { TextDocument } = await import('vscode-languageserver-textdocument');
const service = await import('../server/src/service/languageService.ts');
const { nginxConfig } = await import('./gen-large-config.mjs');
const { nginxTuning } = await import('../server/src/service/tuning.ts');
const W = await import('../server/src/service/workspaceIndex.ts');
const { nodeFileSystem } = await import('../server/src/host/nodeHost.ts');

const args = process.argv.slice(2);
const opt = (name: string, dflt: number): number => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const EDITS = opt('--edits', 300);
const ROUNDS = opt('--rounds', 6);
const PHASES = args.includes('--phases');

const text0: string = nginxConfig({ lines: 5000 });
const lines = text0.split('\n');
const line = lines.findIndex((l, i) => i > lines.length / 2 && l === '    server {') + 3;
lines.splice(line, 0, '        ');
const word = 'proxy_read_timeout 30s;';
const URI = 'file:///bench/typing/nginx.conf';

interface Sample {
  wall: number;
  cpu: number;
  bytes: number | undefined;
  phases?: number[];
  /** Heap growth per phase (a sample a collection interrupted is negative and left out). */
  phaseBytes?: number[];
  phaseCpu?: number[];
}

const hr = (): number => Number(process.hrtime.bigint()) / 1e6;
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** One session of EDITS keystrokes; `memo`: the server's path (a ParseCache), else no cache. */
function session(memo: boolean): Sample[] {
  let doc = TextDocument.create(URI, 'nginx', 1, lines.join('\n'));
  const ws = service.createWorkspaceIndex({
    fs: nodeFileSystem,
    open: { get: (u: string) => (u === doc.uri ? doc : undefined), all: () => [doc] },
  });
  const cache = memo ? new service.ParseCache() : undefined;
  service.validateInWorkspace(doc, 'nginx', {}, ws, cache);
  let typed = '';
  let typing = true;
  const out: Sample[] = [];
  for (let k = 0; k < EDITS; k++) {
    if (typing) {
      typed += word[typed.length];
      if (typed.length === word.length) typing = false;
    } else {
      typed = typed.slice(0, -1);
      if (!typed) typing = true;
    }
    const ls = [...lines];
    ls[line] = `        ${typed}`;
    doc = TextDocument.create(URI, 'nginx', k + 2, ls.join('\n'));
    const h0 = process.memoryUsage().heapUsed;
    const c0 = cpuMs();
    const t0 = hr();
    if (PHASES) {
      // the steps of validateInWorkspace, timed one by one (the same calls, in the same order)
      const p = [hr()];
      const heap = (): number => process.memoryUsage().heapUsed;
      const q = [cpuMs()];
      const b = [heap()];
      const f = ws.get(doc.uri)!;
      p.push(hr());
      b.push(heap());
      q.push(cpuMs());
      const unit = ws.unitOf(doc.uri);
      const context = ws.contextIn(unit, f);
      const facts = { nginxModules: ws.nginxModuleState(unit), memo: cache?.memoOf(doc.uri) };
      p.push(hr());
      b.push(heap());
      q.push(cpuMs());
      const own = service.getModule('nginx').validateInContext!(doc, f.ast, {}, context!, facts);
      p.push(hr());
      b.push(heap());
      q.push(cpuMs());
      nginxTuning(doc, f.ast, {});
      p.push(hr());
      b.push(heap());
      q.push(cpuMs());
      W.navDiagnostics(ws, doc.uri, {}, unit);
      W.filterAnsweredElsewhere(ws, doc.uri, own, unit);
      p.push(hr());
      b.push(heap());
      q.push(cpuMs());
      out.push({
        wall: 0,
        cpu: 0,
        bytes: undefined,
        phases: p.slice(1).map((x, i) => x - p[i]),
        phaseBytes: b.slice(1).map((x, i) => x - b[i]),
        phaseCpu: q.slice(1).map((x, i) => x - q[i]),
      });
    } else service.validateInWorkspace(doc, 'nginx', {}, ws, cache);
    const wall = hr() - t0;
    const cpu = cpuMs() - c0;
    const grown = process.memoryUsage().heapUsed - h0;
    if (!PHASES) out.push({ wall, cpu, bytes: grown > 0 ? grown : undefined });
  }
  return out;
}

const pct = (a: number[], p: number): number => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const mean = (a: number[]): number => a.reduce((x, y) => x + y, 0) / a.length;

const results: Record<string, Sample[]> = { memo: [], full: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const mode of r % 2 ? ['full', 'memo'] : ['memo', 'full']) {
    // the first 20 edits of a session warm it up (new tree shapes, lazily built tables)
    results[mode].push(...session(mode === 'memo').slice(20));
  }
}
if (PHASES) {
  const names = ['parse', 'unit', 'validation', 'tuning', 'navigation'];
  for (const [mode, s] of Object.entries(results)) {
    const kb = (i: number): string =>
      (
        pct(
          s.map((x) => x.phaseBytes![i]).filter((x) => x >= 0),
          50,
        ) / 1024
      ).toFixed(0);
    console.log(
      `${mode}: ${names
        .map(
          (n, i) =>
            `${n} wall p50 ${pct(
              s.map((x) => x.phases![i]),
              50,
            ).toFixed(2)} ms, CPU mean ${mean(s.map((x) => x.phaseCpu![i])).toFixed(2)} ms, ${kb(i)} KB`,
        )
        .join(', ')}`,
    );
  }
} else {
  console.log('| path | edits | wall p50 ms | wall p99 ms | CPU ms per edit (mean) | allocated per edit (median) |');
  console.log('|---|---|---|---|---|---|');
  for (const [mode, s] of Object.entries(results)) {
    const bytes = s.map((x) => x.bytes).filter((x): x is number => x !== undefined);
    console.log(
      `| ${mode === 'memo' ? 'server path (re-parse + memo)' : 'no cache (re-parse, every block judged)'} | ${s.length} | ${pct(
        s.map((x) => x.wall),
        50,
      ).toFixed(2)} | ${pct(
        s.map((x) => x.wall),
        99,
      ).toFixed(2)} | ${mean(s.map((x) => x.cpu)).toFixed(2)} | ${(pct(bytes, 50) / 1024).toFixed(0)} KB (${bytes.length} samples) |`,
    );
  }
}
