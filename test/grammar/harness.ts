// A small TextMate harness: loads our grammars through vscode-textmate with the oniguruma WASM
// engine, tokenizes a whole document and answers "which scopes cover this piece of text".
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as oniguruma from 'vscode-oniguruma';
import * as vsctm from 'vscode-textmate';

export const repoRoot = join(__dirname, '..', '..');
export const syntaxesDir = join(repoRoot, 'syntaxes');

export const grammarFiles: Record<string, string> = {
  'source.nginx': join(syntaxesDir, 'nginx.tmLanguage.json'),
  'source.haproxy': join(syntaxesDir, 'haproxy.tmLanguage.json'),
};

/**
 * A deliberately tiny Lua grammar standing in for the one VS Code ships, so the tests can see that
 * the nginx grammar hands `*_by_lua_block` bodies to `source.lua`.
 */
export const stubLuaGrammar = {
  scopeName: 'source.lua',
  patterns: [
    { match: '\\b(?:local|function|end|if|then|else|elseif|return|for|in|do|while|nil|not|and|or)\\b', name: 'keyword.control.lua' },
    { match: '\\b\\d+(?:\\.\\d+)?\\b', name: 'constant.numeric.lua' },
  ],
};

let onigLib: Promise<vsctm.IOnigLib> | undefined;

export function loadOniguruma(): Promise<vsctm.IOnigLib> {
  onigLib ??= (async () => {
    const wasm = readFileSync(join(require.resolve('vscode-oniguruma'), '..', 'onig.wasm'));
    await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
    return {
      createOnigScanner: (patterns: string[]) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s: string) => new oniguruma.OnigString(s),
    };
  })();
  return onigLib;
}

const grammars = new Map<string, Promise<vsctm.IGrammar>>();

/** Where a VS Code install keeps its Lua grammar, if one is on this machine (the e2e setup installs code-server). */
export function findVsCodeLuaGrammar(): string | undefined {
  const tail = join('extensions', 'lua', 'syntaxes', 'lua.tmLanguage.json');
  const candidates = [
    process.env.PROXY_TUNER_LUA_GRAMMAR,
    join(repoRoot, '.e2e', 'code-server', 'node_modules', 'code-server', 'lib', 'vscode', tail),
    join('/usr/share/code/resources/app', tail),
    join('/usr/lib/code-server/lib/vscode', tail),
  ];
  return candidates.find((c): c is string => !!c && existsSync(c));
}

/** Loads one of our grammars; `source.lua` is the stub unless the path of a real Lua grammar is given. */
export function loadGrammar(scopeName: 'source.nginx' | 'source.haproxy', luaGrammar?: string): Promise<vsctm.IGrammar> {
  const key = `${scopeName}|${luaGrammar ?? 'stub'}`;
  let g = grammars.get(key);
  if (!g) {
    const registry = new vsctm.Registry({
      onigLib: loadOniguruma(),
      loadGrammar: async (scope) => {
        if (scope === 'source.lua') {
          return luaGrammar
            ? vsctm.parseRawGrammar(readFileSync(luaGrammar, 'utf8'), luaGrammar)
            : vsctm.parseRawGrammar(JSON.stringify(stubLuaGrammar), 'lua.json');
        }
        const file = grammarFiles[scope];
        return file ? vsctm.parseRawGrammar(readFileSync(file, 'utf8'), file) : null;
      },
    });
    g = registry.loadGrammar(scopeName).then((grammar) => {
      if (!grammar) throw new Error(`grammar ${scopeName} did not load`);
      return grammar;
    });
    grammars.set(key, g);
  }
  return g;
}

export interface Token {
  /** Offset of the token in the whole document. */
  start: number;
  end: number;
  line: number;
  text: string;
  scopes: string[];
}

export class Tokenized {
  constructor(
    readonly text: string,
    readonly tokens: Token[],
  ) {}

  /** Offset of the `occurrence`-th (0-based) appearance of `needle`, searching from `after` if given. */
  find(needle: string, occurrence = 0, after?: string): number {
    let from = 0;
    if (after !== undefined) {
      const a = this.text.indexOf(after);
      if (a < 0) throw new Error(`anchor ${JSON.stringify(after)} not in the fixture`);
      from = a + after.length;
    }
    let at = this.text.indexOf(needle, from);
    for (let i = 0; i < occurrence && at >= 0; i++) at = this.text.indexOf(needle, at + 1);
    if (at < 0) throw new Error(`${JSON.stringify(needle)} (occurrence ${occurrence}) not in the fixture`);
    return at;
  }

  /** The tokens covering `needle` (each character of it lies in one of them). */
  tokensOf(needle: string, occurrence = 0, after?: string): Token[] {
    const start = this.find(needle, occurrence, after);
    const end = start + needle.length;
    return this.tokens.filter((t) => t.end > start && t.start < end);
  }

  describe(tokens: Token[]): string {
    return tokens.map((t) => `${JSON.stringify(t.text)} [${t.scopes.join(' ')}]`).join('\n  ');
  }
}

export async function tokenize(scopeName: 'source.nginx' | 'source.haproxy', text: string, luaGrammar?: string): Promise<Tokenized> {
  const grammar = await loadGrammar(scopeName, luaGrammar);
  const lines = text.split('\n');
  const out: Token[] = [];
  let stack = vsctm.INITIAL;
  let offset = 0;
  lines.forEach((line, lineNo) => {
    const r = grammar.tokenizeLine(line, stack);
    for (const t of r.tokens) {
      const end = Math.min(t.endIndex, line.length);
      if (end <= t.startIndex) continue;
      out.push({
        start: offset + t.startIndex,
        end: offset + end,
        line: lineNo,
        text: line.slice(t.startIndex, end),
        scopes: t.scopes,
      });
    }
    stack = r.ruleStack;
    offset += line.length + 1;
  });
  return new Tokenized(text, out);
}

/** TextMate-style prefix match: `string.regexp` matches `string.regexp.nginx`. */
export function scopeMatches(scope: string, wanted: string): boolean {
  return scope === wanted || scope.startsWith(wanted + '.');
}

export function hasScope(token: Token, wanted: string): boolean {
  return token.scopes.some((s) => scopeMatches(s, wanted));
}

/** Every regex of a raw grammar, with where it sits, for the compile test. */
export function collectRegexes(node: unknown, path = '$', out: { path: string; source: string; key: string }[] = []) {
  if (Array.isArray(node)) node.forEach((n, i) => collectRegexes(n, `${path}[${i}]`, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if ((k === 'match' || k === 'begin' || k === 'end' || k === 'while') && typeof v === 'string') {
        out.push({ path: `${path}.${k}`, source: v, key: k });
      } else collectRegexes(v, `${path}.${k}`, out);
    }
  }
  return out;
}

export interface Where {
  /** Which appearance of the needle (0-based). */
  occurrence?: number;
  /** Search only after the first appearance of this text. */
  after?: string;
  /** The scope must cover exactly the needle: token edges match and the neighbours lack the scope. */
  exact?: boolean;
}

export function expectScope(doc: Tokenized, needle: string, scope: string, where: Where = {}): void {
  const toks = doc.tokensOf(needle, where.occurrence, where.after);
  assert.ok(toks.length > 0, `no token covers ${JSON.stringify(needle)}`);
  const missing = toks.filter((t) => !hasScope(t, scope));
  assert.equal(missing.length, 0, `${JSON.stringify(needle)} should be ${scope}, got:\n  ${doc.describe(toks)}`);
  if (where.exact) {
    const start = doc.find(needle, where.occurrence, where.after);
    const end = start + needle.length;
    assert.equal(toks[0].start, start, `${scope} starts before ${JSON.stringify(needle)}:\n  ${doc.describe(toks)}`);
    assert.equal(toks[toks.length - 1].end, end, `${scope} runs past ${JSON.stringify(needle)}:\n  ${doc.describe(toks)}`);
    const before = doc.tokens.find((t) => t.end === start);
    const after = doc.tokens.find((t) => t.start === end);
    for (const n of [before, after]) {
      if (n) assert.ok(!hasScope(n, scope), `${scope} spills onto ${doc.describe([n])}`);
    }
  }
}

export function expectNoScope(doc: Tokenized, needle: string, scope: string, where: Where = {}): void {
  const toks = doc.tokensOf(needle, where.occurrence, where.after);
  assert.ok(toks.length > 0, `no token covers ${JSON.stringify(needle)}`);
  const wrong = toks.filter((t) => hasScope(t, scope));
  assert.equal(wrong.length, 0, `${JSON.stringify(needle)} should not be ${scope}, got:\n  ${doc.describe(toks)}`);
}

/**
 * Whether oniguruma accepts `source`. vscode-oniguruma 1.7 does not throw on a bad pattern: it
 * swaps in one that matches the empty string everywhere. So the pattern is wrapped with an
 * always-failing tail, `(?:source)(?!)`: a valid pattern then can never match, a rejected one still does.
 */
export async function onigAccepts(source: string): Promise<boolean> {
  await loadOniguruma();
  const scanner = new oniguruma.OnigScanner([`(?:${source})(?!)`]);
  try {
    for (const probe of ['', 'x', 'server { listen 80; } # "a" $b ${c} %[d] \\e']) {
      if (scanner.findNextMatchSync(probe, 0) !== null) return false;
    }
    return true;
  } finally {
    scanner.dispose();
  }
}

/** vscode-textmate fills back-references of an end/while pattern from the begin match before compiling it. */
export function withBackReferencesFilled(source: string): string {
  return source.replace(/\\(\d+)/g, 'x');
}
