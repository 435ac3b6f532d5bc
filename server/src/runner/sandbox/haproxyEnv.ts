// HAProxy's environment variables, expanded the way HAProxy does before the sandbox plans the
// config: `"$NAME"`, `"${NAME}"`, `"${NAME-default}"` and `"${NAME[*]}"` (several words) inside
// double quotes only, with `setenv` / `presetenv` / `unsetenv` / `resetenv` in `global` taking effect
// from their line on. The planner then sees what HAProxy will see. A variable in a keyword or a
// section header (the word that decides what a line is) is refused instead: what the line does
// would depend on a value the planner would have to trust.
import type { HaproxyFile, Statement, Word } from '../../languages/haproxy/ast';
import { SandboxRefusal, applyEdits, type Edit } from './common';

export interface EnvExpansion {
  text: string;
  /** Whether anything was expanded. */
  changed: boolean;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

/** Expands the variables of one word's raw text; returns the new raw text and the value HAProxy reads. */
export function expandWord(raw: string, env: Record<string, string | undefined>): { raw: string; value: string } {
  let out = '';
  let value = '';
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (ch === '\\' && quote !== "'" && i + 1 < raw.length) {
      out += ch + raw[i + 1];
      const n = raw[i + 1];
      value += n === 'n' ? '\n' : n === 'r' ? '\r' : n === 't' ? '\t' : n;
      i++;
      continue;
    }
    if ((ch === '"' || ch === "'") && (quote === null || quote === ch)) {
      quote = quote === null ? ch : null;
      out += ch;
      continue;
    }
    if (ch === '$' && quote === '"') {
      let name = '';
      let def: string | undefined;
      let split = false;
      let len = 0;
      if (raw[i + 1] === '{') {
        const close = raw.indexOf('}', i + 2);
        if (close > 0) {
          let inner = raw.slice(i + 2, close);
          if (inner.endsWith('[*]')) {
            split = true;
            inner = inner.slice(0, -3);
          }
          const m = NAME.exec(inner);
          if (m) {
            name = m[0];
            const rest = inner.slice(name.length);
            if (rest.startsWith('-')) def = rest.slice(1);
            else if (rest) name = '';
            len = close - i + 1;
          }
        }
      } else {
        const m = NAME.exec(raw.slice(i + 1));
        if (m) {
          name = m[0];
          len = 1 + name.length;
        }
      }
      if (name) {
        const v = env[name] ?? def ?? '';
        if (/[\r\n\0]/.test(v)) throw new SandboxRefusal(`environment variable ${name} holds a line break: the sandbox does not expand it`);
        const esc = (x: string) => x.replace(/[\\"$#]/g, (c) => '\\' + c);
        out += split ? v.trim().split(/\s+/).map(esc).join('" "') : esc(v);
        value += v;
        i += len - 1;
        continue;
      }
    }
    out += ch;
    value += ch;
  }
  return { raw: out, value };
}

/**
 * Expands every variable of `ast` (parsed from `text`) with `env` (the environment the proxy
 * will get), updating it with the `global` section's setenv/presetenv/unsetenv/resetenv lines.
 * Throws SandboxRefusal for a variable in a keyword or a section header.
 */
export function expandHaproxyEnv(text: string, ast: HaproxyFile, baseEnv: Record<string, string | undefined>, file: string): EnvExpansion {
  const env: Record<string, string | undefined> = { ...baseEnv };
  const edits: Edit[] = [];
  const lineOf = (st: Statement) => st.line + 1;
  const all: { st: Statement; global: boolean }[] = [];
  for (const st of ast.orphans) all.push({ st, global: false });
  for (const sec of ast.sections) {
    all.push({ st: sec.header, global: false });
    for (const st of sec.statements) all.push({ st, global: sec.keyword === 'global' });
  }
  all.sort((a, b) => a.st.start - b.st.start);
  for (const { st, global } of all) {
    const words: Word[] = st.words;
    if (words.length === 0) continue;
    if (words[0].envVars?.length || (words[0].raw.includes('$') && words[0].raw.includes('"')))
      throw new SandboxRefusal(
        `\`${words[0].raw}\`: an environment variable in a keyword or a section header decides what the line is; the sandbox refuses it (write the keyword itself)`,
        file,
        lineOf(st),
      );
    const values: string[] = [];
    for (const w of words) {
      if (w.envVars?.length || (w.raw.includes('$') && w.raw.includes('"'))) {
        const x = expandWord(w.raw, env);
        edits.push({ start: w.start, end: w.end, text: x.raw });
        values.push(x.value);
      } else values.push(w.value);
    }
    if (!global) continue;
    const kw = values[0];
    if (kw === 'setenv' && values[1]) env[values[1]] = values.slice(2).join(' ');
    else if (kw === 'presetenv' && values[1]) {
      if (env[values[1]] === undefined) env[values[1]] = values.slice(2).join(' ');
    } else if (kw === 'unsetenv') for (const n of values.slice(1)) delete env[n];
    else if (kw === 'resetenv') {
      const keep = new Set(values.slice(1));
      for (const k of Object.keys(env)) if (!keep.has(k)) delete env[k];
    }
  }
  if (edits.length === 0) return { text, changed: false };
  return { text: applyEdits(text, edits), changed: true };
}
