// The fuzzer shared by the bounded test (test/fuzz/fuzz.test.ts) and the long run
// (`npm run fuzz -- --seconds N --seed S`): seeded mutations of the corpus files and random token
// soups, fed through the parser and every entry point of the service facade. Input i of seed S is
// always the same text (its generator is seeded with S and i), so any failure replays from the
// pair printed with it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic, Position, Range } from 'vscode-languageserver-types';
import * as service from '../../server/src/service/languageService';
import type { FileSystem } from '../../server/src/service/workspaceIndex';
import type { LanguageId, ServiceSettings } from '../../server/src/core/types';
import { corpusRoot as sharedCorpusRoot } from '../corpusRoot';

export const LANGS: LanguageId[] = ['nginx', 'haproxy'];
/** Inputs are cut to this size (the time bound below is stated for it). */
export const MAX_INPUT = 100 * 1024;

export function corpusRoot(): string {
  return sharedCorpusRoot;
}

export interface Corpus {
  files: Record<LanguageId, { name: string; text: string }[]>;
  /** Whitespace-separated tokens seen in the corpus files, per language (the soups draw from them). */
  tokens: Record<LanguageId, string[]>;
  /** Where each language's files came from: the shared corpus, or the repository's own configs. */
  source: Record<LanguageId, string>;
}

const REPO = resolve(__dirname, '..', '..');
/** The repository's own configs (examples and test fixtures), a corpus for a clone without the shared one. */
const REPO_CONFIG_DIRS = ['examples', 'test'];

function repoConfigs(lang: LanguageId): { name: string; path: string }[] {
  const ext = lang === 'nginx' ? '.conf' : '.cfg';
  const out: { name: string; path: string }[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(join(REPO, dir), { withFileTypes: true })) {
      const rel = join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (e.isFile() && e.name.endsWith(ext)) out.push({ name: rel, path: join(REPO, rel) });
    }
  };
  for (const d of REPO_CONFIG_DIRS) if (existsSync(join(REPO, d))) walk(d);
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export function loadCorpus(root = corpusRoot()): Corpus {
  const files: Corpus['files'] = { nginx: [], haproxy: [] };
  const tokens: Corpus['tokens'] = { nginx: [], haproxy: [] };
  const source: Corpus['source'] = { nginx: '', haproxy: '' };
  for (const lang of LANGS) {
    const dir = join(root, lang);
    const entries = existsSync(dir)
      ? readdirSync(dir)
          .sort()
          .filter((name) => name !== 'verdicts.tsv' && !name.endsWith('.md'))
          .map((name) => ({ name, path: join(dir, name) }))
      : repoConfigs(lang);
    source[lang] = existsSync(dir) ? dir : `the repository's ${lang} configs (${REPO_CONFIG_DIRS.join('/, ')}/)`;
    const seen = new Set<string>();
    for (const { name, path } of entries) {
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch {
        continue; // a folder or an unreadable entry
      }
      files[lang].push({ name, text });
      for (const t of text.split(/\s+/)) if (t && t.length < 60 && !seen.has(t) && seen.size < 20_000) seen.add(t);
    }
    tokens[lang] = [...seen];
  }
  return { files, tokens, source };
}

/** mulberry32: small, fast, and the same on every machine. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed for input `i` of run `seed` (independent streams per input). */
export function inputSeed(seed: number, i: number): number {
  return (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(i + 1, 0xc2b2ae35)) >>> 0;
}

const SPECIAL: Record<LanguageId, string[]> = {
  nginx: [
    '{',
    '}',
    ';',
    '"',
    "'",
    '\\',
    '#',
    '$',
    '${',
    '~',
    '~*',
    '(',
    ')',
    '\n',
    '"\n',
    'if',
    'location',
    'server',
    'upstream',
    'map',
    'include',
    '*_by_lua_block {',
    'http {',
    'events {',
    'stream {',
    '$host',
    '\u0000',
    '\uFEFF',
    '\uD800',
    'é',
    '\r\n',
  ],
  haproxy: [
    '{',
    '}',
    '"',
    "'",
    '\\',
    '#',
    '%[',
    ']',
    '%{',
    '}',
    'if',
    '!',
    '||',
    'acl',
    'global',
    'defaults',
    'frontend',
    'backend',
    'listen',
    'server',
    'bind',
    ':80',
    'use_backend',
    '\n',
    '\n  ',
    '"\n',
    '\u0000',
    '\uFEFF',
    '\uD800',
    'é',
    '\r\n',
    '$',
    '${',
  ],
};

const MUTATORS = ['byteFlip', 'deleteTokens', 'duplicateTokens', 'insertSpecial', 'truncate', 'splice', 'soup', 'repeatBlock'] as const;
export type Mutator = (typeof MUTATORS)[number];

export interface FuzzInput {
  lang: LanguageId;
  mutator: Mutator;
  source: string;
  text: string;
}

/** Input `i` of run `seed`: a mutated corpus file (or a token soup), at most MAX_INPUT characters. */
export function makeInput(corpus: Corpus, seed: number, i: number): FuzzInput {
  const r = rng(inputSeed(seed, i));
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: T[]): T => xs[int(xs.length)];
  const lang = LANGS[i % 2];
  const files = corpus.files[lang];
  const vocab = corpus.tokens[lang].length ? corpus.tokens[lang] : SPECIAL[lang];
  const mutator: Mutator = files.length === 0 ? 'soup' : pick([...MUTATORS]);
  const base = files.length ? pick(files) : { name: '(none)', text: '' };
  let text = base.text;
  let source = base.name;
  const rounds = 1 + int(4);
  const tokenSpans = (s: string) => {
    const spans: [number, number][] = [];
    const re = /\S+/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(s)) && spans.length < 50_000) spans.push([m.index, m.index + m[0].length]);
    return spans;
  };
  for (let k = 0; k < rounds; k++) {
    switch (mutator) {
      case 'byteFlip': {
        // flips bits of the UTF-8 bytes and decodes them again (invalid sequences become U+FFFD)
        const bytes = Buffer.from(text, 'utf8');
        if (bytes.length === 0) break;
        for (let n = 1 + int(8); n > 0; n--) bytes[int(bytes.length)] ^= 1 << int(8);
        text = bytes.toString('utf8');
        break;
      }
      case 'deleteTokens':
      case 'duplicateTokens': {
        const spans = tokenSpans(text);
        if (!spans.length) break;
        for (let n = 1 + int(6); n > 0; n--) {
          const [s, e] = spans[int(spans.length)];
          if (e > text.length) continue;
          text = mutator === 'deleteTokens' ? text.slice(0, s) + text.slice(e) : text.slice(0, e) + ' ' + text.slice(s, e) + text.slice(e);
        }
        break;
      }
      case 'insertSpecial': {
        for (let n = 1 + int(6); n > 0; n--) {
          const at = int(text.length + 1);
          text = text.slice(0, at) + pick(SPECIAL[lang]) + text.slice(at);
        }
        break;
      }
      case 'truncate':
        text = text.slice(0, int(text.length + 1));
        break;
      case 'splice': {
        const other = pick(corpus.files[pick(LANGS)].length ? corpus.files[pick(LANGS)] : files);
        if (!other) break;
        const a = int(text.length + 1);
        const b = int(other.text.length + 1);
        text = text.slice(0, a) + other.text.slice(b);
        source += ` + ${other.name}`;
        break;
      }
      case 'soup': {
        const parts: string[] = [];
        for (let n = 20 + int(400); n > 0; n--) {
          parts.push(r() < 0.25 ? pick(SPECIAL[lang]) : pick(vocab));
          parts.push(pick([' ', ' ', ' ', '\n', '\n    ', '', '\t']));
        }
        text = parts.join('');
        source = 'token soup';
        k = rounds; // one soup is enough
        break;
      }
      case 'repeatBlock': {
        // a slice of the file repeated: long files, deep or wide nesting
        const a = int(text.length + 1);
        const piece = text.slice(a, a + 1 + int(400));
        const times = 2 + int(60);
        const at = int(text.length + 1);
        text = text.slice(0, at) + piece.repeat(times) + text.slice(at);
        break;
      }
    }
    if (text.length > MAX_INPUT) text = text.slice(0, MAX_INPUT);
  }
  return { lang, mutator, source, text };
}

export interface Failure {
  entry: string;
  error: string;
}

export interface Outcome {
  failures: Failure[];
  /** Slowest entry point of the input and its time, ms. */
  slowest: { entry: string; ms: number };
  totalMs: number;
  calls: number;
}

const SETTINGS: ServiceSettings[] = [
  {},
  { nginxVersion: '1.22.1', haproxyVersion: '2.6', host: { cpuCount: 2, somaxconn: 4096, nofileLimit: 1024 } },
];

function memoryFs(files: Map<string, string>): FileSystem {
  return {
    readFile: (p) => files.get(p),
    stat: (p) => {
      if (files.has(p)) return { mtimeMs: 1, size: files.get(p)!.length, isFile: true, isDirectory: false };
      if (p === '/fuzz' || p === '/fuzz/') return { mtimeMs: 1, size: 0, isFile: false, isDirectory: true };
      return undefined;
    },
    readDir: (p) => (p === '/fuzz' || p === '/fuzz/' ? [...files.keys()].map((k) => k.slice('/fuzz/'.length)) : undefined),
    realpath: (p) => p,
  };
}

/**
 * Every entry point of the facade on one text: validation (with tuning), completion, hover,
 * definition and selection ranges at `positions` random offsets, code actions, fixAll, formatting,
 * symbols, folding, and the workspace features (references, rename, links, workspace symbols)
 * over an in-memory workspace holding the text. Exceptions are collected, never thrown.
 */
/**
 * Deep equality of two parse trees without recursion (a fuzz input may nest blocks thousands
 * deep, past what a recursive comparison's stack allows): plain objects by own keys, arrays by
 * element, everything else by identity.
 */
function sameTree(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]];
  while (stack.length) {
    const [x, y] = stack.pop()!;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    const kx = Object.keys(x);
    const ky = Object.keys(y);
    if (kx.length !== ky.length) return false;
    for (const k of kx) {
      if (!Object.prototype.hasOwnProperty.call(y, k)) return false;
      stack.push([(x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]]);
    }
  }
  return true;
}

/** What the re-parse check types into a fuzz input: characters the readers treat specially. */
const REPARSE_EDITS = ['x', ' ', '\n', ';', '{', '}', '"', "'", '#', '\\', '$', 'a b;', 'server {', '\nbackend b\n', '\r\n'];

export function exercise(lang: LanguageId, text: string, seed: number, positions = 12, only?: string): Outcome {
  const r = rng(seed ^ 0x5bd1e995);
  const failures: Failure[] = [];
  const slowest = { entry: '', ms: 0 };
  let calls = 0;
  const t0 = performance.now();
  const run = <T>(entry: string, fn: () => T): T | undefined => {
    if (only && entry !== only) return undefined;
    const s = performance.now();
    calls++;
    try {
      return fn();
    } catch (err) {
      failures.push({ entry, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      return undefined;
    } finally {
      const ms = performance.now() - s;
      if (ms > slowest.ms) {
        slowest.ms = ms;
        slowest.entry = entry;
      }
    }
  };
  const name = lang === 'nginx' ? '/fuzz/nginx.conf' : '/fuzz/haproxy.cfg';
  const uri = `file://${name}`;
  const doc = TextDocument.create(uri, lang, 1, text);
  const settings = SETTINGS[seed & 1];
  const cache = new service.ParseCache();
  const offsets: number[] = [0, text.length];
  for (let k = 0; k < positions; k++) offsets.push(Math.floor(r() * (text.length + 1)));
  const pos = (o: number): Position => doc.positionAt(o);
  // positions a client may send that lie outside the text
  const odd: Position[] = [
    { line: doc.lineCount + 3, character: 0 },
    { line: 0, character: 10_000 },
  ];

  const module = service.getModule(lang);
  const first = run('parse', () => module.parse(text));
  if (module.reparse && first !== undefined) {
    // an edit typed at a random place, re-parsed from this parse: must equal a fresh parse
    const at = Math.floor(r() * (text.length + 1));
    const edited = text.slice(0, at) + REPARSE_EDITS[Math.floor(r() * REPARSE_EDITS.length)] + text.slice(at + (r() < 0.3 ? 1 : 0));
    run('reparse', () => {
      if (!sameTree(module.reparse!(first, edited), module.parse(edited))) {
        throw new Error(`reparse differs from a fresh parse after inserting at ${at}`);
      }
    });
  }
  run('detectLanguage', () => service.detectLanguage(name, text));
  const diagnostics = run('validate', () => service.validate(doc, lang, settings, cache)) ?? [];
  for (const o of offsets) run('complete', () => service.complete(doc, lang, pos(o), settings, cache));
  for (const p of odd) run('complete', () => service.complete(doc, lang, p, settings, cache));
  for (const o of offsets) run('hover', () => service.hover(doc, lang, pos(o), settings, cache));
  for (const p of odd) run('hover', () => service.hover(doc, lang, p, settings, cache));
  for (const o of offsets) run('signatureHelp', () => service.signatureHelp(doc, lang, pos(o), settings, cache));
  for (const p of odd) run('signatureHelp', () => service.signatureHelp(doc, lang, p, settings, cache));
  for (const o of offsets.slice(0, 4))
    run('complete', () => service.complete(doc, lang, pos(o), { ...settings, completionSnippets: true }, cache));
  const whole: Range = { start: pos(0), end: pos(text.length) };
  run('inlayHints', () => service.inlayHints(doc, lang, whole, settings, cache));
  run('codeActions', () => service.codeActions(doc, lang, whole, diagnostics, settings, cache));
  for (const d of diagnostics.slice(0, 20)) run('codeActions', () => service.codeActions(doc, lang, d.range, [d], settings, cache));
  run('fixAllEdits', () => service.fixAllEdits(doc, lang, settings, cache));
  run('fixAll', () => service.fixAll(doc, lang, settings, 3));
  run('format', () => service.format(doc, lang, undefined, { tabSize: 4, insertSpaces: true }, cache));
  const a = offsets[2] ?? 0;
  const b = offsets[3] ?? text.length;
  run('formatRange', () =>
    service.format(doc, lang, { start: pos(Math.min(a, b)), end: pos(Math.max(a, b)) }, { tabSize: 2, insertSpaces: false }, cache),
  );
  run('symbols', () => service.symbols(doc, lang, cache));
  run('folding', () => service.folding(doc, lang, cache));
  run('selectionRanges', () => service.selectionRanges(doc, lang, [...offsets.map(pos), ...odd], cache));
  for (const o of offsets.slice(0, 6)) run('definition', () => service.definition(doc, lang, pos(o), settings, cache));

  const open = new Map([[uri, doc]]);
  const ws = service.createWorkspaceIndex({
    fs: memoryFs(new Map([[name, text]])),
    roots: ['/fuzz'],
    open: { get: (u) => open.get(u), all: () => [...open.values()] },
  });
  run('validateInWorkspace', () => service.validateInWorkspace(doc, lang, settings, ws, cache));
  for (const o of offsets.slice(0, 6)) {
    const p = pos(o);
    run('definitionInWorkspace', () => service.definitionInWorkspace(doc, p, ws));
    run('references', () => service.references(doc, p, true, ws));
    run('prepareRename', () => service.prepareRename(doc, p, ws));
    run('rename', () => service.rename(doc, p, 'renamed_x', ws));
  }
  run('documentLinks', () => service.documentLinks(doc, ws));
  run('workspaceSymbols', () => service.workspaceSymbols(text.slice(offsets[4] ?? 0, (offsets[4] ?? 0) + 3), ws));
  return { failures, slowest, totalMs: performance.now() - t0, calls };
}

/** Smallest text (greedy chunk removal, bounded) on which `fails` still holds. */
export function minimize(text: string, fails: (t: string) => boolean, maxSteps = 400): string {
  let cur = text;
  let steps = 0;
  for (let chunk = Math.max(1, Math.floor(cur.length / 2)); chunk >= 1 && steps < maxSteps; chunk = Math.floor(chunk / 2)) {
    for (let at = 0; at < cur.length && steps < maxSteps;) {
      const next = cur.slice(0, at) + cur.slice(at + chunk);
      steps++;
      if (next.length < cur.length && fails(next)) cur = next;
      else at += chunk;
    }
  }
  return cur;
}

/** A crash kept as a regression: the text, its language and the entry point that threw. */
export interface Regression {
  lang: LanguageId;
  entry: string;
  text: string;
  /** Where it came from (seed, input, mutator), for the record. */
  found: string;
}

export function loadRegressions(dir = join(__dirname, 'regressions')): { file: string; reg: Regression }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ file: f, reg: JSON.parse(readFileSync(join(dir, f), 'utf8')) as Regression }));
}

export type { Diagnostic };

export interface FuzzStats {
  seed: number;
  inputs: number;
  calls: number;
  bytes: number;
  seconds: number;
  byMutator: Record<string, number>;
  failures: {
    input: number;
    lang: LanguageId;
    mutator: Mutator;
    source: string;
    entry: string;
    error: string;
    text: string;
    minimized?: string;
  }[];
  slow: { input: number; lang: LanguageId; bytes: number; entry: string; ms: number; totalMs: number }[];
  slowest: { input: number; lang: LanguageId; bytes: number; entry: string; ms: number; totalMs: number };
}

/**
 * Inputs 0, 1, 2... of `seed` until `seconds` have passed (or `maxInputs`): every failure is kept
 * with its text (minimized when `minimizeFailures`), every input whose slowest entry point took
 * more than `boundMs` is listed in `slow`.
 */
export function runFuzz(opts: {
  seconds: number;
  seed: number;
  corpus?: Corpus;
  boundMs?: number;
  maxInputs?: number;
  positions?: number;
  minimizeFailures?: boolean;
  log?: (line: string) => void;
}): FuzzStats {
  const corpus = opts.corpus ?? loadCorpus();
  const boundMs = opts.boundMs ?? 2000;
  const end = performance.now() + opts.seconds * 1000;
  const stats: FuzzStats = {
    seed: opts.seed,
    inputs: 0,
    calls: 0,
    bytes: 0,
    seconds: 0,
    byMutator: {},
    failures: [],
    slow: [],
    slowest: { input: -1, lang: 'nginx', bytes: 0, entry: '', ms: 0, totalMs: 0 },
  };
  const t0 = performance.now();
  let lastLog = t0;
  for (let i = 0; performance.now() < end && i < (opts.maxInputs ?? Infinity); i++) {
    const input = makeInput(corpus, opts.seed, i);
    const out = exercise(input.lang, input.text, inputSeed(opts.seed, i), opts.positions ?? 12);
    stats.inputs++;
    stats.calls += out.calls;
    stats.bytes += input.text.length;
    stats.byMutator[input.mutator] = (stats.byMutator[input.mutator] ?? 0) + 1;
    const row = {
      input: i,
      lang: input.lang,
      bytes: input.text.length,
      entry: out.slowest.entry,
      ms: Math.round(out.slowest.ms),
      totalMs: Math.round(out.totalMs),
    };
    if (out.slowest.ms > stats.slowest.ms) stats.slowest = row;
    if (out.slowest.ms > boundMs) {
      stats.slow.push(row);
      opts.log?.(`slow: input ${i} (${input.lang}, ${input.mutator}, ${input.text.length} chars): ${out.slowest.entry} took ${row.ms} ms`);
    }
    const seenEntries = new Set<string>();
    for (const f of out.failures) {
      const firstLine = f.error.split('\n')[0];
      if (seenEntries.has(f.entry + firstLine)) continue;
      seenEntries.add(f.entry + firstLine);
      const rec: FuzzStats['failures'][number] = {
        input: i,
        lang: input.lang,
        mutator: input.mutator,
        source: input.source,
        entry: f.entry,
        error: f.error,
        text: input.text,
      };
      if (opts.minimizeFailures) {
        rec.minimized = minimize(input.text, (t) =>
          exercise(input.lang, t, inputSeed(opts.seed, i), 4, f.entry).failures.some((g) => g.error.split('\n')[0] === firstLine),
        );
      }
      stats.failures.push(rec);
      opts.log?.(
        `FAILURE: seed ${opts.seed} input ${i} (${input.lang}, ${input.mutator} of ${input.source}) in ${f.entry}: ${f.error.split('\n').slice(0, 4).join(' | ')}`,
      );
    }
    if (opts.log && performance.now() - lastLog > 10_000) {
      lastLog = performance.now();
      opts.log(`... ${stats.inputs} inputs, ${stats.calls} calls, ${stats.failures.length} failures`);
    }
  }
  stats.seconds = (performance.now() - t0) / 1000;
  return stats;
}
