// Runs real nginx binaries (the version matrix's) with loadable modules loaded, to check the
// module facts (server/src/languages/nginx/data/modules.json) against them: each directive in each context
// its row allows (nginx must not say "not allowed here", "invalid number of arguments" or
// "unknown directive"), in a context it does not allow ("not allowed here"), and with one
// argument too many or too few ("invalid number of arguments"). Everything runs `nginx -t` on
// files in a temp folder: no process outlives its run, nothing listens.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOADABLE_MODULES, modulesToLoad } from '../../server/src/languages/nginx/modules';
import { DIRECTIVES, type DirectiveVariant } from '../../server/src/languages/nginx/data';
import type { MatrixBinary } from '../../server/src/runner/matrix';

export interface RunResult {
  ok: boolean;
  /** The first [emerg] line's message, without the file part. */
  message?: string;
  line?: number;
  output: string;
}

/** `nginx -t` of one config text (bounded in time; the child is ended by its pid if it overstays). */
export function nginxT(bin: MatrixBinary, dir: string, name: string, text: string, timeoutMs = 15000): Promise<RunResult> {
  const conf = join(dir, name);
  writeFileSync(conf, text);
  return new Promise((resolve) => {
    const child = spawn(bin.path, ['-t', '-q', '-p', dir, '-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b) => (out += b));
    child.stderr.on('data', (b) => (out += b));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const emerg = /\[emerg\] \d+#\d+: (.*?)(?: in (\S+?):(\d+))?$/m.exec(out);
      resolve({ ok: code === 0, message: emerg?.[1], line: emerg?.[3] && emerg[2] === conf ? Number(emerg[3]) : undefined, output: out });
    });
  });
}

/** Runs `jobs` with at most `n` at a time. */
export async function pool<T>(n: number, jobs: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, jobs.length) }, worker));
  return out;
}

/** The loadable modules installed for a binary (`.so` base names in its own modules folder). */
export function installedModules(bin: MatrixBinary): string[] {
  if (!existsSync(bin.modulesDir)) return [];
  return readdirSync(bin.modulesDir)
    .filter((f) => f.endsWith('.so'))
    .map((f) => f.slice(0, -3));
}

/** `load_module` lines for `so` and what it needs (stream modules need the stream module), in order. */
export function loadLines(bin: MatrixBinary, sos: string[]): string {
  const order: string[] = [];
  const none = { loaded: new Set<string>(), unknown: false };
  for (const so of sos) {
    if (so.startsWith('ngx_stream_') && !order.includes('ngx_stream_module')) order.push('ngx_stream_module');
    for (const x of modulesToLoad(so, none)) if (!order.includes(x)) order.push(x);
  }
  return order.map((x) => `load_module ${join(bin.modulesDir, `${x}.so`)};\n`).join('');
}

/** The contexts the probe can build, each as the text around the probed lines. */
const CONTEXTS: Record<string, { before: string; after: string }> = {
  main: { before: '', after: 'events {}\n' },
  http: { before: 'events {}\nhttp {\n', after: '}\n' },
  server: { before: 'events {}\nhttp {\nserver {\nlisten 127.0.0.1:18000;\n', after: '}\n}\n' },
  location: { before: 'events {}\nhttp {\nserver {\nlisten 127.0.0.1:18000;\nlocation /p/ {\n', after: '}\n}\n}\n' },
  'if in server': { before: 'events {}\nhttp {\nserver {\nlisten 127.0.0.1:18000;\nif ($uri) {\n', after: '}\n}\n}\n' },
  'if in location': {
    before: 'events {}\nhttp {\nserver {\nlisten 127.0.0.1:18000;\nlocation /p/ {\nif ($uri) {\n',
    after: '}\n}\n}\n}\n',
  },
  limit_except: {
    before: 'events {}\nhttp {\nserver {\nlisten 127.0.0.1:18000;\nlocation /p/ {\nlimit_except GET {\n',
    after: '}\n}\n}\n}\n',
  },
  upstream: { before: 'events {}\nhttp {\nupstream u {\nserver 127.0.0.1:18001;\n', after: '}\n}\n' },
  stream: { before: 'events {}\nstream {\n', after: '}\n' },
  'stream/server': { before: 'events {}\nstream {\nserver {\nlisten 127.0.0.1:18002;\nreturn x;\n', after: '}\n}\n' },
  'stream/upstream': { before: 'events {}\nstream {\nupstream su {\nserver 127.0.0.1:18003;\n', after: '}\n}\n' },
  rtmp: { before: 'events {}\nrtmp {\n', after: '}\n' },
  'rtmp/server': { before: 'events {}\nrtmp {\nserver {\nlisten 127.0.0.1:18004;\n', after: '}\n}\n' },
  'rtmp/application': { before: 'events {}\nrtmp {\nserver {\nlisten 127.0.0.1:18004;\napplication a {\n', after: '}\n}\n}\n' },
};

/** A context that the variant does not allow, in the same family (http directive: main; stream: stream/upstream...). */
export function wrongContext(v: DirectiveVariant, all: DirectiveVariant[]): string | undefined {
  const allowed = new Set(all.flatMap((x) => x.contexts));
  const family = v.contexts.some((c) => c.startsWith('rtmp'))
    ? ['rtmp', 'rtmp/server', 'rtmp/application', 'main']
    : v.contexts.some((c) => c.startsWith('stream'))
      ? ['stream/upstream', 'stream', 'stream/server', 'main']
      : ['upstream', 'http', 'location', 'server', 'main'];
  return family.find((c) => !allowed.has(c));
}

export function buildable(ctx: string): boolean {
  return ctx in CONTEXTS;
}

/** Placeholder arguments that usually pass a directive's own value checks (any other value error still proves context and arity). */
export function args(name: string, n: number, flag?: boolean): string[] {
  if (flag) return Array.from({ length: n }, () => 'on');
  const word = /timeout|_time$|interval|expire|ttl|delay|period|_age/.test(name)
    ? '1s'
    : /size|buffer|_max|_min|limit|length|_len|level|count|number|depth/.test(name)
      ? '16'
      : /path|file|dir|root|_db$/.test(name)
        ? '/tmp/pt-nonexistent'
        : 'x';
  return Array.from({ length: n }, () => word);
}

/** One probed line for a variant: its name, `n` arguments, and `{ }` for a block. */
export function line(v: DirectiveVariant, n: number): string {
  const a = args(v.name, n, v.flag);
  return `${[v.name, ...a].join(' ')}${v.block ? ' { }' : ';'}`;
}

export function configFor(bin: MatrixBinary, sos: string[], dir: string, ctx: string, lines: string[]): { text: string; first: number } {
  const c = CONTEXTS[ctx];
  const head = `${loadLines(bin, sos)}pid ${join(dir, 'nginx.pid')};\nerror_log ${join(dir, 'error.log')};\n`;
  const before = head + c.before;
  const first = before.split('\n').length; // line number of the first probed line
  return { text: `${before}${lines.join('\n')}\n${c.after}`, first };
}

export type Verdict = 'accepted' | 'not-allowed' | 'arity' | 'unknown' | 'other';

export function classify(r: RunResult, name: string): Verdict {
  if (r.ok) return 'accepted';
  const m = r.message ?? '';
  if (m.startsWith(`unknown directive "${name}"`)) return 'unknown';
  if (m.startsWith(`"${name}" directive is not allowed here`)) return 'not-allowed';
  if (m.startsWith(`invalid number of arguments in "${name}" directive`)) return 'arity';
  return 'other';
}

/** The third-party variants to probe (njs's come from the core tables and are probed too). */
export function loadableVariants(): DirectiveVariant[] {
  const out: DirectiveVariant[] = [];
  for (const list of DIRECTIVES.values()) for (const v of list) if (v.load && LOADABLE_MODULES.has(v.load)) out.push(v);
  return out;
}

export interface ProbeReport {
  binary: string;
  modules: string[];
  /** Directive rows checked in every context they allow, by module. */
  checked: Record<string, number>;
  /** (directive, context) pairs nginx accepted (no context/arity/unknown error). */
  accepted: number;
  /** Names this build of the module does not know (older packaged versions): `so: names`. */
  unknownToBuild: Record<string, string[]>;
  /** Facts the binary contradicts. */
  mismatches: string[];
  rejections: { checked: number; held: number };
  arity: { checked: number; held: number };
  runs: number;
}

/**
 * Probes every installed module's directives with `bin`. Acceptance runs one config per (module,
 * context) and, when nginx stops at a probed line for a reason other than context or arity (a
 * value it dislikes), counts that line as accepted and runs the rest again.
 */
export async function probeBinary(
  bin: MatrixBinary,
  opts: { concurrency?: number; include?: (name: string) => boolean } = {},
): Promise<ProbeReport> {
  const concurrency = opts.concurrency ?? 2;
  const installed = new Set(installedModules(bin));
  const variants = loadableVariants().filter((v) => installed.has(v.load!) && (!opts.include || opts.include(v.name)));
  const dir = mkdtempSync(join(tmpdir(), 'pt-modprobe-'));
  const report: ProbeReport = {
    binary: `${bin.product} ${bin.version} (${bin.suite})`,
    modules: [...new Set(variants.map((v) => v.load!))].sort(),
    checked: {},
    accepted: 0,
    unknownToBuild: {},
    mismatches: [],
    rejections: { checked: 0, held: 0 },
    arity: { checked: 0, held: 0 },
    runs: 0,
  };
  let seq = 0;
  const run = (sos: string[], ctx: string, lines: string[]) => {
    const { text, first } = configFor(bin, sos, dir, ctx, lines);
    report.runs++;
    return nginxT(bin, dir, `c${seq++}.conf`, text).then((r) => ({ r, first }));
  };
  const unknown = (v: DirectiveVariant) => {
    const list = (report.unknownToBuild[v.load!] ??= []);
    if (!list.includes(v.name)) list.push(v.name);
  };
  try {
    // acceptance, batched per (module, context)
    const batches = new Map<string, { so: string; ctx: string; vs: DirectiveVariant[] }>();
    for (const v of variants) {
      report.checked[v.load!] = (report.checked[v.load!] ?? 0) + 1;
      for (const ctx of v.contexts) {
        if (!buildable(ctx)) continue;
        const key = `${v.load}\0${ctx}`;
        if (!batches.has(key)) batches.set(key, { so: v.load!, ctx, vs: [] });
        // one row per name and context (TAKE13 rows come as two variants: the first count is enough here)
        const b = batches.get(key)!;
        if (!b.vs.some((x) => x.name === v.name)) b.vs.push(v);
      }
    }
    const known = new Set<string>();
    await pool(
      concurrency,
      [...batches.values()].map((b) => async () => {
        let rest = b.vs.slice();
        while (rest.length) {
          const { r, first } = await run(
            [b.so],
            b.ctx,
            rest.map((v) => line(v, v.min)),
          );
          if (r.ok) {
            report.accepted += rest.length;
            rest.forEach((v) => known.add(`${v.load}\0${v.name}`));
            return;
          }
          const at = r.line !== undefined ? r.line - first : -1;
          if (at < 0 || at >= rest.length) {
            if (rest.length === 1) {
              report.accepted++; // an error elsewhere (postconfiguration): the line itself was taken
              known.add(`${rest[0].load}\0${rest[0].name}`);
              return;
            }
            // no line to blame: go one by one
            const singles = rest;
            rest = [];
            for (const v of singles) {
              const one = await run([b.so], b.ctx, [line(v, v.min)]);
              const verdict = classify(one.r, v.name);
              if (verdict === 'unknown') unknown(v);
              else if (verdict === 'not-allowed' || verdict === 'arity')
                report.mismatches.push(`${v.name} (${v.load}) in ${b.ctx} with ${v.min} args: ${one.r.message}`);
              else {
                report.accepted++;
                known.add(`${v.load}\0${v.name}`);
              }
            }
            return;
          }
          const v = rest[at];
          const verdict = classify(r, v.name);
          if (verdict === 'unknown') unknown(v);
          else if (verdict === 'not-allowed' || verdict === 'arity')
            report.mismatches.push(`${v.name} (${v.load}) in ${b.ctx} with ${v.min} args: ${r.message}`);
          else {
            report.accepted++;
            known.add(`${v.load}\0${v.name}`);
          }
          rest = rest.filter((_, i) => i !== at);
        }
      }),
    );
    // rejection in a wrong context, and argument counts, one run each (nginx stops at the first error)
    const byName = new Map<string, DirectiveVariant[]>();
    for (const v of variants)
      if (known.has(`${v.load}\0${v.name}`)) byName.set(`${v.load}\0${v.name}`, [...(byName.get(`${v.load}\0${v.name}`) ?? []), v]);
    const jobs: (() => Promise<void>)[] = [];
    for (const vs of byName.values()) {
      const name = vs[0].name;
      const v = vs[0];
      const allVariants = DIRECTIVES.get(name) ?? vs;
      const wrong = wrongContext(v, allVariants);
      if (wrong) {
        jobs.push(async () => {
          const { r } = await run([v.load!], wrong, [line(v, v.min)]);
          report.rejections.checked++;
          const verdict = classify(r, name);
          if (verdict === 'not-allowed') report.rejections.held++;
          else report.mismatches.push(`${name} (${v.load}) in ${wrong} should be refused: ${verdict} ${r.message ?? ''}`);
        });
      }
      const ctx = v.contexts.find(buildable);
      if (!ctx || vs.length > 1) continue; // several rows (TAKE13, two modules): counts differ per row
      const counts = [v.max >= 0 ? v.max + 1 : undefined, v.min > 0 ? v.min - 1 : undefined].filter((x): x is number => x !== undefined);
      for (const n of counts) {
        jobs.push(async () => {
          const { r, first } = await run([v.load!], ctx, [line(v, n)]);
          report.arity.checked++;
          const verdict = classify(r, name);
          // njs's rows come from its reference, whose syntax can be stricter than the command table:
          // nginx then refuses the extra argument as a value, at the same line (still an error there)
          if (verdict === 'arity' || (!v.thirdParty && verdict === 'other' && r.line === first)) report.arity.held++;
          else report.mismatches.push(`${name} (${v.load}) in ${ctx} with ${n} args should be refused: ${verdict} ${r.message ?? ''}`);
        });
      }
    }
    await pool(concurrency, jobs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const k of Object.keys(report.unknownToBuild)) report.unknownToBuild[k].sort();
  return report;
}
