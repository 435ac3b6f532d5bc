// Signature help's common part: a syntax string (nginx's `*`field`* *`value`*`, HAProxy's
// `balance <algorithm> [ <arguments> ]`) cut into parameters, and which parameter the argument
// under the cursor fills. Pure functions; the language modules find the syntax strings.
import type { ParameterInformation, SignatureInformation } from 'vscode-languageserver-types';

export interface SyntaxParam {
  /** As shown in the signature label. */
  label: string;
  /** Words that name this parameter when an argument is one of them (`ssl`, `backlog=`, `len`). */
  literals: string[];
  /** How many argument words it takes (`[len <length>]`: 2). */
  width: number;
  optional: boolean;
  /** Takes any number of words (`file ...`, `[param*]`, a condition). */
  repeat: boolean;
  /** nginx's `{...}`: the block, not an argument. */
  block: boolean;
}

/** Splits at whitespace outside brackets, braces and parentheses. */
export function topLevelTokens(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '[' || ch === '{' || ch === '(') depth++;
    else if (ch === ']' || ch === '}' || ch === ')') depth = Math.max(0, depth - 1);
    if (/\s/.test(ch) && depth === 0) {
      if (cur) out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur) out.push(cur);
  return out;
}

const stripNginx = (s: string) => s.replace(/\*`([^`]*)`\*/g, '$1').replace(/`([^`]*)`/g, '$1');

/** The parameters of an nginx syntax string as @nginx/reference-lib writes it (markdown: `literal`, *`placeholder`*). */
export function nginxParams(syntax: string): SyntaxParam[] {
  const out: SyntaxParam[] = [];
  for (const raw of topLevelTokens(syntax.trim())) {
    if (raw === '...' && out.length) {
      const prev = out[out.length - 1];
      prev.label += ' ...';
      prev.repeat = true;
      continue;
    }
    const block = raw === '`{...}`';
    const optional = raw.startsWith('[');
    const inner = optional ? raw.slice(1, -1).trim() : raw;
    const literals: string[] = [];
    // each alternative's leading literal (`http2` | `quic`), with its `=` or `:` when it has one
    for (const alt of inner.split(/\s*\|\s*/)) {
      const m = /^`([^`]+)`(=|:)?/.exec(alt.trim());
      if (m) literals.push(m[1] + (m[2] ?? ''));
    }
    out.push({ label: stripNginx(raw), literals, width: 1, optional, repeat: raw.includes('...'), block });
  }
  return out;
}

/** The parameters of an HAProxy syntax string after its keyword words (`<name> <address>[:[port]] [param*]`). */
export function haproxyParams(syntax: string, keywordWords: number): SyntaxParam[] {
  const tokens = topLevelTokens(syntax.replace(/\s+\(deprecated\)\s*$/, '').trim()).slice(keywordWords);
  const out: SyntaxParam[] = [];
  for (const raw of tokens) {
    if ((raw === '...' || raw === '[...]') && out.length) {
      out[out.length - 1].label += ` ${raw}`;
      out[out.length - 1].repeat = true;
      continue;
    }
    const optional = raw.startsWith('[');
    const inner = optional ? raw.slice(1, -1).trim() : raw;
    const words = inner.split(/\s+/).filter(Boolean);
    // `[, ...]`: more addresses after a comma, never a word of its own
    const literals: string[] = inner.startsWith(',') ? [','] : [];
    for (const w of words) {
      if (w.startsWith('<')) break;
      const lit = w.replace(/^[{(]+|[})>]+$/g, '');
      if (/^[a-z][a-z0-9_.-]*$/i.test(lit)) literals.push(lit);
    }
    const placeholders = words.filter((w) => /^<[^>]*>/.test(w)).length;
    const repeat = /\.\.\.|\*|<condition>/.test(raw);
    const width = Math.max(1, (literals.length ? 1 : 0) + placeholders);
    // a keyword alone on the line (`option httpchk`) or a literal required word (`url_param`)
    out.push({ label: raw, literals, width, optional, repeat, block: false });
  }
  return out;
}

function matches(arg: string, literal: string): boolean {
  if (arg === literal) return true;
  return (literal.endsWith('=') || literal.endsWith(':')) && arg.startsWith(literal);
}

/**
 * Which parameter the argument `index` of `args` fills: an argument naming a parameter's
 * literal goes to it; an argument following one with more words to give stays on it; any other
 * goes to the next positional parameter (skipping keyword parameters), or stays on a repeating one.
 */
export function activeParam(params: SyntaxParam[], args: string[], index: number): number {
  const real = params.filter((p) => !p.block);
  if (!real.length) return -1;
  let p = -1;
  let left = 0;
  for (let j = 0; j <= index; j++) {
    const w = args[j] ?? '';
    const k = w ? real.findIndex((q) => q.literals.some((l) => matches(w, l))) : -1;
    if (k >= 0 && (real[k].optional || k >= p)) {
      p = k;
      left = real[k].width - 1;
    } else if (left > 0 && p >= 0) {
      left--;
    } else if (p >= 0 && real[p].repeat && !real.slice(p + 1).some((q) => !q.optional || !q.literals.length)) {
      // stays on a repeating parameter when nothing positional follows it
    } else {
      let q = p + 1;
      while (q < real.length && real[q].optional && real[q].literals.length && (!real[q].repeat || real[q].literals[0] === ',')) q++;
      // only keyword parameters left: the next one after the last filled
      if (q >= real.length) q = Math.min(p + 1, real.length - 1);
      else if (!w && real[q].optional) {
        // nothing typed yet and only optional parameters ahead: the next one (not a `[, ...]` list)
        let n = p + 1;
        while (n < q && real[n].literals[0] === ',') n++;
        q = n;
      }
      p = q;
      left = real[q].width - 1;
    }
  }
  return params.indexOf(real[p]);
}

/** A SignatureInformation whose label is `head` then the parameters, with label offsets. */
export function signatureOf(head: string, params: SyntaxParam[], tail: string, documentation?: string): SignatureInformation {
  let label = head;
  const parameters: ParameterInformation[] = [];
  for (const p of params) {
    label += ' ';
    const start = label.length;
    label += p.label;
    if (!p.block) parameters.push({ label: [start, label.length] });
  }
  label += tail;
  const sig: SignatureInformation = { label, parameters };
  if (documentation) sig.documentation = { kind: 'markdown', value: documentation };
  return sig;
}

/**
 * Of several syntaxes, the one the written arguments fit: a required literal (`url_param`,
 * `unix:`) that an argument contradicts rules a syntax out; then the most literals matched,
 * then the first with room for the argument under the cursor.
 */
export function pickSignature(all: SyntaxParam[][], args: string[], index: number): number {
  let best = 0;
  let bestScore = -Infinity;
  all.forEach((params, i) => {
    const real = params.filter((p) => !p.block);
    let score = 0;
    for (let j = 0; j < real.length && j < args.length; j++) {
      const p = real[j];
      if (p.optional || !p.literals.length || !args[j]) continue;
      if (p.literals.some((l) => matches(args[j], l))) score += 10;
      else score -= 100;
    }
    for (const a of args) if (a && real.some((p) => p.optional && p.literals.some((l) => matches(a, l)))) score += 1;
    const fits = real.length > index || real.some((p) => p.repeat);
    if (fits) score += 5;
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  });
  return best;
}
