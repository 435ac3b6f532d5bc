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
function tokenizeLines(text: string, lineStarts: number[], from = 0): IToken[] {
  const tokens: IToken[] = [];
  const n = text.length;
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
  if (!special) return { start, end: start + raw.length, raw, value: raw, quoted: false };
  const u = unquote(raw);
  const w: Word = { start, end: start + raw.length, raw, value: u.value, quoted: u.quoted };
  if (u.envVars) w.envVars = u.envVars;
  if (u.unterminated) w.unterminated = true;
  return w;
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
export function parseSampleExpr(text: string, base: number): SampleExpr {
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
  const s: SampleExpr = {
    fetch: fp.name,
    fetchEnd: base + fp.name.length,
    args: fp.args,
    converters,
    start: base,
    end: base + text.length,
  };
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

function wordSample(w: Word): SampleExpr {
  // A word quoted as a whole (`"var(txn.x),lower"`) holds the expression between its quotes.
  const q = w.raw[0];
  if ((q === '"' || q === "'") && w.raw.length >= 2 && w.raw[w.raw.length - 1] === q) return parseSampleExpr(w.raw.slice(1, -1), w.start + 1);
  return parseSampleExpr(w.raw, w.start);
}

/**
 * A sample expression that may continue over the next words: HAProxy reads `fetch, conv1,conv2`
 * as one expression when a word ends with a comma. Returns the expression and the words used.
 */
export function samplesFromWords(words: Word[], i: number): { sample: SampleExpr; used: number } {
  const sample = wordSample(words[i]);
  let used = 1;
  let last = words[i];
  while (last.value.endsWith(',') && i + used < words.length) {
    const next = words[i + used];
    const more = parseSampleExpr('x,' + next.raw, next.start - 2);
    // drop the empty converter left by the trailing comma, then append the next word's converters
    if (sample.converters.length && sample.converters[sample.converters.length - 1].name === '') sample.converters.pop();
    sample.converters.push(...more.converters);
    if (more.malformed && !sample.malformed) sample.malformed = more.malformed;
    if (more.unclosed) sample.unclosed = true;
    sample.end = next.end;
    last = next;
    used++;
  }
  return { sample, used };
}

function span(words: Word[]): { start: number; end: number } {
  return { start: words[0].start, end: words[words.length - 1].end };
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
      term = { kind: 'anonymous', negated, words: inner, start: termStart, end: endWord.end };
      if (inner.length) term.sample = samplesFromWords(inner, 0).sample;
      if (!closed) {
        term.unclosed = true;
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
      term = { kind: 'acl', negated: neg, name, nameWord: w, start: termStart, end: w.end };
    }
    groups[groups.length - 1].push(term);
    terms.push(term);
    negated = false;
    negStart = -1;
  }
  if (negated) errors.push({ start: words[words.length - 1].start, end: words[words.length - 1].end, message: "'!' must be followed by an ACL" });
  if (terms.length === 0) errors.push({ start: kw.start, end: kw.end, message: `'${kw.value}' must be followed by a condition` });
  else if (groups[groups.length - 1].length === 0) {
    const last = words[words.length - 1];
    errors.push({ start: last.start, end: last.end, message: `'${last.value}' must be followed by an ACL` });
  }
  return {
    keyword: kw.value as 'if' | 'unless',
    keywordWord: kw,
    groups: groups.filter((g) => g.length),
    terms,
    words,
    ...span(words),
  };
}

const SAMPLE_ACTION = /^(set-var|track-sc\d+|capture|set-src|set-dst)/;

function buildStatement(raw: RawLine, errors: SyntaxIssue[]): Statement {
  const { words, comment, line: lineNo } = raw;
  for (const w of words) {
    if (w.unterminated) errors.push({ start: w.start, end: w.end, message: 'unmatched quote' });
  }
  const st: Statement = {
    type: 'statement',
    line: lineNo,
    args: [],
    words,
    samples: [],
    start: words.length ? words[0].start : (comment?.start ?? 0),
    end: words.length ? words[words.length - 1].end : (comment?.end ?? 0),
  };
  if (comment) st.comment = comment;
  if (!words.length) return st;
  let k = 0;
  if (!words[0].quoted && (words[0].value === 'no' || words[0].value === 'default') && words.length > 1) {
    st.prefix = words[0];
    k = 1;
  }
  st.keyword = words[k];
  const kw = words[k].value;
  let rest = words.slice(k + 1);
  if (CONDITION_KEYWORDS.has(kw)) {
    const ci = rest.findIndex((w) => !w.quoted && (w.value === 'if' || w.value === 'unless'));
    if (ci >= 0) {
      st.condition = parseCondition(rest.slice(ci), errors);
      for (const t of st.condition.terms) if (t.sample) st.samples.push(t.sample);
      rest = rest.slice(0, ci);
    }
  }
  st.args = rest;
  if (KEYWORD_FAMILIES.has(kw) && rest.length) st.sub = rest[0];
  if (kw === 'acl' && rest.length) {
    const acl: AclDecl = { name: rest[0], rest: rest.slice(2) };
    if (rest[1]) {
      const { sample, used } = samplesFromWords(rest, 1);
      acl.criterion = rest[1];
      acl.sample = sample;
      acl.rest = rest.slice(1 + used);
      st.samples.push(sample);
    }
    st.acl = acl;
  } else if (kw === 'stick' && rest.length > 1 && /^(on|match|store-request|store-response)$/.test(rest[0].value)) {
    st.samples.push(wordSample(rest[1]));
  } else if (/^(http-request|http-response|http-after-response|tcp-request|tcp-response)$/.test(kw)) {
    for (let i = 0; i < rest.length - 1; i++) {
      const a = rest[i].value;
      if (SAMPLE_ACTION.test(a) && !a.startsWith('set-var-fmt')) {
        const next = rest[i + 1];
        if (!next.raw.includes('%[')) st.samples.push(wordSample(next));
        break;
      }
    }
  }
  if (kw !== 'acl') {
    for (const w of rest) if (w.raw.includes('%[')) st.samples.push(...logFormatSamples(w));
  }
  if (st.samples.length > 1) st.samples.sort((a, b) => a.start - b.start);
  return st;
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
  private current: Section | undefined;

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
    if (this.current) this.current.statements.push(st);
    else this.file.orphans.push(st);
  };

  private readonly sectionIter = (): void => {
    const t = this.CONSUME(HeaderTok);
    if (!this.RECORDING_PHASE) this.openSection(t.payload as RawLine);
    this.MANY3(this.lineIter);
  };

  parseFile = this.RULE('file', (): void => {
    this.current = undefined;
    this.MANY(this.lineIter);
    this.MANY2(this.sectionIter);
    if (!this.RECORDING_PHASE && this.current) closeSection(this.current, this.file.text.length);
  });

  private keepComment(st: Statement): void {
    if (!st.comment) return;
    this.file.comments.push(st.comment);
    if (this.current) this.current.comments.push(st.comment);
  }

  private openSection(raw: RawLine): void {
    const { file } = this;
    const { text, lineStarts } = file;
    const st = buildStatement(raw, file.errors);
    this.keepComment(st);
    const lineIdx = raw.line;
    if (this.current) closeSection(this.current, lineStarts[lineIdx]);
    const lineEnd = lineIdx + 1 < lineStarts.length ? lineStarts[lineIdx + 1] : text.length;
    const sec: Section = {
      type: 'section',
      keyword: st.keyword!.value,
      header: st,
      headerStart: st.start,
      headerEnd: st.comment ? st.comment.end : st.end,
      bodyStart: lineEnd,
      bodyEnd: text.length,
      statements: [],
      comments: [],
      start: st.start,
      end: text.length,
    };
    if (st.args[0]) sec.name = st.args[0];
    if (st.comment) sec.comments.push(st.comment);
    file.sections.push(sec);
    this.current = sec;
  }
}

let sectionParser: SectionParser | undefined;

/**
 * Parses `text`, an edit of the text `prev` was parsed from, reusing the sections that end before
 * the line of the first changed character; the result is what `parseHaproxy(text)` returns
 * (test/haproxy/reparse.test.ts holds the two equal over random edits of every corpus file).
 * HAProxy reads line by line and a section runs to the next section's header, so a section whose
 * successor's header line comes before the changed line reads the same in both texts; reading
 * resumes at that first header not before the change. A previous parse with an error in the
 * reused part is not used.
 */
export function reparseHaproxy(prev: HaproxyFile, text: string): HaproxyFile {
  const old = prev.text;
  const max = Math.min(old.length, text.length);
  let same = 0;
  while (same < max && old.charCodeAt(same) === text.charCodeAt(same)) same++;
  // the line of the first change, then the sections whose successor starts on an earlier line
  const starts = prev.lineStarts;
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (starts[mid] <= same) lo = mid + 1;
    else hi = mid;
  }
  const changedLine = lo - 1;
  const sections = prev.sections;
  let kept = 0;
  while (kept + 1 < sections.length && sections[kept + 1].header.line < changedLine) kept++;
  if (kept === 0) return parseHaproxy(text);
  const resumeLine = sections[kept].header.line;
  const at = starts[resumeLine];
  if (prev.errors.some((e) => e.start < at)) return parseHaproxy(text);
  const file: HaproxyFile = {
    type: 'file',
    text,
    sections: sections.slice(0, kept),
    orphans: prev.orphans.slice(),
    comments: [],
    errors: [],
    lineStarts: starts.slice(0, resumeLine + 1),
  };
  for (const c of prev.comments) {
    if (c.start >= at) break;
    file.comments.push(c);
  }
  return runParser(file, at);
}

/** Parses a whole HAProxy configuration. Never throws. */
export function parseHaproxy(text: string): HaproxyFile {
  return runParser({ type: 'file', text, sections: [], orphans: [], comments: [], errors: [], lineStarts: [0] }, 0);
}

/** Reads `file.text` from `from` (a line start, `file.lineStarts` filled up to it) into `file`. */
function runParser(file: HaproxyFile, from: number): HaproxyFile {
  const text = file.text;
  try {
    const lineStarts = file.lineStarts;
    const tokens = tokenizeLines(text, lineStarts, from);
    file.lineStarts = lineStarts;
    sectionParser ??= new SectionParser();
    sectionParser.file = file;
    sectionParser.input = tokens;
    sectionParser.parseFile();
    for (const e of sectionParser.errors) file.errors.push({ start: e.token.startOffset, end: e.token.startOffset + 1, message: e.message });
    // keep nothing of this parse alive in the parser (the editor re-parses on every edit)
    sectionParser.input = [];
    sectionParser.file = undefined!;
  } catch (e) {
    sectionParser = undefined;
    file.errors.push({ start: 0, end: 0, message: `internal parser error: ${(e as Error)?.message ?? String(e)}` });
  }
  return file;
}

function closeSection(sec: Section, nextHeaderLineStart: number): void {
  // The body runs to the line of the next section header (blank lines and comments included),
  // so that a cursor on an empty line after the last statement is still in the section.
  sec.bodyEnd = Math.max(sec.bodyStart, nextHeaderLineStart);
  if (sec.bodyStart > sec.bodyEnd) sec.bodyStart = sec.bodyEnd;
  sec.end = Math.max(sec.headerEnd, sec.bodyEnd);
}
