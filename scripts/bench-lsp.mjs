// `npm run bench:lsp`: how fast the language side is, next to the binaries' own checks.
// - parse and full validation (the facade's validate: the module's checks plus tuning) of every
//   corpus file and of generated configs (10k and 50k lines, nginx and HAProxy), side by side
//   with `nginx -t` / `haproxy -c` on the same files;
// - `proxy-tuner check` as a whole process against `nginx -t` on 4,000 server blocks;
// - completion and hover latency at random positions;
// - an editing session over LSP: the bundled server over stdio, incremental didChange edits
//   typed into a 5,000-line file, edit-to-diagnostics per version, RSS before and after.
// Writes its section of docs/benchmarks.md (between the bench:lsp markers).
//
// As root it re-runs itself under `unshare -n` (a network namespace with nothing but loopback):
// the binaries resolve host names found in corpus files, and there no packet can leave.
//
//   npm run bench:lsp [-- --edits 10000 --burst 50 --positions 500 --repeats 3 --no-write]
//   (`--parts 5`: only the editing session, or any list such as `3,5`; prints, never writes)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO, loadavg, machine, median, writeDocSection } from './bench-common.mjs';
import { nginxConfig, haproxyConfig } from './gen-large-config.mjs';

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? Number(args[i + 1]) : def;
};

if (process.getuid?.() === 0 && !process.env.PT_BENCH_NETNS && spawnSync('unshare', ['--help']).status === 0) {
  const r = spawnSync('unshare', ['-n', process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, PT_BENCH_NETNS: '1' },
  });
  process.exit(r.status ?? 1);
}

const EDITS = opt('edits', 10_000);
const BURST = opt('burst', 50);
const POSITIONS = opt('positions', 500);
const REPEATS = opt('repeats', 3);
/** Pairs of whole-process runs (check, nginx -t), alternated: single runs move by ±10% here. */
const CHECK_REPEATS = opt('check-repeats', 9);
const SESSIONS = opt('sessions', 3);
/** Part 4 without the warm-up's table build: the first requests build the suggestion tables. */
const LAZY_TABLES = args.includes('--lazy-tables');
const langsArg = args.indexOf('--langs');
/** `--langs haproxy` (or `nginx`): the editing sessions of those languages only (part 5). */
const SESSION_LANGS = new Set(langsArg >= 0 ? String(args[langsArg + 1] ?? '').split(',') : ['nginx', 'haproxy']);
const partsArg = args.indexOf('--parts');
/** `--parts 5` (or `3,5`): only those sections, a quick look that never writes the docs. */
const PARTS = new Set(
  partsArg >= 0
    ? String(args[partsArg + 1] ?? '')
        .split(',')
        .map(Number)
    : [1, 2, 3, 4, 5],
);
const ALL_PARTS = [1, 2, 3, 4, 5].every((n) => PARTS.has(n));
const write = !args.includes('--no-write') && ALL_PARTS && !args.includes('--lazy-tables');

const service = await import('../server/src/service/languageService.ts');
const { nodeFileSystem } = await import('../server/src/host/nodeHost.ts');
const { TextDocument } = await import('vscode-languageserver-textdocument');
const { LspClient } = await import('../test/lsp/rpcClient.ts');
const { SERVER_EXEC_ARGV, serverEnv } = await import('../client/src/serverLaunch.ts');

const corpusRoot = process.env.PROXY_TUNER_CORPUS ?? path.resolve(REPO, '..', 'shared', 'corpus');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'pt-bench-lsp-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
const prefix = path.join(tmp, 'prefix');
spawnSync('mkdir', ['-p', path.join(prefix, 'logs')]);

const loadBefore = loadavg();
const started = new Date().toISOString();
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–');
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '–');
const now = () => performance.now();

/** Wall and CPU (user+sys of the child) of one process, through /usr/bin/time. */
function timed(cmd, cmdArgs, cwd = tmp, env = {}) {
  // wall time measured here (/usr/bin/time prints it in 10 ms steps), CPU time from /usr/bin/time
  const t0 = now();
  const r = spawnSync('/usr/bin/time', ['-f', '\n@@%e %U %S %M', cmd, ...cmdArgs], {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 300_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  const m = /@@([\d.]+) ([\d.]+) ([\d.]+) (\d+)\s*$/.exec(r.stderr ?? '');
  const wall = (now() - t0) / 1000;
  return {
    code: r.status,
    wall: m ? wall : NaN,
    cpu: m ? Number(m[2]) + Number(m[3]) : NaN,
    maxRssKb: m ? Number(m[4]) : NaN,
    out: `${r.stdout}${r.stderr}`,
  };
}

const nginxArgs = (file) => ['-t', '-q', '-p', `${prefix}/`, '-c', file, '-e', path.join(prefix, 'logs', 'error.log')];
const haproxyArgs = (file) => ['-c', '-q', '-f', file];
const nginxCheck = (file) => timed('nginx', nginxArgs(file));
const haproxyCheck = (file) => timed('haproxy', haproxyArgs(file));

/** In-process parse and validation of one text (warm: the tables are loaded by then). */
function ours(lang, text, name = 'f') {
  const doc = TextDocument.create(`file:///bench/${name}`, lang, 1, text);
  let t = now();
  service.getModule(lang).parse(text);
  const parseMs = now() - t;
  t = now();
  const diags = service.validate(doc, lang, {});
  const validateMs = now() - t;
  return { parseMs, validateMs, diagnostics: diags.length };
}

// warm the tables once (their loading is a one-time cost of a session)
ours('nginx', nginxConfig({ servers: 20 }));
ours('haproxy', haproxyConfig({ backends: 20 }));

// --- 1. corpus ---------------------------------------------------------------------------
const corpusRows = [];
for (const lang of PARTS.has(1) ? ['nginx', 'haproxy'] : []) {
  const dir = path.join(corpusRoot, lang);
  if (!existsSync(dir)) continue;
  let files = 0;
  let bytes = 0;
  let parse = 0;
  let validate = 0;
  let binWall = 0;
  let binFiles = 0;
  let oursOnBinFiles = 0;
  let skipped = 0;
  let slowest = { name: '', ms: 0 };
  for (const name of readdirSync(dir).sort()) {
    if (name === 'verdicts.tsv' || name.endsWith('.md')) continue;
    const file = path.join(dir, name);
    let text;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const o = ours(lang, text, name);
    files++;
    bytes += text.length;
    parse += o.parseMs;
    validate += o.validateMs;
    if (o.parseMs + o.validateMs > slowest.ms) slowest = { name, ms: o.parseMs + o.validateMs };
    // nginx -t opens the log files a config names: only files that name none outside the prefix
    if (lang === 'nginx' && /\b(error_log|access_log|pid|lock_file)\s+\//.test(text)) {
      skipped++;
      continue;
    }
    // the binary's own process, timed here: /usr/bin/time's wall figure is in 10 ms steps, and most
    // of these files take a few ms
    const t0 = now();
    spawnSync(lang, lang === 'nginx' ? nginxArgs(file) : haproxyArgs(file), { cwd: tmp, stdio: 'ignore', timeout: 60_000 });
    binWall += now() - t0;
    binFiles++;
    oursOnBinFiles += o.parseMs + o.validateMs;
  }
  corpusRows.push({ lang, files, bytes, parse, validate, binWall, binFiles, oursOnBinFiles, skipped, slowest });
}

// --- 2. generated large configs -------------------------------------------------------------
const big = [
  { lang: 'nginx', label: 'nginx 10k lines', text: nginxConfig({ lines: 10_000 }) },
  { lang: 'nginx', label: 'nginx 50k lines', text: nginxConfig({ lines: 50_000 }) },
  { lang: 'nginx', label: 'nginx 4,000 servers', text: nginxConfig({ servers: 4000 }) },
  { lang: 'haproxy', label: 'HAProxy 10k lines', text: haproxyConfig({ lines: 10_000 }) },
  { lang: 'haproxy', label: 'HAProxy 50k lines', text: haproxyConfig({ lines: 50_000 }) },
];
const bigRows = [];
for (const b of big) {
  b.file = path.join(tmp, `${b.label.replace(/[^a-z0-9]+/gi, '-')}.${b.lang === 'nginx' ? 'conf' : 'cfg'}`);
  writeFileSync(b.file, b.text);
  if (!PARTS.has(2)) continue;
  const p = [];
  const v = [];
  const bw = [];
  const bc = [];
  for (let k = 0; k < REPEATS; k++) {
    const o = ours(b.lang, b.text, path.basename(b.file));
    p.push(o.parseMs);
    v.push(o.validateMs);
    const r = b.lang === 'nginx' ? nginxCheck(b.file) : haproxyCheck(b.file);
    if (r.code !== 0) console.error(`${b.label}: the binary rejected the generated file:\n${r.out.slice(0, 2000)}`);
    bw.push(r.wall * 1000);
    bc.push(r.cpu * 1000);
  }
  bigRows.push({
    label: b.label,
    lines: b.text.split('\n').length,
    kb: Math.round(b.text.length / 1024),
    parse: median(p),
    validate: median(v),
    binWall: median(bw),
    binCpu: median(bc),
  });
  console.log(`${b.label}: parse ${f1(median(p))} ms, validate ${f1(median(v))} ms, binary ${f1(median(bw))} ms wall`);
}

// --- 3. the whole `proxy-tuner check` process against `nginx -t` -----------------------------
// Under each node at hand: the machine's (node 20, the floor) and, when the version matrix has one,
// Debian sid's current node, run from its root by bwrap (Debian's node reads its own files under
// /usr/share/nodejs). Both judge against the version of the nginx they are compared with, so both
// do the same work. A node other than the build's gets no code cache from the package: its first
// run writes its own into the cache folder (cli/src/launch.ts), as a user's first run does; that
// run is timed apart and the pairs count the runs after it. Each node has a cache folder of its own
// (the local binaries' versions it records are those of its root).
const cli = path.join(REPO, 'dist', 'cli.js');
const file4000 = big[2].file;
const ngxVersion = /nginx\/(\d+\.\d+\.\d+)/.exec(spawnSync('nginx', ['-v'], { encoding: 'utf8' }).stderr ?? '')?.[1];
const checkArgs = [cli, 'check', ...(ngxVersion ? ['--nginx-version', ngxVersion] : []), file4000];
const cacheEnv = (name) => ({ PROXY_TUNER_CACHE_DIR: path.join(tmp, `cache-${name}`) });
const checkNodes = [];
if (PARTS.has(3)) {
  const run = () => timed(process.execPath, checkArgs, tmp, cacheEnv('host'));
  const bare = () => timed(process.execPath, ['-e', '0'], tmp);
  checkNodes.push({ label: `node ${process.version} (this machine's)`, run, bare, first: run() });
}
{
  const { loadMatrix } = await import('../server/src/runner/matrix.ts');
  const sid = loadMatrix().find((b) => b.suite === 'sid' && b.root)?.root;
  if (PARTS.has(3) && sid && existsSync(path.join(sid, 'usr', 'bin', 'node'))) {
    const inRoot = (args) => [
      ...['--ro-bind', path.join(sid, 'usr'), '/usr', '--ro-bind', path.join(sid, 'etc'), '/etc'],
      ...['--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--symlink', 'usr/bin', '/bin'],
      ...['--proc', '/proc', '--dev', '/dev', '--ro-bind', path.join(REPO, 'dist'), path.join(REPO, 'dist'), '--bind', tmp, tmp],
      ...['--chdir', tmp, '/usr/bin/node', ...args],
    ];
    const version = spawnSync('bwrap', inRoot(['--version']), { encoding: 'utf8' }).stdout?.trim();
    if (version) {
      const run = () => timed('bwrap', inRoot(checkArgs), tmp, cacheEnv('sid'));
      const bare = () => timed('bwrap', inRoot(['-e', '0']), tmp);
      checkNodes.push({ label: `node ${version} (Debian sid's)`, run, bare, first: run() });
    }
  }
}
/** Per node, its pairs with the `nginx -t` run of the same round. */
const checkRuns = checkNodes.map(() => []);
for (let k = 0; k < (PARTS.has(3) ? CHECK_REPEATS : 0); k++) {
  // one round: every node's check and nginx -t, the order reversed every other round, so all see the same load
  const order = [...checkNodes.map((_, i) => i), -1];
  if (k % 2) order.reverse();
  const got = new Map(order.map((i) => [i, i < 0 ? nginxCheck(file4000) : checkNodes[i].run()]));
  // node's own start (`node -e 0`) in the same round: the part of a check's time no code of ours runs in
  checkNodes.forEach((_, i) => checkRuns[i].push({ check: got.get(i), ngx: got.get(-1), bare: checkNodes[i].bare() }));
}
/**
 * The floor under `check`: the same work (checkInputs and the text report, cli/src) in a process
 * whose code V8 has compiled already, here in this benchmark's own process (this machine's node),
 * runs 5-10 of 10 (medians). A whole `check` process cannot go below node's own start plus this:
 * a new process starts with no optimised code (V8 keeps none between processes; the code cache
 * holds bytecode only).
 */
let warmWork;
if (PARTS.has(3)) {
  const { checkInputs } = await import('../cli/src/checkCore.ts');
  const { formatText } = await import('../cli/src/report.ts');
  const opts = { flags: { nginx: { version: ngxVersion }, haproxy: {} }, fixData: false };
  const walls = [];
  const cpus = [];
  for (let k = 0; k < 10; k++) {
    const t0 = now();
    const c0 = process.cpuUsage();
    const text = formatText(checkInputs([{ file: file4000 }], opts));
    const c1 = process.cpuUsage(c0);
    if (!text) throw new Error('check of the 4,000-server file reported nothing');
    if (k >= 4) {
      walls.push((now() - t0) / 1000);
      cpus.push((c1.user + c1.system) / 1e6);
    }
  }
  warmWork = { wall: median(walls), cpu: median(cpus), min: Math.min(...walls) };
}
const checkStats = checkNodes.map((n, i) => {
  const runs = checkRuns[i];
  return {
    label: n.label,
    first: n.first,
    runs,
    checkWall: median(runs.map((r) => r.check.wall)),
    checkCpu: median(runs.map((r) => r.check.cpu)),
    ngxWall: median(runs.map((r) => r.ngx.wall)),
    ngxCpu: median(runs.map((r) => r.ngx.cpu)),
    bareWall: median(runs.map((r) => r.bare.wall)),
    wallRatios: runs.map((r) => r.check.wall / r.ngx.wall),
    cpuRatios: runs.map((r) => r.check.cpu / r.ngx.cpu),
  };
});
const checkLine = (c) =>
  `check under ${c.label} vs nginx -t (4,000 servers): wall ${f2(c.checkWall)} s vs ${f2(c.ngxWall)} s, CPU ${f2(c.checkCpu)} s vs ${f2(c.ngxCpu)} s${c.first ? `; first run (empty cache folder) ${f2(c.first.wall)} s` : ''}; node -e 0 ${f2(c.bareWall)} s`;
/** What no `check` process goes below, next to `nginx -t` (see warmWork). */
const floorText = (c) =>
  warmWork
    ? `node's own start (\`node -e 0\`, same rounds) ${f2(c.bareWall)} s + the same work in a warm process (this machine's node, runs 5-10 of 10) ${f2(warmWork.wall)} s (CPU ${f2(warmWork.cpu)} s, fastest ${f2(warmWork.min)} s) = ${f2(c.bareWall + warmWork.wall)} s, ${f2((c.bareWall + warmWork.wall) / c.ngxWall)} of \`nginx -t\`'s wall with no compiling left to do`
    : '';
if (PARTS.has(3)) {
  for (const c of checkStats) console.log(checkLine(c));
  if (warmWork) console.log(`the floor: ${checkStats.map((c) => `under ${c.label}: ${floorText(c)}`).join('; ')}`);
}

// --- 4. completion and hover latency ----------------------------------------------------------
const latencyRows = [];
for (const b of PARTS.has(4) ? [big[0], big[3]] : []) {
  const doc = TextDocument.create(`file:///bench/lat-${b.lang}`, b.lang, 1, b.text);
  const cache = new service.ParseCache();
  service.validate(doc, b.lang, {}, cache); // the editor has parsed it already
  let seed = 12345;
  const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  // the server's warm-up after open builds the suggestion tables (schedule.ts, WarmUp.prepare):
  // done here as the server does it, timed apart; then the session's first request (cold code,
  // no table to build), timed apart too
  // (`--lazy-tables`: no warm-up, the first requests build them, as before the server had one)
  let t0 = now();
  const c0 = process.cpuUsage();
  if (!LAZY_TABLES) service.prepareCompletion(b.lang, {});
  const c1 = process.cpuUsage(c0);
  const tablesMs = now() - t0;
  const tablesCpuMs = (c1.user + c1.system) / 1000;
  t0 = now();
  service.complete(doc, b.lang, doc.positionAt(Math.floor(b.text.length / 2)), {}, cache);
  const coldMs = now() - t0;
  for (let k = 0; k < 20; k++) service.complete(doc, b.lang, doc.positionAt(Math.floor(rnd() * b.text.length)), {}, cache);
  const comp = [];
  const hov = [];
  for (let k = 0; k < POSITIONS; k++) {
    const pos = doc.positionAt(Math.floor(rnd() * b.text.length));
    let t = now();
    service.complete(doc, b.lang, pos, {}, cache);
    comp.push(now() - t);
    t = now();
    service.hover(doc, b.lang, pos, {}, cache);
    hov.push(now() - t);
  }
  latencyRows.push({
    lang: b.lang,
    label: b.label,
    tablesMs,
    tablesCpuMs,
    coldMs,
    comp50: pct(comp, 50),
    comp99: pct(comp, 99),
    hov50: pct(hov, 50),
    hov99: pct(hov, 99),
  });
}

// --- 5. an editing session over LSP ----------------------------------------------------------
/** CPU seconds (user + system) a process has used so far (/proc/PID/stat; NaN elsewhere). */
const SETTLE_MAX_MS = 5000;
/**
 * Waits until a process has used at most one clock tick (10 ms) of CPU in each of two 100 ms
 * periods in a row, or SETTLE_MAX_MS; the ms waited, or -1 when it never went idle.
 */
async function untilIdle(pid) {
  const t0 = now();
  let last = cpuS(pid);
  let quiet = 0;
  while (now() - t0 < SETTLE_MAX_MS) {
    await new Promise((r) => setTimeout(r, 100));
    const cpu = cpuS(pid);
    quiet = cpu - last <= 0.0101 ? quiet + 1 : 0;
    last = cpu;
    if (quiet >= 2) return now() - t0;
  }
  return -1;
}

function cpuS(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return NaN;
  }
}
function rssKb(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
  } catch {
    return NaN;
  }
}
const sessionText = nginxConfig({ lines: 5000 });
const sessionLines = sessionText.split('\n');
// the cursor: a fresh line in the middle server block, where a directive is typed and erased
let line = sessionLines.findIndex((l, i) => i > sessionLines.length / 2 && l === '    server {') + 3;
const NGINX_SESSION = { lang: 'nginx', file: 'nginx.conf', text: sessionText, line, word: 'proxy_read_timeout 30s;', indent: 8 };
// the same session on a 5,000-line HAProxy file (issue 21 sets it the same targets): a line typed into a backend in the middle; the file sits in a folder
// of its own, since a .cfg file's unit is its folder's .cfg files
const haproxySessionText = haproxyConfig({ lines: 5000 });
const haproxySessionLines = haproxySessionText.split('\n');
const HAPROXY_SESSION = {
  lang: 'haproxy',
  file: path.join('haproxy-session', 'haproxy.cfg'),
  text: haproxySessionText,
  line: haproxySessionLines.findIndex((l, i) => i > haproxySessionLines.length / 2 && l.startsWith('backend ')) + 1,
  word: 'timeout server 30s',
  indent: 4,
};
/** One editing session against a fresh server, started as the VS Code client starts it (the same node options). */
async function editingSession(spec = NGINX_SESSION) {
  const { line, word, indent } = spec;
  const client = new LspClient(['--stdio'], serverEnv(), [...SERVER_EXEC_ARGV]);
  try {
    await client.initialize();
    spawnSync('mkdir', ['-p', path.dirname(path.join(tmp, spec.file))]);
    const uri = `file://${path.join(tmp, spec.file)}`;
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: spec.lang, version: 1, text: spec.text } });
    await client.diagnosticsFor(uri, 1, 120_000);
    // settle: a few requests so lazily built tables exist before the "before" figure, then wait
    // for the server to go idle (its background warm-up after open done: schedule.ts), as it is
    // when a user starts typing a second or so after opening; at most SETTLE_MAX_MS
    await client.request('textDocument/completion', { textDocument: { uri }, position: { line, character: indent } });
    const settled = await untilIdle(client.proc.pid);
    const rssBefore = rssKb(client.proc.pid);
    const cpuBefore = cpuS(client.proc.pid);
    let version = 1;
    let typed = '';
    let typing = true;
    const latencies = [];
    let rssWarm;
    // a new line to type into
    version++;
    client.notify('textDocument/didChange', {
      textDocument: { uri, version },
      contentChanges: [{ range: { start: { line, character: 0 }, end: { line, character: 0 } }, text: `${' '.repeat(indent)}\n` }],
    });
    const t0 = now();
    for (let e = 0; e < EDITS;) {
      let lastSent = 0;
      for (let k = 0; k < BURST && e < EDITS; k++, e++) {
        version++;
        const col = indent + typed.length;
        if (typing) {
          const ch = word[typed.length];
          typed += ch;
          client.notify('textDocument/didChange', {
            textDocument: { uri, version },
            contentChanges: [{ range: { start: { line, character: col }, end: { line, character: col } }, text: ch }],
          });
          if (typed.length === word.length) typing = false;
        } else {
          typed = typed.slice(0, -1);
          client.notify('textDocument/didChange', {
            textDocument: { uri, version },
            contentChanges: [{ range: { start: { line, character: col - 1 }, end: { line, character: col } }, text: '' }],
          });
          if (typed.length === 0) typing = true;
        }
        lastSent = now();
      }
      const v = version;
      await client.diagnosticsFor(uri, v, 60_000);
      if (rssWarm === undefined && e >= EDITS / 10) rssWarm = rssKb(client.proc.pid);
      latencies.push(now() - lastSent);
      client.notifications.length = 0; // keep the client's own memory flat
    }
    const sessionS = (now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, 500));
    const rssAfter = rssKb(client.proc.pid);
    const serverCpuS = cpuS(client.proc.pid) - cpuBefore;
    return { latencies, rssBefore, rssWarm, rssAfter, sessionS, versions: version, p99: pct(latencies, 99), serverCpuS, settled };
  } finally {
    await client.stop();
  }
}
// several sessions, each against a fresh server: one session's p99 (its 2nd-slowest burst of 200)
// moves by +-30% from run to run on this machine; the median session is reported in detail
const sessions = [];
for (let k = 0; k < (PARTS.has(5) && SESSION_LANGS.has('nginx') ? SESSIONS : 0); k++) sessions.push(await editingSession());
const byP99 = [...sessions].sort((a, b) => a.p99 - b.p99);
const session = byP99[Math.floor((byP99.length - 1) / 2)];
const lat50 = session ? pct(session.latencies, 50) : NaN;
const lat99 = session ? session.p99 : NaN;
const p99s = sessions.map((x) => f1(x.p99)).join(', ');
const growths = sessions.map((x) => (x.rssAfter - x.rssBefore) / x.rssBefore);
// the HAProxy file as many sessions as the nginx one, each against a fresh server, each reported
/** How long each session waited for the server to go idle after opening (untilIdle). */
const settledText = (list) =>
  list.map((x) => (x.settled < 0 ? `not idle within ${SETTLE_MAX_MS / 1000} s` : `${Math.round(x.settled)} ms`)).join(', ');
const haproxySessions = [];
for (let k = 0; k < (PARTS.has(5) && SESSION_LANGS.has('haproxy') ? SESSIONS : 0); k++)
  haproxySessions.push(await editingSession(HAPROXY_SESSION));
const haproxySession = [...haproxySessions].sort((a, b) => a.p99 - b.p99)[Math.floor((haproxySessions.length - 1) / 2)];
function haproxySessionSummary() {
  const kb = (x) => Math.round(x / 1024);
  const one = (h) =>
    `p50 ${f1(pct(h.latencies, 50))} ms, p99 ${f1(h.p99)} ms, max ${f1(Math.max(...h.latencies))} ms, server CPU ${h.serverCpuS.toFixed(2)} s for ${EDITS} edits, RSS ${kb(h.rssBefore)} → ${kb(h.rssAfter)} MB (${f1((100 * (h.rssAfter - h.rssBefore)) / h.rssBefore)}%)`;
  return `${haproxySessions.length} sessions of ${haproxySession.latencies.length} bursts (a fresh server each, started once it had gone idle after opening: ${settledText(haproxySessions)}), edit→diagnostics: ${haproxySessions.map((h, k) => `session ${k + 1}: ${one(h)}`).join('; ')}; p99 of the median session ${f1(haproxySession.p99)} ms`;
}

// the same validation in-process on the session's file: the compute part of a publication
const sessionDoc = TextDocument.create('file:///bench/session.conf', 'nginx', 1, sessionText);
const computes = [];
for (let k = 0; k < (PARTS.has(5) ? 30 : 0); k++) {
  const d = TextDocument.create(
    'file:///bench/session.conf',
    'nginx',
    k + 2,
    sessionText.replace('    sendfile on;', k % 2 ? '    sendfile  on;' : '    sendfile on;'),
  );
  const ws = service.createWorkspaceIndex({ open: { get: (u) => (u === d.uri ? d : undefined), all: () => [d] }, fs: nodeFileSystem });
  const t = now();
  service.diagnose(d, 'nginx', {}, ws);
  computes.push(now() - t);
}
void sessionDoc;
const loadAfter = loadavg();

// --- the targets of issue 21, from whatever parts ran (a part not run: "not run") ----------------
/** A session's growth of RSS from after opening (first diagnostics, warm-up) to its end. */
const growthOf = (x) => (x.rssAfter - x.rssBefore) / x.rssBefore;
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const verdict = (ran, ok) => (!ran ? 'not run' : ok ? 'met' : 'NOT met');
const pctText = (x) => `${x >= 0 ? '+' : ''}${f1(100 * x)}%`;
const targets = [];
for (const c of checkStats) {
  const ran = c.runs.length > 0;
  const wallRatio = median(c.wallRatios);
  targets.push({
    target: `\`proxy-tuner check\` on 4,000 server blocks (${big[2].text.split('\n').length} lines), whole process, under ${c.label}, against \`nginx -t\`: no slower in wall time; CPU side by side`,
    measured: ran
      ? `medians of ${plural(c.runs.length, 'alternated pair')}: wall ${f2(c.checkWall)} s vs ${f2(c.ngxWall)} s (ratio ${f2(wallRatio)}, pairs ${f2(Math.min(...c.wallRatios))}-${f2(Math.max(...c.wallRatios))}); CPU ${f2(c.checkCpu)} s vs ${f2(c.ngxCpu)} s (ratio ${f2(median(c.cpuRatios))}, pairs ${f2(Math.min(...c.cpuRatios))}-${f2(Math.max(...c.cpuRatios))})${c.first ? `; the first run, with an empty cache folder (where a node other than the build's writes its code cache): ${f2(c.first.wall)} s` : ''}${warmWork ? `; the floor: ${floorText(c)}` : ''}`
      : '–',
    status: verdict(ran, wallRatio <= 1),
  });
}
for (const [name, list, med] of [
  ['nginx', sessions, session],
  ['HAProxy', haproxySessions, haproxySession],
]) {
  const ran = list.length > 0;
  targets.push({
    target: `${name}, 5,000-line file: edit → diagnostics p99 under 50 ms in every session`,
    measured: ran
      ? `${plural(list.length, 'session')} over LSP, ${EDITS} edits each, a fresh server each: p99 ${list.map((x, k) => `session ${k + 1} ${f1(x.p99)} ms`).join(', ')}`
      : '–',
    status: verdict(
      ran,
      list.every((x) => x.p99 < 50),
    ),
  });
  const alone =
    name === 'nginx' && computes.length
      ? `; the validation alone (in-process, 30 runs): p99 ${f1(pct(computes, 99))} ms, p50 ${f1(pct(computes, 50))} ms`
      : '';
  targets.push({
    target: `${name}: the median session under 25 ms (its p99; the p50 beside it)`,
    measured: ran ? `median session by p99: p99 ${f1(med.p99)} ms, p50 ${f1(pct(med.latencies, 50))} ms${alone}` : '–',
    status: verdict(ran, ran && med.p99 < 25),
  });
}
for (const [what, key] of [
  ['completion', 'comp'],
  ['hover', 'hov'],
]) {
  for (const lang of ['nginx', 'haproxy']) {
    const r = latencyRows.find((x) => x.lang === lang);
    const name = lang === 'nginx' ? 'nginx' : 'HAProxy';
    targets.push({
      target: `${name}, 10k-line file: ${what} p99 under 1 ms`,
      measured: r
        ? `${POSITIONS} random positions, in-process: p99 ${f2(r[`${key}99`])} ms, p50 ${f2(r[`${key}50`])} ms` +
          (key === 'comp'
            ? LAZY_TABLES
              ? `; the session's first request ${f2(r.coldMs)} ms, building the tables (\`--lazy-tables\`)`
              : `; the session's first request ${f2(r.coldMs)} ms, after the warm-up's tables (${f1(r.tablesCpuMs)} ms CPU)`
            : '')
        : '–',
      status: verdict(!!r, r && r[`${key}99`] < 1),
    });
  }
}
for (const [name, list, med] of [
  ['nginx', sessions, session],
  ['HAProxy', haproxySessions, haproxySession],
]) {
  const ran = list.length > 0;
  const gs = list.map(growthOf);
  const mb = (kb) => Math.round(kb / 1024);
  targets.push({
    target: `${name}: server memory (RSS) growth under 10% over a session`,
    measured: ran
      ? `from after opening to the end, per session: ${list.map((x, k) => `${mb(x.rssBefore)} → ${mb(x.rssAfter)} MB (${pctText(gs[k])})`).join('; ')}; from after the first 10% of the edits (median session): ${pctText((med.rssAfter - med.rssWarm) / med.rssWarm)}`
      : '–',
    status: verdict(
      ran,
      gs.every((g) => g < 0.1),
    ),
  });
}
const targetsTable = [
  '| target | measured | |',
  '|---|---|---|',
  ...targets.map((t) => `| ${t.target} | ${t.measured} | ${t.status} |`),
].join('\n');

if (!ALL_PARTS || !session || !haproxySession) {
  // a quick look at some sections: their figures only, nothing written; the targets as in the docs
  console.log(`\nTargets (issue 21; parts not run say so), load average before ${loadBefore}, after ${loadAfter}:\n${targetsTable}\n`);
  for (const r of corpusRows) console.log(`corpus ${r.lang}: ${r.files} files, parse ${f1(r.parse)} ms, validate ${f1(r.validate)} ms`);
  for (const c of checkStats) if (c.runs.length) console.log(checkLine(c));
  for (const r of latencyRows)
    console.log(
      `${r.label}: warm-up tables ${f1(r.tablesMs)} ms (CPU ${f1(r.tablesCpuMs)} ms), first completion ${f2(r.coldMs)} ms; completion p50 ${f2(r.comp50)} p99 ${f2(r.comp99)} ms, hover p50 ${f2(r.hov50)} p99 ${f2(r.hov99)} ms`,
    );
  if (session) {
    const mb = (kb) => Math.round(kb / 1024);
    console.log(
      `sessions: p99 ${p99s} ms; RSS growth ${growths.map((g) => f1(100 * g)).join(', ')}%; idle after opening in ${settledText(sessions)}; the median one:`,
    );
    console.log(
      `session: ${session.latencies.length} bursts, edit→diagnostics p50 ${f1(lat50)} ms, p99 ${f1(lat99)} ms, max ${f1(Math.max(...session.latencies))} ms; compute p50 ${f1(pct(computes, 50))} ms, p99 ${f1(pct(computes, 99))} ms`,
    );
    console.log(
      `session: first bursts ${session.latencies
        .slice(0, 8)
        .map((x) => x.toFixed(0))
        .join(', ')} ms; slowest ${[...session.latencies]
        .sort((a, b) => b - a)
        .slice(0, 5)
        .map((x) => x.toFixed(0))
        .join(', ')} ms`,
    );
    console.log(
      `session RSS: ${mb(session.rssBefore)} MB → warm ${mb(session.rssWarm)} MB → end ${mb(session.rssAfter)} MB (${f1((100 * (session.rssAfter - session.rssBefore)) / session.rssBefore)}%, after warm-up ${f1((100 * (session.rssAfter - session.rssWarm)) / session.rssWarm)}%)`,
    );
  }
  if (haproxySession) console.log(`HAProxy session: ${haproxySessionSummary()}`);
  process.exit(0);
}

// --- report ---------------------------------------------------------------------------------
const corpusTable = corpusRows
  .map(
    (r) =>
      `| ${r.lang} | ${r.files} (${Math.round(r.bytes / 1024)} KB) | ${f1(r.parse)} | ${f1(r.validate)} | ${f2((r.parse + r.validate) / r.files)} | ${r.slowest.name.slice(0, 50)} ${f1(r.slowest.ms)} | ${r.binFiles} files: ${f1(r.binWall)} (ours on them ${f1(r.oursOnBinFiles)}) | ${f2(r.oursOnBinFiles / r.binWall)} |`,
  )
  .join('\n');
const bigTable = bigRows
  .map(
    (r) =>
      `| ${r.label} | ${r.lines} / ${r.kb} KB | ${f1(r.parse)} | ${f1(r.validate)} | ${f1(r.parse + r.validate)} | ${f1(r.binWall)} (CPU ${f1(r.binCpu)}) | ${f2((r.parse + r.validate) / r.binWall)} |`,
  )
  .join('\n');
const latTable = latencyRows
  .map(
    (r) =>
      `| ${r.label} | ${f1(r.tablesMs)} (CPU ${f1(r.tablesCpuMs)}) | ${f2(r.coldMs)} | ${f2(r.comp50)} | ${f2(r.comp99)} | ${f2(r.hov50)} | ${f2(r.hov99)} |`,
  )
  .join('\n');
const compute50 = pct(computes, 50);
const compute99 = pct(computes, 99);

const body = `## Language server: parse, validation, completion, editing (bench:lsp)

Written by \`npm run bench:lsp\` (scripts/bench-lsp.mjs) on ${started}; ${REPEATS} repeats where a median is given.
Run as root, the script re-executes itself under \`unshare -n\` (loopback only): the binaries resolve host names from corpus files, and no packet can leave.
Machine: ${machine()}.
Load average before ${loadBefore}, after ${loadAfter} (2 cores; above ~1 other work shared the machine and wall times are inflated — the CPU times (user+sys) and ratios measured side by side are the steadier figures).

### Targets

Issue 21's, each checked as stated: every session of each language counted (the 50 ms target holds only if it holds in all of them), the median session's p99 against 25 ms (its p50 beside it), and \`check\` against \`nginx -t\` in wall time with the CPU times beside. Beside \`check\`, its floor: node's own start (\`node -e 0\`, timed in the same rounds) plus the same work (\`checkInputs\` and the text report) in a process that has run it four times already, so that V8 has compiled it: what a whole \`check\` process would take if a new process did not have to interpret and compile the code first (Node 20's V8 keeps no compiled machine code from one process to the next; the code cache holds bytecode).

${targetsTable}

### Corpus files (in-process, warm; every file once)

| language | files | parse ms (total) | validate ms (total) | ms per file | slowest file, ms | binary check, ms wall (total) | ours / binary |
|---|---|---|---|---|---|---|---|
${corpusTable}

Binary check: \`nginx -t -q -p PREFIX -c FILE\` / \`haproxy -c -q -f FILE\`, one process per file (its start-up included; ours runs in one warm process, so the ratio favours us). nginx files naming absolute log/pid paths are not given to \`nginx -t\` (it would create those files): ${corpusRows.find((r) => r.lang === 'nginx')?.skipped ?? 0} skipped.

### Generated configs (scripts/gen-large-config.mjs; medians)

| file | lines / size | parse ms | validate ms | ours total ms | binary ms wall | ours / binary (wall) |
|---|---|---|---|---|---|---|
${bigTable}

"validate" is the facade's \`validate\`: the module's checks and the tuning rules (what the editor publishes, less the workspace index's cross-file names).

### Completion and hover (in-process, ${POSITIONS} random positions after 20 warm-up requests, parse cached as in the server)

"warm-up tables": the suggestion lists of every context or section kind at the target version, built as the server's warm-up builds them after a document opens (\`service.prepareCompletion\`, server/src/lsp/schedule.ts); "first completion": the session's first request after that (cold code, nothing to build).

| file | warm-up tables ms | first completion ms | completion p50 ms | completion p99 ms | hover p50 ms | hover p99 ms |
|---|---|---|---|---|---|---|
${latTable}

### Editing session over LSP

\`node ${SERVER_EXEC_ARGV.join(' ')} dist/server.js --stdio\` (the VS Code client's node options and \`MALLOC_ARENA_MAX=2\`, client/src/serverLaunch.ts) driven by test/lsp/rpcClient.ts; a 5,000-line nginx file (${sessionLines.length} lines), ${EDITS} incremental \`didChange\` edits typing and erasing \`proxy_read_timeout 30s;\` on a new line of a server block, in bursts of ${BURST} back-to-back edits; after each burst the time from its last edit to the \`publishDiagnostics\` of that version (${session.latencies.length} samples, ${session.sessionS.toFixed(1)} s in all), in ${sessions.length} sessions against a fresh server each, each started once the server had gone idle after opening (two 100 ms periods with at most 10 ms of its CPU; waited ${settledText(sessions)}) (one session's p99, its second-slowest burst, moves by ±30% from run to run here): p99 per session ${p99s} ms. The figures below are the median session's. The server validates once the document has rested 3 ms after its last edit (\`proxyTuner.diagnostics.delay\`) and one more event-loop turn; a document whose validations take over 50 ms waits 1 ms longer per ms beyond that, up to 250 ms (one validation per pause in typing). After the first publication of a freshly opened document the server validates a copy of it in the background, whole once and then with a statement typed into it one character per run, up to 30 runs and 1.2 s (warm-up: the first validations of a process run uncompiled code, ~70 ms on this file at open and 10-25 ms for the first keystrokes' validations against ~4 ms once compiled; nothing is published, any edit stops it; docs/benchmarks.md, design notes). The latency is therefore the rest + compute + transport: p50 ${f1(lat50)} ms, p99 ${f1(lat99)} ms (slowest five: ${[
  ...session.latencies,
]
  .sort((x, y) => y - x)
  .slice(0, 5)
  .map((x) => x.toFixed(0))
  .join(', ')} ms; first five bursts: ${session.latencies
  .slice(0, 5)
  .map((x) => x.toFixed(0))
  .join(
    ', ',
  )} ms). The compute alone (\`validateInWorkspace\` on the same file in this benchmark's own process, cold at first, 30 runs): p50 ${f1(compute50)} ms, p99 ${f1(compute99)} ms.
RSS (/proc/PID/status VmRSS) after opening, the first diagnostics and the warm-up: ${Math.round(session.rssBefore / 1024)} MB; after the first 10% of the edits: ${Math.round(session.rssWarm / 1024)} MB; after the session: ${Math.round(session.rssAfter / 1024)} MB.
The live heap stays at ~17-20 MB all session (forced full GCs, 3,000 edits); what RSS adds comes from V8 sizing its heap and young generation and from glibc's per-thread arenas, bounded by \`--heap-growing-percent=10\` (server.ts), \`--max-semi-space-size=16\` and \`MALLOC_ARENA_MAX=2\` (client/src/serverLaunch.ts, with the measurements for each choice). Before those (and the warm-up) the same session grew 53-75%, levelling off after the first minute.
The same session on a 5,000-line HAProxy file (\`gen-large-config.mjs haproxy --lines 5000\`, \`timeout server 30s\` typed on a new line of a backend in the middle): ${haproxySession ? haproxySessionSummary() : 'not run'}. HAProxy documents are re-parsed from their previous version at section granularity (docs/benchmarks.md, design notes), but the HAProxy parse costs ~4x nginx's per line (more objects per line: words, sample expressions, conditions) and its validation more again, so this is where editing latency is highest.

### Profiles and fixes

Earlier fixes (first session): quadratic certificate and cross-file name checks, the file parsed twice by
\`check\`, HAProxy typo suggestions of 2-3.6 s on fuzzed inputs, completion after \`$\` walking the file.
Second session (every change checked to leave every diagnostic, fix, symbol, folding range and AST identical
over the whole corpus and generated files, by hashing them before and after):
- parsers (docs/benchmarks.md, design notes): chevrotain now gets one token per statement (nginx) or line (HAProxy), the
  words built by the tokenizer on the way: ~75,000 tokens instead of ~260,000 on the 4,000-server file, parse
  CPU 2.3x less (HAProxy 1.6x); argument arrays copied out at exact size: the tree 24.9 -> 20.1 MB;
- nginx validation: each directive name resolved once per context and version, one walk instead of two:
  validate 363 -> 170 ms cold, 14 -> 3 ms warm (5,000 lines); the workspace unit computed once instead of
  three times, line tables shared, suppression comments scanned once;
- tuning: one walk collecting what every rule needs instead of one pass per rule, nothing built for the
  common case: nginx 309 -> 84 ms cold, HAProxy 279 -> 83 ms; HAProxy's inherited defaults and section
  lookups were quadratic in the number of sections (1.4 s of a 50k-line check), now indexed per run;
- navigation entities: one walk, context and enclosing server per block: 52 -> 31 ms;
- completion: item lists built once per (context, version) and copied with the request's range, cursor by
  binary search: HAProxy p99 25-40 -> 1.3-9 ms under load;
- command line: the bench engine and nginx's 1.8 MB reference text loaded only when used, tables as JSON
  strings, the \`-v\` probe in the background: start-up over plain node 210 -> 130 ms.
Third session, \`check\` on the 4,000-server file (alternated runs, median of 9 each, same minutes):
- the nginx tokenizer made each statement's token once, at its end, with its final type and payload (it
  pushed a token at the first word and rewrote its fields at the \`;\`): V8 had been throwing away the
  tokenizer's optimized code once the rewrites were seen;
- \`check\` keeps V8's young generation at its first size and exits as soon as its report is written
  (docs/benchmarks.md, design notes): 0.78 -> 0.70 s wall, CPU 1.11 -> 1.00 s, peak RSS 124 -> 104 MB; \`nginx -t\` took
  0.70 s in the same runs; the 50k-line HAProxy file 1.09 -> 1.04 s (\`haproxy -c\` 0.49 s).
Third session, the editor: an edited nginx document is re-parsed from its previous version, reusing every
statement that ends before the first changed character (docs/benchmarks.md, design notes; equal to a fresh parse over
chained random edits of every corpus file and in the fuzzer). Typing in the middle of the 5,000-line file,
in-process, same minutes: parse p50 11 -> 6 ms; a whole validation through the server's index p50 22 -> 15 ms,
p99 51-61 -> 29-34 ms; over LSP, alternated sessions against the previous server: p99 57-68 -> 45-51 ms.
HAProxy documents likewise, section by section: the 5,000-line HAProxy file's parse p50 30 -> 12 ms,
validation p50 36 -> 26 ms, p99 69 -> 42 ms (in-process); its editing session over LSP is reported above.

Fourth session, \`check\` on the 4,000-server file. What it costs here is mostly memory: a fresh 4 KB page
costs ~11.6 us to fault in on these VMs (\`Buffer.allocUnsafe(200 MB)\` touched page by page: 592 ms), and
the young-generation collector copies everything that survives into fresh old-space pages. So the work went
into making less memory (every step checked to leave every diagnostic, fix, symbol, folding range, AST and
navigation entity identical over the corpus and the generated files, and \`check\`'s report byte-identical):
- the nginx tree's nodes are small classes whose derivable fields are getters, with one hidden class per
  kind (docs/benchmarks.md, design notes): 72 -> 48 bytes per word, 104-136 -> 88 per directive, block children copied
  out at exact size: the tree 19.9 -> 15.1 MB;
- the tokenizer makes every Directive itself: one token per run of \`;\`-statements, one per block opening
  (its words and \`{\`), no intermediate objects: ~62,000 -> ~45,000 tokens;
- \`check\` builds no fixes it does not print (rules that fire in bulk give their fixes as a function,
  called only for the editor and \`--fix\`), records the local \`nginx -v\` answer in the user's cache
  folder instead of starting nginx at every run (keyed by the binary's size, times and inode), and does not
  load HAProxy's tables or the \`bench\` code for an nginx file;
- the navigation walk reads what a directive name means once per name, and scans \`proxy_pass\` targets
  without regular expressions;
- the server's old-generation headroom went from 30% to 10% (\`--heap-growing-percent\`, server.ts): over six
  alternated runs of three sessions each, the largest growth per run was 3.1-8.4% against 5.2-12.5%, the
  median session's p99 35-46 ms with both.
Together, alternated runs in the same minutes (31 each, wall median): 0.68 -> 0.57 s against \`nginx -t\`'s
0.67 s; peak RSS 106 -> 90 MB; minor page faults 19,200 -> 14,100 (\`nginx -t\`: 37,300). The editing
session's p99 on the 5,000-line nginx file went from 44.7 / 45.2 / 50.4 ms (three sessions, end of the third
session) to the figures above.

Where the rest of \`check\` goes (\`node --cpu-prof dist/cli.js check big.conf\`, 4,000 servers): node's own
start ~0.10 s and ours ~0.08 s more (reading and compiling the 0.88 MB bundle, building the directive
tables, the chevrotain grammar); garbage collection ~30% of the run, most of it copying the tree out of the
young generation into fresh pages; outside collection the parse ~10%, tuning ~12%, validation ~8%,
navigation ~6%, the report ~2%.
Tried and measured without gain (alternated runs): splitting \`check\` over two threads (each parses; 0.95 s
against 0.75 s on 2 cores: the collector threads already use the second core); a V8 code cache of the
bundle, also one written after a whole run (0.9 MB to read back costs what it saves); minifying the bundle's
names (0.96 -> 0.76 MB, within noise); interning every unquoted word; V8 flag sweeps (a larger or a fixed
1 MB young generation, which lets allocation-site pretenuring kick in, page promotion thresholds,
\`--minor-mc\`, \`--always-sparkplug\`, \`--no-lazy-feedback-allocation\`, \`--no-opt\`, \`--max-opt=2\`,
\`--maglev\`, \`--single-threaded-gc\`, \`--interrupt-budget\`).

Fifth session, the HAProxy tree and HAProxy completion (issue 21; the machine shared with up to eight
engineers, load average 13-25 on 2 cores, so every figure here is CPU time or a count, and the p99 targets
need the lead's re-run on a quiet machine):
- compact nodes (docs/benchmarks.md, design notes), on the generated 50k-line file (\`node scripts/gen-large-config.mjs
  haproxy --lines 50000\`: 245,354 words, 44,397 statements, 5,651 sections), the retained tree measured by
  \`process.memoryUsage().heapUsed\` after forced collections (\`--expose-gc\`) around 5 kept parses: 42.6 ->
  30.5 MB, 182 -> 130 bytes per word, 892 -> 639 per line, 7,902 -> 5,662 per section. Parse CPU, separate
  processes alternated, 3 rounds, median of 8 parses each: 162 / 176 / 181 -> 139 / 136 / 142 ms; the
  re-parse after a one-line edit in the middle (line 25,025): 130 / 132 / 131 -> 90 / 87 / 72 ms CPU. Sharing
  repeated word strings within a parse: 3.5 MB less, but 159 / 198 / 178 ms parse CPU; left out;
- completion and hover on the 10k-line file, the bench's sequence (1 cold, 20 warm-up and 500 measured
  requests): suggestion lists built inside the 500 measured requests 6 (in 5 requests: exactly the p99's
  share of 500) -> 0, all 137 lists of the target being built by the first request; sections compared to
  find a proxy's defaults 553,244 over the 500 requests (up to 2,252 in one) -> a binary search over the
  file's one defaults section. CPU of the first completion in a fresh process 9.5-17 -> 49-63 ms (it now
  builds every list); of the 520 completions and hovers after it 84-102 -> 76-94 ms. \`npm run bench:lsp --
  --parts 4\` at load 19-25 gave completion p99 15-20 ms after against 20-27 ms before: preemption, not work
  (a warm second round of the same 500 requests has p99 0.04-0.15 ms both ways).

Fifth session (2026-12-01), \`check\` on the 4,000-server file against \`nginx -t\` (issue 21 item 3).
Most of the session the shared machine ran at load average 22-28 (2 cores, about eight sessions),
where walls were inflated 10-30x; the figures below marked "quieter" are from its last minutes,
load 5-10 and falling. The lead re-runs them on a quiet machine.
- (A hand-written nginx statement reader replacing chevrotain's grammar was measured in these figures
  and then left out: about 5% of \`check\`'s time; the lead's quiet re-run below is without it.)
- HAProxy's parser (chevrotain) and its validation tables are no longer set up at start-up: the
  rule table imported HAProxy's validation module eagerly, undoing its lazy loading.
- Together, old and new bundle alternated (quieter): 15 pairs wall 0.63 -> 0.55 s, CPU 0.87 ->
  0.80 s (median of the per-pair CPU ratios 0.90); 11 more pairs CPU 0.69 -> 0.63 s (ratio 0.93,
  every pair 0.83-0.97); peak RSS 102 -> 95 MB; \`check\` of a one-line file 0.132 -> 0.111 s
  (\`node -e 0\`: 0.062 s). At load 22-27, 15 pairs: CPU 1.04 -> 0.92 s.
- \`npm run bench:lsp -- --parts 3\` (9 alternated pairs), quieter: \`check\` wall 0.46 s against
  \`nginx -t\`'s 0.24 s (ratio 1.9), CPU 0.66 s against 0.23 s (2.9); at load 28: CPU 0.88 s against
  0.40 s (2.2), walls 11.8 and 10.3 s (the run queue, not the programs). The target, no slower
  than \`nginx -t\` in wall time, is not met.
- Where the time goes now (a cold process per run, phases timed with \`performance.now()\` and
  \`process.cpuUsage()\` (collector threads included) and collection pauses from the \`gc\` performance
  entries, median of 7, quieter): start-up to the first line of \`check\` 0.145 s wall / 0.12 s CPU
  (node itself ~0.06 s; the rest reads, compiles and initialises the 1.3 MB bundle and the
  directive tables); parse 0.16 s, of it 0.11 s in collection pauses (the 15 MB tree copied out of
  the young generation); validation 0.12 s; tuning 0.27 s (the security rules with their flow walk
  ~0.09 s of it); navigation 0.10 s; the report 0.01 s; in all 48 young-generation collections and
  one full one (0.17 s of pauses). Run warm in one process the same tuning pass costs about a
  quarter of its cold cost, and line-level profiles of it are dominated by the first touch of each
  directive (\`d.entry\`, the name's map lookup): what remains is first-run cost (interpreted code
  before the JIT tiers up, the tree's copying, cache misses over a 15 MB tree), walked four times
  (validation, tuning, flow, navigation), more than any rule's algorithm.
- Tried, not kept (alternated, CPU): a V8 code cache of the bundle written after a whole run into
  the user's cache folder and loaded through \`vm.Script\` (0.86 MB): without it 0.99 s, with it
  1.04 s on the big file (within noise), 0.148 against 0.136 s on a one-line file; too little for
  a second bundle file and a cache in the user's home. A young generation of 2 or 4 MB from the
  start instead of 1 MB (\`--min-semi-space-size\`): CPU ratio 1.04 and 0.98, within noise. Raising
  the first old-generation limit (\`--initial-old-space-size=80\` removes the full collection, -7%
  CPU) is a start-up flag V8 ignores when set at run time, so \`node dist/cli.js\` cannot use it. A
  worker thread for the tuning pass was not retried: it has to parse again after its own start-up
  (~0.1 s), the third session measured two threads at 0.95 s against 0.75 s, and at load 20+ no
  wall-time gain could have been shown.

2026-12-01, nginx validation proportional to the edit (docs/benchmarks.md, design notes). **Measured on the shared
2-core machine under heavy load (load average 19-31 from the other engineers' work): the wall times are not
the machine's; the CPU and allocation figures of alternated runs are the steadier ones.** In-process,
\`node --max-semi-space-size=64 --min-semi-space-size=64 --import tsx scripts/bench-nginx-edit.mts\` (the
5,000-line file, \`proxy_read_timeout 30s;\` typed and erased in the middle server, one workspace index and
one ParseCache as in the server, against the same calls without the cache's memo; alternated rounds of 200
keystrokes): the module's validation per keystroke CPU 4.8 -> 2.8 ms, allocation 690 -> 410 KB (\`--phases\`;
2 block bodies walked per keystroke instead of ~380, the rest taken from the memo); the whole
\`validateInWorkspace\` CPU 16.7 -> 14.8 ms, allocation 3,880 -> 3,560 KB per keystroke. Again at load average ~3.8 (23:23 UTC, 4 rounds): the whole call wall p50 11.8 -> 8.3 ms, CPU 14.3 -> 11.9 ms, allocation 3,890 -> 3,550 KB per keystroke; the validation alone wall p50 2.0 -> 1.4 ms, CPU 2.7 -> 2.1 ms, 690 -> 390 KB. What remains per
keystroke (CPU, allocation): the re-parse 2.9 ms / 1.36 MB, the tuning and security pass 6.5 ms / 1.2 MB
(the flow walk and the checks' collection walk, each over the whole file), the navigation diagnostics
3.8 ms / 0.5 MB; these three are not proportional to the edit yet.
Over LSP, \`npm run bench:lsp -- --parts 5 --sessions 3\`, the server before this change and after it
alternated (3 runs of 3 sessions each, 23:18-23:23 UTC, load average 1.0-4.0, still shared): p99 per session
before 61.2, 66.3, 149.5 / 125.6, 113.1, 101.3 / 73.8, 63.6, 104.4 ms (median 101.3 ms), after 109.9, 98.8,
111.3 / 113.2, 105.3, 55.2 / 102.8, 86.6, 67.2 ms (median 102.8 ms); the median session's p50 30.6 / 44.3 /
33.2 ms before, 39.4 / 31.4 / 35.6 ms after; RSS growth within -3.8..4.7% in both. The ~2 ms of CPU the memo
saves per keystroke do not show through this noise, and neither build meets the targets here (p99 under
50 ms in every session, p50 under 25 ms); they are to be measured again on a quiet machine.

2026-12-02, completion tables in the server's warm-up (issue 21 item 2; the shared machine at load average
13-25, so the figures are CPU times and counts of alternated runs, and the p99 targets wait for the lead's
quiet re-run). The suggestion lists are built by the first warm-up turn after a document opens
(\`service.prepareCompletion\`, docs/benchmarks.md), not by the session's first requests; nginx builds its 21
context lists in one pass over the directive table (a directive with one variant looked at once for all
contexts): the build 137 -> 55-58 ms CPU in-process, most of what is left being the load of the reference
text the snippets read. Lists identical to the lazy path's (every context at 7 target versions).
- The first completion over LSP on the 10k-line files, 1.5 s after the first diagnostics, server CPU from
  /proc (10 ms ticks), main and this branch alternated, 3 pairs: HAProxy 50, 60, 60 -> 0, 0, 10 ms; nginx
  70, 80, 60 -> 10, 20, 0 ms (walls at that load 151-256 -> 12-91 ms and 192-244 -> 21-67 ms).
- In-process, part 4's sequence in fresh processes (3 pairs): HAProxy's first completion 26-108 -> 1.8-5.8 ms
  CPU, the tables built before it in 31-52 ms. nginx's first completion was 0.6-3.4 ms both ways (the
  bench's first position is an argument, not a directive list): nginx built its lists inside the measured
  requests instead, 2 of them (\`upstream\`, \`events\`) inside the 500 measured, now none; the CPU of the 500
  measured completions and hovers 80, 95, 108, 101 -> 43, 52, 62, 65 ms (4 pairs). HAProxy's 500: 74-84 ->
  67-86 ms (its lists were already all built by the first request).
- What is left in nginx's tail is the collector: a warm request takes 13-17 us (p50), and the 500 measured
  requests meet 5-6 young-generation collections (2-3 in later rounds over the same positions), the first
  ones copying the tree the bench's validation made just before. An answer is 900 fresh items in a server or
  location block (231 bytes each with V8's allocation mementos; each item, text edit and data object is the
  answer's own, test/nginx/completion.test.ts); items made by constructors whose prototype is
  Object.prototype (177 bytes, the same JSON) left the count of collections at 6 (4 alternated pairs): not kept.

### Commands

- \`npm run bench:lsp\` (options: \`--edits N --burst N --positions N --repeats N --check-repeats N --sessions N --no-write\`; \`--parts 5\` or \`3,5\`: only those sections, printed, nothing written; \`--langs nginx\` or \`haproxy\`: the editing sessions of one language; \`--lazy-tables\`: part 4 without the warm-up's table build, the first requests building the suggestion tables as before)
- \`node scripts/gen-large-config.mjs nginx --servers 4000 --out big.conf\`; \`/usr/bin/time node dist/cli.js check big.conf\` and \`/usr/bin/time nginx -t -q -p PREFIX/ -c big.conf\`
- profile: \`node --cpu-prof dist/cli.js check big.conf\`
- one nginx keystroke's compute, in-process, with and without the per-block memo: \`node --max-semi-space-size=64 --min-semi-space-size=64 --import tsx scripts/bench-nginx-edit.mts [--rounds N --edits N --phases]\`
`;
console.log(`\n${body}`);
if (write) console.log(`written to ${writeDocSection('bench:lsp', body)}`);
