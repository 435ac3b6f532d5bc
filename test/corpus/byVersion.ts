// The corpus judged by every matrix binary (test/corpus/verdicts-by-version.tsv, written by
// scripts/corpus-verdicts.mjs), and the linter judged against it at each binary's version.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from 'vscode-languageserver-types';
import { nginxModule, validateInContext } from '../../server/src/languages/nginx/index';
import { haproxyModule } from '../../server/src/languages/haproxy/index';
import { corpusDir, readVerdicts } from './verdicts';

export const TABLE = join(__dirname, 'verdicts-by-version.tsv');

export interface VersionVerdict {
  product: 'nginx' | 'haproxy';
  version: string;
  file: string;
  verdict: 'ok' | 'error';
  /** ok, genuine (the file's own error at this version) or env (what a linter cannot see). */
  class: 'ok' | 'genuine' | 'env';
  /** The binary's first error line (0: none named). */
  line: number;
  /** HAProxy: every line its alerts name. */
  lines: number[];
  message: string;
}

export function readTable(text = readFileSync(TABLE, 'utf8')): VersionVerdict[] {
  const lines = text.split('\n').filter((l) => l && !l.startsWith('#'));
  const h = lines[0].split('\t');
  return lines.slice(1).map((l) => {
    const r = l.split('\t');
    const col = (n: string) => r[h.indexOf(n)] ?? '';
    return {
      product: col('product') as VersionVerdict['product'],
      version: col('version'),
      file: col('file'),
      verdict: col('verdict') as VersionVerdict['verdict'],
      class: col('class') as VersionVerdict['class'],
      line: Number(col('line')) || 0,
      lines: col('lines') ? col('lines').split(',').map(Number) : [],
      message: col('message'),
    };
  });
}

export interface VersionScore {
  product: string;
  version: string;
  /** Files the binary accepts, and the error-severity diagnostics the linter gave on them. */
  accepted: number;
  falseErrors: string[];
  filesWithFalseErrors: number;
  genuine: number;
  caught: number;
  missed: string[];
  /** Files where the linter's verdict (any error or none) equals the binary's (env rows left out). */
  agree: number;
  judged: number;
}

const contexts = new Map<string, string>();
function contextOf(file: string): string {
  if (!contexts.size) for (const r of readVerdicts(corpusDir('nginx').dir)) contexts.set(r.file, r.context);
  return contexts.get(file) ?? 'main';
}

const texts = new Map<string, string>();
function textOf(product: string, file: string): string {
  const key = `${product}/${file}`;
  let t = texts.get(key);
  if (t === undefined) texts.set(key, (t = readFileSync(join(corpusDir(product as 'nginx').dir, file), 'utf8')));
  return t;
}

export function lint(product: 'nginx' | 'haproxy', file: string, version: string): Diagnostic[] {
  const text = textOf(product, file);
  const doc = TextDocument.create(`file:///corpus/${file}`, product, 1, text);
  if (product === 'nginx') return validateInContext(doc, nginxModule.parse(text), { nginxVersion: version }, contextOf(file));
  return haproxyModule.validate(doc, haproxyModule.parse(text), { haproxyVersion: version });
}

/** The linter at `version` against the binary's verdicts of that version. */
export function score(rows: VersionVerdict[], product: 'nginx' | 'haproxy', version: string): VersionScore {
  const s: VersionScore = {
    product,
    version,
    accepted: 0,
    falseErrors: [],
    filesWithFalseErrors: 0,
    genuine: 0,
    caught: 0,
    missed: [],
    agree: 0,
    judged: 0,
  };
  for (const r of rows) {
    if (r.product !== product || r.version !== version || r.class === 'env') continue;
    const errors = lint(product, r.file, version).filter((d) => d.severity === 1);
    s.judged++;
    if (r.class === 'ok') {
      s.accepted++;
      if (errors.length) s.filesWithFalseErrors++;
      else s.agree++;
      for (const e of errors) s.falseErrors.push(`${r.file}:${e.range.start.line + 1} ${e.code} ${e.message}`);
      continue;
    }
    s.genuine++;
    if (errors.length) s.agree++;
    // at the binary's line; nginx names no line for some errors (unknown variables, missing events): then by the quoted name
    const want = product === 'haproxy' && r.lines.length ? r.lines : r.line ? [r.line] : [];
    const quoted = /"([^"]+)"/.exec(r.message)?.[1];
    const hit = want.length
      ? errors.some((d) => want.includes(d.range.start.line + 1))
      : errors.some((d) => quoted !== undefined && d.message.includes(`"${quoted}"`));
    if (hit) s.caught++;
    else s.missed.push(`${r.file}:${r.line} (${r.message.slice(0, 120)})`);
  }
  return s;
}
