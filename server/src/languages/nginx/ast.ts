// The nginx AST: what the parser (parser.ts) produces and what every other part of the
// project (validation, completion, hover, tuning rules, the benchmark sandbox, the LSP
// adapter) reads. Plain data with offsets into the text (`start` inclusive, `end` exclusive);
// convert with `TextDocument.positionAt`. Keep this file stable: others code against it.
//
// Words follow nginx's own reader (ngx_conf_read_token): a word ends at whitespace, `;` or
// `{` (a `}` only closes a block at the start of a word); quotes and `#` are special only at
// the start of a word; `\` escapes the next character.

/** How a word was written. */
export type QuoteKind = 'none' | 'single' | 'double';

/** One token of a directive: its name or an argument. */
export interface Word {
  /** The text as written, quotes and backslashes included. */
  raw: string;
  /** The value nginx sees: quotes removed, `\"` `\'` `\\` `\t` `\r` `\n` unescaped. */
  value: string;
  quote: QuoteKind;
  /** False only for a quoted word whose closing quote is missing (the parser cut it at the line end). */
  closed: boolean;
  start: number;
  end: number;
}

/** `{ ... }` after a directive. */
export interface Block {
  /** Offset of `{`. */
  start: number;
  /** Offset just after `}`; the end of the text when the block is not closed. */
  end: number;
  /** Offset of the closing `}`, undefined when missing. */
  closeStart?: number;
  closed: boolean;
  children: Directive[];
}

export interface Directive {
  /** Value of the first word (the directive name as nginx sees it). */
  name: string;
  nameStart: number;
  nameEnd: number;
  /**
   * The first word itself. The parser's nodes make it when it is read: equal each time, not
   * always the same object (compare words by offset, not by identity).
   */
  nameWord: Word;
  args: Word[];
  block?: Block;
  /** True when ended by `;` or by a block. */
  terminated: boolean;
  /** Offset of the terminating `;`, when there is one. */
  semicolon?: number;
  /** From the name's start to after `;` / `}` (or the last word when unterminated). */
  start: number;
  end: number;
  /**
   * For `*_by_lua_block` (and other raw blocks): the range strictly inside the braces. The block
   * is then present with no children; its content is not nginx syntax.
   */
  rawBody?: { start: number; end: number };
  /**
   * True for a line inside a `map`, `geo`, `types`, `split_clients`, `match`, `charset_map`
   * body: a table entry (`key value;`), not a directive; it is never validated as one.
   */
  entry: boolean;
}

export interface Comment {
  /** Text after `#`, up to the line end (no newline). */
  text: string;
  /** Offset of `#`. */
  start: number;
  end: number;
}

export type SyntaxErrorKind =
  | 'unexpected' // unexpected ";" / "{" / "}" / character after a quote
  | 'eof' // unexpected end of file
  | 'unterminated-quote';

export interface NginxSyntaxError {
  kind: SyntaxErrorKind;
  message: string;
  start: number;
  end: number;
}

export interface NginxFile {
  text: string;
  /** Top-level directives (main context, or the context a fragment is included in). */
  directives: Directive[];
  /** Every comment of the file in text order, at any depth. */
  comments: Comment[];
  errors: NginxSyntaxError[];
}

/** Blocks whose bodies are tables of entries rather than directives. */
export const ENTRY_BLOCKS: ReadonlySet<string> = new Set(['map', 'geo', 'types', 'split_clients', 'match', 'charset_map']);

/** Whether a directive name opens a raw (non-nginx) body, like `content_by_lua_block`. */
export function isRawBlockName(name: string): boolean {
  return name.endsWith('_by_lua_block');
}

export type Visitor = (directive: Directive, ancestors: readonly Directive[]) => void | boolean;

/**
 * Depth-first, in text order. `ancestors` are the enclosing block directives, outermost first
 * (do not keep the array: it is reused). Return `false` to skip a directive's children.
 */
export function walk(file: NginxFile, visitor: Visitor): void {
  const stack: Directive[] = [];
  const visit = (list: Directive[]): void => {
    for (const d of list) {
      const r = visitor(d, stack);
      if (r !== false && d.block && d.block.children.length) {
        stack.push(d);
        visit(d.block.children);
        stack.pop();
      }
    }
  };
  visit(file.directives);
}

/** What lies at an offset. */
export interface NodeAt {
  /** Enclosing block directives whose body contains the offset, outermost first. */
  ancestors: Directive[];
  /** The directive whose words (name .. `;`) contain the offset, if any. */
  directive?: Directive;
  /** The word containing or touching the offset (start <= offset <= end). */
  word?: Word;
  /** -1 when `word` is the name, else the argument index; undefined without a word. */
  argIndex?: number;
  /** The block whose body (between the braces) contains the offset, innermost. */
  block?: Block;
  /** The comment containing the offset. */
  comment?: Comment;
  /** True when the offset is inside a raw (Lua) body. */
  inRawBody: boolean;
}

/** The index in [name, ...args] of the word holding `offset`, or -1; a binary search over the arguments (a line may hold a million). */
function wordAt(d: Directive, offset: number): number {
  if (d.nameWord.start <= offset && offset <= d.nameWord.end) return 0;
  const args = d.args;
  let lo = 0;
  let hi = args.length - 1;
  let found = -1;
  // the last argument starting at or before the offset (touching words: the first one wins, as a scan from the left would)
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (args[mid].start <= offset) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (found < 0) return -1;
  if (found > 0 && args[found - 1].end >= offset) found--;
  return args[found].end >= offset ? found + 1 : -1;
}

/** The directive/word/block chain at an offset; binary search per level, so cheap on big files. */
export function findNodeAt(file: NginxFile, offset: number): NodeAt {
  const out: NodeAt = { ancestors: [], inRawBody: false };
  out.comment = findComment(file.comments, offset);
  let list = file.directives;
  for (;;) {
    // last directive starting at or before the offset
    let lo = 0;
    let hi = list.length - 1;
    let idx = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid].start <= offset) {
        idx = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (idx < 0) return out;
    const d = list[idx];
    const b = d.block;
    if (b && offset > b.start && (offset < b.end || (!b.closed && offset <= b.end))) {
      if (b.closed && offset >= (b.closeStart ?? b.end)) {
        // on or after the closing brace: belongs to the enclosing level
        if (offset === b.closeStart) return out;
        return out;
      }
      if (d.rawBody) {
        out.directive = d;
        out.inRawBody = true;
        out.block = b;
        out.ancestors.push(d);
        return out;
      }
      out.ancestors.push(d);
      out.block = b;
      list = b.children;
      continue;
    }
    let headEnd = b ? b.start : d.semicolon !== undefined ? d.semicolon : d.end;
    if (!d.terminated) {
      // a directive being typed: the blanks after its last word on the same line belong to it
      let k = headEnd;
      while (k < offset && (file.text[k] === ' ' || file.text[k] === '\t')) k++;
      if (k === offset) headEnd = offset;
    }
    if (offset <= headEnd || (!d.terminated && offset <= d.end)) {
      const wi = wordAt(d, offset);
      if (offset <= headEnd || wi >= 0) {
        out.directive = d;
        if (wi >= 0) {
          out.word = wi === 0 ? d.nameWord : d.args[wi - 1];
          out.argIndex = wi - 1;
        }
      }
    }
    return out;
  }
}

function findComment(comments: Comment[], offset: number): Comment | undefined {
  let lo = 0;
  let hi = comments.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = comments[mid];
    if (offset < c.start) hi = mid - 1;
    else if (offset > c.end) lo = mid + 1;
    else return offset > c.start ? c : undefined;
  }
  return undefined;
}

/**
 * The nginx context name of the innermost block in `ancestors` (outermost first):
 * `main`, `events`, `http`, `server`, `location`, `if in server`, `if in location`,
 * `limit_except`, `upstream`, `stream`, `stream/server`, `stream/upstream`, `mail`,
 * `mail/server`, `mgmt`, `acme_issuer`, `oidc_provider`; entry tables give their own name (`map`, `geo`, `types`, `split_clients`,
 * `match`, `charset_map`); any other block gives `block:<name>` (unknown to us).
 * `start` is the context the file is included in (default `main`).
 */
export function blockContext(ancestors: readonly Pick<Directive, 'name'>[], start: string = 'main'): string {
  let ctx = start;
  for (const a of ancestors) ctx = childContext(ctx, a.name);
  return ctx;
}

/** The context inside a block named `name` opened in context `ctx`. */
export function childContext(ctx: string, name: string): string {
  if (ENTRY_BLOCKS.has(name)) return name;
  switch (ctx) {
    case 'main':
      if (name === 'http' || name === 'stream' || name === 'mail' || name === 'events' || name === 'mgmt' || name === 'rtmp') return name;
      break;
    // the third-party RTMP module's blocks (its directives are in data/modules.json)
    case 'rtmp':
      if (name === 'server') return 'rtmp/server';
      break;
    case 'rtmp/server':
    case 'rtmp/application':
      if (name === 'application') return 'rtmp/application';
      break;
    case 'http':
      if (name === 'server' || name === 'upstream' || name === 'acme_issuer' || name === 'oidc_provider') return name;
      break;
    case 'server':
      if (name === 'location') return 'location';
      if (name === 'if') return 'if in server';
      break;
    case 'location':
      if (name === 'location') return 'location';
      if (name === 'if') return 'if in location';
      if (name === 'limit_except') return 'limit_except';
      break;
    case 'stream':
      if (name === 'server') return 'stream/server';
      if (name === 'upstream') return 'stream/upstream';
      break;
    case 'mail':
      if (name === 'server') return 'mail/server';
      break;
  }
  return `block:${name}`;
}

/** A `$name` / `${name}` reference inside a word. */
export interface VariableRef {
  name: string;
  /** Offset of `$`. */
  start: number;
  end: number;
  braced: boolean;
}

const NAME_CHAR = /[A-Za-z0-9_]/;

/**
 * Variable references in a word, with offsets into the text. A `$` not followed by a name (as
 * in a regex `^/a$`) is no reference; `\$` is escaped.
 */
export function variablesIn(word: Word): VariableRef[] {
  const out: VariableRef[] = [];
  const raw = word.raw;
  if (raw.indexOf('$') < 0) return out;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch !== '$') continue;
    if (raw[i + 1] === '{') {
      const close = raw.indexOf('}', i + 2);
      if (close < 0) continue;
      const name = raw.slice(i + 2, close);
      if (/^[A-Za-z0-9_]+$/.test(name)) out.push({ name, start: word.start + i, end: word.start + close + 1, braced: true });
      i = close;
      continue;
    }
    let j = i + 1;
    if (raw[j] >= '0' && raw[j] <= '9')
      j++; // `$1` is a capture: one digit only
    else while (j < raw.length && NAME_CHAR.test(raw[j])) j++;
    if (j > i + 1) out.push({ name: raw.slice(i + 1, j), start: word.start + i, end: word.start + j, braced: false });
    i = j - 1;
  }
  return out;
}
