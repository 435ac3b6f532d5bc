// The nginx lexer and parser (chevrotain). The lexer reproduces nginx's reader
// (ngx_conf_read_token): which characters end a word depends on where the word started, so
// the word, quote, comment and raw-body tokens are custom matchers. The grammar is LL(1) with
// an explicit alternative for every stray token, so it never needs chevrotain's re-sync
// recovery: errors are recorded where nginx would report them and parsing goes on.
import { createToken, EmbeddedActionsParser, Lexer, type IToken, type TokenType } from 'chevrotain';
import type { Block, Comment, Directive, NginxFile, NginxSyntaxError, QuoteKind, Word } from './ast';
import { ENTRY_BLOCKS, isRawBlockName } from './ast';

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;
const SEMI_CC = 59; // ;
const LBRACE_CC = 123; // {
const RBRACE_CC = 125; // }

type MatchResult = RegExpExecArray & { payload?: unknown };

function result(text: string, offset: number, end: number, payload?: unknown): MatchResult {
  const m = [text.slice(offset, end)] as unknown as MatchResult;
  if (payload !== undefined) m.payload = payload;
  return m;
}

/** An unquoted word: `\` escapes, `${` does not end it, whitespace `;` `{` do. */
function matchWord(text: string, offset: number): MatchResult | null {
  const c0 = text.charCodeAt(offset);
  if (Number.isNaN(c0) || isSpace(c0) || c0 === SEMI_CC || c0 === LBRACE_CC || c0 === RBRACE_CC) return null;
  if (c0 === 34 || c0 === 39 || c0 === 35) return null; // " ' #
  let i = offset;
  let variable = false;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === LBRACE_CC && variable) {
      variable = false;
      i++;
      continue;
    }
    variable = false;
    if (c === 92) {
      i += 2; // backslash: the next character is taken as is
      continue;
    }
    if (c === 36) {
      variable = true;
      i++;
      continue;
    }
    if (isSpace(c) || c === SEMI_CC || c === LBRACE_CC) break;
    i++;
  }
  return result(text, offset, Math.min(i, n));
}

/** A quoted word; without a closing quote before the end of the file, it is cut at the line end. */
function matchQuoted(text: string, offset: number): MatchResult | null {
  const q = text.charCodeAt(offset);
  if (q !== 34 && q !== 39) return null;
  const n = text.length;
  let i = offset + 1;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 92) {
      i += 2;
      continue;
    }
    if (c === q) return result(text, offset, i + 1, true);
    i++;
  }
  let eol = text.indexOf('\n', offset);
  if (eol < 0) eol = n;
  else if (eol > offset && text.charCodeAt(eol - 1) === 13) eol--;
  return result(text, offset, Math.max(eol, offset + 1), false);
}

function matchComment(text: string, offset: number): MatchResult | null {
  if (text.charCodeAt(offset) !== 35) return null;
  let eol = text.indexOf('\n', offset);
  if (eol < 0) eol = text.length;
  else if (text.charCodeAt(eol - 1) === 13) eol--;
  return result(text, offset, eol);
}

/** Lua long bracket `[[`, `[==[` at i: the level, or -1. */
function longBracketLevel(text: string, i: number): number {
  if (text[i] !== '[') return -1;
  let j = i + 1;
  while (text[j] === '=') j++;
  return text[j] === '[' ? j - i - 1 : -1;
}

function skipLongBracket(text: string, i: number, level: number): number {
  const close = ']' + '='.repeat(level) + ']';
  const k = text.indexOf(close, i + level + 2);
  return k < 0 ? text.length : k + close.length;
}

/** A Lua body `{ ... }`: braces counted outside Lua strings and comments. */
function scanLuaBody(text: string, offset: number): { end: number; closed: boolean } {
  const n = text.length;
  let depth = 0;
  let i = offset;
  while (i < n) {
    const ch = text[i];
    if (ch === '{') {
      depth++;
      i++;
    } else if (ch === '}') {
      depth--;
      i++;
      if (depth === 0) return { end: i, closed: true };
    } else if (ch === '"' || ch === "'") {
      i++;
      while (i < n && text[i] !== ch && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
      i++;
    } else if (ch === '-' && text[i + 1] === '-') {
      const lvl = longBracketLevel(text, i + 2);
      if (lvl >= 0) i = skipLongBracket(text, i + 2, lvl);
      else {
        const eol = text.indexOf('\n', i);
        i = eol < 0 ? n : eol;
      }
    } else if (ch === '[') {
      const lvl = longBracketLevel(text, i);
      i = lvl >= 0 ? skipLongBracket(text, i, lvl) : i + 1;
    } else i++;
  }
  return { end: n, closed: false };
}

// Token types. Order matters: the raw body must be tried before the plain `{`.
const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /[ \t\r\n]+/, group: Lexer.SKIPPED, line_breaks: true });
const CommentTok = createToken({
  name: 'Comment',
  pattern: { exec: matchComment },
  start_chars_hint: ['#'],
  group: 'comments',
  line_breaks: false,
});
const Semi = createToken({ name: 'Semi', pattern: /;/ });
let WordTok: TokenType;
let QuotedTok: TokenType;
const RawBody = createToken({
  name: 'RawBody',
  pattern: {
    exec: (text: string, offset: number, matched: IToken[]): MatchResult | null => {
      if (text.charCodeAt(offset) !== LBRACE_CC) return null;
      // the first word of the statement being read decides
      let k = matched.length - 1;
      while (k >= 0 && (matched[k].tokenType === WordTok || matched[k].tokenType === QuotedTok)) k--;
      const first = matched[k + 1];
      if (!first || k + 1 > matched.length - 1 || !isRawBlockName(unescape(first.image, quoteOf(first.image)))) return null;
      const r = scanLuaBody(text, offset);
      return result(text, offset, r.end, r.closed);
    },
  },
  start_chars_hint: ['{'],
  line_breaks: true,
});
const LBrace = createToken({ name: 'LBrace', pattern: /\{/ });
const RBrace = createToken({ name: 'RBrace', pattern: /\}/ });
QuotedTok = createToken({ name: 'Quoted', pattern: { exec: matchQuoted }, start_chars_hint: ['"', "'"], line_breaks: true });
WordTok = createToken({ name: 'Word', pattern: { exec: matchWord }, line_breaks: true });

const allTokens = [WhiteSpace, CommentTok, Semi, RawBody, LBrace, RBrace, QuotedTok, WordTok];

let lexer: Lexer | undefined;
function getLexer(): Lexer {
  lexer ??= new Lexer(allTokens, {
    positionTracking: 'onlyOffset',
    ensureOptimizations: false,
    skipValidations: true,
  });
  return lexer;
}

function quoteOf(raw: string): QuoteKind {
  const c = raw[0];
  return c === '"' ? 'double' : c === "'" ? 'single' : 'none';
}

/** nginx's unescaping of a word (ngx_conf_read_token): quotes stripped, few escapes known. */
export function unescape(raw: string, quote: QuoteKind, closed = true): string {
  let s = raw;
  if (quote !== 'none') s = raw.slice(1, closed ? raw.length - 1 : raw.length);
  if (s.indexOf('\\') < 0) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && i + 1 < s.length) {
      const d = s[i + 1];
      if (d === '"' || d === "'" || d === '\\') {
        out += d;
        i++;
        continue;
      }
      if (d === 't' || d === 'r' || d === 'n') {
        out += d === 't' ? '\t' : d === 'r' ? '\r' : '\n';
        i++;
        continue;
      }
    }
    out += c;
  }
  return out;
}

class NginxParser extends EmbeddedActionsParser {
  found: NginxSyntaxError[] = [];
  textLength = 0;

  constructor() {
    super(allTokens, { recoveryEnabled: false, skipValidations: true });
    this.performSelfAnalysis();
  }

  private toWord(t: IToken): Word {
    const raw = t.image;
    const quote = t.tokenType === QuotedTok ? quoteOf(raw) : 'none';
    const closed = quote === 'none' ? true : t.payload !== false;
    const start = t.startOffset;
    return { raw, value: unescape(raw, quote, closed), quote, closed, start, end: start + raw.length };
  }

  private err(kind: NginxSyntaxError['kind'], message: string, start: number, end: number): void {
    this.found.push({ kind, message, start, end });
  }

  /** Statements until `}` or the end of the input. */
  private statements = this.RULE('statements', (): Directive[] => {
    const list: Directive[] = [];
    this.MANY(() => {
      this.OR([
        {
          ALT: () => {
            const d = this.SUBRULE(this.statement);
            this.ACTION(() => list.push(d));
          },
        },
        {
          ALT: () => {
            const t = this.CONSUME(Semi);
            this.ACTION(() => this.err('unexpected', 'unexpected ";"', t.startOffset, t.startOffset + 1));
          },
        },
        {
          ALT: () => {
            // a block without a directive name: report, keep its content at this level
            const t = this.CONSUME(LBrace);
            this.ACTION(() => this.err('unexpected', 'unexpected "{"', t.startOffset, t.startOffset + 1));
            const inner = this.SUBRULE(this.statements);
            const close = this.OPTION(() => this.CONSUME(RBrace));
            this.ACTION(() => {
              list.push(...inner);
              if (!close) this.err('eof', 'unexpected end of file, expecting "}"', this.textLength, this.textLength);
            });
          },
        },
      ]);
    });
    return list;
  });

  private statement = this.RULE('statement', (): Directive => {
    const words: IToken[] = [];
    this.AT_LEAST_ONE(() => {
      const t = this.OR1([{ ALT: () => this.CONSUME(WordTok) }, { ALT: () => this.CONSUME(QuotedTok) }]);
      this.ACTION(() => words.push(t));
    });
    let semi: IToken | undefined;
    let open: IToken | undefined;
    let raw: IToken | undefined;
    let children: Directive[] = [];
    let close: IToken | undefined;
    this.OR2([
      { ALT: () => (semi = this.CONSUME(Semi)) },
      {
        ALT: () => {
          open = this.CONSUME(LBrace);
          children = this.SUBRULE(this.statements);
          close = this.OPTION1(() => this.CONSUME(RBrace));
        },
      },
      { ALT: () => (raw = this.CONSUME(RawBody)) },
      { ALT: () => undefined },
    ]);
    return this.ACTION(() => this.build(words, semi, open, children, close, raw)) as Directive;
  });

  private build(
    tokens: IToken[],
    semi: IToken | undefined,
    open: IToken | undefined,
    children: Directive[],
    close: IToken | undefined,
    raw: IToken | undefined,
  ): Directive {
    const words = tokens.map((t) => this.toWord(t));
    const nameWord = words[0];
    const last = words[words.length - 1];
    const d: Directive = {
      name: nameWord.value,
      nameStart: nameWord.start,
      nameEnd: nameWord.end,
      nameWord,
      args: words.slice(1),
      terminated: false,
      start: nameWord.start,
      end: last.end,
      entry: false,
    };
    if (semi) {
      d.terminated = true;
      d.semicolon = semi.startOffset;
      d.end = semi.startOffset + 1;
    } else if (open) {
      d.terminated = true;
      const block: Block = {
        start: open.startOffset,
        end: close ? close.startOffset + 1 : this.textLength,
        closed: !!close,
        children,
      };
      if (close) block.closeStart = close.startOffset;
      else this.err('eof', 'unexpected end of file, expecting "}"', this.textLength, this.textLength);
      d.block = block;
      d.end = block.end;
      if (ENTRY_BLOCKS.has(d.name)) markEntries(children);
    } else if (raw) {
      d.terminated = true;
      const closed = raw.payload !== false;
      const start = raw.startOffset;
      const end = start + raw.image.length;
      d.block = { start, end, closed, children: [] };
      if (closed) d.block.closeStart = end - 1;
      d.rawBody = { start: start + 1, end: closed ? end - 1 : end };
      d.end = end;
      if (!closed) this.err('eof', 'unexpected end of file, expecting "}"', this.textLength, this.textLength);
    } else {
      const next = this.LA(1);
      if (next.tokenType === RBrace) this.err('unexpected', 'unexpected "}"', next.startOffset, next.startOffset + 1);
      else this.err('eof', 'unexpected end of file, expecting ";" or "}"', this.textLength, this.textLength);
    }
    return d;
  }

  /** The whole file: statements, and a stray `}` reported and skipped. */
  file = this.RULE('file', (): Directive[] => {
    const all: Directive[] = [];
    this.MANY(() => {
      const part = this.SUBRULE(this.statements);
      this.ACTION(() => all.push(...part));
      const t = this.OPTION(() => this.CONSUME(RBrace));
      this.ACTION(() => {
        if (t) this.err('unexpected', 'unexpected "}"', t.startOffset, t.startOffset + 1);
      });
    });
    return all;
  });
}

function markEntries(list: Directive[]): void {
  for (const d of list) d.entry = true;
}

let parser: NginxParser | undefined;

/** Parses nginx configuration text. Never throws: problems become `errors`. */
export function parseNginx(text: string): NginxFile {
  try {
    return parseUnsafe(text);
  } catch (e) {
    // defensive: an internal failure must not take the editor down
    parser = undefined;
    return {
      text,
      directives: [],
      comments: [],
      errors: [{ kind: 'unexpected', message: `internal parser error: ${(e as Error).message}`, start: 0, end: 0 }],
    };
  }
}

function parseUnsafe(text: string): NginxFile {
  const lexed = getLexer().tokenize(text);
  const errors: NginxSyntaxError[] = [];
  for (const e of lexed.errors) errors.push({ kind: 'unexpected', message: e.message, start: e.offset, end: e.offset + e.length });
  const comments: Comment[] = (lexed.groups.comments ?? []).map((t) => ({
    text: t.image.slice(1),
    start: t.startOffset,
    end: t.startOffset + t.image.length,
  }));
  // quoted words must be followed by a separator (nginx: unexpected "x")
  const toks = lexed.tokens;
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    if (t.tokenType === QuotedTok) {
      if (t.payload === false) {
        errors.push({
          kind: 'unterminated-quote',
          message: `unterminated quoted string: nginx would read to the end of the file ("unexpected end of file")`,
          start: t.startOffset,
          end: t.startOffset + 1,
        });
        continue;
      }
      const endOff = t.startOffset + t.image.length;
      const c = text.charCodeAt(endOff);
      if (endOff < text.length && !isSpace(c) && c !== SEMI_CC && c !== LBRACE_CC && c !== 41 /* ) */) {
        errors.push({ kind: 'unexpected', message: `unexpected "${text[endOff]}"`, start: endOff, end: endOff + 1 });
      }
    }
  }
  parser ??= new NginxParser();
  parser.found = [];
  parser.textLength = text.length;
  parser.input = toks;
  const directives = parser.file();
  for (const e of parser.found) errors.push(e);
  for (const e of parser.errors) {
    const s = e.token.startOffset;
    errors.push({ kind: 'unexpected', message: e.message, start: Number.isNaN(s) ? text.length : s, end: Number.isNaN(s) ? text.length : s + 1 });
  }
  errors.sort((a, b) => a.start - b.start);
  return { text, directives, comments, errors };
}
