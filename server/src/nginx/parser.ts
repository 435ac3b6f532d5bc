// The nginx tokenizer and parser. The tokenizer reproduces nginx's reader
// (ngx_conf_read_token) in one pass: which characters end a word depends on where the word
// started (quotes and `#` count only at a word start, `${` does not end a word, `}` closes a
// block only at a word start). The chevrotain parser groups the tokens into directives and
// blocks; its grammar is LL(1) with an explicit alternative for every stray token, so it never
// needs chevrotain's re-sync recovery: errors are recorded where nginx would report them and
// parsing goes on.
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

// Token types (the parser's vocabulary). The tokenizer below produces them in one pass, the
// way nginx's reader does; the chevrotain parser consumes them.
const Semi = createToken({ name: 'Semi', pattern: Lexer.NA });
const RawBody = createToken({ name: 'RawBody', pattern: Lexer.NA });
const LBrace = createToken({ name: 'LBrace', pattern: Lexer.NA });
const RBrace = createToken({ name: 'RBrace', pattern: Lexer.NA });
const QuotedTok = createToken({ name: 'Quoted', pattern: Lexer.NA });
const WordTok = createToken({ name: 'Word', pattern: Lexer.NA });

const allTokens = [Semi, RawBody, LBrace, RBrace, QuotedTok, WordTok];

function tok(tokenType: TokenType, image: string, startOffset: number, payload?: unknown): IToken {
  const t = {
    image,
    startOffset,
    endOffset: startOffset + image.length - 1,
    tokenType,
    tokenTypeIdx: tokenType.tokenTypeIdx!,
    startLine: NaN,
    startColumn: NaN,
    endLine: NaN,
    endColumn: NaN,
  } as IToken;
  if (payload !== undefined) t.payload = payload;
  return t;
}

interface Lexed {
  tokens: IToken[];
  comments: Comment[];
}

/** One pass over the text: words, quoted words, `;` `{` `}`, raw Lua bodies and comments. */
function tokenize(text: string): Lexed {
  const tokens: IToken[] = [];
  const comments: Comment[] = [];
  const n = text.length;
  let i = 0;
  let stmtStart = 0; // index in `tokens` of the first word of the statement being read
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === 35) {
      const m = matchComment(text, i)!;
      comments.push({ text: m[0].slice(1), start: i, end: i + m[0].length });
      i += m[0].length;
      continue;
    }
    if (c === SEMI_CC) {
      tokens.push(tok(Semi, ';', i));
      i++;
      stmtStart = tokens.length;
      continue;
    }
    if (c === LBRACE_CC) {
      const first = tokens[stmtStart];
      if (first && stmtStart < tokens.length && isRawBlockName(unescape(first.image, quoteOf(first.image)))) {
        const r = scanLuaBody(text, i);
        tokens.push(tok(RawBody, text.slice(i, r.end), i, r.closed));
        i = r.end;
      } else {
        tokens.push(tok(LBrace, '{', i));
        i++;
      }
      stmtStart = tokens.length;
      continue;
    }
    if (c === RBRACE_CC) {
      tokens.push(tok(RBrace, '}', i));
      i++;
      stmtStart = tokens.length;
      continue;
    }
    if (c === 34 || c === 39) {
      const m = matchQuoted(text, i)!;
      tokens.push(tok(QuotedTok, m[0], i, m.payload));
      i += m[0].length;
      continue;
    }
    const m = matchWord(text, i)!;
    tokens.push(tok(WordTok, m[0], i));
    i += m[0].length;
  }
  return { tokens, comments };
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

type Term =
  | { k: 'semi'; t: IToken }
  | { k: 'block'; open: IToken; children: Directive[]; close: IToken | undefined }
  | { k: 'raw'; t: IToken }
  | undefined;

/**
 * The grammar (LL(1), every stray token has its own alternative, so no recovery is needed):
 *   file       := (statements "}"?)*            a stray "}" is reported and skipped
 *   statements := (statement | ";" | "{" statements "}"?)*
 *   statement  := word+ (";" | "{" statements "}"? | rawBody | <nothing: unterminated>)
 * Alternatives and loop bodies are created once (fields), not per call: on big files the
 * parser then allocates little besides the AST.
 */
class NginxParser extends EmbeddedActionsParser {
  found: NginxSyntaxError[] = [];
  textLength = 0;
  private lists: Directive[][] = [];
  private wordLists: IToken[][] = [];
  private fileAll: Directive[] = [];

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

  private readonly consumeClose = (): IToken => this.CONSUME(RBrace);

  private readonly stmtAlts = [
    {
      ALT: (): void => {
        const d = this.SUBRULE(this.statement);
        if (!this.RECORDING_PHASE) this.lists[this.lists.length - 1].push(d);
      },
    },
    {
      ALT: (): void => {
        const t = this.CONSUME(Semi);
        if (!this.RECORDING_PHASE) this.err('unexpected', 'unexpected ";"', t.startOffset, t.startOffset + 1);
      },
    },
    {
      ALT: (): void => {
        // a block without a directive name: report it, keep its content at this level
        const t = this.CONSUME(LBrace);
        const inner = this.SUBRULE(this.statements);
        const close = this.OPTION(this.consumeClose);
        if (!this.RECORDING_PHASE) {
          this.err('unexpected', 'unexpected "{"', t.startOffset, t.startOffset + 1);
          this.lists[this.lists.length - 1].push(...inner);
          if (!close) this.err('eof', 'unexpected end of file, expecting "}"', this.textLength, this.textLength);
        }
      },
    },
  ];

  private readonly stmtIter = (): void => this.OR(this.stmtAlts);

  /** Statements until `}` or the end of the input. */
  private statements = this.RULE('statements', (): Directive[] => {
    const list: Directive[] = [];
    if (!this.RECORDING_PHASE) this.lists.push(list);
    this.MANY(this.stmtIter);
    if (!this.RECORDING_PHASE) this.lists.pop();
    return list;
  });

  private readonly wordAlts = [{ ALT: (): IToken => this.CONSUME(WordTok) }, { ALT: (): IToken => this.CONSUME(QuotedTok) }];

  private readonly wordIter = (): void => {
    const t = this.OR1(this.wordAlts);
    if (!this.RECORDING_PHASE) this.wordLists[this.wordLists.length - 1].push(t);
  };

  private readonly termAlts = [
    { ALT: (): Term => ({ k: 'semi', t: this.CONSUME(Semi) }) },
    {
      ALT: (): Term => {
        const open = this.CONSUME(LBrace);
        const children = this.SUBRULE(this.statements);
        const close = this.OPTION1(this.consumeClose);
        return { k: 'block', open, children, close };
      },
    },
    { ALT: (): Term => ({ k: 'raw', t: this.CONSUME(RawBody) }) },
    { ALT: (): Term => undefined },
  ];

  private statement = this.RULE('statement', (): Directive => {
    const words: IToken[] = [];
    if (!this.RECORDING_PHASE) this.wordLists.push(words);
    this.AT_LEAST_ONE(this.wordIter);
    if (!this.RECORDING_PHASE) this.wordLists.pop();
    const term = this.OR2(this.termAlts);
    if (this.RECORDING_PHASE) return undefined as unknown as Directive;
    return this.build(words, term);
  });

  private build(tokens: IToken[], term: Term): Directive {
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
    if (term?.k === 'semi') {
      d.terminated = true;
      d.semicolon = term.t.startOffset;
      d.end = term.t.startOffset + 1;
    } else if (term?.k === 'block') {
      const { open, close, children } = term;
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
    } else if (term?.k === 'raw') {
      const raw = term.t;
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

  private readonly fileIter = (): void => {
    const part = this.SUBRULE(this.statements);
    const t = this.OPTION2(this.consumeClose);
    if (!this.RECORDING_PHASE) {
      for (const d of part) this.fileAll.push(d);
      if (t) this.err('unexpected', 'unexpected "}"', t.startOffset, t.startOffset + 1);
    }
  };

  /** The whole file: statements, and a stray `}` reported and skipped. */
  file = this.RULE('file', (): Directive[] => {
    const all: Directive[] = [];
    if (!this.RECORDING_PHASE) this.fileAll = all;
    this.MANY1(this.fileIter);
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
  const lexed = tokenize(text);
  const errors: NginxSyntaxError[] = [];
  const comments = lexed.comments;
  // quoted words must be followed by a separator (nginx: unexpected "x")
  const toks = lexed.tokens;
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    if (t.tokenType === QuotedTok) {
      if (t.payload === false) {
        errors.push({
          kind: 'unterminated-quote',
          message: 'unterminated quoted string: nginx reads it to the end of the file',
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
  // nginx reads an unclosed quote to the end of the file and reports only that; the recovered
  // tree (quote cut at its line end) keeps serving the editor, but its follow-up errors are ours
  const open = errors.find((e) => e.kind === 'unterminated-quote');
  if (open) {
    const kept = errors.filter((e) => e.start <= open.start);
    kept.push({ kind: 'eof', message: 'unexpected end of file, expecting ";" or "}"', start: text.length, end: text.length });
    return { text, directives, comments, errors: kept };
  }
  return { text, directives, comments, errors };
}
