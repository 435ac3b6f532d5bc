// Error-tolerant, line-oriented HAProxy parser. A chevrotain lexer splits the text into words,
// comments and line ends the way HAProxy's own line reader does (quotes join pieces into one
// word, `#` outside quotes starts a comment, backslashes escape); a chevrotain parser groups the
// tokens into lines; the lines are then folded into sections and statements, with conditions,
// ACL declarations and sample expressions picked apart. `parseHaproxy` never throws.
import { createToken, EmbeddedActionsParser, Lexer, type IToken } from 'chevrotain';
import {
  CONDITION_KEYWORDS,
  KEYWORD_FAMILIES,
  SECTION_KEYWORDS,
  type AclDecl,
  type Comment,
  type CondTerm,
  type Condition,
  type HaproxyFile,
  type SampleConverter,
  type SampleExpr,
  type Section,
  type Statement,
  type SyntaxIssue,
  type Word,
} from './ast';
import { recordSections, recordSuccessor, reparsedBefore, sectionsInPlace, successorOf } from './sectionMatch';

// The tree's nodes are small classes rather than object literals, as the nginx tree's are: what
// follows from other fields is a getter on the prototype (a word's `end`, `value` and `quoted`
// when it has no quote or backslash; a statement's `type`, `prefix`, `sub`, `start` and `end`; a
// section's keyword, name and header offsets), every node of a kind has the same fields in the
// same order (one hidden class, nothing in an out-of-object property store), arrays are copied
// at their exact size (an array grown by push keeps up to 17 spare slots) and empty ones are one
// shared frozen array. They satisfy the interfaces of ast.ts every module codes against; only
// validation writes to the tree (`Statement.disabled`). docs/benchmarks.md ("Design notes") has the figures.

/** Shared by every node with nothing in a list (frozen: a caller writing to it fails loudly). */
const EMPTY: never[] = Object.freeze([]) as unknown as never[];

/** A word without quotes or backslashes: its value is its raw text (most words). */
class WordNode implements Word {
  constructor(
    readonly raw: string,
    public start: number,
  ) {}

  get end(): number {
    return this.start + this.raw.length;
  }

  get value(): string {
    return this.raw;
  }

  get quoted(): boolean {
    return false;
  }
}

/** A word with a quote or a backslash: its value is unquoted, and may name environment variables. */
class EscapedWord implements Word {
  constructor(
    readonly raw: string,
    public start: number,
    readonly value: string,
    readonly quoted: boolean,
    readonly envVars: string[] | undefined,
    readonly unterminated: true | undefined,
  ) {}

  get end(): number {
    return this.start + this.raw.length;
  }
}

/** A line's statement: its keyword is `words[0]`, or `words[1]` after a `no`/`default` prefix. */
class StatementNode implements Statement {
  /** Written by validation only (lines in a false `.if` block); cleared and recomputed on each run. */
  disabled: boolean | undefined = undefined;

  constructor(
    public line: number,
    readonly keyword: Word | undefined,
    readonly words: Word[],
    readonly args: Word[],
    readonly samples: SampleExpr[],
    readonly condition: Condition | undefined,
    readonly acl: AclDecl | undefined,
    readonly comment: Comment | undefined,
  ) {}

  get type(): 'statement' {
    return 'statement';
  }

  get prefix(): Word | undefined {
    const w0 = this.words[0];
    return w0 !== this.keyword ? w0 : undefined;
  }

  get sub(): Word | undefined {
    const k = this.keyword;
    return k !== undefined && this.args.length > 0 && KEYWORD_FAMILIES.has(k.value) ? this.args[0] : undefined;
  }

  get start(): number {
    const w = this.words;
    return w.length ? w[0].start : (this.comment?.start ?? 0);
  }

  get end(): number {
    const w = this.words;
    return w.length ? w[w.length - 1].end : (this.comment?.end ?? 0);
  }
}

/** A section: its header line and the statements up to the next header. */
class SectionNode implements Section {
  /** Filled when the section is closed (the next header, or the end of the text). */
  statements: Statement[] = EMPTY;
  comments: Comment[] = EMPTY;

  constructor(
    readonly header: Statement,
    public bodyStart: number,
    public bodyEnd: number,
  ) {}

  get type(): 'section' {
    return 'section';
  }

  get keyword(): string {
    return this.header.keyword!.value;
  }

  get name(): Word | undefined {
    return this.header.args[0];
  }

  get headerStart(): number {
    return this.header.start;
  }

  get headerEnd(): number {
    const h = this.header;
    return h.comment ? h.comment.end : h.end;
  }

  get start(): number {
    return this.header.start;
  }

  get end(): number {
    return Math.max(this.headerEnd, this.bodyEnd);
  }
}

/** A sample expression; `unclosed` and `malformed` may be set while the expression is read. */
class SampleNode implements SampleExpr {
  unclosed: true | undefined = undefined;
  malformed: string | undefined = undefined;

  constructor(
    readonly fetch: string,
    public fetchEnd: number,
    readonly args: string[],
    public converters: SampleConverter[],
    public start: number,
    public end: number,
  ) {}
}

/** One term of a condition: a named ACL (`name`, `nameWord`) or an anonymous one (`words`, `sample`, `unclosed`). */
class TermNode implements CondTerm {
  constructor(
    readonly kind: 'acl' | 'anonymous',
    readonly negated: boolean,
    readonly name: string | undefined,
    readonly nameWord: Word | undefined,
    readonly words: Word[] | undefined,
    readonly sample: SampleExpr | undefined,
    readonly unclosed: true | undefined,
    public start: number,
    public end: number,
  ) {}
}

class ConditionNode implements Condition {
  constructor(
    readonly keywordWord: Word,
    readonly groups: CondTerm[][],
    readonly terms: CondTerm[],
    readonly words: Word[],
  ) {}

  get keyword(): 'if' | 'unless' {
    return this.keywordWord.value as 'if' | 'unless';
  }

  get start(): number {
    return this.words[0].start;
  }

  get end(): number {
    return this.words[this.words.length - 1].end;
  }
}

class AclNode implements AclDecl {
  constructor(
    readonly name: Word,
    readonly criterion: Word | undefined,
    readonly sample: SampleExpr | undefined,
    readonly rest: Word[],
  ) {}
}

/** `list` at its exact size: the shared empty array, or a copy without spare slots. */
function exact<T>(list: T[]): T[] {
  return list.length ? list.slice() : EMPTY;
}

// The tokenizer reads the text line by line as HAProxy's line reader does and hands the parser one
// token per non-empty line, its words and comment already built (its payload): a `Header` for a
// line that opens a section (`global`, `frontend NAME`, ...), a `Line` for any other. Within a
// line: blanks separate words; quotes join pieces into one word (a quote left open runs to the
// end of the line: an error reported later); a backslash escapes the next character unless the
// line ends; `#` outside quotes starts a comment. The chevrotain grammar folds the lines into
// sections.
const HeaderTok = createToken({ name: 'Header', pattern: Lexer.NA });
const LineTok = createToken({ name: 'Line', pattern: Lexer.NA });
const allTokens = [HeaderTok, LineTok];

/** One line's content. */
interface RawLine {
  words: Word[];
  comment: Comment | undefined;
  /** 0-based line number. */
  line: number;
}

/** A token as chevrotain reads it (same fields, same order for every token). */
function lineToken(header: boolean, startOffset: number, payload: RawLine): IToken {
  const t = header ? HeaderTok : LineTok;
  return { image: '', startOffset, tokenTypeIdx: t.tokenTypeIdx!, tokenType: t, payload };
}

const isBlank = (c: number) => c === 32 || c === 9 || c === 12 || c === 11;

/** Splits the text into line tokens; fills `lineStarts` (offset of every line) on the way. */
function tokenizeLines(text: string, lineStarts: number[], from = 0, to = text.length): IToken[] {
  const tokens: IToken[] = [];
  // `to` is a line start (or the end of the text): every line ends before it
  const n = to;
  // `from` is a line start: the line it begins (lineStarts already holds it and those before)
  let i = from;
  let line = lineStarts.length - 1;
  // a line's words are gathered in one reused array and copied out at exact size (an array
  // grown by push keeps spare slots: on a 50k-line file, megabytes of them)
  const words: Word[] = [];
  let comment: Comment | undefined;
  const endLine = (): void => {
    if (words.length || comment) {
      const first = words.length ? words[0] : comment!;
      const w0 = words[0];
      const header = w0 !== undefined && !w0.quoted && Object.prototype.hasOwnProperty.call(SECTION_KEYWORDS, w0.value);
      tokens.push(lineToken(header, first.start, { words: words.slice(), comment, line }));
      words.length = 0;
      comment = undefined;
    }
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) {
      endLine();
      i += c === 13 && text.charCodeAt(i + 1) === 10 ? 2 : 1;
      lineStarts.push(i);
      line++;
      continue;
    }
    if (isBlank(c)) {
      i++;
      continue;
    }
    if (c === 35) {
      let j = i + 1;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (d === 10 || d === 13) break;
        j++;
      }
      comment = { start: i, end: j, text: text.slice(i + 1, j) };
      i = j;
      continue;
    }
    // a word
    const start = i;
    let special = false; // a quote or a backslash: the value needs unquoting
    while (i < n) {
      const d = text.charCodeAt(i);
      if (isBlank(d) || d === 10 || d === 13 || d === 35) break;
      if (d === 92) {
        special = true;
        const e = text.charCodeAt(i + 1);
        i += e === 10 || e === 13 || Number.isNaN(e) ? 1 : 2;
      } else if (d === 34 || d === 39) {
        special = true;
        i++;
        while (i < n) {
          const q = text.charCodeAt(i);
          if (q === 10 || q === 13) break;
          if (q === d) {
            i++;
            break;
          }
          if (q === 92 && d === 34 && i + 1 < n && text.charCodeAt(i + 1) !== 10 && text.charCodeAt(i + 1) !== 13) i += 2;
          else i++;
        }
      } else i++;
    }
    words.push(toWord(text.slice(start, i), start, special));
  }
  endLine();
  return tokens;
}

/** HAProxy's unquoting: single quotes keep everything, double quotes and bare text resolve escapes. */
const NEEDS_UNQUOTE = /["'\\]/;

export function unquote(raw: string): { value: string; quoted: boolean; envVars?: string[]; unterminated?: boolean } {
  if (!NEEDS_UNQUOTE.test(raw)) return { value: raw, quoted: false };
  let out = '';
  let squote = false;
  let dquote = false;
  let quoted = false;
  let envVars: string[] | undefined;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === "'" && !dquote) {
      squote = !squote;
      quoted = true;
      continue;
    }
    if (c === '"' && !squote) {
      dquote = !dquote;
      quoted = true;
      continue;
    }
    if (c === '\\' && !squote) {
      const n = raw[i + 1];
      switch (n) {
        case ' ':
        case '\\':
        case '#':
        case "'":
        case '"':
          out += n;
          i++;
          continue;
        case 't':
          out += '\t';
          i++;
          continue;
        case 'n':
          out += '\n';
          i++;
          continue;
        case 'r':
          out += '\r';
          i++;
          continue;
        case '$':
          if (dquote) {
            out += '$';
            i++;
            continue;
          }
          break;
        case 'x': {
          const hex = raw.slice(i + 2, i + 4);
          if (/^[0-9a-fA-F]{2}$/.test(hex)) {
            out += String.fromCharCode(parseInt(hex, 16));
            i += 3;
            continue;
          }
          break;
        }
        default:
          break;
      }
      out += c;
      continue;
    }
    if (c === '$' && dquote) {
      const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*)/.exec(raw.slice(i)) ?? /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(raw.slice(i));
      if (m) (envVars ??= []).push(m[1]);
    }
    out += c;
  }
  const r: { value: string; quoted: boolean; envVars?: string[]; unterminated?: boolean } = { value: out, quoted };
  if (envVars) r.envVars = envVars;
  if (squote || dquote) r.unterminated = true;
  return r;
}

function toWord(raw: string, start: number, special: boolean): Word {
  if (!special) return new WordNode(raw, start);
  const u = unquote(raw);
  return new EscapedWord(raw, start, u.value, u.quoted, u.envVars, u.unterminated ? true : undefined);
}

/** Splits `a,b(c,d)` at top-level commas, honouring quotes and nested parentheses. */
function splitTop(s: string): { text: string; offset: number }[] {
  const out: { text: string; offset: number }[] = [];
  let depth = 0;
  let q: string | undefined;
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (q) {
      if (c === '\\' && q === '"') i++;
      else if (c === q) q = undefined;
      continue;
    }
    if (c === '"' || c === "'") q = c;
    else if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      out.push({ text: s.slice(from, i), offset: from });
      from = i + 1;
    }
  }
  out.push({ text: s.slice(from), offset: from });
  return out;
}

function callParts(text: string): { name: string; args: string[]; unclosed: boolean; trailing: string } {
  const p = text.indexOf('(');
  if (p < 0) return { name: text, args: [], unclosed: false, trailing: '' };
  const name = text.slice(0, p);
  // the parenthesis that closes the first one, honouring quotes and nesting
  let depth = 0;
  let close = -1;
  let q: string | undefined;
  for (let i = p; i < text.length; i++) {
    const c = text[i];
    if (q) {
      if (c === '\\' && q === '"') i++;
      else if (c === q) q = undefined;
      continue;
    }
    if (c === '"' || c === "'") q = c;
    else if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) {
      close = i;
      break;
    }
  }
  const unclosed = close < 0;
  const inner = text.slice(p + 1, unclosed ? undefined : close);
  const args = inner.length ? splitTop(inner).map((a) => a.text) : [];
  return { name, args, unclosed, trailing: unclosed ? '' : text.slice(close + 1) };
}

/** Parses `fetch(args),conv(args),...` found at `base` in the text. */
export function parseSampleExpr(text: string, base: number): SampleNode {
  const parts = splitTop(text);
  const first = parts[0];
  const fp = callParts(first.text);
  const converters: SampleConverter[] = [];
  let unclosed = fp.unclosed;
  let bad = fp.trailing ? fp : undefined;
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i];
    const cp = callParts(part.text);
    converters.push({
      name: cp.name,
      args: cp.args,
      start: base + part.offset,
      end: base + part.offset + part.text.length,
      nameEnd: base + part.offset + cp.name.length,
    });
    if (cp.unclosed) unclosed = true;
    if (cp.trailing && !bad) bad = cp;
  }
  const s = new SampleNode(fp.name, base + fp.name.length, fp.args.length ? fp.args : EMPTY, exact(converters), base, base + text.length);
  if (unclosed) s.unclosed = true;
  if (bad) s.malformed = `unexpected '${bad.trailing}' after '${bad.name}(...)'`;
  return s;
}

/** Every `%[...]` sample expression inside a log-format word. */
export function logFormatSamples(w: Word): SampleExpr[] {
  const out: SampleExpr[] = [];
  const raw = w.raw;
  let i = raw.indexOf('%[');
  while (i >= 0) {
    let depth = 0;
    let j = i + 2;
    for (; j < raw.length; j++) {
      const c = raw[j];
      if (c === '[') depth++;
      else if (c === ']') {
        if (depth === 0) break;
        depth--;
      }
    }
    const inner = raw.slice(i + 2, j);
    if (inner.length) {
      const s = parseSampleExpr(inner, w.start + i + 2);
      if (j >= raw.length) s.unclosed = true;
      out.push(s);
    }
    i = raw.indexOf('%[', j);
  }
  return out;
}

function wordSample(w: Word): SampleNode {
  // A word quoted as a whole (`"var(txn.x),lower"`) holds the expression between its quotes.
  const q = w.raw[0];
  if ((q === '"' || q === "'") && w.raw.length >= 2 && w.raw[w.raw.length - 1] === q)
    return parseSampleExpr(w.raw.slice(1, -1), w.start + 1);
  return parseSampleExpr(w.raw, w.start);
}

/**
 * A sample expression that may continue over the next words: HAProxy reads `fetch, conv1,conv2`
 * as one expression when a word ends with a comma. Returns the expression and the words used.
 */
export function samplesFromWords(words: Word[], i: number): { sample: SampleNode; used: number } {
  const sample = wordSample(words[i]);
  let used = 1;
  let last = words[i];
  let converters: SampleConverter[] | undefined;
  while (last.value.endsWith(',') && i + used < words.length) {
    const next = words[i + used];
    const more = parseSampleExpr('x,' + next.raw, next.start - 2);
    converters ??= sample.converters.slice();
    // drop the empty converter left by the trailing comma, then append the next word's converters
    if (converters.length && converters[converters.length - 1].name === '') converters.pop();
    converters.push(...more.converters);
    if (more.malformed && !sample.malformed) sample.malformed = more.malformed;
    if (more.unclosed) sample.unclosed = true;
    sample.end = next.end;
    last = next;
    used++;
  }
  if (converters) sample.converters = exact(converters);
  return { sample, used };
}

/** Parses the words after `if`/`unless`. */
export function parseCondition(words: Word[], errors: SyntaxIssue[]): Condition {
  const kw = words[0];
  const groups: CondTerm[][] = [[]];
  const terms: CondTerm[] = [];
  let negated = false;
  let negStart = -1;
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    const v = w.quoted ? null : w.value;
    if (v === '||' || v === 'or') {
      if (negated) errors.push({ start: w.start, end: w.end, message: "'!' must be followed by an ACL" });
      negated = false;
      if (groups[groups.length - 1].length === 0) errors.push({ start: w.start, end: w.end, message: `'${v}' must follow an ACL` });
      groups.push([]);
      continue;
    }
    if (v === '!') {
      negated = !negated;
      if (negStart < 0) negStart = w.start;
      continue;
    }
    const termStart = negStart >= 0 ? negStart : w.start;
    let term: CondTerm;
    if (v === '!{') negated = !negated;
    if (v === '{' || v === '!{') {
      const inner: Word[] = [];
      let j = i + 1;
      let closed = false;
      for (; j < words.length; j++) {
        if (!words[j].quoted && words[j].value === '}') {
          closed = true;
          break;
        }
        inner.push(words[j]);
      }
      const endWord = closed ? words[j] : words[words.length - 1];
      const innerWords = exact(inner);
      term = new TermNode(
        'anonymous',
        negated,
        undefined,
        undefined,
        innerWords,
        inner.length ? samplesFromWords(innerWords, 0).sample : undefined,
        closed ? undefined : true,
        termStart,
        endWord.end,
      );
      if (!closed) {
        errors.push({ start: w.start, end: w.end, message: "missing closing '}' in condition" });
      } else if (inner.length === 0) {
        errors.push({ start: w.start, end: words[j].end, message: 'anonymous ACL is empty' });
      }
      i = closed ? j : words.length;
    } else {
      let name = w.value;
      let neg = negated;
      if (!w.quoted && name.startsWith('!') && name.length > 1) {
        name = name.slice(1);
        neg = !neg;
      }
      term = new TermNode('acl', neg, name, w, undefined, undefined, undefined, termStart, w.end);
    }
    groups[groups.length - 1].push(term);
    terms.push(term);
    negated = false;
    negStart = -1;
  }
  if (negated)
    errors.push({ start: words[words.length - 1].start, end: words[words.length - 1].end, message: "'!' must be followed by an ACL" });
  if (terms.length === 0) errors.push({ start: kw.start, end: kw.end, message: `'${kw.value}' must be followed by a condition` });
  else if (groups[groups.length - 1].length === 0) {
    const last = words[words.length - 1];
    errors.push({ start: last.start, end: last.end, message: `'${last.value}' must be followed by an ACL` });
  }
  const nonEmpty: CondTerm[][] = [];
  for (const g of groups) if (g.length) nonEmpty.push(g.slice());
  return new ConditionNode(kw, exact(nonEmpty), exact(terms), words);
}

const SAMPLE_ACTION = /^(set-var|track-sc\d+|capture|set-src|set-dst)/;

function buildStatement(raw: RawLine, errors: SyntaxIssue[]): Statement {
  const { words, comment, line: lineNo } = raw;
  for (const w of words) {
    if (w.unterminated) errors.push({ start: w.start, end: w.end, message: 'unmatched quote' });
  }
  if (!words.length) return new StatementNode(lineNo, undefined, words, EMPTY, EMPTY, undefined, undefined, comment);
  let k = 0;
  if (!words[0].quoted && (words[0].value === 'no' || words[0].value === 'default') && words.length > 1) k = 1;
  const keyword = words[k];
  const kw = keyword.value;
  let rest = words.length > k + 1 ? words.slice(k + 1) : EMPTY;
  let condition: Condition | undefined;
  let acl: AclDecl | undefined;
  // gathered in a local array, kept at its exact size (most lines have none)
  const samples: SampleExpr[] = [];
  if (CONDITION_KEYWORDS.has(kw)) {
    const ci = rest.findIndex((w) => !w.quoted && (w.value === 'if' || w.value === 'unless'));
    if (ci >= 0) {
      condition = parseCondition(rest.slice(ci), errors);
      for (const t of condition.terms) if (t.sample) samples.push(t.sample);
      rest = ci > 0 ? rest.slice(0, ci) : EMPTY;
    }
  }
  if (kw === 'acl' && rest.length) {
    if (rest[1]) {
      const { sample, used } = samplesFromWords(rest, 1);
      acl = new AclNode(rest[0], rest[1], sample, rest.length > 1 + used ? rest.slice(1 + used) : EMPTY);
      samples.push(sample);
    } else acl = new AclNode(rest[0], undefined, undefined, EMPTY);
  } else if (kw === 'stick' && rest.length > 1 && /^(on|match|store-request|store-response)$/.test(rest[0].value)) {
    samples.push(wordSample(rest[1]));
  } else if (/^(http-request|http-response|http-after-response|tcp-request|tcp-response)$/.test(kw)) {
    for (let i = 0; i < rest.length - 1; i++) {
      const a = rest[i].value;
      if (SAMPLE_ACTION.test(a) && !a.startsWith('set-var-fmt')) {
        const next = rest[i + 1];
        if (!next.raw.includes('%[')) samples.push(wordSample(next));
        break;
      }
    }
  }
  if (kw !== 'acl') {
    for (const w of rest) if (w.raw.includes('%[')) samples.push(...logFormatSamples(w));
  }
  if (samples.length > 1) samples.sort((a, b) => a.start - b.start);
  return new StatementNode(lineNo, keyword, words, rest, exact(samples), condition, acl, comment);
}

/**
 * The grammar: lines before the first section (orphans), then sections, each a header line and
 * the lines up to the next header. Every line is one token, so the grammar is LL(1) and needs
 * no recovery.
 *   file    := line* section*
 *   section := header line*
 */
class SectionParser extends EmbeddedActionsParser {
  file!: HaproxyFile;
  /** Where the lines read end: the end of the text, or the first reused section's header line (reparseHaproxy). */
  stop = 0;
  /** The comment on that header's line: a fresh parse gives it to the section before it too (keepComment). */
  stopComment: Comment | undefined;
  private current: SectionNode | undefined;
  /** The current section's statements and comments, copied into it at its exact size when it closes. */
  private readonly body: Statement[] = [];
  private readonly bodyComments: Comment[] = [];

  constructor() {
    super(allTokens, { recoveryEnabled: false, skipValidations: true });
    this.performSelfAnalysis();
  }

  /** A non-header line: a statement of the current section (or an orphan), or only a comment. */
  private readonly lineIter = (): void => {
    const t = this.CONSUME(LineTok);
    if (this.RECORDING_PHASE) return;
    const st = buildStatement(t.payload as RawLine, this.file.errors);
    this.keepComment(st);
    if (!st.words.length) return;
    if (this.current) this.body.push(st);
    else this.file.orphans.push(st);
  };

  private readonly sectionIter = (): void => {
    const t = this.CONSUME(HeaderTok);
    if (!this.RECORDING_PHASE) this.openSection(t.payload as RawLine);
    this.MANY3(this.lineIter);
  };

  parseFile = this.RULE('file', (): void => {
    this.current = undefined;
    this.body.length = 0;
    this.bodyComments.length = 0;
    this.MANY(this.lineIter);
    this.MANY2(this.sectionIter);
    if (!this.RECORDING_PHASE && this.current) {
      if (this.stopComment) this.bodyComments.push(this.stopComment);
      this.closeSection(this.stop);
    }
  });

  private keepComment(st: Statement): void {
    if (!st.comment) return;
    this.file.comments.push(st.comment);
    if (this.current) this.bodyComments.push(st.comment);
  }

  /**
   * The body runs to the line of the next section header (blank lines and comments included),
   * so that a cursor on an empty line after the last statement is still in the section.
   */
  private closeSection(nextHeaderLineStart: number): void {
    const sec = this.current!;
    sec.bodyEnd = Math.max(sec.bodyStart, nextHeaderLineStart);
    if (sec.bodyStart > sec.bodyEnd) sec.bodyStart = sec.bodyEnd;
    sec.statements = exact(this.body);
    sec.comments = exact(this.bodyComments);
    this.body.length = 0;
    this.bodyComments.length = 0;
    this.current = undefined;
  }

  private openSection(raw: RawLine): void {
    const { file } = this;
    const { text, lineStarts } = file;
    const st = buildStatement(raw, file.errors);
    this.keepComment(st);
    const lineIdx = raw.line;
    if (this.current) this.closeSection(lineStarts[lineIdx]);
    const lineEnd = lineIdx + 1 < lineStarts.length ? lineStarts[lineIdx + 1] : text.length;
    const sec = new SectionNode(st, lineEnd, text.length);
    if (st.comment) this.bodyComments.push(st.comment);
    file.sections.push(sec);
    this.current = sec;
  }
}

let sectionParser: SectionParser | undefined;

/** Moves a statement's nodes by `d` characters and `dl` lines, in place (its comment is moved with the file's list). */
function moveStatement(st: Statement, d: number, dl: number): void {
  st.line += dl;
  const words = st.words;
  for (let i = 0; i < words.length; i++) words[i].start += d;
  // every sample of the line is in `samples` once (those of the condition's terms included)
  const samples = st.samples;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i];
    s.start += d;
    s.end += d;
    s.fetchEnd += d;
    const conv = s.converters;
    for (let j = 0; j < conv.length; j++) {
      const c = conv[j];
      c.start += d;
      c.end += d;
      c.nameEnd += d;
    }
  }
  const terms = st.condition?.terms;
  if (terms) {
    for (let i = 0; i < terms.length; i++) {
      terms[i].start += d;
      terms[i].end += d;
    }
  }
}

/** Moves a section (header, statements, body) by `d` characters and `dl` lines, in place. */
function moveSection(sec: Section, d: number, dl: number): void {
  sec.bodyStart += d;
  sec.bodyEnd += d;
  moveStatement(sec.header, d, dl);
  const list = sec.statements;
  for (let i = 0; i < list.length; i++) moveStatement(list[i], d, dl);
}

/** First index in `list` whose key is greater than `value` (lists in file order). */
function firstAfter<T>(list: readonly T[], key: (x: T) => number, value: number, lo = 0): number {
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(list[mid]) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The sections after an edit, taken over from the previous tree (reparseHaproxy). */
interface Tail {
  prev: HaproxyFile;
  /** Index in `prev.sections` of the first section taken over. */
  from: number;
  /** Offset in the previous text of that section's header line. */
  base: number;
  /** How far the text after the edit moved. */
  d: number;
}

/**
 * Parses `text`, an edit of the text `prev` was parsed from, re-reading only the lines of the
 * sections the edit touched; the result is what `parseHaproxy(text)` returns
 * (test/haproxy/reparse.test.ts holds the two equal over chained random edits of every corpus
 * file). HAProxy reads line by line and a section runs to the next section's header, so:
 * - the sections whose successor's header line comes before the changed line read the same in
 *   both texts and are kept as they are (the same objects); reading resumes at the first header
 *   not before the change;
 * - the sections whose header line starts after the changed characters (the text from there to
 *   the end is the same) read the same too, only moved: they are taken over as the same objects
 *   and their nodes moved in place by the length and line count the edit added. That changes
 *   `prev`: its sections from there on now hold `text`'s offsets (sectionMatch.ts records where
 *   each tree's sections were, so nothing compares them against the older text). A second
 *   re-parse of the same `prev` gets the tree the first made when the text is the same, and a
 *   fresh parse otherwise.
 * A previous parse with an error in the kept part is not used.
 */
export function reparseHaproxy(prev: HaproxyFile, text: string): HaproxyFile {
  // a tree is re-parsed once (the tree made from it shares its sections), and only while every
  // section is where it was in it (a later re-parse may have moved some)
  if (reparsedBefore(prev) || !sectionsInPlace(prev, 0, prev.sections.length)) return againOrFresh(prev, text);
  const next = reparseInPlace(prev, text);
  if (next !== prev) recordSuccessor(prev, next);
  return next;
}

function reparseInPlace(prev: HaproxyFile, text: string): HaproxyFile {
  const old = prev.text;
  const max = Math.min(old.length, text.length);
  const same = samePrefix(old, text, max);
  // the line of the first change, then the sections whose successor starts on an earlier line
  const starts = prev.lineStarts;
  const changedLine = firstAfter(starts, (x) => x, same) - 1;
  const sections = prev.sections;
  let kept = 0;
  while (kept + 1 < sections.length && sections[kept + 1].header.line < changedLine) kept++;
  const resumeLine = kept > 0 ? sections[kept].header.line : 0;
  const at = kept > 0 ? starts[resumeLine] : 0;
  if (kept > 0 && prev.errors.some((e) => e.start < at)) return parseHaproxy(text);
  // the same characters at the end of both texts, back to the line reading resumes at (they may
  // overlap the same ones at the start: text typed at the start of a line leaves that line's
  // break in both)
  const sameEnd = sameSuffix(old, text, max - at);
  // the first section whose header line and the line break before it are in those characters,
  // after the line reading resumes at in both texts
  const changeEnd = Math.max(old.length - sameEnd, at);
  const d = text.length - old.length;
  let from = kept;
  while (from < sections.length && (starts[sections[from].header.line] <= changeEnd || starts[sections[from].header.line] + d <= at))
    from++;
  // nothing before the change nor after it to take over
  if (kept === 0 && from >= sections.length) return parseHaproxy(text);
  const file: HaproxyFile = {
    type: 'file',
    text,
    sections: sections.slice(0, kept),
    orphans: kept > 0 ? prev.orphans.slice() : [],
    comments: [],
    errors: [],
    lineStarts: starts.slice(0, resumeLine + 1),
  };
  for (const c of prev.comments) {
    if (c.start >= at) break;
    file.comments.push(c);
  }
  if (from >= sections.length) return runParser(file, at);
  const base = starts[sections[from].header.line];
  return runParser(file, at, { prev, from, base, d });
}

// The common start and end of two texts are compared in blocks first (string equality of two
// slices is a native comparison; the slices share the texts' characters), then by character in
// the first block that differs: on a 5,000-line file this was a fifth of the re-parse.
const BLOCK = 2048;

/** Length of the common start of `a` and `b` (at most `max`). */
function samePrefix(a: string, b: string, max: number): number {
  let i = 0;
  while (i + BLOCK <= max && a.slice(i, i + BLOCK) === b.slice(i, i + BLOCK)) i += BLOCK;
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Length of the common end of `a` and `b` (at most `room`). */
function sameSuffix(a: string, b: string, room: number): number {
  const al = a.length;
  const bl = b.length;
  let n = 0;
  while (n + BLOCK <= room && a.slice(al - n - BLOCK, al - n) === b.slice(bl - n - BLOCK, bl - n)) n += BLOCK;
  while (n < room && a.charCodeAt(al - 1 - n) === b.charCodeAt(bl - 1 - n)) n++;
  return n;
}

/** `prev` was changed by a re-parse: the tree that one made if it was of the same text, else a fresh parse. */
function againOrFresh(prev: HaproxyFile, text: string): HaproxyFile {
  const next = successorOf(prev);
  return next && next.text === text && sectionsInPlace(next, 0, next.sections.length) ? next : parseHaproxy(text);
}

/** Parses a whole HAProxy configuration. Never throws. */
export function parseHaproxy(text: string): HaproxyFile {
  return runParser({ type: 'file', text, sections: [], orphans: [], comments: [], errors: [], lineStarts: [0] }, 0);
}

/**
 * Reads `file.text` from `from` (a line start, `file.lineStarts` filled up to it) into `file`, up
 * to the end or, with `tail`, up to the sections taken over, which are then moved and appended.
 */
function runParser(file: HaproxyFile, from: number, tail?: Tail): HaproxyFile {
  const text = file.text;
  try {
    const lineStarts = file.lineStarts;
    const stop = tail ? tail.base + tail.d : text.length;
    const first = tail ? tail.prev.sections[tail.from] : undefined;
    const tokens = tokenizeLines(text, lineStarts, from, stop);
    file.lineStarts = lineStarts;
    sectionParser ??= new SectionParser();
    sectionParser.file = file;
    sectionParser.input = tokens;
    sectionParser.stop = stop;
    sectionParser.stopComment = first?.header.comment;
    sectionParser.parseFile();
    for (const e of sectionParser.errors)
      file.errors.push({ start: e.token.startOffset, end: e.token.startOffset + 1, message: e.message });
    // keep nothing of this parse alive in the parser (the editor re-parses on every edit)
    sectionParser.input = [];
    sectionParser.file = undefined!;
    sectionParser.stopComment = undefined;
    // the lines read must end where the first section taken over begins (else: read everything)
    if (tail && first && !appendTail(file, tail, first)) return parseHaproxy(text);
    // the lists grew by push: kept at their exact size (the line table of a 50k-line file had ~100 KB spare)
    file.sections = file.sections.slice();
    file.orphans = exact(file.orphans);
    file.comments = exact(file.comments);
    file.errors = exact(file.errors);
    file.lineStarts = file.lineStarts.slice();
  } catch (e) {
    sectionParser = undefined;
    // a fresh list: the one the parse made may already be the shared frozen empty list
    file.errors = [...file.errors, { start: 0, end: 0, message: `internal parser error: ${(e as Error)?.message ?? String(e)}` }];
  }
  recordSections(file);
  return file;
}

/** Appends the sections taken over from the previous tree, moved to their place in the new text; false when they do not fit. */
function appendTail(file: HaproxyFile, tail: Tail, first: Section): boolean {
  const { prev, from, base, d } = tail;
  const ls = file.lineStarts;
  const oldLine = first.header.line;
  // the lines read end where the first section taken over begins
  if (ls[ls.length - 1] !== base + d) return false;
  const dl = ls.length - 1 - oldLine;
  const ps = prev.lineStarts;
  for (let i = oldLine + 1; i < ps.length; i++) ls.push(ps[i] + d);
  for (const e of prev.errors) if (e.start >= base) file.errors.push({ start: e.start + d, end: e.end + d, message: e.message });
  const pc = prev.comments;
  for (let i = firstAfter(pc, (c) => c.start, base - 1); i < pc.length; i++) {
    const c = pc[i];
    if (d !== 0) {
      c.start += d;
      c.end += d;
    }
    file.comments.push(c);
  }
  const ps2 = prev.sections;
  for (let i = from; i < ps2.length; i++) {
    if (d !== 0 || dl !== 0) moveSection(ps2[i], d, dl);
    file.sections.push(ps2[i]);
  }
  return true;
}
