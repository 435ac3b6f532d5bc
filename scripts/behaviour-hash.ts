// Hashes what the language service answers over the shared corpus and generated files, so a
// refactor can prove it changed nothing: every diagnostic (with its fixes), document symbol,
// folding range, completion list and hover, and the parse tree, at each target version.
//
//   node --import tsx scripts/behaviour-hash.ts > before.json
//   ... change the code ...
//   node --import tsx scripts/behaviour-hash.ts > after.json
//   node --import tsx scripts/behaviour-hash.ts --diff before.json after.json
//
// The per-file hashes name the files that differ; the totals per feature are what a closing note
// quotes. Only the service facade is imported, so the script survives moves behind it.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import * as ls from '../server/src/service/languageService';
// @ts-expect-error plain .mjs generator without types
import { nginxConfig, haproxyConfig } from './gen-large-config.mjs';
import { corpusRoot } from '../test/corpusRoot';

type Lang = 'nginx' | 'haproxy';
const root = resolve(__dirname, '..');
const corpus = corpusRoot;

function diff(a: string, b: string): void {
  const A = JSON.parse(readFileSync(a, 'utf8'));
  const B = JSON.parse(readFileSync(b, 'utf8'));
  let bad = 0;
  for (const k of Object.keys(A.totals)) {
    const same = A.totals[k] === B.totals[k];
    if (!same) bad++;
    console.log(`${same ? 'same' : 'DIFF'}  ${k}  ${A.totals[k]}  ${B.totals[k] ?? '-'}`);
  }
  for (const f of Object.keys(A.files)) {
    for (const k of Object.keys(A.files[f])) {
      if (A.files[f][k] !== B.files[f]?.[k]) console.log(`  differs: ${f} ${k}`);
    }
  }
  process.exit(bad ? 1 : 0);
}

if (process.argv[2] === '--diff') diff(process.argv[3], process.argv[4]);

/** JSON with object keys in a stable order; parent links and functions skipped (the AST has back edges). */
function stable(value: unknown, seen = new Set<object>()): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (seen.has(value as object)) return '"<cycle>"';
  seen.add(value as object);
  let out: string;
  if (Array.isArray(value)) out = '[' + value.map((v) => stable(v, seen)).join(',') + ']';
  else {
    const keys: string[] = [];
    // own fields and prototype getters alike (the nginx tree's nodes keep derived fields as getters)
    for (const k in value as object) keys.push(k);
    let proto = Object.getPrototypeOf(value);
    while (proto && proto !== Object.prototype) {
      for (const [k, d] of Object.entries(Object.getOwnPropertyDescriptors(proto))) if (d.get && !keys.includes(k)) keys.push(k);
      proto = Object.getPrototypeOf(proto);
    }
    keys.sort();
    const parts: string[] = [];
    for (const k of keys) {
      if (k === 'parent' || k === 'tokens') continue;
      const v = (value as Record<string, unknown>)[k];
      if (typeof v === 'function' || v === undefined) continue;
      parts.push(JSON.stringify(k) + ':' + stable(v, seen));
    }
    out = '{' + parts.join(',') + '}';
  }
  seen.delete(value as object);
  return out;
}

const h = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);

const VERSIONS: Record<Lang, (string | undefined)[]> = {
  nginx: ['1.22.1', '1.26.3', '1.30.6', undefined],
  haproxy: ['2.6', '3.0', '3.2', undefined],
};

function inputs(): { name: string; lang: Lang; text: string }[] {
  const out: { name: string; lang: Lang; text: string }[] = [];
  for (const lang of ['nginx', 'haproxy'] as Lang[]) {
    const dir = join(corpus, lang);
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) out.push({ name: `${lang}/${f}`, lang, text: readFileSync(join(dir, f), 'latin1') });
  }
  for (const d of ['examples/nginx', 'examples/haproxy']) {
    const dir = join(root, d);
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) {
      if (!/\.(conf|cfg)$/.test(f)) continue;
      out.push({ name: `${d}/${f}`, lang: d.endsWith('haproxy') ? 'haproxy' : 'nginx', text: readFileSync(join(dir, f), 'utf8') });
    }
  }
  out.push({ name: 'generated/nginx-2000', lang: 'nginx', text: nginxConfig({ lines: 2000 }) });
  out.push({ name: 'generated/haproxy-2000', lang: 'haproxy', text: haproxyConfig({ lines: 2000 }) });
  return out;
}

/** Probe positions: the start, the end and the middle of the first word of every 7th line, and after it. */
function probes(doc: TextDocument): { line: number; character: number }[] {
  const lines = doc.getText().split('\n');
  const out: { line: number; character: number }[] = [];
  for (let i = 0; i < lines.length; i += 7) {
    const m = /^(\s*)(\S*)/.exec(lines[i])!;
    const a = m[1].length;
    const b = a + m[2].length;
    out.push(
      { line: i, character: a },
      { line: i, character: Math.floor((a + b) / 2) },
      { line: i, character: Math.min(lines[i].length, b + 1) },
    );
  }
  return out.slice(0, 600);
}

const totals: Record<string, ReturnType<typeof createHash>> = {};
const files: Record<string, Record<string, string>> = {};
function add(file: string, kind: string, value: unknown): void {
  const s = stable(value);
  (totals[kind] ??= createHash('sha256')).update(file + '\0' + s + '\0');
  (files[file] ??= {})[kind] = h(s);
}

let n = 0;
for (const { name, lang, text } of inputs()) {
  n++;
  const mod = ls.getModule(lang);
  add(name, 'ast', mod.parse(text));
  const doc = TextDocument.create(`file:///corpus/${name}`, lang, 1, text);
  for (const v of VERSIONS[lang]) {
    const settings = lang === 'nginx' ? { nginxVersion: v } : { haproxyVersion: v };
    add(name, `diagnostics@${v ?? 'newest'}`, ls.validate(doc, lang, settings));
  }
  add(name, 'symbols', ls.symbols(doc, lang));
  add(name, 'folding', ls.folding(doc, lang));
  const cache = new ls.ParseCache();
  const comp: unknown[] = [];
  const hov: unknown[] = [];
  for (const p of probes(doc)) {
    comp.push(ls.complete(doc, lang, p, {}, cache));
    hov.push(ls.hover(doc, lang, p, {}, cache));
  }
  add(name, 'completion', comp);
  add(name, 'hover', hov);
}

const out = {
  inputs: n,
  totals: Object.fromEntries(Object.entries(totals).map(([k, v]) => [k, v.digest('hex').slice(0, 16)])),
  files,
};
process.stdout.write(JSON.stringify(out, null, 1) + '\n');
