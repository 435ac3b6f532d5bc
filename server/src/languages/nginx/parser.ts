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

/**
 * A word as the parser makes it. `end`, `quote` and `closed` follow from the other fields (the
 * raw text starts with its quote, if any; the few words whose closing quote is missing are
 * `OpenWord`s), so each word holds three fields instead of six: on a config of 4,000 servers
 * (~100,000 words) that is 2.4 MB less to allocate, copy through the young generation and
 * page in (docs/benchmarks.md).
 */
class WordNode implements Word {
  constructor(
    readonly raw: string,
    readonly value: string,
    readonly start: number,
  ) {}

  get end(): number {
    return this.start + this.raw.length;
  }

  get quote(): QuoteKind {
    const c = this.raw.charCodeAt(0);
    return c === 34 ? 'double' : c === 39 ? 'single' : 'none';
  }

  get closed(): boolean {
    return true;
  }
}

/** A quoted word cut at its line end: its closing quote is missing. */
class OpenWord extends WordNode {
  override get closed(): boolean {
    return false;
  }
}

/**
 * A directive as the parser makes it. The name's end, the start and whether it is terminated
 * follow from the other fields (a `;` or a block ends it), so they are read through getters. The
 * name is kept as its text and offset, not as a word object: its `Word` is made when asked for
 * (a finding anchored on it, an entry's variables), which few are; on a config of 4,000 servers
 * that is 43,000 word objects (1.4 MB) less to keep, copy through the young generation and mark
 * (docs/benchmarks.md). A name whose closing quote is missing keeps its `OpenWord`.
 */
class DirectiveNode implements Directive {
  readonly name: string;
  /** The name as written (quotes and backslashes included). */
  readonly nameRaw: string;
  nameStart: number;
  /** The name's word when it is an `OpenWord` (its closing quote missing), else undefined. */
  readonly openName: Word | undefined;
  block: Block | undefined = undefined;
  rawBody: { start: number; end: number } | undefined = undefined;
  entry = false;

  constructor(
    nameWord: Word,
    readonly args: Word[],
    readonly semicolon: number | undefined,
    public end: number,
  ) {
    this.name = nameWord.value;
    this.nameRaw = nameWord.raw;
    this.nameStart = nameWord.start;
    this.openName = nameWord.closed ? undefined : nameWord;
  }

  /** A new word each time (equal, not identical) unless the name is an `OpenWord`. */
  get nameWord(): Word {
    return this.openName ?? new WordNode(this.nameRaw, this.name, this.nameStart);
  }

  get nameEnd(): number {
    return this.nameStart + this.nameRaw.length;
  }

  get start(): number {
    return this.nameStart;
  }

  get terminated(): boolean {
    return this.semicolon !== undefined || this.block !== undefined;
  }
}

/** A directive's name as written, without making its word. */
function nameRawOf(d: Directive): string {
  return d instanceof DirectiveNode ? d.nameRaw : d.nameWord.raw;
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;
const SEMI_CC = 59; // ;
const LBRACE_CC = 123; // {
const RBRACE_CC = 125; // }

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

// Token types (the parser's vocabulary). Like nginx's reader, which hands over one statement's
// words at a time, the tokenizer reads a statement's words in one go and makes its Directive:
// statements ended by `;` in a row become one `Simple` token (payload: their Directives); words
// ended by `{` one `Open` token (payload: the Directive, whose block the parser fills; the token's
// offset is the brace's); words ended otherwise (a raw Lua body, a stray `}`, the end of the file)
// one `Words` token, followed by that ending. The chevrotain grammar sees about three tokens per
// block and one per run of simple statements, not one per word.
const Semi = createToken({ name: 'Semi', pattern: Lexer.NA });
const RawBody = createToken({ name: 'RawBody', pattern: Lexer.NA });
const LBrace = createToken({ name: 'LBrace', pattern: Lexer.NA });
const RBrace = createToken({ name: 'RBrace', pattern: Lexer.NA });
const WordsTok = createToken({ name: 'Words', pattern: Lexer.NA });
const OpenTok = createToken({ name: 'Open', pattern: Lexer.NA });
const SimpleTok = createToken({ name: 'Simple', pattern: Lexer.NA });

const allTokens = [Semi, RawBody, LBrace, RBrace, WordsTok, OpenTok, SimpleTok];

/**
 * A token as chevrotain reads it: the fields its recognizer uses, all present in the same order
 * (one hidden class); no line/column (offsets are enough, and the tokens are thrown away after
 * the parse).
 */
function tok(tokenType: TokenType, image: string, startOffset: number, payload: unknown): IToken {
  return { image, startOffset, tokenTypeIdx: tokenType.tokenTypeIdx!, tokenType, payload };
}

interface Lexed {
  tokens: IToken[];
  comments: Comment[];
  /** Problems found while reading: an unterminated quote, a character glued to a closing quote. */
  errors: NginxSyntaxError[];
  /** With `stops`: the index of the one the reading stopped at, else -1 (read to the end). */
  stopped: number;
}

/** Whether `c` ends an unquoted word (nginx: whitespace, `;`, `{`). */
const endsWord = (c: number) => c === 32 || c === 10 || c === 9 || c === 13 || c === SEMI_CC || c === LBRACE_CC;

/**
 * One pass over the text: runs of words, `;` `{` `}`, raw Lua bodies and comments. Words are read
 * as ngx_conf_read_token does: an unquoted word ends at whitespace, `;` or `{` (`\` escapes, `${`
 * does not end it); a quoted word at its closing quote, or (without one before the end of the
 * file) at its line end; `#` starts a comment only at a word start; `}` is a token only there.
 */
function tokenize(text: string, from = 0, stops?: readonly number[]): Lexed {
  const tokens: IToken[] = [];
  const comments: Comment[] = [];
  const errors: NginxSyntaxError[] = [];
  const n = text.length;
  // the statement being read: its first word, its arguments, the index of its token
  let runName: Word | undefined;
  // arguments are gathered in one reused array and copied out at the statement's end: an array
  // grown by push keeps spare room (17 slots after the first push), an exact copy does not, and
  // on a big file those spare slots were a fifth of the tree's memory
  const runArgs: Word[] = [];
  const interned = new Map<string, string>();
  /**
   * Words ended by something else than `;` or `{`: their token carries their Directive to the
   * parser. A run's token is made when the run ends (nothing else can come between its first
   * word and its end), with its final type and payload: V8 optimizes the tokenizer for tokens
   * whose fields never change after they are made. The simple statements before it go first.
   */
  const endRun = (): void => {
    flush();
    if (runName) {
      const args = runArgs.slice();
      tokens.push(
        tok(
          WordsTok,
          runName.raw,
          runName.start,
          new DirectiveNode(runName, args, undefined, (args.length ? args[args.length - 1] : runName).end),
        ),
      );
    }
    runName = undefined;
  };
  // statements ended by `;` in a row, gathered into one `Simple` token (copied out at exact size)
  const simples: Directive[] = [];
  const flush = (): void => {
    if (!simples.length) return;
    tokens.push(tok(SimpleTok, nameRawOf(simples[0]), simples[0].start, simples.slice()));
    simples.length = 0;
  };
  let i = from;
  // `stops` (ascending): offsets where a statement of the previous tree begins; the reading ends at
  // the first one it reaches between two statements (no word of a statement read before it)
  let stop = -1;
  let nextStop = stops && stops.length ? stops[0] : n + 1;
  let si = 0;
  while (i < n) {
    if (i >= nextStop) {
      while (si < stops!.length && stops![si] < i) si++;
      nextStop = si < stops!.length ? stops![si] : n + 1;
      if (i === nextStop && runName === undefined) {
        stop = si;
        break;
      }
    }
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 9 || c === 13) {
      i++;
      continue;
    }
    if (c === 35) {
      // # comment, to the line end (a \r before \n excluded)
      let eol = text.indexOf('\n', i);
      if (eol < 0) eol = n;
      else if (text.charCodeAt(eol - 1) === 13) eol--;
      comments.push({ text: text.slice(i + 1, eol), start: i, end: eol });
      i = eol;
      continue;
    }
    if (c === SEMI_CC) {
      if (runName) {
        // the common case: `name args;` is a finished directive already
        const name = runName;
        simples.push(new DirectiveNode(name, runArgs.slice(), i, i + 1));
        runName = undefined;
      } else {
        flush();
        tokens.push(tok(Semi, ';', i, undefined));
      }
      i++;
      continue;
    }
    if (c === LBRACE_CC) {
      if (runName !== undefined && !isRawBlockName(runName.value)) {
        // `name args {`: the block's Directive, its end set when the parser has read the block
        flush();
        tokens.push(tok(OpenTok, runName.raw, i, new DirectiveNode(runName, runArgs.slice(), undefined, i + 1)));
        runName = undefined;
        i++;
        continue;
      }
      const raw = runName !== undefined;
      endRun();
      if (raw) {
        const r = scanLuaBody(text, i);
        tokens.push(tok(RawBody, text.slice(i, r.end), i, r.closed));
        i = r.end;
      } else {
        tokens.push(tok(LBrace, '{', i, undefined));
        i++;
      }
      continue;
    }
    if (c === RBRACE_CC) {
      endRun();
      tokens.push(tok(RBrace, '}', i, undefined));
      i++;
      continue;
    }
    let word: Word;
    if (c === 34 || c === 39) {
      // a quoted word
      let j = i + 1;
      let escaped = false;
      let closed = false;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === 92) {
          escaped = true;
          j += 2;
          continue;
        }
        if (d === c) {
          closed = true;
          break;
        }
        j++;
      }
      let end: number;
      if (closed) end = j + 1;
      else {
        let eol = text.indexOf('\n', i);
        if (eol < 0) eol = n;
        else if (eol > i && text.charCodeAt(eol - 1) === 13) eol--;
        end = Math.max(eol, i + 1);
        errors.push({
          kind: 'unterminated-quote',
          message: 'unterminated quoted string: nginx reads it to the end of the file',
          start: i,
          end: i + 1,
        });
      }
      const raw = text.slice(i, end);
      const inner = closed ? raw.slice(1, raw.length - 1) : raw.slice(1);
      word = closed
        ? new WordNode(raw, escaped ? unescapeBody(inner) : inner, i)
        : new OpenWord(raw, escaped ? unescapeBody(inner) : inner, i);
      if (closed && end < n) {
        // a quoted word must be followed by a separator (nginx: unexpected "x")
        const e = text.charCodeAt(end);
        if (!isSpace(e) && e !== SEMI_CC && e !== LBRACE_CC && e !== 41 /* ) */) {
          errors.push({ kind: 'unexpected', message: `unexpected "${text[end]}"`, start: end, end: end + 1 });
        }
      }
      i = end;
    } else {
      // an unquoted word
      let j = i;
      let escaped = false;
      let dollar = false;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === LBRACE_CC && dollar) {
          dollar = false;
          j++;
          continue;
        }
        dollar = false;
        if (d === 92) {
          escaped = true;
          j += 2; // backslash: the next character is taken as is
          continue;
        }
        if (d === 36) {
          dollar = true;
          j++;
          continue;
        }
        if (endsWord(d)) break;
        j++;
      }
      const end = j < n ? j : n;
      let raw = text.slice(i, end);
      if (raw.length <= 40) {
        const known = interned.get(raw);
        if (known === undefined) interned.set(raw, raw);
        else raw = known;
      }
      word = new WordNode(raw, escaped ? unescapeBody(raw) : raw, i);
      i = end;
    }
    if (runName) runArgs.push(word);
    else {
      runName = word;
      runArgs.length = 0;
    }
  }
  endRun();
  return { tokens, comments, errors, stopped: stop };
}

/** `\"` `\'` `\\` `\t` `\r` `\n` unescaped; any other backslash stays as written. */
function unescapeBody(s: string): string {
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

/**
 * The grammar (LL(1), every stray token has its own alternative, so no recovery is needed):
 *   file       := (statements "}"?)*            a stray "}" is reported and skipped
 *   statements := (simple | block | statement | ";" | "{" statements "}"?)*
 *   simple     := statements ended by ";" (one token: the tokenizer built their Directives)
 *   block      := open statements "}"?       open: a statement's words and its "{"
 *   statement  := words rawBody?             no raw body: unterminated
 * Alternatives and loop bodies are created once (fields), not per call: on big files the
 * parser then allocates little besides the AST.
 */
class NginxParser extends EmbeddedActionsParser {
  found: NginxSyntaxError[] = [];
  textLength = 0;
  private lists: Directive[][] = [];
  private fileAll: Directive[] = [];

  constructor() {
    super(allTokens, { recoveryEnabled: false, skipValidations: true });
    this.performSelfAnalysis();
  }

  private err(kind: NginxSyntaxError['kind'], message: string, start: number, end: number): void {
    this.found.push({ kind, message, start, end });
  }

  private readonly consumeClose = (): IToken => this.CONSUME(RBrace);

  private readonly stmtAlts = [
    {
      ALT: (): void => {
        const t = this.CONSUME(SimpleTok);
        if (!this.RECORDING_PHASE) {
          const list = this.lists[this.lists.length - 1];
          const run = t.payload as Directive[];
          for (let k = 0; k < run.length; k++) list.push(run[k]);
        }
      },
    },
    {
      ALT: (): void => {
        const d = this.SUBRULE(this.block);
        if (!this.RECORDING_PHASE) this.lists[this.lists.length - 1].push(d);
      },
    },
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
          this.err('unexpected', NAMELESS_BLOCK, t.startOffset, t.startOffset + 1);
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

  /** A block directive: its words and `{` (one token), its body, its `}` (missing at the end of the file). */
  private block = this.RULE('block', (): Directive => {
    const open = this.CONSUME(OpenTok);
    const children = this.SUBRULE1(this.statements);
    const close = this.OPTION1(this.consumeClose);
    if (this.RECORDING_PHASE) return undefined as unknown as Directive;
    const d = open.payload as DirectiveNode;
    const block: Block = {
      start: open.startOffset,
      end: close ? close.startOffset + 1 : this.textLength,
      closeStart: close ? close.startOffset : undefined,
      closed: !!close,
      children: children.slice(),
    };
    if (!close) this.err('eof', 'unexpected end of file, expecting "}"', this.textLength, this.textLength);
    d.block = block;
    d.end = block.end;
    if (ENTRY_BLOCKS.has(d.name)) markEntries(block.children);
    return d;
  });

  private readonly consumeRaw = (): IToken => this.CONSUME(RawBody);

  /** Words ended by a raw Lua body, or by nothing that ends a statement (unterminated). */
  private statement = this.RULE('statement', (): Directive => {
    const words = this.CONSUME(WordsTok);
    const raw = this.OPTION3(this.consumeRaw);
    if (this.RECORDING_PHASE) return undefined as unknown as Directive;
    const d = words.payload as DirectiveNode;
    if (raw) {
      const closed = raw.payload !== false;
      const start = raw.startOffset;
      const end = start + raw.image.length;
      d.block = { start, end, closeStart: closed ? end - 1 : undefined, closed, children: [] };
      d.rawBody = { start: start + 1, end: closed ? end - 1 : end };
      d.end = end;
      if (!closed) this.err('eof', 'unexpected end of file, expecting "}"', this.textLength, this.textLength);
    } else {
      const next = this.LA(1);
      if (next.tokenType === RBrace) this.err('unexpected', 'unexpected "}"', next.startOffset, next.startOffset + 1);
      else this.err('eof', 'unexpected end of file, expecting ";" or "}"', this.textLength, this.textLength);
    }
    return d;
  });

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

  /** Drops what the last parse left behind: its tokens, errors and top-level list. */
  release(): void {
    this.input = [];
    this.found = [];
    this.fileAll = [];
  }
}

function markEntries(list: Directive[]): void {
  for (const d of list) d.entry = true;
}

let parser: NginxParser | undefined;

/**
 * Where a re-parse starts reading (`at`), and what stands for the text before it: the reused
 * statements as ready-made tokens, the enclosing blocks' openings, the comments.
 */
interface Resume {
  at: number;
  tokens: IToken[];
  comments: Comment[];
  /** The statements after the change that may be taken over (see tailAfter). */
  tail?: Tail;
}

/**
 * Parses `text`, an edit of the text `prev` was parsed from, reusing what lies wholly before the
 * first changed character; the result is what `parseNginx(text)` returns (test/nginx/reparse.test.ts
 * holds the two equal over random edits of every corpus file). nginx's reader never looks past a
 * statement's own end, so a statement that ends before the change reads the same in both texts and
 * its Directive (block and all) is taken over as it is; the blocks that enclose the change are
 * opened again from their unchanged headers and read on from where their last untouched child ends.
 * The reading stops again at the first statement of the common tail it reaches between two
 * statements, inside the block that held it: from there on the text reads as before, so those
 * statements, the enclosing blocks' closing braces and what follows each are the previous tree's,
 * moved in place (tailAfter). Typing in the middle of a file then reads the statement being typed,
 * not half of the file (docs/benchmarks.md). A previous parse with a syntax error before the change
 * is not reused, nor its tail when it has an error there (its recovery depends on what follows).
 */
export function reparseNginx(prev: NginxFile, text: string): NginxFile {
  // a tree is re-parsed once: its successor may hold some of its statements, moved in place
  const done = successors.get(prev);
  if (done !== undefined) {
    const next = done.deref();
    return next !== undefined && next.text === text && !successors.has(next) ? next : parseNginx(text);
  }
  const out = reparseFrom(prev, text);
  successors.set(prev, new WeakRef(out));
  return out;
}

/**
 * Per tree, the tree its re-parse made (weakly). The re-parse takes over the statements after the
 * change and moves them in place (their offsets become the new text's), so the older tree no
 * longer matches its own text: asked again for the same text it answers with that successor (the
 * server's parse cache and workspace index both re-parse the same version), for any other text
 * it parses afresh.
 */
const successors = new WeakMap<NginxFile, WeakRef<NginxFile>>();

const CHUNK = 2048;

/** The error of a block without a directive name (the grammar keeps its statements at the level around it). */
const NAMELESS_BLOCK = 'unexpected "{"';

function reparseFrom(prev: NginxFile, text: string): NginxFile {
  const old = prev.text;
  const max = Math.min(old.length, text.length);
  // the common head, then the common tail not reaching into it: a chunk at a time first (a
  // comparison of two slices is a memory compare), then character by character
  let same = 0;
  while (same + CHUNK <= max && old.substring(same, same + CHUNK) === text.substring(same, same + CHUNK)) same += CHUNK;
  while (same < max && old.charCodeAt(same) === text.charCodeAt(same)) same++;
  let tail = 0;
  const tailMax = max - same;
  const ol = old.length;
  const nl = text.length;
  while (tail + CHUNK <= tailMax && old.substring(ol - tail - CHUNK, ol - tail) === text.substring(nl - tail - CHUNK, nl - tail))
    tail += CHUNK;
  while (tail < tailMax && old.charCodeAt(ol - 1 - tail) === text.charCodeAt(nl - 1 - tail)) tail++;
  const tokens: IToken[] = [];
  let list = prev.directives;
  let at = 0;
  /** The blocks opened again, outermost first, and the index in its list of each one's directive. */
  const path: Directive[] = [];
  const pathIndex: number[] = [];
  let lo = 0;
  for (;;) {
    // the leading children that end before the first change (siblings never overlap)
    lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid].end <= same) lo = mid + 1;
      else hi = mid;
    }
    // a statement whose end was decided by what follows it (one left unterminated, a block left
    // open) is read again, and so is everything after it
    for (let k = 0; k < lo; k++) {
      if (!complete(list[k])) {
        lo = k;
        break;
      }
    }
    if (lo > 0) tokens.push(tok(SimpleTok, nameRawOf(list[0]), list[0].start, list.slice(0, lo)));
    if (lo > 0) at = list[lo - 1].end;
    const d = list[lo];
    const b = d?.block;
    if (!d || !b || d.rawBody || b.start >= same) break;
    // the change is inside this block's body: open it again and go on among its children
    // a new Directive for the block (the statements before the change stay as they were)
    tokens.push(tok(OpenTok, nameRawOf(d), b.start, new DirectiveNode(d.nameWord, d.args, undefined, b.start + 1)));
    path.push(d);
    pathIndex.push(lo);
    list = b.children;
    at = b.start + 1;
  }
  if (at === 0 || prev.errors.some((e) => e.start < at)) return parseNginx(text);
  const comments: Comment[] = [];
  for (const c of prev.comments) {
    if (c.start >= at) break;
    comments.push(c);
  }
  const resume: Resume = { at, tokens, comments };
  const moved = tailAfter(prev, path, pathIndex, list, lo, old.length - tail, text.length - old.length);
  if (moved) resume.tail = moved;
  try {
    return parseUnsafe(text, resume);
  } catch {
    parser = undefined; // as in parseNginx: a parser that failed midway is not reused
    return parseNginx(text);
  }
}

/**
 * The statements after the change that the re-parse may take over: those that begin in the
 * common tail of the two texts (from `from` in the old text), at the level of the change or of any
 * block enclosing it, once the previous tree has no error from there on (a statement there was
 * complete, and read as it will be read again). nginx's reader keeps nothing from one statement to
 * the next, so when the reading of the changed text reaches one of their beginnings between two
 * statements, the rest of the text reads as before, moved by `delta`: the statements themselves,
 * the closing braces of the enclosing blocks and the statements after each of those. Undefined
 * when there is nothing to take over.
 */
function tailAfter(
  prev: NginxFile,
  path: readonly Directive[],
  pathIndex: readonly number[],
  inner: readonly Directive[],
  innerFrom: number,
  from: number,
  delta: number,
): Tail | undefined {
  if (from >= prev.text.length) return undefined;
  // an error in the tail: its statements may not read as before. A block without a name before
  // it (reported at its `{`): the tree keeps its statements but not its braces, so its `}`, in
  // the tail, would be missing from what the tree stands for.
  for (const e of prev.errors) if (e.start >= from || (e.kind === 'unexpected' && e.message === NAMELESS_BLOCK)) return undefined;
  // per level, innermost first: the first statement starting in the tail (its offset in the new text)
  const stops: number[] = [];
  const levels: { list: readonly Directive[]; first: number }[] = [];
  for (let level = path.length; level >= 0; level--) {
    const list = level === path.length ? inner : level === 0 ? prev.directives : path[level - 1].block!.children;
    let k = level === path.length ? innerFrom : pathIndex[level] + 1;
    while (k < list.length && list[k].start < from) k++;
    // every enclosing block is closed here (no error after `from`); its brace lies in the tail or the reading reaches it anyway
    levels.push({ list, first: k });
    for (let j = k; j < list.length; j++) stops.push(list[j].start + delta);
  }
  if (!stops.length) return undefined;
  // the stops are in text order already: a level's statements all lie before its block's `}`, which lies before the outer level's next statement
  return { stops, levels, path, delta, prevComments: prev.comments };
}

/** What lies after the change, for parseUnsafe: where the reading may stop, and what then follows. */
interface Tail {
  stops: number[];
  /** Innermost first: each level's statements and the first that lies in the tail. */
  levels: { list: readonly Directive[]; first: number }[];
  path: readonly Directive[];
  delta: number;
  prevComments: readonly Comment[];
}

/** Moves a statement (its words, its block and everything in it) by `delta`, in place. */
function moveDirective(d: Directive, delta: number): void {
  const node = d as DirectiveNode as unknown as {
    end: number;
    semicolon: number | undefined;
    block: Block | undefined;
    rawBody?: { start: number; end: number };
  };
  if (d instanceof DirectiveNode) {
    d.nameStart += delta;
    if (d.openName !== undefined) (d.openName as { start: number }).start += delta;
  } else (d.nameWord as { start: number }).start += delta;
  const args = d.args;
  for (let i = 0; i < args.length; i++) (args[i] as { start: number }).start += delta;
  if (node.semicolon !== undefined) node.semicolon += delta;
  node.end += delta;
  const b = node.block;
  if (b !== undefined) {
    b.start += delta;
    b.end += delta;
    if (b.closeStart !== undefined) b.closeStart += delta;
    const ch = b.children;
    for (let i = 0; i < ch.length; i++) moveDirective(ch[i], delta);
  }
  if (node.rawBody !== undefined) {
    node.rawBody.start += delta;
    node.rawBody.end += delta;
  }
}

/** Ended by its own `;`, or by the `}` of its block or raw body. */
function complete(d: Directive): boolean {
  return d.terminated && (!d.block || d.block.closed);
}

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

function parseUnsafe(text: string, resume?: Resume): NginxFile {
  const tail = resume?.tail;
  const lexed = tokenize(text, resume ? resume.at : 0, tail?.stops);
  let level = 0;
  let skip = lexed.stopped;
  if (tail && lexed.stopped >= 0) {
    const levels = tail.levels;
    while (skip >= levels[level].list.length - levels[level].first) {
      skip -= levels[level].list.length - levels[level].first;
      level++;
    }
    // the statement reached is taken over only inside the block it was in: the changed text
    // closed the blocks between (their braces were read) and no other (a statement's `entry`
    // depends on its block)
    let depth = 0;
    let least = 0;
    const read = lexed.tokens;
    for (let k = 0; k < read.length; k++) {
      const t = read[k].tokenType;
      if (t === OpenTok || t === LBrace) depth++;
      else if (t === RBrace && --depth < least) least = depth;
    }
    if (depth !== -level || least < -level) {
      // read on to the end instead
      const rest = tokenize(text, tail.stops[lexed.stopped]);
      for (const t of rest.tokens) lexed.tokens.push(t);
      for (const c of rest.comments) lexed.comments.push(c);
      for (const e of rest.errors) lexed.errors.push(e);
      lexed.stopped = -1;
    }
  }
  const errors = lexed.errors;
  const comments = resume ? resume.comments.concat(lexed.comments) : lexed.comments;
  const input = resume ? resume.tokens.concat(lexed.tokens) : lexed.tokens;
  if (tail && lexed.stopped >= 0) {
    // the reading reached a statement of the previous tree between two statements: the rest of
    // the text is the previous tree's, moved
    const { levels, path, delta } = tail;
    for (; level < levels.length; level++) {
      const { list, first } = levels[level];
      const from = first + skip;
      skip = 0;
      if (from < list.length) {
        const run = list.slice(from);
        for (let k = 0; k < run.length; k++) moveDirective(run[k], delta);
        input.push(tok(SimpleTok, nameRawOf(run[0]), run[0].start, run));
      }
      // the closing brace of the block this level is the body of
      const owner = path[path.length - 1 - level];
      if (owner !== undefined) input.push(tok(RBrace, '}', owner.block!.closeStart! + delta, undefined));
    }
    // the comments from where the reading stopped on (those before it were read again)
    const stopOld = tail.stops[lexed.stopped] - delta;
    const prevComments = tail.prevComments;
    let c = prevComments.length;
    while (c > 0 && prevComments[c - 1].start >= stopOld) c--;
    if (c < prevComments.length) {
      // `comments` is this parse's own array (a tail comes with a resume: the concat above)
      for (let k = c; k < prevComments.length; k++) {
        const m = prevComments[k] as { start: number; end: number };
        m.start += delta;
        m.end += delta;
        comments.push(prevComments[k]);
      }
    }
  }
  parser ??= new NginxParser();
  parser.found = [];
  parser.textLength = text.length;
  parser.input = input;
  const directives = parser.file();
  for (const e of parser.found) errors.push(e);
  for (const e of parser.errors) {
    const s = e.token.startOffset;
    errors.push({
      kind: 'unexpected',
      message: e.message,
      start: Number.isNaN(s) ? text.length : s,
      end: Number.isNaN(s) ? text.length : s + 1,
    });
  }
  parser.release(); // keep nothing of this parse alive in the parser (the editor re-parses on every edit)
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
